"""Pok Deng's reference camera: the embedded 1920×1080 layout of its seven zones, every zone
read by the card reader."""

from __future__ import annotations

from typing import Any


def camera_table() -> Any:
    from firmware_bridge.camera.config import load_camera_config
    from station.games.camera_zones import game_layout_data, game_zones
    from station.games.pokdeng.rules import PokDeng

    return load_camera_config(None, game_zones, default=game_layout_data(PokDeng.name))
