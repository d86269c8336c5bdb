"""Si Zhi Dao's reference camera: the table's 4K layout of seven seats of four cards
(config/camera_sizhidao_4k.toml, the one its accuracy suite reads)."""

from __future__ import annotations

from typing import Any

from station.games.sizhidao.camera_accuracy import CAMERA


def camera_table() -> Any:
    from firmware_bridge.camera.config import load_camera_config
    from station.games.camera_zones import game_zones

    return load_camera_config(CAMERA, game_zones)
