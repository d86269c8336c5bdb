"""Wenzhou Pai Gow's camera accuracy suite (`station camera accuracy --game paigow`).

* The doors, on the studio's Pai Gow layout (config/camera_paigow_1080p.toml) with the
  recogniser the live camera uses: each door empty, or one or two cards face up as dealt (now
  and then one face down, a card dealt wrongly), per deck style and perturbation.
* The tray: the dice reader on trays of none, one or two dice, per dice set
  (dice_render.DICE_SETS) and dice perturbation, each die set on its own.
"""

from __future__ import annotations

import random
from pathlib import Path

from firmware_bridge.camera.suite import AccuracyOptions, AccuracyTable, card_table, dice_table
from station.games.paigow.rules import POSITIONS

CAMERA = Path(__file__).resolve().parents[3] / "config" / "camera_paigow_1080p.toml"


def door_table(zones: tuple[str, ...]):
    from firmware_bridge.camera.scene import TableScene
    from firmware_bridge.cards import ALL_CARDS

    def make(rng: random.Random, seed: int) -> TableScene:
        scene = TableScene(zones, seed=seed)
        for door in POSITIONS:
            for _ in range(rng.choice((0, 1, 2, 2, 2))):
                scene.deal(door, str(rng.choice(ALL_CARDS)), face_up=rng.random() > 0.05)
        return scene

    return make


def suite(opts: AccuracyOptions) -> list[AccuracyTable]:
    from firmware_bridge.camera import accuracy, dice_accuracy
    from firmware_bridge.camera.config import load_camera_config
    from firmware_bridge.camera.dice_render import DICE_SETS
    from station.games.camera_zones import game_zones

    cam = load_camera_config(CAMERA, game_zones)
    doors = accuracy.run_camera(cam, door_table(cam.layout.zone_names), opts.presets, opts.frames, opts.seed,
                                opts.decoder, opts.styles)
    dice = []
    for name in opts.dice_sets or list(DICE_SETS):
        dice.extend(dice_accuracy.run(opts.dice_presets, trays=opts.frames, seed=opts.seed, dice_set=name))
    return [card_table(f"Pai Gow doors {' '.join(POSITIONS)} (card reader)", doors),
            dice_table("Pai Gow tray (dice reader), per dice set", dice)]
