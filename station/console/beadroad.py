"""Bead roads (路紙), drawn as SVG: Pok Deng's one road per player position (RULES.md §1.8),
Pai Gow's one road per door against the banker.

One bead per settled round (cancelled rounds have no result and leave no bead), in columns
of six, top to bottom then left to right. Blue: the position won; grey: it lost; green: tie.
Pok Deng: an outer ring when the position's hand is suited or a 7.x class; a yellow dot at
the bead's top-left when the hand is a pair. Pai Gow: the ring for a special hand (supreme,
the nines and gangs), the dot for a pair. Each bead carries `data-*` attributes naming its
round and what it shows, so the floor (and the tests) can read a road without guessing from
colours.
"""

from __future__ import annotations

from html import escape
from typing import Any

from station.cards import parse_card
from station.games.pokdeng import evaluate_hand

ROWS = 6
CELL = 26  # px per bead cell
COLOURS = {"win": "#1f6fd1", "lose": "#8a8f98", "tie": "#2e9e4f"}
RING = "#d4a017"
PAIR_DOT = "#ffd60a"


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


def paigow_bead(hand: dict[str, Any], door: str) -> dict[str, Any]:
    """What one validated Pai Gow hand puts on one door's road (win or lose, ties are the
    banker's: PROCEDURE.md §6.5)."""
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


def paigow_road(hands: list[dict[str, Any]], door: str) -> list[dict[str, Any]]:
    return [paigow_bead(h, door) for h in hands if door in h.get("results", {})]


def road_svg(hands: list[dict[str, Any]], position: str, *, min_columns: int = 12) -> str:
    return beads_svg(road(hands, position), position, min_columns=min_columns)


def beads_svg(beads: list[dict[str, Any]], position: str, *, min_columns: int = 12,
              ring_means: str = "suited or 7.x") -> str:
    cols = max(min_columns, -(-len(beads) // ROWS))
    w, h = cols * CELL, ROWS * CELL
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="bead-road" data-position="{escape(position)}" '
        f'width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" '
        f'aria-label="bead road of {escape(position)}: {len(beads)} rounds">',
        f'<rect width="{w}" height="{h}" fill="#fbfaf5"/>',
    ]
    # the grid the beads sit in, as on a paper road
    for c in range(cols + 1):
        out.append(f'<line x1="{c * CELL}" y1="0" x2="{c * CELL}" y2="{h}" stroke="#ddd" stroke-width="1"/>')
    for r in range(ROWS + 1):
        out.append(f'<line x1="0" y1="{r * CELL}" x2="{w}" y2="{r * CELL}" stroke="#ddd" stroke-width="1"/>')
    for i, b in enumerate(beads):
        col, row = divmod(i, ROWS)
        cx, cy = col * CELL + CELL / 2, row * CELL + CELL / 2
        label = f"{b['round_id']}: {position} {b['outcome']}"
        if b.get("hand"):
            label += f" ({b['hand']}, {b['points']} points)"
        if b["ring"]:
            label += f", {ring_means}"
        if b["pair"]:
            label += ", pair"
        out.append(
            f'<g class="bead bead-{b["outcome"]}" data-round="{escape(b["round_id"])}" '
            f'data-outcome="{b["outcome"]}" data-ring="{int(b["ring"])}" data-pair="{int(b["pair"])}">'
            f"<title>{escape(label)}</title>"
        )
        if b["ring"]:
            out.append(f'<circle class="ring" cx="{cx}" cy="{cy}" r="11.5" fill="none" '
                       f'stroke="{RING}" stroke-width="2.2"/>')
        out.append(f'<circle class="body" cx="{cx}" cy="{cy}" r="8.5" fill="{COLOURS[b["outcome"]]}"/>')
        if b["pair"]:
            out.append(f'<circle class="pair" cx="{cx - 7}" cy="{cy - 7}" r="3.2" fill="{PAIR_DOT}" '
                       'stroke="#6b5900" stroke-width="0.6"/>')
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)
