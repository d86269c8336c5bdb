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
from a light floor, the middle of the range is the size). A die read at a much smaller size
may pass as another face: where the sizes fall in runs apart, the run whose dice measure
within it is the range.
The result is written into the camera config as `[calibration.dice]`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from firmware_bridge.camera.calibration import CalibrationError, replace_tables
from firmware_bridge.camera.dice import CameraView, DiceReader, _outline_turn
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
    low_px: float  # the run of sizes kept: the first and last at which as many dice were named
    high_px: float
    #: where the camera looks from (the point of the tray's picture straight below it and how
    #: far a die's top face is seen shifted from its foot), fitted from the side strips of the
    #: dice on the stills; None when they did not show it (old configs, too few dice measured)
    view: CameraView | None = None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"die_px": round(self.die_px, 2), "dice": self.dice,
                                  "low_px": round(self.low_px, 2), "high_px": round(self.high_px, 2)}
        if self.view is not None:
            out.update({"nadir_x_px": round(self.view.nadir_x_px, 1), "nadir_y_px": round(self.view.nadir_y_px, 1),
                        "strip_per_px": round(self.view.strip_per_px, 6), "strips": self.view.strips})
        return out


#: what `[calibration.dice]` may hold
_KEYS = ("die_px", "dice", "low_px", "high_px", "nadir_x_px", "nadir_y_px", "strip_per_px", "strips")
_VIEW_KEYS = ("nadir_x_px", "nadir_y_px", "strip_per_px")
#: the largest strip a camera view may predict per pixel from the point below it: a fit
#: leans towards 0.01 (a camera 1.8 m up sees 16 mm dice shifted about 0.9 px per 100 px);
#: more would be a camera a few dice above the tray, and would make every read search far
_MAX_STRIP_PER_PX = 0.05
#: the strip a view predicts at the tray picture's corner is at most this many dice wide (a
#: wider one is a camera looking along the table, not down at it)
_MAX_STRIP_DICE = 2.0


def _number(data: dict, key: str, source: str) -> float:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise LayoutError(f"{source}: [calibration.dice] {key} = {value!r}: a finite number; "
                          "run `station camera calibrate --dice` again")
    return float(value)


def _plausible(view: CameraView, die_px: float) -> bool:
    """Whether a view is one of a camera looking down at the tray (see the bounds above)."""
    return 0 < view.strip_per_px <= _MAX_STRIP_PER_PX \
        and view.strip_per_px * float(np.hypot(view.nadir_x_px, view.nadir_y_px)) <= _MAX_STRIP_DICE * die_px


def dice_calibration_from_dict(data: object, *, source: str = "<dict>") -> DiceCalibration | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise LayoutError(f"{source}: [calibration.dice] must be a table")
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise LayoutError(f"{source}: [calibration.dice]: unknown key(s) {', '.join(unknown)} "
                          f"(known: {', '.join(_KEYS)})")
    if "die_px" not in data:
        raise LayoutError(f"{source}: [calibration.dice]: no die_px; run `station camera calibrate --dice` again")
    die_px = _number(data, "die_px", source)
    if not _LEAST_PX <= die_px <= 2000:
        raise LayoutError(f"{source}: [calibration.dice] die_px {die_px}: at least {_LEAST_PX:g} pixels")
    view = None
    given = [k for k in _VIEW_KEYS if k in data]
    if given:
        missing = [k for k in _VIEW_KEYS if k not in data]
        if missing:
            raise LayoutError(f"{source}: [calibration.dice]: the camera's view needs {', '.join(_VIEW_KEYS)}; "
                              f"{', '.join(missing)} missing; run `station camera calibrate --dice` again")
        nadir_x, nadir_y, per_px = (_number(data, k, source) for k in _VIEW_KEYS)
        if not 0 < per_px <= _MAX_STRIP_PER_PX:
            raise LayoutError(f"{source}: [calibration.dice] strip_per_px {per_px}: more than 0 and at most "
                              f"{_MAX_STRIP_PER_PX}")
        if not _plausible(CameraView(nadir_x, nadir_y, per_px, 0), die_px):
            raise LayoutError(f"{source}: [calibration.dice] nadir ({nadir_x}, {nadir_y}) with strip_per_px "
                              f"{per_px}: a strip wider than {_MAX_STRIP_DICE:g} dice at the tray; run "
                              "`station camera calibrate --dice` again")
        strips = _number(data, "strips", source) if "strips" in data else 0
        if strips < 0 or strips != int(strips):
            raise LayoutError(f"{source}: [calibration.dice] strips {strips}: a count")
        view = CameraView(nadir_x, nadir_y, per_px, int(strips))
    elif "strips" in data:
        raise LayoutError(f"{source}: [calibration.dice]: strips without the camera's view ({', '.join(_VIEW_KEYS)})")
    extra = {k: _number(data, k, source) for k in ("dice", "low_px", "high_px") if k in data}
    return DiceCalibration(die_px, int(extra.get("dice", 0)), extra.get("low_px", die_px),
                           extra.get("high_px", die_px), view)


def calibrate_dice(crops: list[np.ndarray], nominal_die_px: float, *, view: bool = True) -> DiceCalibration:
    """The die's size from pictures of the dice zone (each a BGR crop of a still) holding
    dice with their top faces in full view, and (`view`; all crops of one zone, the same
    part of the frame) where the camera looks from, from the side strips of those dice."""
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
    # The reader names a die over a range of sizes round the true one; the size is then
    # measured on the dice named, at the middle of that range. But a die much smaller than
    # the one given may also read, as another face (a 5's corner pips taken for a 2 at 0.7
    # of its size): the sizes at which the most dice were named are then two runs, and the
    # middle of both lies between them, where none reads. Each run is measured apart, and
    # the run whose dice measure within it is kept (`best_runs`, `_pick_run`).
    runs = best_runs([n for _, n in named_at])
    measured = [_measure([named_at[i][0] for i in run], crops) for run in runs]
    sizes, at, edges, named = measured[_pick_run(measured)]
    # The outline may not stand out from the floor or rim round it (a light floor, a
    # translucent white): the range of sizes at which the dice were read is then the measure.
    die_px = float(np.median(edges)) if edges else at
    fitted = fit_view([(centre, s) for lo, centre in named
                       if (s := strip_offset(lo, centre, die_px)) is not None], die_px) if view else None
    return DiceCalibration(die_px, best, sizes[0], sizes[-1], fitted)


#: a run of sizes whose dice's outlines measure within it, widened by this share each way,
#: is one the dice were read at for their own size
_RUN_SLACK = 0.1


def best_runs(named: list[int]) -> list[list[int]]:
    """The runs of sizes (indices into `named`, the dice named at each size tried in turn)
    from one size naming the most dice to the last such before the count falls below one
    fewer than the most (or to none): a size naming one die fewer inside a run (a pip lost
    to the light at that size) does not part it; the sizes where a misreading at a wrong
    size gives way to the die's own reading name fewer, or none."""
    best = max(named, default=0)
    floor = max(1, best - 1)
    runs: list[list[int]] = []
    stretch: list[int] = []
    for i, n in enumerate([*named, 0]):
        if n >= floor:
            stretch.append(i)
            continue
        tops = [k for k in stretch if named[k] == best]
        if tops:
            runs.append(list(range(tops[0], tops[-1] + 1)))
        stretch = []
    return runs


def _measure(sizes: list[float], crops: list[np.ndarray]):
    """The dice read at the middle of a run of sizes: (sizes, that middle, the outline's
    edge of each die named where it stands out, (min-channel image, centre) of each)."""
    at = float(np.sqrt(sizes[0] * sizes[-1]))
    reader = DiceReader(die_px=at)
    edges: list[float] = []
    named: list[tuple[np.ndarray, tuple[float, float]]] = []
    for c in crops:
        lo = cv2.min(cv2.min(c[..., 0], c[..., 1]), c[..., 2])
        for d in reader.read_detailed(c).dice:
            if d.face:
                named.append((lo, d.centre))
                e = _silhouette_edge(lo, d.centre, at)
                if e is not None:
                    edges.append(e)
    return sizes, at, edges, named


def _pick_run(measured: list) -> int:
    """Which run of sizes to keep: one whose dice's outlines, measured at its middle,
    measure within it (a die read at its own size), the longest such, then the one whose
    outlines lie nearest its middle; without one, the longest run (a misreading at a wrong
    size reads over a narrower range than the die's own size: bright_glossy_sharp's 0.70-0.85
    against 1.06-1.39, docs/camera.md)."""
    def key(i: int) -> tuple[bool, int, float]:
        sizes, at, edges, _ = measured[i]
        if not edges:
            return False, len(sizes), 0.0
        edge = float(np.median(edges))
        fits = sizes[0] * (1 - _RUN_SLACK) <= edge <= sizes[-1] * (1 + _RUN_SLACK)
        return fits, len(sizes), -abs(float(np.log(edge / at)))
    return max(range(len(measured)), key=key)


#: the dice's height over the camera's (above the tray's floor) a camera 1.45 to 2.1 m up
#: gives: what a fit leans to where the dice on the stills lie too close together to tell it
_STRIP_PER_PX_PRIOR = 16.0 / 1800.0
#: how strongly (as a spread of the dice's positions, die edges) the fit leans to it
_PRIOR_SPREAD_DICE = 1.0
#: a die whose strip lies this far (die edges) from the fit's is left out (a strip measured
#: on a light floor, a die on the stills against a wall or another die)
_STRIP_OUTLIER = 0.06
#: a die's strip is measured only where the floor round it is darker than its top face's white
#: by at least this share of the white (a side face in shade is not told from a lighter floor)
_STRIP_CONTRAST = 0.5


def strip_offset(lo: np.ndarray, centre: tuple[float, float], die_px: float) -> tuple[float, float] | None:
    """How far (x, y picture pixels) the top face of the die at `centre` (its pips' centre)
    is seen shifted from its foot: a camera off axis sees the side faces turned toward it
    as strips beside the top face, on the side nearer the camera, as wide as the shift
    across that side. Measured on the die's outline (`_silhouette`) along its two axes: the
    outline reaches from the top face's centre half a die on the far side and half a die
    plus the strip on the near one, so the difference of the two is the shift along that
    axis (the rounded edges and their shade, alike on both sides, cancel). None when the
    outline does not stand out from the floor round it."""
    # (a side face in shade is darker than halfway to the top face's white: a quarter; and
    # on a floor less than half as dark as the white, a side face in shade is not told
    # from it)
    sil = _silhouette(lo, centre, die_px, reach=1.3, share=0.25, contrast=_STRIP_CONTRAST)
    if sil is None:
        return None
    comp, px, py = sil
    turn = np.deg2rad(_outline_turn(lo, centre, die_px))
    steps = np.arange(0.0, 1.25 * die_px, 0.25)
    across = np.linspace(-0.2, 0.2, 9) * die_px
    shift = []
    for a in (turn, turn + np.pi / 2):
        u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
        reach = []
        for sign in (1.0, -1.0):
            xs = np.rint(px + sign * u[0] * steps[None, :] + v[0] * across[:, None]).astype(int)
            ys = np.rint(py + sign * u[1] * steps[None, :] + v[1] * across[:, None]).astype(int)
            ok = (xs >= 0) & (ys >= 0) & (xs < comp.shape[1]) & (ys < comp.shape[0])
            inside = np.zeros(xs.shape, bool)
            inside[ok] = comp[ys[ok], xs[ok]]
            if inside[:, -1].any():
                return None  # the outline runs on (the die joins a light floor, a wall, a die)
            reach.append(float(np.median(np.argmin(inside, axis=1))) * 0.25)
        if not 0.4 * die_px <= min(reach) <= 0.62 * die_px or max(reach) > 1.1 * die_px:
            return None  # no die's side on one side: not a die's outline alone
        shift.append(reach[1] - reach[0])  # the top face's shift along +u
    (a, b), (ua, ub) = shift, (turn, turn + np.pi / 2)
    return (float(a * np.cos(ua) + b * np.cos(ub)), float(a * np.sin(ua) + b * np.sin(ub)))


def fit_view(strips: list[tuple[tuple[float, float], tuple[float, float]]], die_px: float) -> CameraView | None:
    """The camera's view from the strips of the dice on the stills ((top face's centre,
    shift), picture pixels of the zone): a pinhole camera over a flat tray sees a die's top
    face shifted from its foot away from the point straight below it, by the dice's height
    over the camera's, `shift = k * (centre - nadir)`. Fitted by least squares in k and
    `-k * nadir` (linear), leaning a little to a plausible k where the dice lie close together
    (the shift over the tray, which is what the reader needs, is then still right), the
    dice that disagree left out. None with fewer than three dice measured."""
    if len(strips) < 3:
        return None
    pts = np.array([c for c, _ in strips], np.float64)
    off = np.array([s for _, s in strips], np.float64)
    keep = np.ones(len(pts), bool)
    while True:
        if keep.sum() < 3:
            return None
        mean = pts[keep].mean(axis=0)
        p = pts[keep] - mean
        # unknowns: k, then the shift at the dice's mean position (x, y)
        rows = [np.c_[p[:, 0], np.ones(len(p)), np.zeros(len(p))], np.c_[p[:, 1], np.zeros(len(p)), np.ones(len(p))]]
        a = np.vstack(rows)
        y = np.r_[off[keep, 0], off[keep, 1]]
        lam = np.sqrt(len(p)) * _PRIOR_SPREAD_DICE * die_px
        a = np.vstack([a, [lam, 0.0, 0.0]])
        y = np.r_[y, lam * _STRIP_PER_PX_PRIOR]
        (k, sx, sy), *_ = np.linalg.lstsq(a, y, rcond=None)
        k = max(float(k), 1e-4)
        pred = k * (pts - mean) + np.array([sx, sy])
        err = np.hypot(*(off - pred).T)
        if not (keep & (err > _STRIP_OUTLIER * die_px)).any():
            break
        keep[int(np.argmax(np.where(keep, err, -1.0)))] = False  # the worst one out, then fit again
    nadir = mean - np.array([sx, sy]) / k
    view = CameraView(float(nadir[0]), float(nadir[1]), k, int(keep.sum()))
    # no camera looking down at a tray gives more; such a fit is of dice misread, not kept
    return view if _plausible(view, die_px) else None


def _silhouette(lo: np.ndarray, centre: tuple[float, float], rough_px: float, reach: float = 1.0,
                share: float = 0.5, contrast: float = 0.0):
    """The outline of the die at `centre` (its top face's centre, as the reader found it):
    what is brighter than `share` of the way from the floor round it to its top face's white (its pips
    filled first), with its side strips, within `reach` dice of its centre. (mask, x, y of
    the centre in it) or None."""
    h, w = lo.shape
    r = int(round(rough_px * reach))
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
    if face - floor < max(10.0, contrast * face):
        return None
    mask = (filled >= floor + share * (face - floor)).astype(np.uint8)
    n, labels, _, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    if not 0 <= py < labels.shape[0] or not 0 <= px < labels.shape[1] or labels[py, px] == 0:
        return None
    return labels == labels[py, px], px, py


#: a side of a die's outline reaching this far (die edges) from its centre runs on into
#: something it touches (a die's half and its strip reach 0.5 and a tenth more)
_JOINED = 0.7


def _silhouette_edge(lo: np.ndarray, centre: tuple[float, float], rough_px: float) -> float | None:
    """The edge of the die at `centre` (its top face's centre, as the reader found it): from
    its outline, what is brighter than halfway from the floor round it to its top face's
    white (its pips filled first). The top face with its rounded edges is 16 mm."""
    sil = _silhouette(lo, centre, rough_px)
    if sil is None:
        return None
    comp, px, py = sil
    # The top face's centre is the pips' (the reader re-centres every face on them), so its
    # four sides are the nearest the outline comes to it, a quarter turn apart. A side may
    # look further (a strip of side face seen off axis joins the outline there) or nearer (a
    # rounded edge turned from the light is as dark as the floor), each on at most two sides:
    # the middle two of the four are kept. But a die or a light rim the die touches joins it
    # too, and runs a side on far beyond a strip (`_JOINED`): with a strip on another side,
    # the middle two would take one of them in (a touching die a quarter too large,
    # docs/camera.md). Such a die is measured across the axis (two opposite sides) that
    # nothing runs on along, the shorter if both are free.
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
    a = sides[:, turn]
    axes = (a[0] + a[2], a[1] + a[3])
    joined = a > _JOINED * rough_px
    if joined.any():
        free = [s for s, j in zip(axes, (joined[0] | joined[2], joined[1] | joined[3]), strict=True) if not j]
        edge = float(min(free or axes))
    else:
        edge = float(np.sort(a)[1:3].sum())
    return edge if 0.6 * rough_px <= edge <= 1.4 * rough_px else None


_HEADER = "# Measured by `station camera calibrate --dice` on stills of the tray with dice (docs/camera.md)."


def write_dice_calibration(path: str | Path, cal: DiceCalibration) -> None:
    """Replace the `[calibration.dice]` table of a camera config, keeping everything else."""
    body = [_HEADER, "[calibration.dice]"] + [f"{k} = {v}" for k, v in cal.as_dict().items()]
    replace_tables(path, lambda name: name == "calibration.dice", (_HEADER,), "\n".join(body) + "\n")
