"""The stills an engineer takes for `station camera calibrate`: the empty felt, the felt with a
few face-down cards of the deck's back, the tray with dice. Each comes with every zone's
polygon in pixels (4 corners in the zone's order: TL, TR, BR, BL of the zone's own frame)."""

from __future__ import annotations

from .seats import render_seat_scene
from .tray import render_dice_tray


def seat_calibration_stills(*, deck_style: str = "red_lattice", seed: int = 0, mm_per_px: float = 0.30,
                            image_size=(3840, 2160), tilt_deg: float | None = None, ss: int = 2):
    """{"empty": (image, truth), "backs": (image, truth)}: the same table and camera (same seed),
    first bare, then with face-down cards of the deck in a few seats."""
    common = dict(deck_style=deck_style, seed=seed, mm_per_px=mm_per_px, image_size=image_size,
                  tilt_deg=tilt_deg, ss=ss)
    backs = {"S1": {"down": 2}, "S3": {"down": 1}, "S4": {"down": 4, "layout": "fan"}, "S6": {"down": 3}}
    out = {}
    for name, seats in (("empty", {}), ("backs", backs)):
        img, truth = render_seat_scene(seats, **common)
        truth["still"] = name
        truth["zone_names"] = list(truth["zones"])
        out[name] = (img, truth)
    return out


def tray_calibration_stills(*, dice_set: str = "casino_ivory", seed: int = 0, mm_per_px: float = 0.33,
                            image_size=(1920, 1080), tilt_deg: float | None = None, ss: int = 3):
    """{"empty": ..., "dice": ...}: the tray bare, then with two dice, same camera."""
    common = dict(seed=seed, mm_per_px=mm_per_px, image_size=image_size, tilt_deg=tilt_deg, ss=ss)
    out = {}
    for name, dice in (("empty", ()), ("dice", (3, 5))):
        img, truth = render_dice_tray(dice_set, dice, **common)
        truth["still"] = name
        truth["zone_names"] = list(truth["zones"])
        out[name] = (img, truth)
    return out
