"""The seat accuracy run: synthetic frames of seat zones (CARD_FACES.md, "Seats") with known
truth, per deck style and perturbation, read as stills and scored like every other zone
(`accuracy.score_zone`: correct, xx, wrong_identity — must be 0 —, miscount, held).

Each frame lays every seat afresh: empty, one to four cards face down in a row or a fan
(a deal caught part-way), four face up as the two pairs of a showdown, or a folded seat's
four backs. The recogniser is calibrated for each style from stills of that style through
the same `calibrate` the `station camera calibrate` command runs.
"""

from __future__ import annotations

import random

from firmware_bridge.camera.accuracy import PresetScore, score_frame
from firmware_bridge.camera.calibration import calibrate
from firmware_bridge.camera.decks import DeckStyle
from firmware_bridge.camera.layout import Layout
from firmware_bridge.camera.recogniser import Recogniser
from firmware_bridge.camera.scene import TableScene
from firmware_bridge.camera.synthetic import PRESETS, STRESS_PRESETS, SyntheticCamera
from firmware_bridge.cards import ALL_CARDS


def random_seats(rng: random.Random, seed: int, zones: tuple[str, ...]) -> TableScene:
    scene = TableScene(zones, seed=seed, seat_zones=zones)
    deck = [str(c) for c in ALL_CARDS]
    rng.shuffle(deck)
    for zone in zones:
        mode = rng.choice(("empty", "down", "down", "down", "shown", "shown"))
        if mode == "empty":
            continue
        n = rng.choice((1, 2, 3, 4, 4)) if mode == "down" else 4
        cards = [deck.pop() for _ in range(n)]
        for card in cards:
            scene.deal(zone, card)
        if mode == "shown":
            scene.show_down(zone, cards[:2], cards[2:])
    return scene


def seat_stills(layout: Layout, style: str | DeckStyle | None, seed: int = 1) -> tuple[list, list]:
    """What the studio engineer photographs before `station camera calibrate`: the empty
    felt, and face-down cards of the deck lying apart in every other seat."""
    zones = tuple(layout.zones)
    felt = SyntheticCamera(TableScene(zones), layout, perturbations="noise", style=style, seed=seed).read()
    scene = TableScene(zones, seed=seed)
    for zone in zones[::2]:
        scene.deal(zone, "2C")
    back = SyntheticCamera(scene, layout, perturbations="noise", style=style, seed=seed + 1).read()
    assert felt is not None and back is not None  # the noise preset drops no frames
    return [felt[1]], [back[1]]


def run(layout: Layout, presets: list[str] | None = None, frames: int = 40, seed: int = 1,
        styles: list[str] | None = None, decoder: str = "auto") -> list[PresetScore]:
    results = []
    zones = tuple(layout.zones)
    known = sorted({**PRESETS, **STRESS_PRESETS})
    for style in styles or ["studio"]:
        felt, back = seat_stills(layout, style, seed)
        recogniser = Recogniser(layout, decoder=decoder, calibration=calibrate(felt, back, layout.mm_per_px))
        for preset in presets or list(PRESETS):
            if preset not in known:
                raise ValueError(f"no perturbation preset {preset!r}; presets: {', '.join(known)}")
            score = PresetScore(preset, style)
            base = seed * 1_000_003 + known.index(preset) * 10_007
            camera = SyntheticCamera(TableScene(zones), layout, perturbations=preset, seed=base, style=style)
            for i in range(frames):
                rng = random.Random(base + i)
                scene = random_seats(rng, base + i, zones)
                score_frame(camera, scene, recogniser, score, i)
            results.append(score)
    return results
