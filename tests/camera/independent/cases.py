"""Batteries of scenes for holding a recogniser to this renderer: every dice set, arrangement,
deck style, seat content and perturbation in turn, drawn from a seed. A case is a small frozen
description (its name is fit for a pytest id, the same in every worker); `render()` draws it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cards import DECK_STYLES
from .dice import DICE_SETS
from .notation import DECK
from .perturb import PERTURBATIONS, perturb
from .seats import SEAT_NAMES, render_seat_scene, render_two_camera_scene
from .tray import render_dice_tray

DICE_ARRANGEMENTS = ("free", "touching", "rim", "free-hand", "outside", "empty", "one")


@dataclass(frozen=True)
class DiceCase:
    name: str
    dice_set: str
    dice: tuple[int, ...]
    arrangement: str  # as render_dice_tray's
    hand: bool
    tilt_deg: float
    perturbation: str
    seed: int

    def render(self, **kw):
        img, truth = render_dice_tray(self.dice_set, self.dice, seed=self.seed, arrangement=self.arrangement,
                                      hand=self.hand, tilt_deg=self.tilt_deg, **kw)
        truth["perturbation"] = self.perturbation
        return perturb(img, self.perturbation, seed=self.seed), truth


def dice_cases(count: int = 42, seed: int = 0) -> list[DiceCase]:
    rng = np.random.default_rng([seed, 100])
    sets, perts = sorted(DICE_SETS), sorted(PERTURBATIONS)
    out = []
    for i in range(count):
        kind = DICE_ARRANGEMENTS[i % len(DICE_ARRANGEMENTS)]
        n = 0 if kind == "empty" else 1 if kind == "one" else 2
        dice = tuple(int(v) for v in rng.integers(1, 7, n))
        arrangement = {"free-hand": "free", "empty": "free", "one": "free"}.get(kind, kind)
        ds, pert = sets[i % len(sets)], perts[(i // len(sets) + i) % len(perts)]
        tilt = round(float(rng.uniform(0.0, 8.0)), 2)
        out.append(DiceCase(f"dice{i:03d}-{ds}-{kind}-{pert}", ds, dice, arrangement, kind == "free-hand",
                            tilt, pert, seed * 1000 + i))
    return out


SEAT_KINDS = ("empty", "down-row", "down-fan", "up", "folded", "hand", "up", "up-crowded")


def _random_seats(rng) -> dict:
    deck = list(DECK)
    rng.shuffle(deck)
    seats = {}
    for name in SEAT_NAMES:
        kind = SEAT_KINDS[int(rng.integers(len(SEAT_KINDS)))]
        if kind == "empty":
            seats[name] = None
        elif kind in ("down-row", "down-fan"):
            seats[name] = {"down": int(rng.integers(1, 5)), "layout": kind.split("-")[1]}
        elif kind == "up":
            seats[name] = {"up": [deck.pop() for _ in range(4)]}
        elif kind == "up-crowded":
            # the front pair pushed over the back pair's codes: those cards read XX
            seats[name] = {"up": [deck.pop() for _ in range(4)], "row_overlap_mm": round(float(rng.uniform(60, 64)), 1)}
        elif kind == "folded":
            seats[name] = "folded"
        else:
            seats[name] = {"down": int(rng.integers(1, 5)), "hand": True}
    return seats


@dataclass(frozen=True)
class SeatCase:
    name: str
    seats: tuple  # ((seat, spec), ...), spec as render_seat_scene takes it
    deck_style: str
    perturbation: str
    seed: int
    two_cameras: bool = False

    def seat_dict(self) -> dict:
        return {k: v for k, v in self.seats}

    def render(self, **kw):
        """(image, truth) for one 4K camera; a list of them for two 1080p cameras."""
        if self.two_cameras:
            views = render_two_camera_scene(self.seat_dict(), deck_style=self.deck_style, seed=self.seed, **kw)
            return [(perturb(img, self.perturbation, seed=self.seed), t) for img, t in views]
        img, truth = render_seat_scene(self.seat_dict(), deck_style=self.deck_style, seed=self.seed, **kw)
        truth["perturbation"] = self.perturbation
        return perturb(img, self.perturbation, seed=self.seed), truth


def seat_cases(count: int = 12, seed: int = 0, *, two_cameras: bool = False) -> list[SeatCase]:
    rng = np.random.default_rng([seed, 200])
    styles, perts = sorted(DECK_STYLES), sorted(PERTURBATIONS)
    out = []
    for i in range(count):
        seats = _random_seats(rng)
        style, pert = styles[i % len(styles)], perts[i % len(perts)]
        tag = "two" if two_cameras else "4k"
        out.append(SeatCase(f"seats{i:03d}-{tag}-{style}-{pert}", tuple(seats.items()), style, pert,
                            seed * 1000 + i, two_cameras))
    return out
