"""Si Zhi Dao's camera accuracy suite (`station camera accuracy --game sizhidao`): the seats
S1-S7 on the table's 4K layout (`config/camera_sizhidao_4k.toml`), read by the recogniser
the live camera uses, per deck style and perturbation.

The seat scenes are the sheet's (CARD_FACES.md "Seats", `firmware_bridge.camera.seat_accuracy`):
each seat empty, one to four backs in a row or a fan, or a showdown's two pairs.
"""

from __future__ import annotations

import random
from pathlib import Path

from firmware_bridge.camera.suite import AccuracyOptions, AccuracyTable, card_table
from station.games.sizhidao.rules import SEATS

CAMERA = Path(__file__).resolve().parents[3] / "config" / "camera_sizhidao_4k.toml"


def seat_table(zones: tuple[str, ...]):
    from firmware_bridge.camera.seat_accuracy import random_seats

    def make(rng: random.Random, seed: int):
        return random_seats(rng, seed, zones)

    return make


def suite(opts: AccuracyOptions) -> list[AccuracyTable]:
    from firmware_bridge.camera import accuracy
    from firmware_bridge.camera.config import load_camera_config
    from station.games.camera_zones import game_zones

    cam = load_camera_config(CAMERA, game_zones)
    seats = accuracy.run_camera(cam, seat_table(cam.layout.zone_names), opts.presets, opts.frames, opts.seed,
                                opts.decoder, opts.styles)
    return [card_table(f"Si Zhi Dao seats {' '.join(SEATS)} on {cam.layout.name} (seats of four)", seats)]
