"""Pok Deng's studio layout: where each zone lies in our 1920×1080 overhead camera's picture,
as a layout file holds it (firmware_bridge/camera/layout.py, docs/camera.md), so a Pok Deng
table, the simulator, the tests and the demo need no file at all (`PokDeng.camera_layout`).
config/camera_pokdeng_1080p.toml is the same table written out as a file."""

from __future__ import annotations

from typing import Any


def _studio_1080p() -> dict[str, Any]:
    # Five player zones along the top (the players' side), banker and burn zones along the
    # bottom (the dealer's side); the bottom-left corner is where the shoe and discard rack
    # stand. Each player zone is 374 px wide = 112 mm, room for two overlapping cards
    # turned by up to 20°.
    zones: dict[str, list[list[int]]] = {}
    for i in range(5):
        x0 = 8 + i * 382
        zones[f"P{i + 1}"] = [[x0, 16], [x0 + 374, 16], [x0 + 374, 556], [x0, 556]]
    zones["B"] = [[773, 576], [1147, 576], [1147, 1064], [773, 1064]]
    zones["BURN"] = [[1400, 576], [1774, 576], [1774, 1064], [1400, 1064]]
    return {
        "layout": {
            "name": "pokdeng-1080p",
            "game": "pokdeng",
            "width": 1920,
            "height": 1080,
            "mm_per_px": 0.30,
            "felt_bgr": [40, 112, 34],
        },
        "zones": {name: {"polygon": poly} for name, poly in zones.items()},
        # our studio deck (blue lattice back) on the green felt, as `station camera
        # calibrate` measured them; a table with another deck set calibrates its own
        "calibration": {
            "felt": {"bgr": [40, 112, 34]},
            "back": {"cells": [[26, 5], [27, 5], [27, 6]], "level": 0.5, "white_edge": 0.037,
                     "mean_bgr": [162, 85, 36], "texture": 21.3, "coverage": 1.0, "cards": 3},
        },
    }


#: the layout of our studio's Pok Deng table, 1920×1080 at 0.30 mm per pixel
LAYOUT: dict[str, Any] = _studio_1080p()
