"""Bead roads (路紙) drawn as SVG, for any game whose road is one bead per settled round and
position: in columns of six, top to bottom then left to right. Blue: the position won;
grey: it lost; green: tie. An outer ring and a yellow dot at the bead's top-left carry what
the game says they mean (`ring_means`; the dot is a pair). Each bead carries `data-*`
attributes naming its round and what it shows, so the floor (and the tests) can read a road
without guessing from colours. A game's road (its `Road`, station/games/presentation.py)
says what each round puts on it; this module only draws.
"""

from __future__ import annotations

from html import escape
from typing import Any

ROWS = 6
CELL = 26  # px per bead cell
COLOURS = {"win": "#1f6fd1", "lose": "#8a8f98", "tie": "#2e9e4f"}
RING = "#d4a017"
PAIR_DOT = "#ffd60a"


def beads_svg(beads: list[dict[str, Any]], position: str, *, min_columns: int = 12,
              ring_means: str = "ring") -> str:
    """Each bead: `round_id`, `outcome` (win, lose, tie), `ring`, `pair`, and optionally
    `hand` and `points` (said in its title)."""
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
