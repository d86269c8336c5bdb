"""Pok Deng at the console: the shoe and round panels (panel.html, panel.js) and one bead
road per player position, per shoe (RULES.md §1.8).

A bead per settled round; its outer ring when the position's hand is suited or a 7.x class,
its yellow dot when the hand is a pair (cancelled rounds have no result and leave no bead).
"""

from __future__ import annotations

from typing import Any

from station.cards import parse_card
from station.games.bead_road import beads_svg
from station.games.pokdeng.rules import BANKER, evaluate_hand
from station.games.presentation import Presentation, Records, Road

RING_MEANS = "suited or 7.x"


def bead(hand: dict[str, Any], position: str) -> dict[str, Any]:
    """What one settled round puts on one position's road."""
    res = hand["results"][position]
    value = evaluate_hand([parse_card(c) for c in hand["cards"][position]])
    return {
        "round_id": hand["round_id"],
        "round": hand.get("round"),
        "outcome": res["outcome"],
        # suited, or any 7.x class (lion flush, special pair, royal, ten royal, flush zero)
        "ring": bool(value.suited or value.cls != "points"),
        "pair": bool(value.pair),
    }


def road(hands: list[dict[str, Any]], position: str) -> list[dict[str, Any]]:
    return [bead(h, position) for h in hands if position in h.get("results", {})]


class PositionRoads(Road):
    """One bead road per player position (the banker has none), of one shoe: the shoe in
    play unless another is asked for."""

    def read(self, records: Records, positions: list[str], shoe: int | None,
             current_shoe: int | None) -> dict[str, Any]:
        if shoe is None:
            shoe = current_shoe
        hands = [h for h in records(("hand",)) if shoe is not None and h.get("shoe") == shoe]
        out = {}
        for p in positions:
            if p == BANKER:
                continue
            beads = road(hands, p)
            out[p] = {"svg": beads_svg(beads, p, ring_means=RING_MEANS), "beads": beads}
        return {"shoe": shoe, "rounds": len(hands), "roads": out}


class PokDengPanel(Presentation):
    panel = "pokdeng"
    files = {"html": "panel.html", "road_html": "road.html", "js": "panel.js", "css": "panel.css"}
    road_class = PositionRoads

    def diagram(self) -> str | None:
        # drawn from the machine, imported when a console draws it (not with the rules)
        from station.games.pokdeng.panel.diagram import state_svg

        return state_svg()
