"""What each game tells the camera: its table's zones and what lies in each (cards unless the
game says otherwise), as the layout loader takes them (firmware_bridge/camera/layout.py's
`GameZones`), and the layout of its studio table where it declares one (`Game.camera_layout`).
The camera side knows no games; the station hands it these."""

from __future__ import annotations

import copy
from typing import Any

from firmware_bridge.camera.layout import CARDS, GameZones, Layout, LayoutError, layout_from_dict


def game_zones(name: str) -> GameZones:
    """The camera zones of the game `name` (a layout's `[layout] game`); a LayoutError for a
    name that is no game of the station."""
    from station.games import GAMES, get_game

    if name not in GAMES:
        raise LayoutError(f"[layout] game {name!r} is no game of the station (games: {', '.join(GAMES)})")
    game = get_game(name)
    kinds = {z: game.zone_kinds.get(z, CARDS) for z in game.zones}
    return GameZones(name, game.title or name, kinds)


def game_layout_data(name: str) -> dict[str, Any] | None:
    """The layout of the game's studio table as a layout file holds it (a fresh copy), or None
    where the game declares none; a LayoutError for a name that is no game, or a declaration
    that cannot be loaded."""
    from station.games import GAMES, load_declared

    if name not in GAMES:
        raise LayoutError(f"game {name!r} is no game of the station (games: {', '.join(GAMES)})")
    spec = GAMES[name].camera_layout
    if spec is None:
        return None
    return copy.deepcopy(load_declared(name, "camera layout", spec, LayoutError))


def game_layout(name: str) -> Layout:
    """The game's studio layout, its zones checked against the game's and each given its kind;
    a LayoutError where the game declares none."""
    data = game_layout_data(name)
    if data is None:
        raise LayoutError(f"game {name!r} declares no camera layout: name a layout file")
    return layout_from_dict(data, source=f"{name}'s studio layout", game_zones=game_zones)
