"""Si Zhi Dao's camera accuracy suite (`station camera accuracy --game sizhidao`): the seats
S1-S7 on the table's layout, read by the recogniser the live camera uses, per deck style and
perturbation.

The seat scenes are `seat_table`: each seat empty, one to four cards dealt face down, or four
cards face up. This is where the seat readers' own scenes belong (rows and fans of up to four
backs, the showdown's two pairs, CARD_FACES.md "Seats"): replace `seat_table` and `CAMERA`
(a 4K layout) and the suite scores them; today it reports what the card reader makes of seats
laid as the synthetic scene lays any hand.
"""

from __future__ import annotations

import random
from pathlib import Path

from firmware_bridge.camera.suite import AccuracyOptions, AccuracyTable, card_table
from station.games.sizhidao.rules import SEATS

CAMERA = Path(__file__).resolve().parents[3] / "config" / "camera_sizhidao_1080p.toml"


def seat_table(zones: tuple[str, ...]):
    from firmware_bridge.camera.scene import TableScene
    from firmware_bridge.cards import ALL_CARDS

    def make(rng: random.Random, seed: int) -> TableScene:
        scene = TableScene(zones, seed=seed)
        for seat in SEATS:
            mode = rng.choice(("empty", "dealt", "dealt", "shown"))
            cards = rng.sample(ALL_CARDS, 4)
            n = 0 if mode == "empty" else (4 if mode == "shown" else rng.randint(1, 4))
            for card in cards[:n]:
                scene.deal(seat, str(card), face_up=mode == "shown")
        return scene

    return make


def suite(opts: AccuracyOptions) -> list[AccuracyTable]:
    from firmware_bridge.camera import accuracy
    from firmware_bridge.camera.config import load_camera_config
    from station.games.camera_zones import game_zones

    cam = load_camera_config(CAMERA, game_zones)
    seats = accuracy.run_camera(cam, seat_table(cam.layout.zone_names), opts.presets, opts.frames, opts.seed,
                                opts.decoder, opts.styles)
    return [card_table(f"Si Zhi Dao seats {' '.join(SEATS)} on {cam.layout.name} (card reader)", seats)]
