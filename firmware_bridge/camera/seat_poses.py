"""Where a dealer lays the cards of a seat zone (CARD_FACES.md, "Seats"): the synthetic
camera's scene places them here, so frames show what the sheet lets a dealer do.

Dealt: face down in a row or a fan, each card covering at most half of the one before it
(every card shows at least half of its back). Shown down: face up as two pairs, the front
pair nearer the dealer (down in the picture), the back pair behind it; in a pair the right
card covers at most a third of the left card's width, so every card shows a whole code.

Poses are table millimetres from the zone's centre and degrees; a seat's whole group may
also be turned a little in its zone (`SeatPlan.turn`), which the renderer applies.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from firmware_bridge.camera.layout import CARD_H_MM, CARD_W_MM

#: the most cards a seat is dealt
SEAT_CARDS = 4


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """How the dealer lays this seat's deal: a row or a fan, drawn when its first card lands."""

    fan: bool
    step_mm: float  # row: centre to centre along the row
    fan_deg: float  # fan: angle between neighbours
    radius_mm: float  # fan: pivot to card centre
    tilt_deg: float  # the row's (or the fan's middle's) turn in the zone
    direction: int  # +1 left to right, -1 right to left
    jitter: tuple[tuple[float, float, float], ...]  # per card: dx, dy (mm), angle (deg)


def new_plan(rng: random.Random) -> SeatPlan:
    fan = rng.random() < 0.4
    jitter = tuple((rng.uniform(-0.8, 0.8), rng.uniform(-2.5, 2.5), rng.uniform(-2.0, 2.0)) for _ in range(SEAT_CARDS + 2))
    return SeatPlan(
        fan=fan,
        # a row: each card 50-72% of a card's width on from the one before (at most half
        # covered, at most 194 mm for four, so they fit a 205 mm zone)
        step_mm=rng.uniform(0.52, 0.69) * CARD_W_MM,
        # a fan: neighbours' centres about half a card's width apart where the cards cross
        fan_deg=rng.uniform(20.5, 21.5),
        radius_mm=rng.uniform(89.0, 93.0),
        tilt_deg=rng.uniform(-2.0, 2.0) if fan else rng.uniform(-6.0, 6.0),
        direction=rng.choice((1, -1)),
        jitter=jitter,
    )


def dealt_pose(plan: SeatPlan, index: int) -> tuple[float, float, float]:
    """(dx_mm, dy_mm, angle_deg) of the seat's card number `index` (0-based), face down.
    The group is centred as if all four were dealt (the dealer leaves room for them)."""
    jx, jy, ja = plan.jitter[min(index, len(plan.jitter) - 1)]
    k = (index - (SEAT_CARDS - 1) / 2) * plan.direction
    tilt = math.radians(plan.tilt_deg)
    if plan.fan:
        a = math.radians(k * plan.fan_deg) + tilt
        # the pivot lies below the cards (the dealer's thumb); the fan's middle at the centre
        px, py = 0.0, plan.radius_mm - 0.5 * CARD_H_MM * 0.2
        x = px + plan.radius_mm * math.sin(a)
        y = py - plan.radius_mm * math.cos(a)
        return x + jx * 0.3, y + jy * 0.3, math.degrees(-a) + ja * 0.5
    along = k * plan.step_mm
    x, y = along * math.cos(tilt), -along * math.sin(tilt)
    return x + jx, y + jy, plan.tilt_deg + ja


def shown_poses(rng: random.Random) -> list[tuple[float, float, float]]:
    """Poses of the four cards shown down, in the order they lie (later on top): back left,
    back right, front left, front right. In each pair the right card lies on the left one (drawn after it) covering at most a
    third of its width; the front pair may lie a little over the back pair's lower edge."""
    gap = rng.uniform(82.0, 98.0)  # back pair's centre to front pair's, mm
    out = []
    for row_y in (-gap / 2, gap / 2):  # back, then front (nearer the dealer: down)
        offset = rng.uniform(0.70, 1.02) * CARD_W_MM  # left centre to right centre
        shift = rng.uniform(-4.0, 4.0)
        tilt = rng.uniform(-4.0, 4.0)
        for side in (-0.5, 0.5):
            out.append((side * offset + shift + rng.uniform(-1.0, 1.0),
                        row_y + rng.uniform(-1.5, 1.5), tilt + rng.uniform(-1.5, 1.5)))
    return out
