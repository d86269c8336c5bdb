"""Si Zhi Dao at the console and for its players: the seats panel (panel.html, panel.js),
no road but a results history of the games (winners, pot, tie rounds), the recall of a game,
and the player actions and seat page (seat_page/) the player API takes
(station/live/player_api.py).

Everything read here is public: a seat's cards are named only in `private` records, which
the console never reads, and in the showdown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from station.games.presentation import (
    PlayerActionError,
    Presentation,
    RecallError,
    Records,
    Road,
)

RESULTS_KEPT = 100
#: a game: `SZ-01-G3` (its deals are `SZ-01-G3-D1`...)
GAME_ID = re.compile(r"^[A-Za-z0-9_.\-]+-G\d+$")
#: the records of a game a recall shows
GAME_RECALL_TYPES = ("game_open", "deal_open", "showdown", "layers", "buy_in", "game_settled",
                     "round_cancelled", "fault", "resumed", "warning")
#: the game's part of the public view
VIEW_KEY = "sizhidao"


def results_history(records: Records) -> list[dict[str, Any]]:
    """The finished games, newest first: each game's winners (seat and account), pot, tie
    rounds, or the cancel and its reason."""
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


class ResultsHistory(Road):
    def read(self, records: Records, positions: list[str], shoe: int | None,
             current_shoe: int | None) -> dict[str, Any]:
        return {"shoe": None, "rounds": 0, "roads": {}, "results": results_history(records)}


def _deal(view: Mapping[str, Any]) -> dict[str, Any]:
    """The deal in progress, or {}."""
    return ((((view.get(VIEW_KEY) or {}).get("game")) or {}).get("deal")) or {}


def _cancelled(record: dict[str, Any] | None) -> dict[str, Any] | None:
    if not record:
        return None
    return {"reason": record.get("reason"), "user": record.get("user"), "t": record.get("t")}


class SiZhiDaoPanel(Presentation):
    panel = "sizhidao"
    files = {"html": "panel.html", "road_html": "road.html", "js": "panel.js", "css": "panel.css"}
    road_class = ResultsHistory
    view_key = VIEW_KEY
    player_page = "seat_page"
    player_files = {"seat.js": "text/javascript", "seat.css": "text/css"}

    # a game is over when it settles (or is cancelled): the list shows its pot and payouts
    finished_types = ("game_settled",)

    def finished_item(self, record: Mapping[str, Any]) -> dict[str, Any]:
        if record.get("type") != "game_settled":
            return super().finished_item(record)
        return {"pot": record["pot"], "payouts": record["payouts"]}

    def no_own_part(self, account: str) -> dict[str, Any]:
        # no seat yet: no cards, no deal of one's own
        return {"account": account, "seat": None, "cards": [], "deal_id": None}

    def round_in_view(self, view: Mapping[str, Any]) -> str | None:
        return (((view.get(VIEW_KEY) or {}).get("game")) or {}).get("game_id")

    def dealt(self, view: Mapping[str, Any]) -> dict[str, int]:
        return {str(s): int(n) for s, n in (_deal(view).get("cards") or {}).items()}

    def shown(self, view: Mapping[str, Any]) -> dict[str, list[str]]:
        # the seats shown down are public from the showdown's start
        return {s: list(a["cards"]) for s, a in (_deal(view).get("showdown") or {}).items()}

    def recall(self, records: Records, table: str, round_id: str) -> dict[str, Any] | None:
        """A game that is over: its players, each deal's contestants, showdown, layers and
        buy-ins, the payouts or the refunds (faults, decisions and audit: the console's)."""
        game_id = round_id
        if not GAME_ID.match(game_id) or not game_id.startswith(f"{table}-G"):
            raise RecallError(400, f"{game_id!r} is not a game id of table {table} "
                                   f"(they look like {table}-G3)")

        def of_game(r: dict[str, Any]) -> bool:
            key = r.get("game_id") or r.get("round_id") or r.get("deal_id") or ""
            return key == game_id or str(key).startswith(game_id + "-D")

        recs = [r for r in records(GAME_RECALL_TYPES) if of_game(r)]
        settled = next((r for r in recs if r["type"] == "game_settled"), None)
        cancelled = next((r for r in recs if r["type"] == "round_cancelled"), None)
        if settled is None and cancelled is None:
            raise RecallError(404, f"game {game_id} is not over (or never existed): only settled "
                                   "or cancelled games can be recalled")
        opened = next((r for r in recs if r["type"] == "game_open"), {})
        deals = []
        for d in (r for r in recs if r["type"] == "deal_open"):
            did = d["deal_id"]
            show = next((r for r in recs if r["type"] == "showdown" and r["deal_id"] == did), None)
            layers = next((r for r in recs if r["type"] == "layers" and r["deal_id"] == did), None)
            deals.append({"deal_id": did, "contestants": d["contestants"],
                          "showdown": show["seats"] if show else None,
                          "layers": layers["layers"] if layers else None,
                          "buy_ins": [{k: v for k, v in r.items() if k not in ("type",)}
                                      for r in recs if r["type"] == "buy_in" and r["deal_id"] == did]})
        return {
            "table": table, "round_id": game_id, "game_id": game_id,
            "status": "settled" if settled else "cancelled",
            "leader": opened.get("leader"), "players": opened.get("players"),
            "ante": opened.get("ante"), "opened_at": opened.get("t"),
            "deals": deals, "tie_rounds": max(len(deals) - 1, 0),
            "pot": settled["pot"] if settled else None,
            "payouts": settled["payouts"] if settled else None,
            "bets": (settled or {}).get("bets") or (cancelled or {}).get("refunds") or [],
            "cancelled": _cancelled(cancelled),
            "records": recs,
        }

    def check_player_action(self, data: Any, account: str | None) -> dict[str, Any]:
        # the shape check reads the kernel's player fields: loaded when a player acts, not
        # when settlement or a rules tool loads the game
        from station.games.sizhidao.actions import ActionShapeError, check_action

        try:
            return check_action(data, account=account)
        except ActionShapeError as e:
            raise PlayerActionError(e.reason, e.field) from None
