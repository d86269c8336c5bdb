"""The dice tray under the camera ("Dice" of the card-face sheet): two 16 mm six-sided dice,
round pips, the 1 and the 4 red, in a walled tray on the felt, seen by a 1920x1080 camera from
1.7-1.9 m and off axis, so strips of the dice's sides (pips included) show.

Each die is a rounded cube drawn face by face through the camera at three times the picture's
resolution and shrunk: a hull of its corner spheres for the rounded edges, the faces the camera
can see, pips as dimples (a dark rim on the side the light comes from), its shadow on the tray.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .camera import Camera, rect_mm, rot2
from .perturb import camera_pipeline
from .scene import (FELTS_BGR, LINE_BGR, SKINS_BGR, clip_box, draw_hand, draw_outline, felt_layer, hand_polygons,
                    light_field, padded_box)

FRAME = (1920, 1080)
DIE_MM = 16.0
SS = 3  # supersampling of a die's patch


@dataclass(frozen=True)
class DiceSet:
    body_bgr: tuple
    translucency: float  # 0 opaque .. 0.5 milky
    pip_mm: float
    one_pip_mm: float
    spacing_mm: float  # centre of the face to a corner pip, along each edge
    depth: float  # how deep a dimple looks, 0..1
    red_bgr: tuple
    black_bgr: tuple
    edge_r_mm: float
    gloss: float


DICE_SETS: dict[str, DiceSet] = {
    "white_bright_red": DiceSet((0.94, 0.95, 0.95), 0.0, 2.8, 5.0, 4.4, 0.5, (0.16, 0.14, 0.88), (0.08, 0.08, 0.08), 1.2, 0.25),
    "ivory_dull_red": DiceSet((0.74, 0.88, 0.94), 0.05, 3.0, 4.2, 4.8, 0.8, (0.20, 0.22, 0.55), (0.14, 0.13, 0.12), 2.0, 0.1),
    "pearl_dark_red": DiceSet((0.92, 0.89, 0.87), 0.1, 2.5, 3.6, 4.0, 0.3, (0.12, 0.10, 0.40), (0.05, 0.05, 0.06), 0.8, 0.4),
    "translucent_white": DiceSet((0.90, 0.92, 0.92), 0.4, 3.2, 5.5, 4.6, 0.6, (0.18, 0.16, 0.75), (0.10, 0.10, 0.10), 2.6, 0.3),
    "cream_big_pips": DiceSet((0.80, 0.91, 0.96), 0.15, 3.4, 6.0, 4.9, 1.0, (0.22, 0.20, 0.68), (0.12, 0.10, 0.10), 1.6, 0.05),
}

# standard die, the die's own frame: opposite faces sum to 7
FACE_NORMALS = {1: (0, 0, -1), 6: (0, 0, 1), 2: (0, -1, 0), 5: (0, 1, 0), 3: (1, 0, 0), 4: (-1, 0, 0)}


def _rotations() -> list[np.ndarray]:
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            M = np.zeros((3, 3))
            for i, (j, s) in enumerate(zip(perm, signs)):
                M[i, j] = s
            if np.linalg.det(M) > 0:
                out.append(M)
    return out


ROTATIONS = _rotations()


def pip_layout(v: int, s: float) -> list[tuple[float, float]]:
    c = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
         4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
         6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}[v]
    return [(a * s, b * s) for a, b in c]


@dataclass(frozen=True)
class DiceTable:
    cam: Camera
    tray_c: tuple  # tray centre, mm
    tray_in: tuple  # inner width, depth, mm
    tray_shape: str  # "rect", "octagon" or "round"
    tray_angle: float
    rim_w: float
    rim_h: float
    zone_margin: float
    felt_bgr: tuple
    lining_bgr: tuple
    rim_bgr: tuple
    light_dir: np.ndarray  # unit, from the table towards the lamp
    zone_printed: bool


@lru_cache(maxsize=16)
def dice_table(table: int) -> DiceTable:
    rng = np.random.default_rng([table, 16016])
    height = float(rng.uniform(1700, 1900))
    side = float(rng.uniform(150, 600))
    phi = rng.uniform(0, 2 * np.pi)
    mm_px = float(rng.uniform(0.25, 0.32))
    tin = (float(rng.uniform(150, 220)), float(rng.uniform(110, 160)))
    rim_w = float(rng.uniform(12, 18))
    # on one table in four the tray runs off the picture's edge
    off_edge = table % 4 == 3
    tray_c = (0.0, 0.0)
    centre = np.array([side * np.cos(phi), side * np.sin(phi), -height])
    look = np.array([0.0, 0.0, 0.0])
    focal = float(np.linalg.norm(centre - look)) / mm_px
    tray_angle = float(rng.uniform(-0.3, 0.3))
    for _ in range(40):
        roll = float(rng.uniform(0, 2 * np.pi))
        cam = Camera.looking_at(centre, look, focal, FRAME, roll)
        # elsewhere the whole tray, rim and all, is in the picture
        outer = rect_mm(*tray_c, tin[0] + 2 * rim_w, tin[1] + 2 * rim_w, tray_angle)
        if off_edge or _inside_frame(cam.project(_at(outer, 0.0)), 12):
            break
        tin = (tin[0] * 0.97, max(100.0, tin[1] * 0.97))
    if off_edge:
        # the sensor sees the tray off centre: the picture's left edge runs across the tray,
        # about a third of the way in, so a die there can be partly outside the picture
        K = cam.K.copy()
        reach = float(np.abs(cam.project(_at(rect_mm(0, 0, *tin, 0), 0.0))[:, 0] - cam.project([[0, 0, 0]])[0, 0]).max())
        K[0, 2] += reach * 0.35 - cam.project([[0, 0, 0]])[0, 0]
        cam = Camera(K=K, R=cam.R, centre_mm=cam.centre_mm, width_px=cam.width_px, height_px=cam.height_px)
    el, az = np.radians(rng.uniform(35, 70)), rng.uniform(0, 2 * np.pi)
    L = np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), -np.sin(el)])
    linings = ((0.10, 0.10, 0.10), (0.08, 0.22, 0.10), (0.10, 0.16, 0.30), (0.10, 0.08, 0.32), (0.30, 0.14, 0.06))
    rims = ((0.10, 0.22, 0.38), (0.08, 0.08, 0.09), (0.60, 0.60, 0.62), (0.18, 0.36, 0.55))
    # on one table in three the rim stands above the dice: it can hide the edge of a top face
    rim_h = float(rng.uniform(18, 24)) if table % 3 == 2 else float(rng.uniform(8, 14))
    shape = ("rect", "octagon", "round")[int(rng.integers(3))]
    return DiceTable(cam=cam, tray_c=tray_c, tray_in=tin, tray_shape=shape, tray_angle=tray_angle,
                     rim_w=rim_w, rim_h=rim_h, zone_margin=float(rng.uniform(15, 35)),
                     felt_bgr=FELTS_BGR[(table * 2) % len(FELTS_BGR)],
                     lining_bgr=linings[int(rng.integers(len(linings)))], rim_bgr=rims[int(rng.integers(len(rims)))],
                     light_dir=L, zone_printed=bool(rng.random() < 0.6))


def _tray_poly(t: DiceTable, grow_mm: float) -> np.ndarray:
    """The tray's outline on the table (convex), grown by grow_mm: a rectangle, an octagon
    (the rectangle with its corners cut), or an ellipse."""
    w, h = t.tray_in[0] / 2 + grow_mm, t.tray_in[1] / 2 + grow_mm
    if t.tray_shape == "round":
        a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
        local = np.column_stack([w * np.cos(a), h * np.sin(a)])
    elif t.tray_shape == "octagon":
        c = 0.28 * min(t.tray_in) + grow_mm * 0.41  # the cut keeps the rim's width along the bevel
        local = np.array([[-w + c, -h], [w - c, -h], [w, -h + c], [w, h - c], [w - c, h], [-w + c, h], [-w, h - c], [-w, -h + c]])
    else:
        local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
    return local @ rot2(t.tray_angle).T + np.asarray(t.tray_c)


def _inner(t: DiceTable) -> np.ndarray:
    return _tray_poly(t, 0.0)


def _outer(t: DiceTable) -> np.ndarray:
    return _tray_poly(t, t.rim_w)


def _zone(t: DiceTable) -> np.ndarray:
    m = t.rim_w + t.zone_margin
    return rect_mm(*t.tray_c, t.tray_in[0] + 2 * m, t.tray_in[1] + 2 * m, t.tray_angle)


def _at(poly, z):
    return np.column_stack([poly, np.full(len(poly), z)])


def _fill(canvas, cam, pts3, colour):
    p = cam.project(pts3)
    cv2.fillPoly(canvas, [np.round(p * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)


def _shade(n: np.ndarray, L: np.ndarray, ambient: float = 0.42) -> float:
    return float(ambient + (1 - ambient) * max(0.0, float(n @ L)))


def _tray_parts(canvas, t: DiceTable, near: bool) -> list[np.ndarray]:
    """The tray's walls and rim; `near`: only the parts on the camera's side, drawn over the
    dice (they hide what of a die lies behind them), else the floor and everything. Returns the
    picture polygons drawn."""
    cam, L = t.cam, t.light_dir
    inner, outer = _inner(t), _outer(t)
    cxy = cam.centre_mm[:2]
    drawn = []
    if not near:
        _fill(canvas, cam, _at(inner, 0.0), np.array(t.lining_bgr) * _shade(np.array([0, 0, -1.0]), L))
    n_side = len(inner)
    for i in range(n_side):
        j = (i + 1) % n_side
        mid = (outer[i] + outer[j]) / 2
        edge = outer[j] - outer[i]
        out_n = np.array([edge[1], -edge[0]]) / np.linalg.norm(edge)
        if float(out_n @ (mid - np.asarray(t.tray_c))) < 0:
            out_n = -out_n
        towards_cam = float(out_n @ (cxy - mid)) > 0
        n3 = np.array([out_n[0], out_n[1], 0.0])
        if not near and not towards_cam:
            # inner face of the far wall, seen over the rim
            _fill(canvas, cam, np.array([[*inner[i], 0], [*inner[j], 0], [*inner[j], -t.rim_h], [*inner[i], -t.rim_h]]),
                  np.array(t.rim_bgr) * _shade(-n3, L))
        if towards_cam == near or not near:
            if towards_cam:
                wall = np.array([[*outer[i], 0], [*outer[j], 0], [*outer[j], -t.rim_h], [*outer[i], -t.rim_h]])
                _fill(canvas, cam, wall, np.array(t.rim_bgr) * _shade(n3, L))
                drawn.append(cam.project(wall))
            top = np.array([[*outer[i], -t.rim_h], [*outer[j], -t.rim_h], [*inner[j], -t.rim_h], [*inner[i], -t.rim_h]])
            _fill(canvas, cam, top, np.array(t.rim_bgr) * 1.1 * _shade(np.array([0, 0, -1.0]), L))
            drawn.append(cam.project(top))
    return drawn


@dataclass
class Die:
    face: int
    x: float
    y: float
    R: np.ndarray  # die frame -> table


def _die_rotation(face: int, yaw: float, rng) -> np.ndarray:
    up = np.array([0, 0, -1.0])
    cands = [M for M in ROTATIONS if np.allclose(M @ np.array(FACE_NORMALS[face], float), up)]
    M = cands[int(rng.integers(len(cands)))]
    Y = np.eye(3)
    Y[:2, :2] = rot2(yaw)
    return Y @ M


def _yaw(d: Die) -> float:
    """The die's turn on the table: that of one of its axes lying flat. (Its x axis stands
    upright when a 3 or 4 is up; the turn was taken from it alone before, 0 for every such
    die, so their footprints and top faces in the truth were unturned squares.)"""
    j = int(np.argmin(np.abs(d.R[2])))
    return float(np.arctan2(d.R[1, j], d.R[0, j]))


def footprint(d: Die) -> np.ndarray:
    return rect_mm(d.x, d.y, DIE_MM, DIE_MM, _yaw(d))


def _draw_shadow(canvas, t: DiceTable, d: Die):
    L = t.light_dir
    c = np.array([d.x, d.y, -DIE_MM / 2])
    pts = np.array([c + d.R @ (np.array(s) * DIE_MM / 2) for s in itertools.product((1, -1), repeat=3)])
    flat = pts - (pts[:, 2:3] / L[2]) * L  # along the light onto the floor
    shadow = t.cam.project(flat)
    box = clip_box(padded_box(shadow, 12), canvas.shape)
    if box is None:
        return
    x0, y0, x1, y1 = box
    m = np.zeros((y1 - y0, x1 - x0), np.float32)
    hull = cv2.convexHull(np.round((shadow - [x0, y0]) * 4).astype(np.int32))
    cv2.fillConvexPoly(m, hull, 1.0, cv2.LINE_AA, shift=2)
    m = cv2.GaussianBlur(m, (0, 0), 3.0)
    canvas[y0:y1, x0:x1] *= (1 - 0.5 * m)[..., None]


def _draw_die(canvas, t: DiceTable, d: Die, ds: DiceSet, rng):
    cam, L = t.cam, t.light_dir
    c = np.array([d.x, d.y, -DIE_MM / 2])
    r = ds.edge_r_mm
    core = DIE_MM / 2 - r
    # corner spheres -> silhouette
    dirs = np.array([(np.cos(a) * np.sin(b), np.sin(a) * np.sin(b), np.cos(b))
                     for a in np.linspace(0, 2 * np.pi, 10, endpoint=False) for b in np.linspace(0, np.pi, 6)])
    pts = np.concatenate([c + d.R @ (np.array(s) * core) + r * dirs for s in itertools.product((1, -1), repeat=3)])
    x0, y0, x1, y1 = padded_box(cam.project(pts), 3)
    box = clip_box((x0, y0, x1, y1), canvas.shape)
    if box is None:
        return
    cx0, cy0, cx1, cy1 = box
    pw, ph = (x1 - x0) * SS, (y1 - y0) * SS
    layer = np.zeros((ph, pw, 3), np.float32)
    alpha = np.zeros((ph, pw), np.float32)

    def to_patch(p3):
        return np.round((cam.project(p3) - [x0, y0]) * SS * 16).astype(np.int32)

    body = np.array(ds.body_bgr, np.float32)
    hull = cv2.convexHull(to_patch(pts))
    cv2.fillConvexPoly(alpha, hull, 1.0, cv2.LINE_AA, shift=4)
    cv2.fillConvexPoly(layer, hull, (body * 0.62).tolist(), cv2.LINE_AA, shift=4)
    for v, n_die in FACE_NORMALS.items():
        n = d.R @ np.array(n_die, float)
        fc = c + n * DIE_MM / 2
        if float(n @ (cam.centre_mm - fc)) <= 0:
            continue
        # the face's own axes, fixed in the die so a 2, 3 or 6 keeps its diagonal
        a_die = np.array([0, 1.0, 0]) if abs(n_die[1]) == 0 else np.array([1.0, 0, 0])
        a = d.R @ a_die
        b = np.cross(n, a)
        lit = _shade(n, L, 0.45)
        col = body * lit * (1 - 0.25 * ds.translucency) + body * 0.25 * ds.translucency
        quad = np.array([fc + sa * core * a + sb * core * b for sa, sb in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        cv2.fillConvexPoly(layer, to_patch(quad), col.tolist(), cv2.LINE_AA, shift=4)
        if n[2] < -0.9 and ds.gloss > 0:
            # a soft sheen where the lamp reflects, faint so it never hides a pip
            g = np.zeros((ph, pw), np.float32)
            hp = to_patch([fc + rng.uniform(-4, 4) * a + rng.uniform(-4, 4) * b])[0] / 16
            cv2.circle(g, tuple(int(q) for q in hp), int(3.5 * SS / max(0.2, cam.mm_per_px([fc[:2]])[0])), 1.0, -1)
            g = cv2.GaussianBlur(g, (0, 0), 4 * SS) * ds.gloss * 0.35
            layer += g[..., None] * (1.0 - layer)
        ink = np.array(ds.red_bgr if v in (1, 4) else ds.black_bgr, np.float32)
        ink = ink * (1 - 0.3 * ds.translucency) + body * 0.3 * ds.translucency
        dia = ds.one_pip_mm if v == 1 else ds.pip_mm
        lp = L - (L @ n) * n  # light along the face: the dimple's rim on that side is in shade
        lp = lp / (np.linalg.norm(lp) + 1e-9)
        ts = np.linspace(0, 2 * np.pi, 28, endpoint=False)
        for pu, pv in pip_layout(v, ds.spacing_mm):
            pc = fc + pu * a + pv * b
            circ = np.array([pc + dia / 2 * (np.cos(q) * a + np.sin(q) * b) for q in ts])
            cv2.fillConvexPoly(layer, to_patch(circ), (ink * lit * (1 - 0.45 * ds.depth)).tolist(), cv2.LINE_AA, shift=4)
            inner = np.array([pc - lp * dia * 0.12 * ds.depth + dia * 0.42 * (np.cos(q) * a + np.sin(q) * b) for q in ts])
            cv2.fillConvexPoly(layer, to_patch(inner), (ink * lit).tolist(), cv2.LINE_AA, shift=4)
    soft = max(0.5, r / float(cam.mm_per_px([[d.x, d.y]])[0]) * SS * 0.25 + ds.translucency * SS)
    layer = cv2.GaussianBlur(layer, (0, 0), soft * 0.5)
    alpha = cv2.GaussianBlur(alpha, (0, 0), 0.6 * SS)
    small = cv2.resize(layer, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    a_small = cv2.resize(alpha, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    # un-premultiply what the hull's blurred edge mixed with black
    small = small / np.maximum(cv2.resize(cv2.GaussianBlur((alpha > 0).astype(np.float32), (0, 0), soft * 0.5),
                                          (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA), 1e-3)[..., None]
    sx, sy = cx0 - x0, cy0 - y0
    small = small[sy:sy + cy1 - cy0, sx:sx + cx1 - cx0]
    a_small = a_small[sy:sy + cy1 - cy0, sx:sx + cx1 - cx0, None]
    roi = canvas[cy0:cy1, cx0:cx1]
    roi[:] = roi * (1 - a_small) + np.clip(small, 0, 1) * a_small


def _top_face(t: DiceTable, d: Die) -> np.ndarray:
    sq = rect_mm(d.x, d.y, DIE_MM, DIE_MM, _yaw(d))
    return t.cam.project(_at(sq, -DIE_MM))


def _crosses_edge(t: DiceTable, d: Die) -> bool:
    top = _top_face(t, d)
    inside = (top[:, 0] >= 0) & (top[:, 0] <= FRAME[0] - 1) & (top[:, 1] >= 0) & (top[:, 1] <= FRAME[1] - 1)
    return bool(inside.any() and not inside.all())


def _inside_frame(p: np.ndarray, margin_px: float = 0.0) -> bool:
    return bool((p >= margin_px).all() and (p[:, 0] <= FRAME[0] - 1 - margin_px).all()
                and (p[:, 1] <= FRAME[1] - 1 - margin_px).all())


def _overlap(a, b) -> float:
    return float(cv2.intersectConvexConvex(np.float32(a), np.float32(b))[0])


def _place(t: DiceTable, rng, n: int, how: str) -> list[Die]:
    """n dice on the tray floor: free, touching each other, or touching the wall."""
    inner = _inner(t)
    w, h = t.tray_in
    Rt = rot2(t.tray_angle)
    for _ in range(200):
        dice = []
        for k in range(n):
            face = int(rng.integers(1, 7))
            yaw = float(rng.uniform(0, 2 * np.pi))
            R = _die_rotation(face, yaw, rng)
            if k == 1 and how in ("touching", "both"):
                d0 = dice[0]
                ang = rng.uniform(0, 2 * np.pi)
                u = np.array([np.cos(ang), np.sin(ang)])
                lo, hi = 10.0, 30.0
                for _ in range(30):  # the distance at which the two footprints just meet
                    mid = (lo + hi) / 2
                    trial = Die(face, d0.x + mid * u[0], d0.y + mid * u[1], R)
                    if _overlap(footprint(trial), footprint(d0)) > 0:
                        lo = mid
                    else:
                        hi = mid
                dice.append(Die(face, d0.x + hi * u[0], d0.y + hi * u[1], R))
                continue
            lx, ly = rng.uniform(-w / 2 + 14, w / 2 - 14), rng.uniform(-h / 2 + 14, h / 2 - 14)
            p = Rt @ np.array([lx, ly]) + np.asarray(t.tray_c)
            if k == 0 and how in ("wall", "both"):
                # slide out from the middle in some direction until the footprint meets the wall
                ang = rng.uniform(0, 2 * np.pi)
                u = np.array([np.cos(ang), np.sin(ang)])
                lo, hi = 0.0, max(w, h)
                for _ in range(30):
                    mid = (lo + hi) / 2
                    q = np.asarray(t.tray_c) + mid * u
                    if _overlap(footprint(Die(face, q[0], q[1], R)), inner) >= DIE_MM * DIE_MM * 0.9999:
                        lo = mid
                    else:
                        hi = mid
                p = np.asarray(t.tray_c) + lo * u
            dice.append(Die(face, float(p[0]), float(p[1]), R))
        polys = [footprint(d) for d in dice]
        in_tray = all(_overlap(p, inner) >= DIE_MM * DIE_MM * 0.999 for p in polys)
        apart = n < 2 or _overlap(polys[0], polys[1]) <= 0
        if how == "free" and n == 2 and apart:
            apart = np.hypot(dice[0].x - dice[1].x, dice[0].y - dice[1].y) > 26
        if in_tray and apart:
            return dice
    raise RuntimeError("no throw fits the tray")


def _base(t: DiceTable, table: int) -> np.ndarray:
    canvas = felt_layer(FRAME[0], FRAME[1], t.felt_bgr, 9000 + table).copy()
    if t.zone_printed:
        draw_outline(canvas, t.cam, _zone(t), LINE_BGR[table % len(LINE_BGR)], 2.5)
    _tray_parts(canvas, t, near=False)
    return canvas


def _truth(t: DiceTable, table: int, dice: list[Die], ds_name: str, hand_mask, rim_px: list, extra: dict) -> dict:
    ds = DICE_SETS[ds_name]
    zone = t.cam.project(_at(_zone(t), 0.0))
    per = []
    for d in dice:
        top = _top_face(t, d)
        full = _inside_frame(top)
        rim_over = any(_overlap(top, r) > 0.25 for r in rim_px)  # a tall rim in front of the top face
        full = full and not rim_over
        if full and hand_mask is not None:
            m = np.zeros(hand_mask.shape, np.uint8)
            cv2.fillConvexPoly(m, np.round(top).astype(np.int32), 1)
            full = not bool((hand_mask & (m > 0)).any())
        mmpp = float(t.cam.mm_per_px([[d.x, d.y]])[0])
        per.append({"face": d.face, "in_full_view": full, "centre_px": t.cam.project([[d.x, d.y, -DIE_MM]])[0].round(2).tolist(),
                    "top_face_corners_px": top.round(2).tolist(), "pip_diameter_px": round(ds.pip_mm / mmpp, 2),
                    "position_mm": [round(d.x, 2), round(d.y, 2)], "rim_hides_top": rim_over})
    if hand_mask is not None:
        expected = None
    else:
        expected = sorted(p["face"] if p["in_full_view"] else 0 for p in per)
    return {"kind": "dice", "dice_set": ds_name, "table": table, "camera": t.cam.truth(),
            "zones": {"DICE": {"corners_px": zone.round(2).tolist(),
                               "tray_inner_corners_px": t.cam.project(_at(rect_mm(*t.tray_c, *t.tray_in, t.tray_angle), 0.0)).round(2).tolist(),
                               "tray_inner_polygon_px": t.cam.project(_at(_inner(t), 0.0)).round(2).tolist(),
                               "tray_shape": t.tray_shape, "rim_height_mm": round(t.rim_h, 1),
                               "expected": expected, "dice": per}},
            "dice": per, **extra}


def _render(set_name: str, table: int, dice: list[Die], hand, rng, perturbation: str, extra: dict):
    if set_name not in DICE_SETS:
        raise ValueError(f"unknown dice set {set_name!r}; one of {', '.join(DICE_SETS)}")
    t = dice_table(table)
    ds = DICE_SETS[set_name]
    canvas = _base(t, table)
    for d in dice:
        _draw_shadow(canvas, t, d)
    far_first = sorted(dice, key=lambda d: -np.hypot(d.x - t.cam.centre_mm[0], d.y - t.cam.centre_mm[1]))
    for d in far_first:
        _draw_die(canvas, t, d, ds, rng)
    rim_px = _tray_parts(canvas, t, near=True)
    hand_mask = None
    if hand is not None:
        pieces, z, colour = hand
        hand_mask = draw_hand(canvas, t.cam, pieces, z, colour, rng)
    canvas *= light_field(FRAME[0], FRAME[1], rng)[..., None]
    img = camera_pipeline(canvas, perturbation, rng)
    return img, _truth(t, table, dice, set_name, hand_mask, rim_px, extra)


def render_dice_scene(set_name: str, seed: int, perturbation: str = "sharp", table: int = 0):
    """One throw on the table's tray: two dice (most throws), one, none, or the dealer's hand
    over the tray; the dice free, touching each other, the wall, or both."""
    t = dice_table(table)
    rng = np.random.default_rng([table, seed, 5151, sorted(DICE_SETS).index(set_name) if set_name in DICE_SETS else 0])
    u = rng.random()
    n = 0 if u < 0.06 else 1 if u < 0.18 else 2
    how = ["free", "touching", "wall", "both"][int(rng.integers(4))] if n == 2 else ["free", "wall"][int(rng.integers(2))]
    dice = _place(t, rng, n, how) if n else []
    if n and table % 4 == 3 and rng.random() < 0.35:
        for _ in range(60):  # a throw with a die across the picture's edge
            if any(_crosses_edge(t, d) for d in dice):
                break
            dice = _place(t, rng, n, how)
    hand, tone = None, None
    if rng.random() < 0.08:
        tone = list(SKINS_BGR)[int(rng.integers(len(SKINS_BGR)))]
        toward = float(np.arctan2(-t.cam.centre_mm[1], -t.cam.centre_mm[0])) + rng.uniform(-0.5, 0.5)
        # the palm over a die (or the middle of an empty tray): what lies there is out of sight
        c = (np.array([dice[0].x, dice[0].y]) if dice else np.asarray(t.tray_c)) + rng.uniform(-10, 10, 2)
        hand = (hand_polygons(c, toward, rng.uniform(1.05, 1.25), rng.uniform(0.02, 0.08), 200), -float(rng.uniform(40, 80)),
                SKINS_BGR[tone])
    return _render(set_name, table, dice, hand, rng, perturbation,
                   {"seed": seed, "perturbation": perturbation, "placement": how if n else None,
                    "hand": tone})


def render_dice_calibration(set_name: str, table: int = 0):
    """The table's calibration still: the empty tray with its zone."""
    rng = np.random.default_rng([table, 777])
    return _render(set_name, table, [], None, rng, "sharp", {"seed": None, "perturbation": "sharp", "still": "empty_tray"})
