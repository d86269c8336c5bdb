"""The physical dice sets: everything CARD_FACES.md leaves open about a die.

Fixed by the sheet: six-sided, 16 mm, white, round pips, the 1 and the 4 red, the rest black.
Varied here: the plastic's white and translucency, gloss, edge/corner rounding, pip diameter,
pip spacing, the 1's size, dimple depth, paint colours and how fully the paint fills a dimple,
and the handedness of the 1-2-3 corner.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import srgb_to_linear

SIZE_MM = 16.0


@dataclass(frozen=True)
class DiceSet:
    name: str
    description: str
    plastic_srgb: tuple          # body colour
    translucency: float          # 0 opaque .. ~0.4 somewhat translucent
    specular: float              # reflectance at normal incidence (F0-like) of the plastic
    gloss_exp: float             # Blinn exponent (higher = glossier, tighter highlight)
    edge_radius_mm: float        # rounding of edges and corners
    pip_diameter_mm: float       # ordinary pips (diameter at the face)
    pip_spacing_mm: float        # offset of the outer pips from the face centre
    one_diameter_mm: float       # the single pip of the 1
    pip_depth_mm: float          # dimple depth of ordinary pips
    one_depth_mm: float          # dimple depth of the 1
    red_srgb: tuple
    black_srgb: tuple
    paint_fill: float            # fraction of the dimple radius that carries paint
    paint_specular: float
    chirality: int               # +1 / -1: handedness of the 1-2-3 corner
    wear: float                  # 0..1 slight greying/unevenness of the plastic

    @property
    def size_mm(self) -> float:
        return SIZE_MM

    @property
    def plastic_lin(self) -> np.ndarray:
        return srgb_to_linear(self.plastic_srgb)

    @property
    def red_lin(self) -> np.ndarray:
        return srgb_to_linear(self.red_srgb)

    @property
    def black_lin(self) -> np.ndarray:
        return srgb_to_linear(self.black_srgb)


_SETS = [
    DiceSet(
        name="ivory_classic",
        description="ivory opaque plastic, medium rounding, bright red, pure black, big red 1",
        plastic_srgb=(0.95, 0.92, 0.83), translucency=0.05, specular=0.04, gloss_exp=150.0,
        edge_radius_mm=1.6, pip_diameter_mm=3.0, pip_spacing_mm=4.4, one_diameter_mm=5.4,
        pip_depth_mm=0.6, one_depth_mm=0.9,
        red_srgb=(0.86, 0.10, 0.10), black_srgb=(0.05, 0.05, 0.05),
        paint_fill=1.0, paint_specular=0.035, chirality=+1, wear=0.0),
    DiceSet(
        name="cool_gloss_sharp",
        description="cool bluish white, high gloss, sharp edges, crimson, jet black, shallow pips, "
                    "modest 1",
        plastic_srgb=(0.93, 0.95, 0.99), translucency=0.08, specular=0.05, gloss_exp=900.0,
        edge_radius_mm=0.8, pip_diameter_mm=2.7, pip_spacing_mm=4.6, one_diameter_mm=4.3,
        pip_depth_mm=0.35, one_depth_mm=0.45,
        red_srgb=(0.72, 0.04, 0.16), black_srgb=(0.015, 0.015, 0.02),
        paint_fill=1.0, paint_specular=0.05, chirality=-1, wear=0.0),
    DiceSet(
        name="translucent_cream",
        description="somewhat translucent cream plastic, well rounded, deep dimples, dark red, "
                    "dark grey instead of black, very large 1",
        plastic_srgb=(0.97, 0.91, 0.79), translucency=0.35, specular=0.04, gloss_exp=300.0,
        edge_radius_mm=2.0, pip_diameter_mm=3.2, pip_spacing_mm=4.3, one_diameter_mm=6.0,
        pip_depth_mm=0.9, one_depth_mm=1.2,
        red_srgb=(0.55, 0.05, 0.06), black_srgb=(0.20, 0.20, 0.21),
        paint_fill=1.0, paint_specular=0.03, chirality=+1, wear=0.0),
    DiceSet(
        name="matte_small_pips",
        description="matte neutral white, small widely spaced pips, small 1, dull orange-red, "
                    "grey-black, shallow dimples",
        plastic_srgb=(0.90, 0.90, 0.88), translucency=0.10, specular=0.03, gloss_exp=12.0,
        edge_radius_mm=1.2, pip_diameter_mm=2.45, pip_spacing_mm=4.8, one_diameter_mm=3.6,
        pip_depth_mm=0.35, one_depth_mm=0.4,
        red_srgb=(0.74, 0.27, 0.22), black_srgb=(0.13, 0.13, 0.14),
        paint_fill=1.0, paint_specular=0.02, chirality=-1, wear=0.0),
    DiceSet(
        name="worn_rounded_brown",
        description="old yellowed dice with heavily rounded corners, tight pips, brownish red, "
                    "faded black, paint not filling the dimple rims",
        plastic_srgb=(0.90, 0.86, 0.73), translucency=0.15, specular=0.035, gloss_exp=40.0,
        edge_radius_mm=2.4, pip_diameter_mm=3.1, pip_spacing_mm=3.9, one_diameter_mm=5.0,
        pip_depth_mm=0.7, one_depth_mm=0.8,
        red_srgb=(0.50, 0.16, 0.11), black_srgb=(0.10, 0.09, 0.08),
        paint_fill=0.82, paint_specular=0.02, chirality=+1, wear=0.6),
]

DICE_SETS: dict = {s.name: s for s in _SETS}

# Pip layouts in units of the pip spacing (u, v). Index 0 unused.
FACE_LAYOUT = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
    5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}
RED_FACES = (1, 4)


def face_of_axis(chirality: int) -> dict:
    """Map (local axis k, sign) -> face value; opposite faces sum to 7."""
    if chirality >= 0:
        return {(2, 1): 1, (2, -1): 6, (0, 1): 2, (0, -1): 5, (1, 1): 3, (1, -1): 4}
    return {(2, 1): 1, (2, -1): 6, (0, 1): 5, (0, -1): 2, (1, 1): 3, (1, -1): 4}


def _check():
    for s in _SETS:
        h = SIZE_MM / 2
        outer = s.pip_spacing_mm + s.pip_diameter_mm / 2
        assert outer < h - s.edge_radius_mm, s.name
        assert s.one_diameter_mm / 2 < h - s.edge_radius_mm, s.name


_check()
