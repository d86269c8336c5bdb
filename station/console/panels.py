"""What each game's panel on the console reads from the table's journal (records only: a
record names a card only once it is public, PROCEDURE.md §4 and §7.10).

- Pok Deng: one bead road per player position, per shoe.
- Pai Gow: one bead road per door (win or lose against the banker) and the banker's hand
  history, over the table's whole journal (a shuffle serves two rounds only: a road per
  shuffle would hold two beads) unless a shoe is asked for.
- Si Zhi Dao: no road; a results history of the games: winners, pot, tie rounds.

`GAME_PANEL` says which panel a table of each game gets; another game (a game of the
kernel's tests, say) gets Pok Deng's layout of positions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from station.console.beadroad import beads_svg, paigow_road, road, road_svg

GAME_PANEL = {"pokdeng": "pokdeng", "paigow": "paigow", "sizhidao": "sizhidao"}
PAIGOW_DOORS = ("SHUN", "CHU", "DAO")
BANKER_HISTORY_KEPT = 60
RESULTS_KEPT = 100

Records = Callable[[tuple[str, ...]], list[dict[str, Any]]]


def panel_of(game: str) -> str:
    return GAME_PANEL.get(game, "pokdeng")


def roads(game: str, records: Records, positions: list[str], shoe: int | None,
          current_shoe: int | None) -> dict[str, Any]:
    """The /roads answer of a table: its roads (and the banker's history at Pai Gow)."""
    panel = panel_of(game)
    if panel == "sizhidao":
        return {"shoe": None, "rounds": 0, "roads": {}, "results": results_history(records)}
    hands = records(("hand",))
    if panel == "paigow":
        if shoe is not None:
            hands = [h for h in hands if h.get("shoe") == shoe]
        return {
            "shoe": shoe, "rounds": len(hands),
            "roads": {d: {"svg": beads_svg(paigow_road(hands, d), d, ring_means="special"),
                          "beads": paigow_road(hands, d)} for d in PAIGOW_DOORS},
            "banker": banker_history(hands),
        }
    if shoe is None:
        shoe = current_shoe
    hands = [h for h in hands if shoe is not None and h.get("shoe") == shoe]
    return {"shoe": shoe, "rounds": len(hands),
            "roads": {p: {"svg": road_svg(hands, p), "beads": road(hands, p)}
                      for p in positions if p != "B"}}


def banker_history(hands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The banker's hands, newest first: its cards, hand and points, and how many doors it
    beat (a door that does not win loses to the banker, ties included)."""
    out = []
    for h in hands[-BANKER_HISTORY_KEPT:]:
        res = h.get("results") or {}
        b = res.get("BANKER") or {}
        out.append({"round_id": h["round_id"], "shoe": h.get("shoe"), "round": h.get("round"),
                    "cards": list((h.get("cards") or {}).get("BANKER") or []),
                    "hand": b.get("hand"), "points": b.get("points"),
                    "beat": [d for d in PAIGOW_DOORS if (res.get(d) or {}).get("outcome") == "lose"]})
    out.reverse()
    return out


def results_history(records: Records) -> list[dict[str, Any]]:
    """Si Zhi Dao's finished games, newest first: each game's winners (seat and account),
    pot, tie rounds, or the cancel and its reason."""
    recs = records(("game_open", "deal_open", "game_settled", "round_cancelled"))
    games: dict[str, dict[str, Any]] = {}
    deals: dict[str, int] = {}
    out = []
    for r in recs:
        t = r["type"]
        if t == "game_open":
            games[r["game_id"]] = r
        elif t == "deal_open":
            gid = re.sub(r"-D\d+$", "", r["deal_id"])
            deals[gid] = deals.get(gid, 0) + 1
        elif t == "game_settled":
            opened = games.get(r["game_id"]) or {}
            seat_of = {a: s for s, a in (opened.get("players") or {}).items()}
            out.append({"game_id": r["game_id"], "status": "settled", "t": r["t"],
                        "winners": [{"seat": seat_of.get(a), "account": a, "amount": amount}
                                    for a, amount in sorted(r["payouts"].items(),
                                                            key=lambda kv: seat_of.get(kv[0]) or "")],
                        "pot": r["pot"], "tie_rounds": max(deals.get(r["game_id"], 1) - 1, 0),
                        "players": len(opened.get("players") or {})})
        elif t == "round_cancelled" and r["round_id"] in games:
            refunds = r.get("refunds") or []
            out.append({"game_id": r["round_id"], "status": "cancelled", "t": r["t"],
                        "reason": r.get("reason"), "winners": [],
                        "pot": sum(x.get("amount", 0) for x in refunds),
                        "tie_rounds": max(deals.get(r["round_id"], 1) - 1, 0),
                        "players": len((games.get(r["round_id"]) or {}).get("players") or {})})
    out.reverse()
    return out[:RESULTS_KEPT]
