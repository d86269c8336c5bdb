"""The toy game's presentation (tests/core/toy_game.py), in its own package like any game's:
a console panel of its own (panel.html, panel.js, panel.css) and a road of its own — one
strip per position of the shoe, a bead per settled round, ringed when the position's card
was an ace (the highest card of the game) — and actions of its own for the dealer: `call`,
the dealer calling the high card of a round aloud, which names the position called, and
`extend_betting`, more seconds for the bettors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from station.games.bead_road import beads_svg
from station.games.presentation import ActionBodyError, Presentation, Records, Road

POSITIONS = ("LEFT", "RIGHT")


class HighCardRoad(Road):
    def read(self, records: Records, positions: list[str], shoe: int | None,
             current_shoe: int | None) -> dict[str, Any]:
        if shoe is None:
            shoe = current_shoe
        hands = [h for h in records(("hand",)) if h.get("shoe") == shoe]
        roads = {}
        for p in POSITIONS:
            beads = [{"round_id": h["round_id"], "round": h.get("round"),
                      "outcome": h["results"][p]["outcome"],
                      "ring": h["cards"][p][0][0] == "A", "pair": False,
                      "card": h["cards"][p][0]} for h in hands]
            roads[p] = {"svg": beads_svg(beads, p, ring_means="an ace"), "beads": beads}
        return {"shoe": shoe, "rounds": len(hands), "roads": roads}


class HighCardPanel(Presentation):
    panel = "highcard"
    files = {"html": "panel.html", "road_html": "road.html", "js": "panel.js", "css": "panel.css"}
    road_class = HighCardRoad
    # the dealer's call of the round's high card, by the position that holds it, and more
    # time for the bettors (how much at most is the table's setting, the procedure's to judge)
    role_actions = {"dealer": frozenset({"call", "extend_betting"})}

    def action_body(self, action: str, body: Mapping[str, Any]) -> dict[str, Any] | None:
        if action == "extend_betting":
            seconds = body.get("seconds")
            if set(body) != {"action", "seconds"} or isinstance(seconds, bool) or \
                    not isinstance(seconds, int):
                raise ActionBodyError("bad_seconds", 'more time is whole seconds: '
                                                     '{"action": "extend_betting", "seconds": n}')
            return {"seconds": seconds}
        if action != "call":
            return super().action_body(action, body)
        if set(body) != {"action", "position"} or body["position"] not in POSITIONS:
            raise ActionBodyError("bad_call", 'a call names its position: {"action": "call", '
                                              f'"position": one of {list(POSITIONS)}}}')
        return {"position": body["position"]}
