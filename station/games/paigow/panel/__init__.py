"""Pai Gow at the console: the doors panel with the dice (panel.html, panel.js), the dealer's
dice entry, and one bead road per door against the banker with the banker's hand history.

The roads cover the table's whole journal unless a shoe is asked for: a shuffle serves two
rounds only, so a road per shuffle would hold two beads. A door wins or loses (ties are the
banker's: PROCEDURE.md §6.5); the ring marks a special hand (supreme, the nines and gangs),
the dot a pair.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from station.games.bead_road import beads_svg
from station.games.paigow.bets import BANKER, DOORS
from station.games.paigow.rules import DICE_ZONE
from station.games.presentation import ActionBodyError, Presentation, Records, Road

BANKER_HISTORY_KEPT = 60
#: the faces of one die (PROCEDURE.md §6.2.4: two integers 1-6)
DIE_FACES = range(1, 7)


def door_bead(hand: dict[str, Any], door: str) -> dict[str, Any]:
    """What one validated hand puts on one door's road."""
    res = hand["results"][door]
    key = str(res.get("hand"))
    return {
        "round_id": hand["round_id"],
        "shoe": hand.get("shoe"),
        "round": hand.get("round"),
        "outcome": res["outcome"],
        "hand": key,
        "points": res.get("points"),
        "ring": key != "points" and not key.startswith("pair_"),
        "pair": key.startswith("pair_"),
    }


def door_road(hands: list[dict[str, Any]], door: str) -> list[dict[str, Any]]:
    return [door_bead(h, door) for h in hands if door in h.get("results", {})]


def banker_history(hands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The banker's hands, newest first: its cards, hand and points, and how many doors it
    beat (a door that does not win loses to the banker, ties included)."""
    out = []
    for h in hands[-BANKER_HISTORY_KEPT:]:
        res = h.get("results") or {}
        b = res.get(BANKER) or {}
        out.append({"round_id": h["round_id"], "shoe": h.get("shoe"), "round": h.get("round"),
                    "cards": list((h.get("cards") or {}).get(BANKER) or []),
                    "hand": b.get("hand"), "points": b.get("points"),
                    "beat": [d for d in DOORS if (res.get(d) or {}).get("outcome") == "lose"]})
    out.reverse()
    return out


class DoorRoads(Road):
    def read(self, records: Records, positions: list[str], shoe: int | None,
             current_shoe: int | None) -> dict[str, Any]:
        hands = records(("hand",))
        if shoe is not None:
            hands = [h for h in hands if h.get("shoe") == shoe]
        roads = {}
        for d in DOORS:
            beads = door_road(hands, d)
            roads[d] = {"svg": beads_svg(beads, d, ring_means="special"), "beads": beads}
        return {"shoe": shoe, "rounds": len(hands), "roads": roads,
                "banker": banker_history(hands)}


class PaiGowPanel(Presentation):
    panel = "paigow"
    files = {"html": "panel.html", "road_html": "road.html", "js": "panel.js", "css": "panel.css"}
    road_class = DoorRoads
    # `dice`: the dealer's entry of the two faces thrown (PROCEDURE.md §6.2.4)
    role_actions = {"dealer": frozenset({"dice"})}
    outcome_fields = ("dice", "first_door")
    # the dice tray: the faces thrown are public (0: a die not read)
    public_zones = frozenset({DICE_ZONE})

    def action_body(self, action: str, body: Mapping[str, Any]) -> dict[str, Any] | None:
        if action != "dice":
            return super().action_body(action, body)
        unknown = sorted(set(body) - {"action", "dice"})
        if unknown:
            raise ActionBodyError(None, f"unknown fields {unknown[:5]} for dice: send "
                                                 '{"action": "dice", "dice": [4, 5]}')
        return {"dice": dice_faces(body)}


def dice_faces(body: Mapping[str, Any]) -> list[int]:
    """The `dice` field of a dice entry: exactly two integers 1-6, or ActionBodyError naming
    the field. The table refuses other faces `bad_dice` too; the console sends none."""
    if "dice" not in body:
        raise ActionBodyError("bad_dice", 'the dice entry needs the field "dice": the two faces, '
                                          'e.g. {"action": "dice", "dice": [4, 5]}')
    faces = body["dice"]
    if (not isinstance(faces, list) or len(faces) != 2
            or not all(type(f) is int and f in DIE_FACES for f in faces)):
        shown = repr(faces)[:40]
        raise ActionBodyError("bad_dice", f'the field "dice" must be two integers 1 to 6, not {shown}')
    return list(faces)
