"""Pok Deng's machine as the console draws it: a fixed layout of its states, the shoe's life
along the top and a round along the bottom, edges from the machine itself
(`station.core.diagram.mermaid`), the moves every state has said in notes."""

from __future__ import annotations

import functools
import re
from html import escape

from station.core.diagram import mermaid, states_of

GAME = "pokdeng"
BOX_W, BOX_H = 118, 34

STATES = states_of(GAME)
# where each state sits: the shoe's life along the top, a round along the bottom
POS: dict[str, tuple[int, int]] = {
    "idle": (10, 14), "shuffling": (160, 14), "ready": (310, 14), "burning": (460, 14),
    "between_rounds": (610, 14),
    "betting": (610, 124), "dealing": (460, 124), "revealing": (310, 124),
    "paused": (10, 124), "closed": (160, 124),
}
W, H = 740, 204


def edges() -> dict[tuple[str, str], list[str]]:
    """(source, dest) -> triggers, as the machine has them."""
    out: dict[tuple[str, str], list[str]] = {}
    for line in mermaid(game=GAME).splitlines():
        m = re.match(r"\s*(\w+) --> (\w+)(?::\s*(.*))?$", line)
        if m and m.group(1) in STATES:
            out[(m.group(1), m.group(2))] = [t.strip() for t in (m.group(3) or "").split("/") if t.strip()]
    return out


def _anchor(state: str, towards: tuple[float, float]) -> tuple[float, float]:
    """Where the line from the centre of `state` towards a point leaves its box."""
    x, y = POS[state]
    cx, cy = x + BOX_W / 2, y + BOX_H / 2
    dx, dy = towards[0] - cx, towards[1] - cy
    if dx == 0 and dy == 0:
        return cx, cy
    sx = (BOX_W / 2) / abs(dx) if dx else float("inf")
    sy = (BOX_H / 2) / abs(dy) if dy else float("inf")
    s = min(sx, sy)
    return cx + dx * s, cy + dy * s


def _centre(state: str) -> tuple[float, float]:
    x, y = POS[state]
    return x + BOX_W / 2, y + BOX_H / 2


@functools.cache
def state_svg() -> str:
    order = {s: i for i, s in enumerate(STATES)}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="state-diagram" viewBox="0 0 {W} {H}" '
        'role="img" aria-label="the table procedure; the current state is lit">',
        '<defs><marker id="arr" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#667"/>'
        "</marker></defs>",
    ]
    for (src, dst), triggers in sorted(edges().items(), key=lambda e: (order.get(e[0][0], 99), order.get(e[0][1], 99))):
        if src == dst or "paused" in (src, dst) or src not in POS or dst not in POS:
            continue
        if dst == "closed" or (dst == "idle" and src not in ("between_rounds", "revealing")):
            continue  # said in the notes below: twelve crossing arrows help nobody
        a = _anchor(src, _centre(dst))
        b = _anchor(dst, _centre(src))
        # edges going back in the procedure bend, so they do not lie on the forward ones
        back = order[dst] < order[src] or (src, dst) == ("betting", "revealing")
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        if back:
            dx, dy = b[0] - a[0], b[1] - a[1]
            n = max((dx * dx + dy * dy) ** 0.5, 1)
            bend = 26 if abs(dy) > 1 else 40
            mx, my = mx - dy / n * bend, my + dx / n * bend
        title = escape(f"{src} → {dst}: {', '.join(triggers)}")
        parts.append(
            f'<path class="edge" data-from="{src}" data-to="{dst}" d="M{a[0]:.1f},{a[1]:.1f} '
            f'Q{mx:.1f},{my:.1f} {b[0]:.1f},{b[1]:.1f}" fill="none" stroke="#889" '
            f'stroke-width="1.2" marker-end="url(#arr)"><title>{title}</title></path>'
        )
    for s in STATES:
        x, y = POS[s]
        parts.append(
            f'<g class="state" data-state="{s}"><rect x="{x}" y="{y}" width="{BOX_W}" '
            f'height="{BOX_H}" rx="7"/><text x="{x + BOX_W / 2}" y="{y + BOX_H / 2 + 5}" '
            f'text-anchor="middle">{s.replace("_", " ")}</text></g>'
        )
    parts.append('<text class="note" x="10" y="180">any state → paused on a fault; '
                 "resume returns to where the procedure stands</text>")
    parts.append('<text class="note" x="10" y="196">the shoe ends (end_shoe, or its last round '
                 "over) → idle; close_table → closed whenever no round is in progress</text>")
    parts.append("</svg>")
    return "".join(parts)
