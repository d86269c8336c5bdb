"""Dice sets: what CARD_FACES.md leaves open about the studio's dice, one set per row.

The sheet fixes: six sides, 16 mm, white with round pips, the 1 and the 4 red, the others
black. Everything else (the plastic's shade, pip size and spacing, which red and which black,
how round the edges are, the tray, the light, where the camera stands) is a set's choice."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DiceSet:
    name: str
    body_rgb: tuple[float, float, float]     # linear RGB of the plastic
    translucency: float                      # light the plastic scatters back out (0..0.2)
    gloss: float                             # specular strength
    edge_radius_mm: float                    # rounding of the cube's edges
    pip_diameter_mm: float                   # pips of 2, 3, 4, 5, 6
    one_pip_diameter_mm: float               # the single pip of the 1 (often larger)
    pip_spacing_mm: float                    # centre to corner pip, along each axis
    pip_depth: float                         # how strongly the dimple bends the light (0..1)
    red_rgb: tuple[float, float, float]
    black_rgb: tuple[float, float, float]
    felt_rgb: tuple[float, float, float]     # the table felt
    tray_rgb: tuple[float, float, float]     # the tray's lining
    rim_rgb: tuple[float, float, float]      # the tray's rim
    tray_inner_mm: tuple[float, float]
    light_elevation_deg: tuple[float, float]  # range, drawn per scene
    light_rgb: tuple[float, float, float]
    camera_offset_mm: tuple[float, float]     # range of the camera's horizontal offset
    mm_per_px: tuple[float, float]            # range of the table scale at the tray


DICE_SETS: dict[str, DiceSet] = {s.name: s for s in [
    DiceSet("casino_white", (0.86, 0.86, 0.84), 0.05, 0.35, 1.2, 2.8, 4.6, 4.4, 0.35,
            (0.62, 0.03, 0.03), (0.02, 0.02, 0.02), (0.03, 0.22, 0.08), (0.02, 0.12, 0.05),
            (0.25, 0.12, 0.05), (150, 110), (45, 75), (1.0, 0.98, 0.95), (150, 400),
            (0.27, 0.33)),
    DiceSet("ivory_large_one", (0.80, 0.74, 0.60), 0.10, 0.20, 2.0, 3.0, 6.0, 4.6, 0.5,
            (0.55, 0.02, 0.05), (0.04, 0.03, 0.03), (0.30, 0.04, 0.04), (0.18, 0.02, 0.02),
            (0.05, 0.04, 0.03), (160, 120), (35, 60), (1.0, 0.92, 0.80), (200, 450),
            (0.25, 0.32)),
    DiceSet("cool_white_small_pips", (0.78, 0.82, 0.88), 0.03, 0.50, 0.8, 2.4, 3.4, 4.0, 0.25,
            (0.75, 0.08, 0.06), (0.03, 0.04, 0.07), (0.02, 0.10, 0.30), (0.01, 0.05, 0.16),
            (0.55, 0.55, 0.58), (140, 100), (55, 85), (0.92, 0.96, 1.0), (100, 300),
            (0.24, 0.30)),
    DiceSet("matte_round_edges", (0.74, 0.73, 0.70), 0.15, 0.08, 2.6, 3.2, 5.0, 4.2, 0.6,
            (0.50, 0.06, 0.10), (0.06, 0.05, 0.05), (0.12, 0.12, 0.13), (0.30, 0.28, 0.22),
            (0.10, 0.10, 0.11), (170, 120), (30, 55), (1.0, 1.0, 1.0), (250, 500),
            (0.26, 0.33)),
    DiceSet("bright_glossy_sharp", (0.92, 0.92, 0.92), 0.02, 0.70, 0.6, 2.6, 4.0, 4.8, 0.3,
            (0.85, 0.12, 0.02), (0.01, 0.01, 0.01), (0.25, 0.02, 0.12), (0.04, 0.02, 0.02),
            (0.70, 0.55, 0.20), (150, 115), (40, 70), (1.0, 0.97, 0.9), (150, 350),
            (0.25, 0.31)),
    DiceSet("warm_felt_dull_red", (0.84, 0.80, 0.74), 0.08, 0.25, 1.6, 2.9, 4.4, 4.5, 0.45,
            (0.42, 0.04, 0.04), (0.05, 0.05, 0.06), (0.55, 0.38, 0.15), (0.30, 0.20, 0.10),
            (0.15, 0.07, 0.02), (160, 110), (50, 80), (1.0, 0.88, 0.72), (180, 420),
            (0.27, 0.33)),
    # Added with the rim-hidden and low-contrast dice work (Dec 2026, by the reader's side, from
    # the sheet's room alone): an ivory plastic with a dull brownish red, a cream one with big
    # pips and a dark red, a white that lets light through on a light floor (little contrast),
    # and a pearly white with a dark crimson.
    DiceSet("ivory_brown_red", (0.78, 0.70, 0.52), 0.12, 0.15, 1.8, 2.6, 4.4, 4.4, 0.4,
            (0.33, 0.06, 0.04), (0.05, 0.04, 0.04), (0.10, 0.25, 0.10), (0.35, 0.30, 0.22),
            (0.08, 0.05, 0.03), (150, 110), (40, 70), (1.0, 0.95, 0.85), (150, 400),
            (0.27, 0.33)),
    DiceSet("cream_big_dark_pips", (0.82, 0.76, 0.60), 0.08, 0.20, 1.6, 3.8, 6.0, 4.6, 0.5,
            (0.28, 0.02, 0.03), (0.03, 0.03, 0.03), (0.05, 0.15, 0.30), (0.06, 0.18, 0.35),
            (0.30, 0.25, 0.20), (150, 110), (35, 65), (1.0, 0.96, 0.90), (150, 400),
            (0.26, 0.32)),
    DiceSet("translucent_on_light_floor", (0.70, 0.72, 0.72), 0.16, 0.15, 1.4, 2.8, 4.4, 4.4, 0.3,
            (0.60, 0.05, 0.05), (0.05, 0.05, 0.05), (0.35, 0.38, 0.36), (0.45, 0.47, 0.45),
            (0.20, 0.20, 0.20), (150, 110), (45, 80), (1.0, 1.0, 1.0), (100, 350),
            (0.26, 0.32)),
    DiceSet("pearl_crimson", (0.88, 0.86, 0.86), 0.06, 0.50, 1.2, 2.9, 4.8, 4.2, 0.4,
            (0.25, 0.01, 0.02), (0.02, 0.02, 0.02), (0.02, 0.20, 0.06), (0.20, 0.05, 0.05),
            (0.60, 0.58, 0.55), (150, 110), (40, 75), (1.0, 0.98, 0.95), (200, 500),
            (0.25, 0.31)),
]}
