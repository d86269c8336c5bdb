"""Wenzhou Pai Gow's reference camera: the studio's layout (config/camera_paigow_1080p.toml,
the one its accuracy suite reads), the doors on the card reader and the tray on the dice
reader."""

from __future__ import annotations

from typing import Any

from station.games.paigow.camera_accuracy import CAMERA


def camera_table() -> Any:
    from firmware_bridge.camera.config import load_camera_config
    from station.games.camera_zones import game_zones

    return load_camera_config(CAMERA, game_zones)
