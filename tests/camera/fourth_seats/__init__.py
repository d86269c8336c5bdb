"""An independent renderer of what an overhead 4K camera sees of the seven Si Zhi Dao seats.

Written from the card-face sheet alone (CARD_FACES.md): see README.md in this folder.
"""

import numpy as np

from .render import render_round
from .scene import calibration_round, make_round
from .styles import DECK_STYLES, PERTURBATIONS, check_perturbation, check_style
from .table import get_table, rng_for

PHASES = ("deal", "showdown")

__all__ = ["render_seats_frame", "render_seats_calibration", "DECK_STYLES", "PERTURBATIONS", "PHASES"]


def _check_table(table):
    if isinstance(table, bool) or not isinstance(table, (int, np.integer)) or table < 0:
        raise ValueError(f"table must be a non-negative int, got {table!r}")
    return int(table)


def _truth(tbl, zones, meta):
    return {"kind": "seats", "zones": zones, "mm_per_px": round(float(tbl.mm_per_px), 5), "meta": meta}


def render_seats_frame(style: str, seed: int, perturbation: str = "sharp", table: int = 0,
                       phase: str | None = None):
    """One 3840x2160 BGR uint8 frame of the seats S1-S7 and its truth dict."""
    check_style(style)
    check_perturbation(perturbation)
    table = _check_table(table)
    if phase is not None and phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}; known: {', '.join(PHASES)} (or None)")
    tbl = get_table(table)
    rnd = make_round(style, int(seed), tbl, phase)
    rng = rng_for("camera", style, int(seed), table, perturbation)
    img, zones, info = render_round(style, tbl, rnd, perturbation, rng)
    meta = {"style": style, "seed": int(seed), "table": table, "phase": rnd.phase, **info,
            "felt": tbl.felt_name, "hand": None if rnd.hand is None else
            {"seat": rnd.hand.seat, "kind": rnd.hand.glove or "skin"}}
    return img, _truth(tbl, zones, meta)


def render_seats_calibration(style: str, table: int = 0):
    """The calibration stills: the empty table and one face-down card alone in each seat."""
    check_style(style)
    table = _check_table(table)
    tbl = get_table(table)
    out = {}
    for key, backs in (("empty_table", False), ("one_back_per_seat", True)):
        rnd = calibration_round(style, tbl, backs)
        rng = rng_for("calibration-camera", style, table, key)
        img, zones, info = render_round(style, tbl, rnd, "sharp", rng)
        meta = {"style": style, "table": table, "phase": "calibration", "still": key, **info,
                "felt": tbl.felt_name}
        out[key] = (img, _truth(tbl, zones, meta))
    return out
