"""Calibrating the dice tray (`station camera calibrate --dice`): a die's size in pixels,
measured on stills of the tray with dice in it.

The dice reader needs one number it cannot find on its own: how large a die is in the
picture. The layout's scale gives it only roughly (the tray's floor is a few centimetres
above the felt, the camera may be slightly off axis, the engineer's `mm_per_px` is measured
by hand). Everything else the reader finds per picture, relative to each die's own white (the
tray's floor, the felt, the light), so it is not stored. The size is measured by reading the
stills with the reader itself over a range of sizes round the layout's: the reader names a die
only when its pips fit a face's pattern on a face of the size it was given, so the sizes at
which the most dice are named bracket the true one, and the middle of that range is kept
(the dice named are then measured by their outline; where the outline does not stand out
from a light floor, the middle of the range is the size).
The result is written into the camera config as `[calibration.dice]`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from firmware_bridge.camera.calibration import CalibrationError, replace_tables
from firmware_bridge.camera.dice import DiceReader
from firmware_bridge.camera.layout import LayoutError

#: the sizes tried, as shares of the size the layout's scale gives (a camera whose scale is
#: off by more than a third needs its layout measured again, not a dice calibration)
_TRIED = np.round(np.arange(0.70, 1.42, 0.03), 2)
#: the smallest die the reader takes (its pips would get fewer than 6 pixels below)
_LEAST_PX = 30.0


@dataclass(frozen=True)
class DiceCalibration:
    die_px: float  # a die's edge in pixels of the camera's frame
    dice: int  # dice named on the stills at that size
    low_px: float  # the range of sizes at which as many dice were named
    high_px: float

    def as_dict(self) -> dict[str, object]:
        return {"die_px": round(self.die_px, 2), "dice": self.dice,
                "low_px": round(self.low_px, 2), "high_px": round(self.high_px, 2)}


def dice_calibration_from_dict(data: object, *, source: str = "<dict>") -> DiceCalibration | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise LayoutError(f"{source}: [calibration.dice] must be a table")
    try:
        die_px = float(data["die_px"])
        cal = DiceCalibration(die_px, int(data.get("dice", 0)), float(data.get("low_px", die_px)),
                              float(data.get("high_px", die_px)))
    except (KeyError, TypeError, ValueError) as exc:
        raise LayoutError(f"{source}: [calibration.dice]: {exc!r}; run `station camera calibrate --dice` again") from None
    if not _LEAST_PX <= die_px <= 2000:
        raise LayoutError(f"{source}: [calibration.dice] die_px {die_px}: at least {_LEAST_PX:g} pixels")
    return cal


def calibrate_dice(crops: list[np.ndarray], nominal_die_px: float) -> DiceCalibration:
    """The die's size from pictures of the dice zone (each a BGR crop of a still) holding
    dice with their top faces in full view."""
    if not crops:
        raise CalibrationError("no still of the tray with dice given")
    named_at: list[tuple[float, int]] = []
    for k in _TRIED:
        die_px = float(nominal_die_px * k)
        if die_px < _LEAST_PX:
            continue
        reader = DiceReader(die_px=die_px)
        named = sum(sum(1 for f in reader.read(c) if f) for c in crops)
        named_at.append((die_px, named))
    best = max((n for _, n in named_at), default=0)
    if best == 0:
        raise CalibrationError(
            f"no die read on the stills at any size from {named_at[0][0]:.0f} to {named_at[-1][0]:.0f} px "
            f"(the layout's scale gives {nominal_die_px:.0f}): put two dice in the tray with their top faces in "
            "full view, check the tray zone's polygon and the layout's mm_per_px"
            if named_at else f"the layout's scale gives a die of {nominal_die_px:.0f} px, too small to read")
    sizes = [p for p, n in named_at if n == best]
    # the reader names a die over a range of sizes; the size is then measured on the dice
    # named, at the middle of that range
    at = float(np.sqrt(sizes[0] * sizes[-1]))
    reader = DiceReader(die_px=at)
    edges = []
    for c in crops:
        lo = cv2.min(cv2.min(c[..., 0], c[..., 1]), c[..., 2])
        for d in reader.read_detailed(c).dice:
            if d.face:
                e = _silhouette_edge(lo, d.centre, at)
                if e is not None:
                    edges.append(e)
    if not edges:
        # The outline does not stand out from the floor or rim round it (a light floor, a
        # translucent white): the range of sizes at which the dice were read is the measure.
        return DiceCalibration(at, best, sizes[0], sizes[-1])
    return DiceCalibration(float(np.median(edges)), best, sizes[0], sizes[-1])


def _silhouette_edge(lo: np.ndarray, centre: tuple[float, float], rough_px: float) -> float | None:
    """The edge of the die at `centre` (its top face's centre, as the reader found it): from
    its outline, what is brighter than a quarter of the way from the floor round it to its
    top face's white (its pips filled first). The top face with its rounded edges is 16 mm."""
    h, w = lo.shape
    r = int(round(rough_px))
    cx, cy = int(round(centre[0])), int(round(centre[1]))
    x0, y0, x1, y1 = max(0, cx - r), max(0, cy - r), min(w, cx + r + 1), min(h, cy + r + 1)
    win = lo[y0:y1, x0:x1]
    d = int(round(rough_px * 0.42)) | 1
    filled = cv2.morphologyEx(win, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d)))
    q = max(2, int(rough_px * 0.25))
    px, py = cx - x0, cy - y0
    face = float(np.percentile(filled[max(0, py - q):py + q, max(0, px - q):px + q], 90))
    border = np.concatenate([filled[0], filled[-1], filled[:, 0], filled[:, -1]])
    floor = float(np.median(border))
    if face - floor < 10:
        return None
    mask = (filled >= floor + 0.5 * (face - floor)).astype(np.uint8)
    n, labels, _, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    if not 0 <= py < labels.shape[0] or not 0 <= px < labels.shape[1] or labels[py, px] == 0:
        return None
    # The top face's centre is the pips' (the reader re-centres every face on them), so its
    # four sides are the nearest the outline comes to it, a quarter turn apart. A side may
    # look further (a strip of side face seen off axis joins the outline there) or nearer (a
    # rounded edge turned from the light is as dark as the floor), each on at most two sides:
    # the middle two of the four are kept.
    comp = labels == labels[py, px]
    theta = np.deg2rad(np.arange(0.0, 360.0, 2.0))
    steps = np.arange(0.0, 1.5 * rough_px, 0.5)
    xs = np.rint(px + np.cos(theta)[:, None] * steps).astype(int)
    ys = np.rint(py + np.sin(theta)[:, None] * steps).astype(int)
    ok = (xs >= 0) & (ys >= 0) & (xs < comp.shape[1]) & (ys < comp.shape[0])
    inside = np.zeros(xs.shape, bool)
    inside[ok] = comp[ys[ok], xs[ok]]
    reach = np.argmin(np.c_[inside, np.zeros(len(theta), bool)], axis=1) * 0.5  # first step out
    quarter = len(theta) // 4
    sides = reach.reshape(4, quarter)  # the four rays a quarter turn apart, for each turn
    turn = int(np.argmin(sides.sum(axis=0)))
    edge = float(np.sort(sides[:, turn])[1:3].sum())
    return edge if 0.6 * rough_px <= edge <= 1.4 * rough_px else None


_HEADER = "# Measured by `station camera calibrate --dice` on stills of the tray with dice (docs/camera.md)."


def write_dice_calibration(path: str | Path, cal: DiceCalibration) -> None:
    """Replace the `[calibration.dice]` table of a camera config, keeping everything else."""
    body = [_HEADER, "[calibration.dice]"] + [f"{k} = {v}" for k, v in cal.as_dict().items()]
    replace_tables(path, lambda name: name == "calibration.dice", (_HEADER,), "\n".join(body) + "\n")
