"""One throw: where the dice lie, their faces and yaw, and the dealer's hand; plus the truth
computed from the 3-D geometry (is every point of a die's top face visible to the camera?)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .common import H, TAG_THROW, W, rng_for
from .dice_sets import SIZE_MM, DiceSet, face_of_axis
from .geometry import ray_capsule
from .tables import Table

HALF = SIZE_MM / 2
CALIBRATION_SEEDS = (900, 901)


@dataclass
class Die:
    center: np.ndarray      # world (3,)
    yaw: float
    face: int
    R: np.ndarray           # local -> world rotation (columns = local axes in world)


@dataclass
class Capsule:
    a: np.ndarray
    b: np.ndarray
    r: float
    kind: str               # "skin" or "sleeve"


@dataclass
class Throw:
    dice: list
    capsules: list
    hand_mode: str          # "none", "partial", "cover"
    layout: str
    expected: object = None
    info: list = field(default_factory=list)


# ----------------------------------------------------------------------------- helpers
def _rot_z(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def _rot_to_up(axis, sign):
    """Rotation taking local axis (axis, sign) to world +z."""
    e = np.zeros(3)
    e[axis] = sign
    if axis == 2:
        return np.eye(3) if sign > 0 else np.diag([1.0, -1.0, -1.0])
    # rotate about the third axis perpendicular to e and z
    k = np.cross(e, [0, 0, 1.0])
    k /= np.linalg.norm(k)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + K + K @ K  # 90 degrees (Rodrigues with sin=1, 1-cos=1)


def die_rotation(face, yaw, chirality):
    fmap = face_of_axis(chirality)
    axis, sign = next(k for k, v in fmap.items() if v == face)
    return _rot_z(yaw) @ _rot_to_up(axis, sign)


def core_square(c, yaw, r):
    h = HALF - r
    ca, sa = np.cos(yaw), np.sin(yaw)
    ex, ey = np.array([ca, sa]), np.array([-sa, ca])
    return np.array([c + sx * h * ex + sy * h * ey
                     for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _seg_point_dist(p, a, b):
    ab = b - a
    s = np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0, 1)
    return np.linalg.norm(p - (a + s * ab))


def _overlap(P, Q):
    for poly in (P, Q):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            n = np.array([-e[1], e[0]])
            pa, qa = P @ n, Q @ n
            if pa.max() < qa.min() or qa.max() < pa.min():
                return False
    return True


def poly_distance(P, Q):
    if _overlap(P, Q):
        return -1.0
    d = np.inf
    for X, Y in ((P, Q), (Q, P)):
        for p in X:
            for i in range(4):
                d = min(d, _seg_point_dist(p, Y[i], Y[(i + 1) % 4]))
    return d


def inside_tray(tray, sq, r, slack=1e-6):
    """Core square corners at least r from the walls (touching = exactly r)."""
    return bool(np.all(tray.inner_dist(sq[:, 0], sq[:, 1]) >= r - slack))


def wall_touch_position(tray, yaw, r, rng, toward=None):
    """A centre where the die touches the inner wall; `toward` (2-D direction) prefers the
    wall on that side (the camera's side, where the rim can hide part of a die)."""
    h = HALF - r
    ext = h * (abs(np.cos(yaw)) + abs(np.sin(yaw)))   # core half extent along x and y
    if tray.shape == "rect":
        wall = int(rng.integers(4))
        if toward is not None:
            wall = int(np.argmax([toward[0], -toward[0], toward[1], -toward[1]]))
        if wall < 2:
            x = (1 if wall == 0 else -1) * (tray.A - r - ext)
            y = rng.uniform(-(tray.B - r - ext), tray.B - r - ext)
        else:
            y = (1 if wall == 2 else -1) * (tray.B - r - ext)
            x = rng.uniform(-(tray.A - r - ext), tray.A - r - ext)
        return np.array([x, y])
    phi = rng.uniform(0, 2 * np.pi)
    if toward is not None:
        phi = np.arctan2(toward[1], toward[0]) + rng.normal(0, 0.35)
    u = np.array([np.cos(phi), np.sin(phi)])
    lo, hi = 0.0, tray.A
    for _ in range(40):
        mid = (lo + hi) / 2
        sq = core_square(mid * u, yaw, r)
        if np.all(tray.inner_dist(sq[:, 0], sq[:, 1]) >= r):
            lo = mid
        else:
            hi = mid
    return lo * u


def random_inside(tray, yaw, r, rng, margin):
    h = HALF - r
    ext = h * (abs(np.cos(yaw)) + abs(np.sin(yaw))) + r + margin
    for _ in range(200):
        if tray.shape == "rect":
            c = np.array([rng.uniform(-(tray.A - ext), tray.A - ext),
                          rng.uniform(-(tray.B - ext), tray.B - ext)])
        else:
            rr = (tray.A - ext) * np.sqrt(rng.random())
            ph = rng.uniform(0, 2 * np.pi)
            c = rr * np.array([np.cos(ph), np.sin(ph)])
        if inside_tray(tray, core_square(c, yaw, r), r + margin):
            return c
    return np.zeros(2)


# ----------------------------------------------------------------------------- hand model
def hand_capsules(scale, spread, curl1, curl2, left, cover):
    """Capsules of a palm-down hand in its own frame: x toward the fingertips, y toward the
    thumb side of a right hand, z up; origin at the wrist."""
    s = scale
    caps = []
    sy = -1.0 if left else 1.0

    def add(a, b, r, kind="skin"):
        a = np.array(a, float) * s
        b = np.array(b, float) * s
        a[1] *= sy
        b[1] *= sy
        caps.append((a, b, r * s, kind))

    ys = [24, 8, -8, -24]
    for y in ys:                                     # metacarpals (palm)
        add((8, 0.55 * y, 0), (78, y, -2), 12.0)
    add((12, 18, 0), (12, -18, 0), 14.0)             # heel of the hand
    lens1 = [44, 48, 45, 36]
    lens2 = [40, 45, 42, 33]
    radii = [8.6, 8.8, 8.4, 7.6]
    base_ang = np.radians([8, 2, -4, -12]) * spread
    for y, l1, l2, rad, ang in zip(ys, lens1, lens2, radii, base_ang):
        k = np.array([78, y, -2.0])
        d1 = np.array([np.cos(ang) * np.cos(curl1), np.sin(ang) * np.cos(curl1), -np.sin(curl1)])
        p1 = k + l1 * d1
        c2 = curl1 + curl2
        d2 = np.array([np.cos(ang) * np.cos(c2), np.sin(ang) * np.cos(c2), -np.sin(c2)])
        p2 = p1 + l2 * d2
        add(k, p1, rad)
        add(p1, p2, rad * 0.95)
    if cover:   # thumb tucked along the index finger
        add((20, 30, -4), (50, 40, -10), 11.0)
        add((50, 40, -10), (82, 40, -14), 9.5)
    else:
        add((20, 30, -4), (48, 52, -12), 11.0)
        add((48, 52, -12), (74, 63, -18), 9.5)
    add((8, 0, 0), (-45, 0, 6), 25.0)                # wrist
    add((-45, 0, 6), (-110, 0, 14), 28.0)            # forearm (skin)
    add((-100, 0, 14), (-520, 0, 140), 42.0, "sleeve")
    return caps


def place_hand(caps_local, yaw, pitch, anchor_world):
    """Rotate the local hand by pitch (about y) and yaw (about z), anchor at the wrist."""
    cp, sp = np.cos(pitch), np.sin(pitch)
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rm = _rot_z(yaw) @ Ry
    out = []
    for a, b, r, kind in caps_local:
        out.append(Capsule(Rm @ a + anchor_world, Rm @ b + anchor_world, r, kind))
    return out


def lift_over(caps, floor_z):
    lo = min(min(c.a[2], c.b[2]) - c.r for c in caps)
    dz = max(0.0, floor_z - lo)
    return [Capsule(c.a + [0, 0, dz], c.b + [0, 0, dz], c.r, c.kind) for c in caps]


def _move(caps, delta):
    return [Capsule(c.a + delta, c.b + delta, c.r, c.kind) for c in caps]


# ----------------------------------------------------------------------------- visibility
def _hidden(points, table: Table, caps):
    """Boolean per world point: its line of sight to the camera is blocked by the tray's rim
    or walls or by the hand, or it projects outside the image."""
    cam = table.cam
    d = cam.C - points
    dist = np.linalg.norm(d, axis=1)
    d = d / dist[:, None]
    t, kind, _ = table.tray.intersect(points, d, eps=1e-4)
    blocked = (t < dist) & (kind != 0)   # anything but the felt plane (which is below)
    if caps:
        for c in caps:
            th = ray_capsule(points, d, c.a, c.b, c.r)
            blocked |= th < dist
    u, v, _ = cam.project(points)
    blocked |= (u < 0) | (u > W - 1) | (v < 0) | (v > H - 1)
    return blocked


def _hidden_by_hand(points, table, caps):
    cam = table.cam
    d = cam.C - points
    dist = np.linalg.norm(d, axis=1)
    d = d / dist[:, None]
    blocked = np.zeros(len(points), bool)
    for c in caps:
        blocked |= ray_capsule(points, d, c.a, c.b, c.r) < dist
    return blocked


def top_face_points(die: Die, r, inset=0.0, n=17):
    """World points of the die's top face. inset=0 -> flat square plus the rounded band out to
    45 degrees; inset>0 -> the flat square shrunk by inset."""
    zt = die.center[2] + HALF
    ca, sa = np.cos(die.yaw), np.sin(die.yaw)
    ex, ey = np.array([ca, sa, 0]), np.array([-sa, ca, 0])
    hf = HALF - r
    pts = []
    if inset > 0:
        g = np.linspace(-(hf - inset), hf - inset, n)
        for a in g:
            for b in g:
                pts.append(np.array([die.center[0], die.center[1], zt]) + a * ex + b * ey)
        return np.array(pts)
    g = np.linspace(-hf, hf, n)
    for a in g:
        for b in g:
            pts.append(np.array([die.center[0], die.center[1], zt]) + a * ex + b * ey)
    # rounded band: points at 22.5 and 45 degrees round the edge, and round the corners
    for ang in (np.radians(22.5), np.radians(45)):
        out = hf + r * np.sin(ang)
        z = zt - r * (1 - np.cos(ang))
        for a in np.linspace(-hf, hf, n):
            for (px, py) in ((a, out), (a, -out), (out, a), (-out, a)):
                pts.append(np.array([die.center[0], die.center[1], z]) + px * ex + py * ey)
        for phi in np.radians(np.arange(7.5, 90.0, 7.5)):
            cx, cy = r * np.sin(ang) * np.cos(phi), r * np.sin(ang) * np.sin(phi)
            for sx in (-1, 1):
                for sy in (-1, 1):
                    pts.append(np.array([die.center[0], die.center[1], z])
                               + sx * (hf + cx) * ex + sy * (hf + cy) * ey)
    return np.array(pts)


def die_visibility(die, r, table, caps):
    """'visible', 'hidden' (clearly: some of the inset flat face is hidden) or 'ambiguous'."""
    full = top_face_points(die, r)
    if not _hidden(full, table, caps).any():
        return "visible"
    inset = 2.0 * table.mm_per_px
    core = top_face_points(die, r, inset=inset, n=17)
    if _hidden(core, table, caps).any():
        return "hidden"
    return "ambiguous"


def floor_points(table, n=31):
    tr = table.tray
    a = tr.A - 0.5
    b = (tr.B if tr.shape == "rect" else tr.A) - 0.5
    xs, ys = np.meshgrid(np.linspace(-a, a, n), np.linspace(-b, b, n))
    xs, ys = xs.ravel(), ys.ravel()
    m = tr.inside_inner(xs, ys)
    return np.stack([xs[m], ys[m], np.full(m.sum(), tr.z_f + 0.01)], 1)


# ----------------------------------------------------------------------------- the throw
def _place_dice(table, dset, rng, n, layout, calib):
    tr = table.tray
    r = dset.edge_radius_mm
    z = tr.z_f + HALF
    dice_xy = []
    yaws = []
    if n == 0:
        return []
    yaw0 = rng.uniform(0, 2 * np.pi)
    cam_side = table.cam.C[:2] / max(np.linalg.norm(table.cam.C[:2]), 1e-6)
    toward = cam_side if rng.random() < 0.5 else None
    if layout == "wall" or (n == 1 and rng.random() < 0.3 and not calib):
        c0 = wall_touch_position(tr, yaw0, r, rng, toward)
    else:
        c0 = random_inside(tr, yaw0, r, rng, margin=(8.0 if calib else 0.0))
    dice_xy.append(c0)
    yaws.append(yaw0)
    if n == 2:
        for _ in range(200):
            if layout == "face":
                k = int(rng.integers(4))
                yaw1 = yaw0 + rng.integers(4) * np.pi / 2
                nrm = np.array([np.cos(yaw0 + k * np.pi / 2), np.sin(yaw0 + k * np.pi / 2)])
                tng = np.array([-nrm[1], nrm[0]])
                c1 = c0 + SIZE_MM * nrm + rng.uniform(-0.8, 0.8) * (SIZE_MM - 2 * r) * tng
            elif layout == "corner":
                k = int(rng.integers(4))
                yaw1 = yaw0 + rng.uniform(np.radians(12), np.radians(78))
                nrm = np.array([np.cos(yaw0 + k * np.pi / 2), np.sin(yaw0 + k * np.pi / 2)])
                tng = np.array([-nrm[1], nrm[0]])
                sq1 = core_square(np.zeros(2), yaw1, r)
                corner = sq1[np.argmin(sq1 @ nrm)]
                target = c0 + (HALF + r) * nrm + rng.uniform(-0.85, 0.85) * (HALF - r) * tng
                c1 = target - corner
            else:
                yaw1 = rng.uniform(0, 2 * np.pi)
                if layout == "wall2":
                    c1 = wall_touch_position(tr, yaw1, r, rng)
                else:
                    c1 = random_inside(tr, yaw1, r, rng, margin=(8.0 if calib else 0.0))
            sq0 = core_square(c0, yaw0, r)
            sq1 = core_square(c1, yaw1, r)
            if not inside_tray(tr, sq1, r + (8.0 if calib else 0.0)):
                continue
            dist = poly_distance(sq0, sq1)
            if layout in ("face", "corner"):
                if dist < 2 * r - 1e-4:
                    continue
            else:
                gap = 12.0 if calib else 1.0
                if dist < 2 * r + gap:
                    continue
            dice_xy.append(c1)
            yaws.append(yaw1)
            break
        else:
            return None
    faces = rng.integers(1, 7, size=len(dice_xy))
    out = []
    for c, yaw, f in zip(dice_xy, yaws, faces):
        out.append(Die(np.array([c[0], c[1], z]), float(yaw % (2 * np.pi)), int(f),
                       die_rotation(int(f), float(yaw), dset.chirality)))
    return out


def _make_hand(table, dice, rng, mode):
    tr = table.tray
    top = max(tr.z_r, tr.z_f + SIZE_MM)
    cam = table.cam
    if mode == "partial":
        left = rng.random() < 0.3
        caps_l = hand_capsules(rng.uniform(0.9, 1.1), rng.uniform(0.5, 2.0),
                               np.radians(rng.uniform(5, 25)), np.radians(rng.uniform(10, 45)),
                               left, cover=False)
        yaw = table.dealer_angle + np.pi + rng.normal(0, np.radians(30))
        pitch = np.radians(rng.uniform(-4, 14))
        # anchor: pick a point of the hand (finger tip, knuckle, palm) over a target
        a, b, rr, _ = caps_l[int(rng.integers(0, 13))]
        anchor_local = b if rng.random() < 0.6 else (a + b) / 2
        if dice and rng.random() < 0.85:
            dd = dice[int(rng.integers(len(dice)))]
            target = dd.center + [rng.uniform(-12, 12), rng.uniform(-12, 12), HALF]
        else:
            target = np.array([rng.uniform(-tr.A, tr.A) * 0.8, rng.uniform(-1, 1) *
                               (tr.B if tr.shape == "rect" else tr.A) * 0.8, tr.z_f])
        height = top + rng.uniform(8, 90)
        caps = place_hand(caps_l, yaw, pitch, np.zeros(3))
        # anchor's world offset from the wrist
        cp, sp = np.cos(pitch), np.sin(pitch)
        Rm = _rot_z(yaw) @ np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
        aw = Rm @ anchor_local
        # point on the camera ray through the target at the chosen height
        d = target - cam.C
        s = (height - cam.C[2]) / d[2]
        pw = cam.C + s * d
        caps = _move(caps, pw - aw)
        return lift_over(caps, top + 4.0)
    # cover: both hands flat, fingers together, side by side across the tray
    tr_half_b = tr.B if tr.shape == "rect" else tr.A
    tr_half_a = tr.A
    along_x = tr_half_a >= tr_half_b if tr.shape == "rect" else True
    yaw = (0.0 if along_x else np.pi / 2)
    if np.cos(table.dealer_angle - yaw) > 0:
        yaw += np.pi
    yaw += rng.normal(0, np.radians(5))
    scale = rng.uniform(1.05, 1.2)
    caps = []
    fwd = np.array([np.cos(yaw), np.sin(yaw), 0])
    side = np.array([-np.sin(yaw), np.cos(yaw), 0])
    gap = rng.uniform(30.0, 36.0) * scale
    length_half = (tr_half_a if along_x else tr_half_b)
    for left, sgn in ((False, -1.0), (True, 1.0)):
        cl = hand_capsules(scale, 0.0, np.radians(rng.uniform(2, 8)), np.radians(rng.uniform(2, 10)),
                           left, cover=True)
        wrist = -fwd * (length_half + tr.w + rng.uniform(-25, 5)) + sgn * side * gap
        wrist[2] = top + rng.uniform(6, 22)
        caps += place_hand(cl, yaw, np.radians(rng.uniform(-2, 4)), wrist)
    return lift_over(caps, top + 3.0)


def make_throw(table: Table, dset: DiceSet, seed: int) -> Throw:
    rng = rng_for(TAG_THROW, table.index, seed)
    calib = seed in CALIBRATION_SEEDS
    r = dset.edge_radius_mm
    for attempt in range(300):
        if calib:
            n = 2
            layout = "free"
            hand_mode = "none"
        else:
            n = int(rng.choice([0, 1, 2], p=[0.06, 0.10, 0.84]))
            layout = str(rng.choice(["free", "face", "corner", "wall", "wall2"],
                                    p=[0.42, 0.16, 0.16, 0.16, 0.10])) if n == 2 else "free"
            hand_mode = str(rng.choice(["none", "partial", "cover"], p=[0.77, 0.15, 0.08]))
        dice = _place_dice(table, dset, rng, n, layout, calib)
        if dice is None:
            continue
        caps = [] if hand_mode == "none" else _make_hand(table, dice, rng, hand_mode)
        if hand_mode == "cover":
            for _ in range(8):
                fl = floor_points(table, n=41)
                if _hidden(fl, table, caps).all():
                    break
                caps = _make_hand(table, dice, rng, hand_mode)
        # left to right by image x of the top-face centre
        tops = np.array([d.center + [0, 0, HALF] for d in dice]).reshape(-1, 3)
        if len(dice):
            u, v, _ = table.cam.project(tops)
            order = np.argsort(u)
            dice = [dice[i] for i in order]
            u = u[order]
            v = v[order]
            if len(u) == 2 and abs(u[1] - u[0]) < 20:
                continue   # no near-tie in the left-to-right order
        else:
            u = v = np.zeros(0)
        states = [die_visibility(d, r, table, caps) for d in dice]
        if "ambiguous" in states:
            continue
        expected = [d.face if s == "visible" else 0 for d, s in zip(dice, states)]
        if calib and expected.count(0):
            continue
        if hand_mode != "none":
            fl = floor_points(table, n=61)
            frac = _hidden_by_hand(fl, table, caps).mean()
            if hand_mode == "cover":
                # the whole tray: no point of its floor and no die can be seen
                floor_seen = not _hidden(fl, table, caps).all()
                dice_all = all(_hidden_by_hand(top_face_points(d, r), table, caps).all()
                               for d in dice)
                if floor_seen or not dice_all or frac < 0.8:
                    continue
                expected = None
            elif frac > 0.6:
                continue
        info = [{"face": d.face, "visible": s == "visible", "center_px": [float(a), float(b)],
                 "yaw_deg": float(np.degrees(d.yaw)), "center_mm": d.center.tolist()}
                for d, s, a, b in zip(dice, states, u, v)]
        return Throw(dice, caps, hand_mode, layout, expected, info)
    raise RuntimeError("could not generate a throw")  # pragma: no cover
