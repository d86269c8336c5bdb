"""What each game tells the camera: its table's zones and what lies in each (cards unless the
game says otherwise), as the layout loader takes them (firmware_bridge/camera/layout.py's
`GameZones`). The camera side knows no games; the station hands it this lookup."""

from __future__ import annotations

from firmware_bridge.camera.layout import CARDS, GameZones, LayoutError


def game_zones(name: str) -> GameZones:
    """The camera zones of the game `name` (a layout's `[layout] game`); a LayoutError for a
    name that is no game of the station."""
    from station.games import GAMES, get_game

    if name not in GAMES:
        raise LayoutError(f"[layout] game {name!r} is no game of the station (games: {', '.join(GAMES)})")
    game = get_game(name)
    kinds = {z: game.zone_kinds.get(z, CARDS) for z in game.zones}
    return GameZones(name, game.title or name, kinds)
