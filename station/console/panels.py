"""What the console draws of each game, taken from the game's presentation
(station/games/presentation.py, declared in the game's package): its panel's files, its
road or results history, its part of the view, its recall and the actions its roles add.
The console renders what a game declares and names none; a game that declares nothing
gets no panel and an empty road (never another game's).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from html import escape
from typing import Any

from station.console.users import ROLE_ACTIONS
from station.games import GAMES
from station.games.presentation import Presentation, Records, load_presentation

#: what the console serves of a panel on its own, by the file's ending (an .html fragment is
#: part of the console page, never a page by itself)
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css"}

#: rules class -> its presentation: a game registered anew or found again by a rescan is
#: another class, so it is never served the presentation of the one it replaced
_PRESENTATIONS: weakref.WeakKeyDictionary[type, Presentation] = weakref.WeakKeyDictionary()


def presentation(game: str) -> Presentation:
    """The presentation of a game by its name (ValueError: no such game, or one that cannot
    be loaded)."""
    try:
        cls = GAMES[game]
    except KeyError:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(sorted(GAMES))})") from None
    pres = _PRESENTATIONS.get(cls)
    if pres is None:
        pres = _PRESENTATIONS[cls] = load_presentation(cls())
    return pres


def roads(game: str, records: Records, positions: list[str], shoe: int | None,
          current_shoe: int | None) -> dict[str, Any]:
    """The /roads answer of a table: what its game's road reads of its journal."""
    pres = presentation(game)
    return pres.road_class(pres.game).read(records, positions, shoe, current_shoe)


def role_actions(game: str) -> dict[str, frozenset[str]]:
    """Role -> what it may send from the console to a table of this game: the kernel's
    decisions and the game's own actions (a dealer's dice entry, say). A game adds to the
    console's roles only, and never takes a kernel action (validated when it registers;
    dropped here too, so a dealer never gets a supervisor's decision)."""
    out = dict(ROLE_ACTIONS)
    kernel = frozenset().union(*ROLE_ACTIONS.values())
    for role, actions in presentation(game).role_actions.items():
        if role in ROLE_ACTIONS:
            out[role] = out[role] | (frozenset(actions) - kernel)
    return out


def panel_file(game: str, name: str) -> tuple[Any, str] | None:
    """(path, media type) of a file a game's panel declares, or None (also for a game that
    cannot be loaded: its rules or presentation fail to import)."""
    try:
        pres = presentation(game)
    except Exception:  # noqa: BLE001 - any failure of a game's code is "no such file" here
        return None
    path = pres.file(name)
    media = next((m for end, m in MEDIA_TYPES.items() if name.endswith(end)), None)
    if path is None or media is None or not path.is_file():
        return None
    return path, media


def page_parts(games: Iterable[str]) -> dict[str, str]:
    """The console page's game parts: each game's panel sections, its road sections, and
    the tags that load its script and styles (files served at /games/<game>/<file>)."""
    panels, roads_html, assets = [], [], []
    for g in dict.fromkeys(games):
        pres = presentation(g)
        for kind, name in pres.files.items():
            url = f"/games/{escape(g)}/{escape(name)}"
            if name.endswith(".js"):
                assets.append(f'<script src="{url}" defer></script>')
            elif name.endswith(".css"):
                assets.append(f'<link rel="stylesheet" href="{url}">')
            elif kind == "html":
                panels.append(pres.folder().joinpath(name).read_text(encoding="utf-8").strip())
            elif kind == "road_html":
                roads_html.append(pres.folder().joinpath(name).read_text(encoding="utf-8").strip())
    return {"panels": "\n\n  ".join(panels), "roads": "\n\n  ".join(roads_html),
            "assets": "\n".join(assets)}
