"""The dice tray on the felt, seen by one camera, and what the camera should report."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Camera
from .dice import DIE_MM, Die, draw_die, draw_die_shadow
from .dice import dice_set as _dice_set
from .hand import Hand
from .raster import Canvas, felt_background
from .table import FELTS_BGR, LINES_BGR, Zone, draw_zone

TRAY_STYLES = {
    # floor (velvet), rim
    "walnut": ((40, 30, 110), (40, 70, 110)),
    "black": ((40, 40, 44), (30, 30, 32)),
    "green_velvet": ((50, 90, 30), (190, 190, 196)),
    "red_leather": ((36, 30, 140), (26, 26, 70)),
    "cream": ((170, 200, 214), (90, 120, 150)),
}
ZONE_MARGIN_MM = 30.0  # the DICE zone is drawn generously round the tray


@dataclass(frozen=True)
class Tray:
    centre_mm: tuple[float, float]
    yaw_deg: float
    inner_mm: float = 110.0
    rim_mm: float = 11.0
    rim_height_mm: float = 13.0
    floor_mm: float = 3.0
    style: str = "walnut"

    def _to_table(self, local, z):
        a = math.radians(self.yaw_deg)
        ux = np.array([math.cos(a), math.sin(a)])
        uy = np.array([-math.sin(a), math.cos(a)])
        p = np.asarray(self.centre_mm) + local[0] * ux + local[1] * uy
        return np.array([p[0], p[1], z])

    def square(self, half, z):
        return np.array([self._to_table(p, z) for p in ((-half, -half), (half, -half), (half, half), (-half, half))])

    def local_to_table_xy(self, local):
        return self._to_table(local, 0.0)[:2]

    def zone(self) -> Zone:
        side = self.inner_mm + 2 * self.rim_mm + 2 * ZONE_MARGIN_MM
        return Zone("DICE", tuple(self.centre_mm), self.yaw_deg, (side, side))


def _quads(tray: Tray):
    """(corners, outward normal, colour) of the tray's surfaces: floor, inner walls, rim top,
    outer walls."""
    floor_c, rim_c = TRAY_STYLES[tray.style]
    hi, ho = tray.inner_mm / 2, tray.inner_mm / 2 + tray.rim_mm
    zf, zr = -tray.floor_mm, -tray.rim_height_mm
    fi = tray.square(hi, zf)
    ri = tray.square(hi, zr)
    ro = tray.square(ho, zr)
    bo = tray.square(ho, 0.0)
    up = np.array([0.0, 0.0, -1.0])
    out = [("floor", fi, up, floor_c)]
    for i in range(4):
        j = (i + 1) % 4
        mid = (fi[i] + fi[j]) / 2
        n_in = np.array([tray.centre_mm[0] - mid[0], tray.centre_mm[1] - mid[1], 0.0])
        n_in /= np.linalg.norm(n_in)
        out.append(("inner", np.array([ri[i], ri[j], fi[j], fi[i]]), n_in, rim_c))
        out.append(("rim", np.array([ro[i], ro[j], ri[j], ri[i]]), up, rim_c))
        out.append(("outer", np.array([bo[j], bo[i], ro[i], ro[j]]), -n_in, rim_c))
    return out


def _lit(colour, normal, light, ambient=0.45):
    s = ambient + (1 - ambient) * max(0.0, float(normal @ light))
    return tuple(float(c) * s for c in colour)


def _place_dice(values, tray: Tray, rng, arrangement: str):
    """Die footprints inside the tray, not overlapping; `touching`: the two dice side by side,
    face to face; `rim`: the first die against a wall."""
    hi = tray.inner_mm / 2
    for _ in range(500):
        dice = []
        for k, v in enumerate(values):
            yaw = tray.yaw_deg + float(rng.uniform(0, 90))
            if arrangement == "touching" and k == 1:
                a = math.radians(dice[0].yaw_deg + 90 * int(rng.integers(4)))
                along = np.array([math.cos(a), math.sin(a)])
                side = np.array([-along[1], along[0]])
                xy = dice[0].xy + along * (DIE_MM + 0.05) + side * rng.uniform(-6, 6)
                yaw = dice[0].yaw_deg
            elif arrangement == "rim" and k == 0:
                yaw = tray.yaw_deg + float(rng.uniform(0, 90))
                probe = Die(v, (0, 0), yaw - tray.yaw_deg, 0.0).footprint_mm()
                wall = int(rng.integers(4))
                ext = {0: -probe[:, 1].min(), 1: probe[:, 0].max(), 2: probe[:, 1].max(), 3: -probe[:, 0].min()}[wall]
                t = rng.uniform(-hi + 14, hi - 14)
                local = {0: (t, -hi + ext + 0.05), 1: (hi - ext - 0.05, t), 2: (t, hi - ext - 0.05), 3: (-hi + ext + 0.05, t)}[wall]
                xy = tray.local_to_table_xy(local)
            else:
                xy = tray.local_to_table_xy(rng.uniform(-hi + 12, hi - 12, 2))
            dice.append(Die(v, xy, yaw, tray.floor_mm))
        if _fits(dice, tray):
            return dice
    raise ValueError(f"could not place dice {values} ({arrangement}) in the tray")


def _fits(dice, tray: Tray) -> bool:
    inner = tray.square(tray.inner_mm / 2 + 0.01, 0)[:, :2].astype(np.float32)
    for d in dice:
        for x, y in d.footprint_mm():
            if cv2.pointPolygonTest(inner, (float(x), float(y)), True) < -1e-3:
                return False
    for i in range(len(dice)):
        for j in range(i + 1, len(dice)):
            a, _ = cv2.intersectConvexConvex(dice[i].footprint_mm().astype(np.float32), dice[j].footprint_mm().astype(np.float32))
            if a > 0.5:
                return False
    return True


def render_dice_tray(dice_set: str, dice=(), *, seed: int = 0, mm_per_px: float = 0.33,
                     image_size=(1920, 1080), tilt_deg: float | None = None, tilt_azimuth_deg: float | None = None,
                     arrangement: str = "free", hand: bool = False, tray_offset_mm=(0.0, 0.0),
                     tray_style: str | None = None, ss: int = 3, distance_mm: float = 1600.0,
                     felt: str | None = None, draw_dice=True):
    """The tray with 0, 1 or 2 dice showing `dice` (top faces). arrangement: "free", "touching"
    (two dice face to face), "rim" (the first die against a wall), "outside" (the tray at the
    picture's edge, the first die against the wall there, partly out of the picture). hand: the
    dealer's hand over the tray. Returns (image_bgr, truth)."""
    dice = [int(v) for v in dice]
    if len(dice) > 2:
        raise ValueError(f"the tray holds at most two dice, got {len(dice)}")
    if arrangement not in ("free", "touching", "rim", "outside"):
        raise ValueError(f"unknown arrangement {arrangement!r}")
    if arrangement == "touching" and len(dice) != 2:
        raise ValueError("touching needs two dice")
    ds = _dice_set(dice_set)
    # the table (tray, felt, camera, light) and what lies in the tray draw from their own
    # streams, so one seed gives the same table whatever dice are thrown on it
    trng, rng, hrng, noise_rng = (np.random.default_rng([seed, k]) for k in range(4))
    style = tray_style or list(TRAY_STYLES)[int(trng.integers(len(TRAY_STYLES)))]
    if style not in TRAY_STYLES:
        raise ValueError(f"unknown tray style {style!r} (known: {', '.join(TRAY_STYLES)})")
    felt_bgr = FELTS_BGR[felt] if felt else list(FELTS_BGR.values())[int(trng.integers(len(FELTS_BGR)))]
    line_bgr = LINES_BGR[int(trng.integers(len(LINES_BGR)))]
    tray_yaw = float(trng.uniform(-25, 25))
    view_w = image_size[0] * mm_per_px
    offset = np.asarray(tray_offset_mm, float)
    if arrangement == "outside":
        # tray straight, its right wall 8 mm past the picture's right edge, so a die against it
        # is partly out of the picture
        tray_yaw = 0.0
        offset = np.array([view_w / 2 - 110.0 / 2 + 8.0, offset[1]])
    tray = Tray(tuple(offset), tray_yaw, style=style)
    if arrangement == "outside" and dice:
        hi = tray.inner_mm / 2
        first = Die(dice[0], tray.local_to_table_xy((hi - DIE_MM / 2 - 0.05, rng.uniform(-20, 20))), tray_yaw, tray.floor_mm)
        rest = _place_dice(dice[1:], tray, rng, "free") if len(dice) > 1 else []
        placed = [first] + rest
        for _ in range(200):
            if _fits(placed, tray):
                break
            placed = [first] + _place_dice(dice[1:], tray, rng, "free")
    else:
        placed = _place_dice(dice, tray, rng, arrangement if dice else "free")
    if tilt_deg is None:
        tilt_deg = float(trng.uniform(0.0, 8.0))
    az = float(trng.uniform(0, 360)) if tilt_azimuth_deg is None else float(tilt_azimuth_deg)
    camera = Camera(tuple(image_size), mm_per_px, (0.0, 0.0), tilt_deg, az, 0.0, distance_mm)
    # light from above, a little to one side
    la = trng.uniform(0, 2 * math.pi)
    light = np.array([0.45 * math.cos(la), 0.45 * math.sin(la), -1.0])
    light /= np.linalg.norm(light)
    hand_obj = None
    if hand:
        d = math.degrees(math.atan2(-1.0, hrng.uniform(-0.4, 0.4)))
        hand_obj = Hand(hrng, np.asarray(tray.centre_mm) + hrng.uniform(-12, 12, 2), d, height_mm=hrng.uniform(45, 90),
                        length_mm=240.0, width_mm=170.0)
    canvas = Canvas(camera, ss, felt_background(camera, ss, felt_bgr, noise_rng), depth=True)
    draw_zone(canvas, tray.zone(), line_bgr)
    # the tray's own shadow on the felt
    sh = np.zeros((32, 32, 4), np.float32)
    sh[4:28, 4:28, 3] = 0.35
    sh[..., 3] = cv2.GaussianBlur(sh[..., 3], (0, 0), 2.5)
    sq = tray.square(tray.inner_mm / 2 + tray.rim_mm + 6, 0.0)
    sq[:, :2] += -light[:2] / abs(light[2]) * 8.0
    canvas.quad(sh, sq)
    surfaces = _quads(tray)
    for kind, corners, n, colour in surfaces:
        if kind == "floor" and camera.faces_camera(corners[0], n):
            canvas.polygon(corners, _lit(colour, n, light), depth_write=True)
    for d in placed:
        draw_die_shadow(canvas, d, light)
    for kind, corners, n, colour in surfaces:
        if kind != "floor" and camera.faces_camera(corners.mean(axis=0), n):
            canvas.polygon(corners, _lit(colour, n, light), depth_test=True, depth_write=True)
    side_areas = []
    for d in placed:
        areas = draw_die(canvas, d, ds, light, noise_rng) if draw_dice else {}
        side_areas.append({v: a for v, a in areas.items() if v != d.top})
    if hand_obj is not None:
        hand_obj.draw(canvas)
    image = canvas.result()
    truth = _truth(camera, tray, placed, side_areas, hand_obj)
    truth.update({"dice_set": dice_set, "tray_style": style, "arrangement": arrangement,
                  "camera": {"image_size": list(image_size), "mm_per_px": mm_per_px, "tilt_deg": tilt_deg,
                             "tilt_azimuth_deg": az, "distance_mm": distance_mm}})
    return image, truth


def _truth(camera: Camera, tray: Tray, dice, side_areas, hand) -> dict:
    w, h = camera.image_size
    hand_px = hand.outline_px(camera) if hand is not None else None
    per_die = []
    reading = []
    for d, sides in zip(dice, side_areas, strict=True):
        top = camera.project(d.top_corners())
        inside = bool(top[:, 0].min() >= 0 and top[:, 1].min() >= 0 and top[:, 0].max() <= w - 1 and top[:, 1].max() <= h - 1)
        all_pts = camera.project(np.vstack([f[3] for f in d.faces()]))
        seen = bool(all_pts[:, 0].max() >= 0 and all_pts[:, 1].max() >= 0 and all_pts[:, 0].min() <= w - 1 and all_pts[:, 1].min() <= h - 1)
        covered = False
        if hand_px is not None:
            a, _ = cv2.intersectConvexConvex(top.astype(np.float32), hand_px.astype(np.float32))
            covered = a > 0
        whole = inside and not covered
        per_die.append({"top": d.top, "centre_px": camera.project(d.centre.reshape(1, 3))[0].tolist(),
                        "top_centre_px": camera.project((d.centre + np.array([0, 0, -DIE_MM / 2])).reshape(1, 3))[0].tolist(),
                        "top_corners_px": top.tolist(), "top_in_view": whole, "in_picture": seen,
                        "side_faces_px": {int(k): v for k, v in sides.items()}})
        if seen:
            reading.append(d.top if whole else 0)
    zone = tray.zone()
    zone_px = camera.project(zone.corners_mm())
    covered_zone = False
    if hand_px is not None:
        tray_px = camera.project(tray.square(tray.inner_mm / 2, -tray.floor_mm))
        a, _ = cv2.intersectConvexConvex(tray_px.astype(np.float32), hand_px.astype(np.float32))
        covered_zone = a > 0.25 * abs(cv2.contourArea(tray_px.astype(np.float32)))
    return {
        # what the camera should report for the DICE zone (as a multiset: order is not fixed)
        "reading": None if covered_zone else sorted(reading),
        "dice": per_die,
        "hand": hand is not None,
        "zones": {"DICE": zone_px.tolist()},
        "tray_px": camera.project(tray.square(tray.inner_mm / 2 + tray.rim_mm, 0.0)).tolist(),
    }
