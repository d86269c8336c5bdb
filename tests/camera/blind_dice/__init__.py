"""Blind dice-tray renderer (Wenzhou Pai Gow), written from CARD_FACES.md alone.

    img, truth = render_dice_scene(set_name, seed, perturbation="sharp", table=0)

`table` fixes the studio table (camera, scale, tray, felt, lights); `seed` fixes one throw;
`perturbation` one studio condition applied to the same throw.
"""
from __future__ import annotations

import functools

import numpy as np

from .common import TAG_PERT, name_key, rng_for
from .dice_sets import DICE_SETS, DiceSet
from .post import PERTURBATIONS, develop
from .render import render_linear
from .tables import get_table
from .throws import CALIBRATION_SEEDS, make_throw

__all__ = ["DICE_SETS", "PERTURBATIONS", "render_dice_scene", "CALIBRATION_SEEDS"]


@functools.lru_cache(maxsize=6)
def _clean(set_name: str, seed: int, table: int):
    tbl = get_table(int(table))
    dset = DICE_SETS[set_name]
    throw = make_throw(tbl, dset, int(seed))
    lin = render_linear(tbl, dset, throw)
    lin.setflags(write=False)
    return lin, throw


def render_dice_scene(set_name: str, seed: int, perturbation: str = "sharp", table: int = 0):
    if set_name not in DICE_SETS:
        raise KeyError(f"unknown dice set {set_name!r}; have {sorted(DICE_SETS)}")
    if perturbation not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {perturbation!r}; have {PERTURBATIONS}")
    tbl = get_table(int(table))
    dset: DiceSet = DICE_SETS[set_name]
    lin, throw = _clean(set_name, int(seed), int(table))
    rng = rng_for(TAG_PERT, int(table), int(seed), PERTURBATIONS.index(perturbation),
                  name_key(set_name))
    img = develop(lin, tbl, perturbation, rng)
    r = dset.edge_radius_mm
    pip_px = []
    for d in throw.dice:
        top = d.center + [0, 0, 8.0]
        u, v, _ = tbl.cam.project(np.stack([top - [dset.pip_diameter_mm / 2, 0, 0],
                                            top + [dset.pip_diameter_mm / 2, 0, 0],
                                            top - [0, dset.pip_diameter_mm / 2, 0],
                                            top + [0, dset.pip_diameter_mm / 2, 0]]))
        pip_px.append(float(min(np.hypot(u[1] - u[0], v[1] - v[0]),
                                np.hypot(u[3] - u[2], v[3] - v[2]))))
    poly = tbl.zone_polygon()
    truth = {
        "zones": {"DICE": {"corners_px": [[float(x), float(y)] for x, y in poly],
                           "expected": (None if throw.expected is None
                                        else [int(e) for e in throw.expected])}},
        "dice": [dict(info, pip_px=p) for info, p in zip(throw.info, pip_px)],
        "hand": throw.hand_mode,
        "layout": throw.layout,
        "mm_per_px": tbl.mm_per_px,
        "table": {"tray": tbl.tray.shape, "felt": tbl.felt_name, "lining": tbl.lining_name,
                  "rim": tbl.rim_name, "rim_height_mm": tbl.tray.z_r - tbl.tray.z_f,
                  "camera_height_mm": tbl.cam_height, "camera_offset_mm": tbl.cam_offset,
                  "lights": len(tbl.lights)},
        "set": set_name, "seed": int(seed), "perturbation": perturbation,
        "edge_radius_mm": r,
    }
    return img, truth
