"""Pok Deng's camera accuracy suite (`station camera accuracy --game pokdeng`): random tables
of the seven zones (`random_table`: hands of none, one or two cards face down, face up or
half revealed, the burn card, the cut card now and then) on the game's studio layout
(`PokDeng.camera_layout`), per deck style and perturbation."""

from __future__ import annotations

import random

from firmware_bridge.camera.accuracy import deal_hand, lay_cut_card
from firmware_bridge.camera.scene import TableScene
from firmware_bridge.camera.suite import AccuracyOptions, AccuracyTable, card_table
from firmware_bridge.cards import ALL_CARDS
from station.games.pokdeng.rules import BURN, POSITIONS, PokDeng


def random_table(rng: random.Random, seed: int) -> TableScene:
    """A hand in each position's zone, the burn card now and then (one, face up), the cut
    card now and then."""
    scene = TableScene(PokDeng.zones, seed=seed)
    for zone in POSITIONS:
        deal_hand(rng, scene, zone)
    if rng.random() < 0.4:
        scene.deal(BURN, str(rng.choice(ALL_CARDS)), face_up=True)
    lay_cut_card(rng, scene)
    return scene


def suite(opts: AccuracyOptions) -> list[AccuracyTable]:
    from firmware_bridge.camera import accuracy
    from firmware_bridge.camera.config import load_camera_config
    from station.games.camera_zones import game_layout_data, game_zones

    cam = load_camera_config(None, game_zones, default=game_layout_data(PokDeng.name))
    results = accuracy.run_camera(cam, random_table, opts.presets, opts.frames, opts.seed,
                                  opts.decoder, opts.styles)
    return [card_table(f"{PokDeng.title} zones {' '.join(cam.layout.zones)} (card reader)", results)]
