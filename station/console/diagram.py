"""The table procedure as an SVG state diagram for the console, drawn from the machine.

The edges come from the table core's own state machine (`station.core.diagram.mermaid`), so
the picture is the procedure the station enforces. A game may draw its machine its own way
(`Presentation.diagram()`, in its package); any other is laid out here from its states: the
shoe's life along the top, a round's states along the bottom. The page lights the table's
current state by its `data-state`. `paused` is reachable from every state on a fault and goes
back wherever the procedure stands on `resume`: drawn as one note rather than twenty arrows.
"""

from __future__ import annotations

import functools
import re
from html import escape

from station.console.panels import presentation
from station.core.diagram import mermaid
from station.games import get_game

BOX_W, BOX_H = 118, 34
H = 204


def _game_edges(game: str) -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for line in mermaid(game=game).splitlines():
        m = re.match(r"\s*(\w+) --> (\w+)(?::\s*(.*))?$", line)
        if m:
            out[(m.group(1), m.group(2))] = [t.strip() for t in (m.group(3) or "").split("/") if t.strip()]
    return out


@functools.cache
def game_svg(game: str) -> str:
    """A game's machine: its own drawing, or laid out from its own states and triggers: the
    shoe's life (and paused, closed) along the top, a round's states along the bottom."""
    own = presentation(game).diagram()
    if own is not None:
        return own
    proc = get_game(game).table_procedure()
    if proc is None:
        return ""
    states = list(proc.states)
    bottom = [s for s in states if s in proc.round_phases]
    top = [s for s in states if s not in proc.round_phases]
    step = BOX_W + 32
    pos = {s: (10 + i * step, 14) for i, s in enumerate(top)}
    pos.update({s: (10 + i * step, 124) for i, s in enumerate(bottom)})
    width = 20 + max(len(top), len(bottom)) * step - 32
    order = {s: i for i, s in enumerate(states)}

    def centre(s: str) -> tuple[float, float]:
        x, y = pos[s]
        return x + BOX_W / 2, y + BOX_H / 2

    def anchor(s: str, towards: tuple[float, float]) -> tuple[float, float]:
        cx, cy = centre(s)
        dx, dy = towards[0] - cx, towards[1] - cy
        if dx == 0 and dy == 0:
            return cx, cy
        k = min((BOX_W / 2) / abs(dx) if dx else float("inf"), (BOX_H / 2) / abs(dy) if dy else float("inf"))
        return cx + dx * k, cy + dy * k

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="state-diagram" data-game="{escape(game)}" '
        f'viewBox="0 0 {width} {H}" role="img" aria-label="the {escape(game)} table procedure; '
        'the current state is lit">',
        f'<defs><marker id="arr-{escape(game)}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#667"/>'
        "</marker></defs>",
    ]
    for (src, dst), triggers in sorted(_game_edges(game).items(),
                                       key=lambda e: (order.get(e[0][0], 99), order.get(e[0][1], 99))):
        if src == dst or "paused" in (src, dst) or "closed" in (src, dst) or src not in pos or dst not in pos:
            continue
        a, b = anchor(src, centre(dst)), anchor(dst, centre(src))
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        if order[dst] < order[src]:
            dx, dy = b[0] - a[0], b[1] - a[1]
            n = max((dx * dx + dy * dy) ** 0.5, 1)
            mx, my = mx - dy / n * 26, my + dx / n * 26
        title = escape(f"{src} → {dst}: {', '.join(triggers)}")
        parts.append(
            f'<path class="edge" data-from="{src}" data-to="{dst}" d="M{a[0]:.1f},{a[1]:.1f} '
            f'Q{mx:.1f},{my:.1f} {b[0]:.1f},{b[1]:.1f}" fill="none" stroke="#889" '
            f'stroke-width="1.2" marker-end="url(#arr-{escape(game)})"><title>{title}</title></path>')
    for s in states:
        x, y = pos[s]
        parts.append(
            f'<g class="state" data-state="{s}"><rect x="{x}" y="{y}" width="{BOX_W}" '
            f'height="{BOX_H}" rx="7"/><text x="{x + BOX_W / 2}" y="{y + BOX_H / 2 + 5}" '
            f'text-anchor="middle">{s.replace("_", " ")}</text></g>')
    parts.append('<text class="note" x="10" y="190">any state → paused on a fault; resume returns '
                 "to where the procedure stands; close_table → closed</text>")
    parts.append("</svg>")
    return "".join(parts)


def diagrams(games: list[str]) -> str:
    """One drawing per game of the console's tables; the page shows the selected table's."""
    out = []
    for g in dict.fromkeys(games):
        try:
            svg = game_svg(g)
        except (ValueError, KeyError):
            svg = ""
        out.append(f'<div class="game-diagram" data-game="{escape(g)}">{svg}</div>')
    return "".join(out)
