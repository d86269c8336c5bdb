"""Independent overhead-camera renderer of a Wenzhou Pai Gow dice tray.

Written from the card-face sheet (`CARD_FACES.md`, sections "Dice" and "Table") only.
World frame: millimetres, origin at the tray's centre on the felt, z up.
Dice are ray-marched signed-distance rounded cubes; the felt and the tray are analytic
planes and boxes; everything is shaded in linear light, then passed through a small
camera model (lens softness, vignetting, sensor noise, gamma) and the chosen perturbation.
"""
from __future__ import annotations

import functools
import math

import cv2
import numpy as np

PERTURBATIONS = ("sharp", "blur", "noise", "dim", "warm", "jpeg")

DIE_MM = 16.0
HALF = DIE_MM / 2.0
SUPERSAMPLE = 3

# ----------------------------------------------------------------------------------------
# Dice sets.  Colours are BGR in sRGB 0-255.  `spacing` is the offset (mm) of the outer
# pips from the face centre along each axis; `pip_mm` the pip diameter of faces 2-6,
# `one_mm` the diameter of the single pip of face 1.  `flip` turns the 2/3/6 patterns a
# quarter turn on the faces whose bit is set (index = face value).
# ----------------------------------------------------------------------------------------
DICE_SETS: dict[str, dict] = {
    "casino_gloss_white": dict(
        body=(250, 251, 252), gloss=0.9, shininess=90.0, radius=1.2, pip_mm=2.8, one_mm=4.6,
        spacing=4.3, red=(45, 30, 225), black=(22, 22, 22), pips="dimple", dimple_mm=0.6,
        translucency=0.0, flip=(0, 0, 1, 0, 0, 0, 1)),
    "ivory_matte_round": dict(
        body=(196, 232, 244), gloss=0.12, shininess=12.0, radius=2.2, pip_mm=2.5, one_mm=3.7,
        spacing=3.9, red=(70, 70, 165), black=(55, 52, 50), pips="dimple", dimple_mm=0.45,
        translucency=0.0, flip=(0, 0, 0, 1, 0, 0, 0)),
    "cream_flat_print": dict(
        body=(188, 224, 236), gloss=0.35, shininess=25.0, radius=0.6, pip_mm=2.3, one_mm=2.4,
        spacing=4.6, red=(32, 22, 128), black=(72, 38, 26), pips="flat", dimple_mm=0.0,
        translucency=0.0, flip=(0, 0, 1, 1, 0, 0, 0)),
    "translucent_orange_red": dict(
        body=(232, 240, 240), gloss=0.75, shininess=120.0, radius=1.5, pip_mm=3.0, one_mm=5.0,
        spacing=4.1, red=(25, 85, 235), black=(12, 12, 12), pips="dimple", dimple_mm=0.7,
        translucency=0.55, flip=(0, 0, 0, 0, 0, 0, 1)),
    "jumbo_pip_soft_edge": dict(
        body=(246, 247, 247), gloss=0.5, shininess=40.0, radius=2.5, pip_mm=3.0, one_mm=5.4,
        spacing=3.9, red=(40, 40, 205), black=(48, 48, 48), pips="dimple", dimple_mm=0.9,
        translucency=0.0, flip=(0, 0, 1, 0, 0, 0, 0)),
    "small_pip_sharp_edge": dict(
        body=(240, 245, 248), gloss=0.6, shininess=60.0, radius=0.8, pip_mm=2.15, one_mm=3.0,
        spacing=3.6, red=(50, 38, 200), black=(30, 30, 30), pips="flat", dimple_mm=0.0,
        translucency=0.0, flip=(0, 0, 0, 1, 0, 0, 1)),
    "aged_ivory_dark_red": dict(
        body=(170, 212, 230), gloss=0.25, shininess=18.0, radius=1.8, pip_mm=2.6, one_mm=4.0,
        spacing=4.0, red=(30, 35, 110), black=(60, 30, 25), pips="dimple", dimple_mm=0.55,
        translucency=0.15, flip=(0, 0, 1, 1, 0, 0, 1)),
}

# canonical die: value of the face whose outward normal is +/- local axis
_CANON = {(2, 1): 1, (2, -1): 6, (0, 1): 2, (0, -1): 5, (1, 1): 3, (1, -1): 4}


def _check_names(set_name, perturbation):
    if set_name not in DICE_SETS:
        raise ValueError(f"unknown dice set {set_name!r}; known: {sorted(DICE_SETS)}")
    if perturbation not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {perturbation!r}; known: {list(PERTURBATIONS)}")


def _lin(bgr):
    c = np.asarray(bgr, dtype=np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


_GAMMA_LUT = None


def _to_srgb8(x):
    global _GAMMA_LUT
    if _GAMMA_LUT is None:
        v = np.linspace(0.0, 1.0, 4096)
        s = np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055)
        _GAMMA_LUT = np.clip(np.round(s * 255.0), 0, 255).astype(np.uint8)
    idx = np.clip(x * 4095.0 + 0.5, 0, 4095).astype(np.int32)
    return _GAMMA_LUT[idx]


def _norm(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


# ----------------------------------------------------------------------------------------
# Tables: camera, felt, tray, lights.
# ----------------------------------------------------------------------------------------
_FELTS = {
    "green": (48, 112, 34), "dark_green": (34, 74, 26), "blue": (128, 64, 22),
    "red": (38, 32, 128), "grey": (92, 92, 90), "teal": (104, 98, 22),
    "purple": (92, 40, 72), "charcoal": (40, 38, 36),
}
_LININGS = {
    "black": (26, 26, 28), "dark_green": (30, 64, 22), "burgundy": (34, 26, 92),
    "navy": (70, 32, 18), "tan": (112, 146, 170), "grey": (78, 80, 82), "brown": (30, 48, 74),
}
_WALLS = {
    "wood": (38, 70, 118), "pale": (212, 224, 230), "black": (24, 24, 26),
    "gold": (52, 140, 186), "red_lacquer": (30, 28, 130), "white": (236, 238, 238),
    "dark_wood": (22, 34, 52),
}
# (felt, lining, wall, offset range mm, crop cut by frame edge, printed zone outline)
_PRESETS = [
    ("green", "black", "wood", (100, 300), False, False),
    ("blue", "navy", "pale", (450, 600), False, False),
    ("red", "dark_green", "black", (0, 120), False, True),
    ("grey", "burgundy", "gold", (250, 450), False, False),
    ("green", "tan", "white", (200, 400), True, False),
    ("charcoal", "grey", "red_lacquer", (350, 550), False, False),
    ("teal", "black", "pale", (150, 350), False, True),
    ("purple", "brown", "dark_wood", (400, 600), False, False),
]


class _Table:
    pass


def _jitter_col(rng, bgr, amt=12):
    return tuple(float(np.clip(c + rng.uniform(-amt, amt), 0, 255)) for c in bgr)


@functools.lru_cache(maxsize=32)
def _table(index: int) -> _Table:
    if not isinstance(index, (int, np.integer)) or index < 0:
        raise ValueError(f"table must be a non-negative int, got {index!r}")
    rng = np.random.default_rng([int(index), 4242])
    felt, lining, wall, offr, cut, outline = _PRESETS[index % len(_PRESETS)]
    if index >= len(_PRESETS):   # later tables: shuffle the pairings too
        felt = list(_FELTS)[rng.integers(len(_FELTS))]
        lining = list(_LININGS)[rng.integers(len(_LININGS))]
        wall = list(_WALLS)[rng.integers(len(_WALLS))]
    tb = _Table()
    tb.index = int(index)
    tb.felt_name, tb.lining_name, tb.wall_name = felt, lining, wall
    tb.felt = _lin(_jitter_col(rng, _FELTS[felt]))
    tb.lining = _lin(_jitter_col(rng, _LININGS[lining]))
    tb.wall = _lin(_jitter_col(rng, _WALLS[wall], 8))
    tb.wall_top_gain = rng.uniform(0.95, 1.12)
    tb.wood = wall in ("wood", "dark_wood")
    tb.cut = cut
    tb.outline = outline
    tb.outline_col = _lin(_jitter_col(rng, (120, 190, 215), 20))
    # tray geometry (mm)
    tb.ax = rng.uniform(45, 65)          # inner half-width x
    tb.ay = tb.ax * rng.uniform(0.75, 1.0) if rng.random() < 0.6 else tb.ax
    tb.wt = rng.uniform(5, 14)           # wall thickness
    tb.fz = rng.uniform(1.5, 5.0)        # tray floor height above the felt
    tb.hw = rng.uniform(10, 26)          # wall height above the tray floor
    tb.Ax, tb.Ay = tb.ax + tb.wt, tb.ay + tb.wt
    tb.top = tb.fz + tb.hw
    lo_hi = [
        ((-tb.Ax, -tb.Ay, 0.0), (tb.Ax, tb.Ay, tb.fz), "base"),
        ((-tb.Ax, -tb.Ay, 0.0), (-tb.ax, tb.Ay, tb.top), "wall"),
        ((tb.ax, -tb.Ay, 0.0), (tb.Ax, tb.Ay, tb.top), "wall"),
        ((-tb.ax, -tb.Ay, 0.0), (tb.ax, -tb.ay, tb.top), "wall"),
        ((-tb.ax, tb.ay, 0.0), (tb.ax, tb.Ay, tb.top), "wall"),
    ]
    tb.boxes = [(np.array(a), np.array(b), k) for a, b, k in lo_hi]
    tb.outer_box = (np.array([0.0, 0.0, tb.top / 2]), np.eye(3), np.array([tb.Ax, tb.Ay, tb.top / 2]))
    # lights
    nl = int(rng.choice([1, 2, 3], p=[0.35, 0.4, 0.25]))
    tb.lights = []
    for i in range(nl):
        az = rng.uniform(0, 2 * math.pi)
        el = math.radians(rng.uniform(38, 82))
        L = np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)])
        inten = rng.uniform(0.6, 1.0) * (1.0 if i == 0 else rng.uniform(0.35, 0.8))
        tint = np.array([rng.uniform(0.93, 1.05), 1.0, rng.uniform(0.95, 1.05)])
        soft = math.radians(rng.uniform(1.5, 14.0))
        tb.lights.append((L, inten * tint, soft))
    tb.ambient = rng.uniform(0.18, 0.42)
    tb.contact = rng.uniform(0.35, 0.75)     # strength of contact darkening
    # camera
    H = rng.uniform(1600, 2000)
    off = rng.uniform(*offr)
    phi = rng.uniform(0, 2 * math.pi)
    C = np.array([off * math.cos(phi), off * math.sin(phi), H])
    aim = rng.uniform(0, min(off, 120.0))
    target = np.array([math.cos(phi) * aim, math.sin(phi) * aim, 0.0])
    zc = _norm(target - C)
    a = np.array([1.0, 0.0, 0.0])
    xc0 = _norm(a - a.dot(zc) * zc)
    yc0 = np.cross(zc, xc0)
    roll = rng.uniform(0, 2 * math.pi)
    xc = math.cos(roll) * xc0 + math.sin(roll) * yc0
    yc = np.cross(zc, xc)
    tb.C = C
    tb.R = np.stack([xc, yc, zc])        # rows: camera axes in world
    tb.cx, tb.cy = 960.0, 540.0
    tb.f = 1.0
    tb.ox = tb.oy = 0.0
    worst = 1.0 / _jac_sv(tb, np.array([0.0, 0.0, tb.fz]))[1]
    target_mmpp = rng.uniform(0.265, 0.33) if tb.ax < 58 else rng.uniform(0.29, 0.33)
    tb.f = worst / target_mmpp
    tb.height, tb.offset = H, off
    # crop round the tray
    pts = []
    for z in (0.0, tb.top):
        for sx in (-1, 1):
            for sy in (-1, 1):
                pts.append((sx * tb.Ax, sy * tb.Ay, z))
    uv = _project(tb, np.array(pts))
    margin = rng.uniform(22, 38) / target_mmpp
    x0, y0 = uv.min(0) - margin
    x1, y1 = uv.max(0) + margin
    if cut:
        inner = _project(tb, np.array([(sx * tb.ax, sy * tb.ay, tb.fz)
                                       for sx in (-1, 1) for sy in (-1, 1)]))
        side = int(rng.integers(4))
        frac = rng.uniform(0.18, 0.28)
        if side == 0:
            x1 = inner[:, 0].max() - frac * np.ptp(inner[:, 0])
        elif side == 1:
            x0 = inner[:, 0].min() + frac * np.ptp(inner[:, 0])
        elif side == 2:
            y1 = inner[:, 1].max() - frac * np.ptp(inner[:, 1])
        else:
            y0 = inner[:, 1].min() + frac * np.ptp(inner[:, 1])
    tb.ox, tb.oy = float(math.floor(x0)), float(math.floor(y0))
    tb.W = int(math.ceil(x1 - tb.ox))
    tb.Hpx = int(math.ceil(y1 - tb.oy))
    j_sv = _jac_sv(tb, np.array([0.0, 0.0, tb.fz]))
    tb.mm_per_px = float(1.0 / math.sqrt(j_sv[0] * j_sv[1]))
    # exposure: white plastic top face lands near the top of the range
    e_top = tb.ambient + sum(float(np.mean(inten)) * max(L[2], 0) for L, inten, _ in tb.lights)
    tb.exposure = rng.uniform(0.88, 1.05) / (e_top * 0.9)
    tb.vignette = rng.uniform(0.0, 0.12)
    # textures
    fine = _wrap_blur(rng.standard_normal((256, 256)).astype(np.float32), 0.8)
    coarse = _wrap_blur(rng.standard_normal((256, 256)).astype(np.float32), 12)
    coarse /= coarse.std() + 1e-9
    fine /= fine.std() + 1e-9
    tb.tex = (1.0 + 0.05 * fine + 0.025 * coarse).astype(np.float64)
    tb.tex_mm = 0.45
    tb.outline_margin = rng.uniform(12, 25)
    tb.outline_w = rng.uniform(1.5, 3.5)
    return tb


def _wrap_blur(a, sigma):
    big = np.tile(a, (3, 3))
    big = cv2.GaussianBlur(big, (0, 0), sigma)
    h, w = a.shape
    return big[h:2 * h, w:2 * w].copy()


def _project(tb, P):
    pc = (P - tb.C) @ tb.R.T
    u = tb.f * pc[:, 0] / pc[:, 2] + tb.cx - tb.ox
    v = tb.f * pc[:, 1] / pc[:, 2] + tb.cy - tb.oy
    return np.stack([u, v], -1)


def _jac_sv(tb, P, h=0.5):
    base = _project(tb, P[None])[0]
    jx = (_project(tb, (P + [h, 0, 0])[None])[0] - base) / h
    jy = (_project(tb, (P + [0, h, 0])[None])[0] - base) / h
    return np.linalg.svd(np.stack([jx, jy], 1), compute_uv=False)   # px per mm, (max, min)


def _rays(tb, u, v):
    x = (u + tb.ox - tb.cx) / tb.f
    y = (v + tb.oy - tb.cy) / tb.f
    d = np.stack([x, y, np.ones_like(x)], -1) @ tb.R
    return _norm(d)


# ----------------------------------------------------------------------------------------
# Geometry helpers
# ----------------------------------------------------------------------------------------
def _slab(origin, D, lo, hi):
    """Ray/box entry. origin (3,) or (N,3), D (N,3). Returns t_enter (inf if miss), axis, t_exit."""
    origin = np.broadcast_to(origin, D.shape)
    tn = []
    tf = []
    for k in range(3):
        d = D[:, k]
        inv = 1.0 / np.where(np.abs(d) < 1e-12, 1e-12, d)
        t1 = (lo[k] - origin[:, k]) * inv
        t2 = (hi[k] - origin[:, k]) * inv
        tn.append(np.minimum(t1, t2))
        tf.append(np.maximum(t1, t2))
    tnear = np.maximum(np.maximum(tn[0], tn[1]), tn[2])
    tfar = np.minimum(np.minimum(tf[0], tf[1]), tf[2])
    ax = np.where(tn[2] >= tnear, 2, np.where(tn[1] >= tnear, 1, 0))
    hit = (tfar >= tnear) & (tfar > 0)
    return np.where(hit, tnear, np.inf), ax, np.where(hit, tfar, -np.inf)


def _sdf(p, b, r):
    q = np.abs(p) - (b - r)
    out = np.linalg.norm(np.maximum(q, 0.0), axis=-1)
    return out + np.minimum(q.max(-1), 0.0) - r


def _sdf_normal(p, b, r):
    q = np.abs(p) - (b - r)
    m = np.maximum(q, 0.0)
    ln = np.linalg.norm(m, axis=-1, keepdims=True)
    n = np.sign(p) * m / np.maximum(ln, 1e-9)
    inside = ln[:, 0] < 1e-9
    if inside.any():
        ax = q[inside].argmax(1)
        nn = np.zeros((inside.sum(), 3))
        nn[np.arange(len(ax)), ax] = np.sign(p[inside][np.arange(len(ax)), ax])
        n[inside] = nn
    return n


def _march(tb, D, die):
    """Sphere-trace rays from the camera against one die. Returns t (inf on miss)."""
    c = die["c"]
    R = die["R"]
    oc = tb.C - c
    b = D @ oc
    cq = oc @ oc - (HALF * math.sqrt(3) + 0.2) ** 2
    disc = b * b - cq
    cand = np.nonzero(disc > 0)[0]
    t_out = np.full(len(D), np.inf)
    if not len(cand):
        return t_out
    sq = np.sqrt(disc[cand])
    t = -b[cand] - sq
    tmax = -b[cand] + sq
    Ol = oc @ R
    Dl = D[cand] @ R
    r = die["radius"]
    hit = np.zeros(len(cand), bool)
    act = np.arange(len(cand))
    for _ in range(80):
        if not len(act):
            break
        p = Ol + t[act, None] * Dl[act]
        d = _sdf(p, HALF, r)
        t[act] += d
        conv = d < 1e-3
        hit[act[conv]] = True
        esc = t[act] > tmax[act]
        act = act[~conv & ~esc]
    t_out[cand[hit]] = t[hit]
    return t_out


def _occluded(P, L, occ):
    """P (N,3) world points, L (3,) unit direction to the light; occ list of
    (centre, R, half). True where the ray from P toward L enters a box."""
    res = np.zeros(len(P), bool)
    for c, R, h in occ:
        Pl = (P - c) @ R
        Ll = np.broadcast_to(L @ R, Pl.shape)
        tn, _, tfar = _slab(Pl, Ll, -h, h)
        res |= np.isfinite(tn) & (tfar > 1e-3)
    return res


def _hits_tray_2d(tb, Q, L):
    """Points outside the tray's inner prism: does the ray toward L pass through the tray
    (a solid block up to the wall top, seen from outside)?"""
    s_top = np.maximum(tb.top - Q[:, 2], 0) / max(L[2], 1e-3)
    x0, y0 = Q[:, 0], Q[:, 1]
    x1, y1 = x0 + s_top * L[0], y0 + s_top * L[1]
    A, B = tb.Ax, tb.Ay
    res = ~(((x0 > A) & (x1 > A)) | ((x0 < -A) & (x1 < -A)) |
            ((y0 > B) & (y1 > B)) | ((y0 < -B) & (y1 < -B)))
    k = np.nonzero(res)[0]
    if len(k):   # Liang-Barsky on the remaining segments
        dx, dy = x1[k] - x0[k], y1[k] - y0[k]
        t0 = np.zeros(len(k))
        t1 = np.ones(len(k))
        for p_, q_ in ((-dx, x0[k] + A), (dx, A - x0[k]), (-dy, y0[k] + B), (dy, B - y0[k])):
            ps = np.where(np.abs(p_) < 1e-12, 1e-12, p_)
            r = q_ / ps
            t0 = np.where(p_ < 0, np.maximum(t0, r), t0)
            t1 = np.where(p_ > 0, np.minimum(t1, r), t1)
            t0 = np.where((np.abs(p_) < 1e-12) & (q_ < 0), 2.0, t0)
        res[k] = (t0 <= t1) & (t1 > 1e-4)
    return res


def _wall_occluders(tb):
    out = []
    for lo, hi, _kind in tb.boxes:
        c = (lo + hi) / 2
        out.append((c, np.eye(3), (hi - lo) / 2))
    return out


def _die_occluder(die):
    s = HALF - 0.35 * die["radius"]
    return (die["c"], die["R"], np.array([s, s, s]))


def _light_samples(L, soft, k, seedbase):
    if soft < 1e-4 or k <= 1:
        return [L]
    a = _norm(np.cross(L, [0.0, 0.0, 1.0]) + [1e-6, 0, 0])
    bvec = np.cross(L, a)
    out = []
    for i in range(k):   # golden-angle spiral over the light's disc
        rr = soft * math.sqrt((i + 0.5) / k)
        th = i * 2.399963 + seedbase
        out.append(_norm(L + rr * (math.cos(th) * a + math.sin(th) * bvec)))
    return out


# ----------------------------------------------------------------------------------------
# Shading
# ----------------------------------------------------------------------------------------
def _pip_layout(value, s, flip):
    c = {1: [(0, 0)], 2: [(-s, -s), (s, s)], 3: [(-s, -s), (0, 0), (s, s)],
         4: [(-s, -s), (-s, s), (s, -s), (s, s)],
         5: [(-s, -s), (-s, s), (s, -s), (s, s), (0, 0)],
         6: [(-s, -s), (-s, 0), (-s, s), (s, -s), (s, 0), (s, s)]}[value]
    c = np.array(c, float)
    if flip:
        c = np.stack([c[:, 1], -c[:, 0]], 1)
    return c


def _shade(tb, dice, u, v, with_dice):
    D = _rays(tb, u, v)
    N = len(D)
    C = tb.C
    t_best = -C[2] / D[:, 2]
    mat = np.zeros(N, np.int32)          # 0 felt, 1 lining, 2 wall top, 3 wall side, 10+i die i
    nrm = np.zeros((N, 3))
    nrm[:, 2] = 1.0
    oc, _, oh = tb.outer_box
    t_o, _, _ = _slab(C, D, oc - oh, oc + oh)
    sel = np.nonzero(np.isfinite(t_o))[0]
    for lo, hi, kind in tb.boxes:
        t_s, ax_s, _ = _slab(C, D[sel], lo, hi)
        t = np.full(N, np.inf)
        t[sel] = t_s
        ax = np.zeros(N, np.int64)
        ax[sel] = ax_s
        better = t < t_best
        if not better.any():
            continue
        t_best[better] = t[better]
        axb = ax[better]
        n = np.zeros((better.sum(), 3))
        n[np.arange(len(axb)), axb] = -np.sign(D[better][np.arange(len(axb)), axb])
        nrm[better] = n
        if kind == "base":
            mat[better] = np.where(axb == 2, 1, 3)
        else:
            mat[better] = np.where(axb == 2, 2, 3)
    if with_dice:
        for i, die in enumerate(dice):
            t = _march(tb, D, die)
            better = t < t_best
            t_best[better] = t[better]
            mat[better] = 10 + i
    P = C + t_best[:, None] * D
    albedo = np.zeros((N, 3))
    spec_k = np.zeros(N)
    shin = np.ones(N) * 10
    wrap = np.zeros(N)
    glow = np.zeros((N, 3))
    ao = np.ones(N)

    # felt & lining with fibre texture
    ix = (np.floor(P[:, 0] / tb.tex_mm).astype(np.int64)) % tb.tex.shape[1]
    iy = (np.floor(P[:, 1] / tb.tex_mm).astype(np.int64)) % tb.tex.shape[0]
    tex = tb.tex[iy, ix]
    m = mat == 0
    albedo[m] = tb.felt * tex[m, None]
    if tb.outline and m.any():
        px, py = np.abs(P[m, 0]), np.abs(P[m, 1])
        ex, ey = tb.Ax + tb.outline_margin, tb.Ay + tb.outline_margin
        dx, dy = px - ex, py - ey
        dist = np.where((dx > 0) | (dy > 0), np.hypot(np.maximum(dx, 0), np.maximum(dy, 0)),
                        np.maximum(dx, dy))
        line = np.clip(tb.outline_w / 2 - np.abs(dist) + 0.5, 0, 1)
        albedo[m] = albedo[m] * (1 - line[:, None]) + tb.outline_col * line[:, None]
    m = mat == 1
    if m.any():
        albedo[m] = tb.lining * tex[m, None]
        # darkening where the floor meets the walls
        dwall = np.minimum(tb.ax - np.abs(P[m, 0]), tb.ay - np.abs(P[m, 1]))
        ao[m] *= 1 - 0.35 * np.exp(-np.maximum(dwall, 0) / 4.0)
    m = (mat == 2) | (mat == 3)
    if m.any():
        w = tb.wall * (np.where(mat[m] == 2, tb.wall_top_gain, 1.0))[:, None]
        if tb.wood:
            side = np.abs(P[m, 0]) > tb.ax
            along = np.where(side, P[m, 1], P[m, 0])
            across = np.where(side, P[m, 0], P[m, 1]) + P[m, 2] * 0.7
            gi = (np.floor(across / 0.3).astype(np.int64)) % tb.tex.shape[0]
            gj = (np.floor(along / 5.0).astype(np.int64)) % tb.tex.shape[1]
            g = 1 + 2.2 * (tb.tex[gi, gj] - 1)
            w = w * g[:, None]
        else:
            w = w * (1 + 0.3 * (tex[m, None] - 1))
        albedo[m] = w
        spec_k[m] = 0.08
        shin[m] = 30
    # contact darkening on the floor round each die
    on_floor = mat == 1
    for die in dice:
        near = on_floor & (np.hypot(P[:, 0] - die["c"][0], P[:, 1] - die["c"][1]) < 30)
        if near.any():
            pl = (P[near] - die["c"]) @ die["R"]
            q = np.abs(pl[:, :2]) - (HALF - die["radius"])
            d2 = np.linalg.norm(np.maximum(q, 0), axis=1) + np.minimum(q.max(1), 0) - die["radius"]
            ao[near] *= 1 - tb.contact * np.exp(-np.maximum(d2, 0) / 2.2)

    # dice surfaces
    for i, die in enumerate(dice):
        m = mat == 10 + i
        if not m.any():
            continue
        st = die["set"]
        pl = (P[m] - die["c"]) @ die["R"]
        nl = _sdf_normal(pl, HALF, die["radius"])
        alb = np.tile(die["body"], (m.sum(), 1))
        axis = np.abs(pl).argmax(1)
        sgn = np.sign(pl[np.arange(len(pl)), axis])
        a_ao = np.ones(m.sum())
        for (ax_i, s_i), val in _CANON.items():
            f = (axis == ax_i) & (sgn == s_i)
            if not f.any():
                continue
            ua, va = [k for k in range(3) if k != ax_i]
            uv = pl[f][:, [ua, va]]
            cen = _pip_layout(val, st["spacing"], st["flip"][val])
            rad = (st["one_mm"] if val == 1 else st["pip_mm"]) / 2
            dd = uv[:, None, :] - cen[None]
            d2 = (dd ** 2).sum(-1)
            k = d2.argmin(1)
            off = dd[np.arange(len(k)), k]
            rho = np.sqrt(d2[np.arange(len(k)), k])
            # anti-aliased edge comes from supersampling; keep a hard disc
            inside = rho < rad
            if not inside.any():
                continue
            col = die["red"] if val in (1, 4) else die["black"]
            idx = np.nonzero(f)[0][inside]
            alb[idx] = col
            if st["pips"] == "dimple" and st["dimple_mm"] > 0:
                dep = st["dimple_mm"] * (rad / 1.4) ** 0.5
                Rs = (rad ** 2 + dep ** 2) / (2 * dep)
                o2 = off[inside]
                nz = np.sqrt(np.maximum(Rs ** 2 - (o2 ** 2).sum(1), 0))
                nn = np.zeros((len(o2), 3))
                nn[:, ua] = -o2[:, 0] / Rs
                nn[:, va] = -o2[:, 1] / Rs
                nn[:, ax_i] = s_i * nz / Rs
                nl[idx] = nn
                a_ao[idx] = 0.72 + 0.28 * (rho[inside] / rad) ** 2
        n_world = nl @ die["R"].T
        nrm[m] = n_world
        albedo[m] = alb
        ao[m] *= a_ao
        spec_k[m] = 0.12 + 0.55 * st["gloss"]
        shin[m] = st["shininess"]
        wrap[m] = st["translucency"]
        glow[m] = alb * st["translucency"] * 0.18

    # lighting
    V = -D
    hemi = tb.ambient * (0.55 + 0.45 * nrm[:, 2])
    col = albedo * (hemi * ao)[:, None] + glow
    dice_xy = [d["c"][:2] for d in dice]
    for li, (L, inten, soft) in enumerate(tb.lights):
        ndl = nrm @ L
        diff = np.clip((ndl + wrap) / (1 + wrap), 0, None)
        lit = diff > 0
        shadow = np.ones(N)
        shadow_len = (tb.top + 4) / max(L[2], 0.2) * math.hypot(L[0], L[1]) + 25
        Pn = P + nrm * 0.05
        cand_w = lit & (np.abs(P[:, 0]) < tb.Ax + shadow_len) & (np.abs(P[:, 1]) < tb.Ay + shadow_len)
        cand_w &= P[:, 2] < tb.top - 0.01
        dcand = []
        for j, _die in enumerate(dice):
            dshadow = (HALF * 2 + 2) / max(L[2], 0.2) + 14
            cd = lit & (np.hypot(P[:, 0] - dice_xy[j][0], P[:, 1] - dice_xy[j][1]) < dshadow)
            cd &= mat != 10 + j
            dcand.append(cd)
        samples = _light_samples(L, soft, 5, li * 1.3)
        any_c = cand_w.copy()
        for cd in dcand:
            any_c |= cd
        idx = np.nonzero(any_c)[0]
        if len(idx):
            vis = np.zeros(len(idx))
            Pi = Pn[idx]
            cw = cand_w[idx]
            inner = cw & (np.abs(Pi[:, 0]) < tb.ax) & (np.abs(Pi[:, 1]) < tb.ay)
            outer = cw & ~inner
            for Ls in samples:
                o = np.zeros(len(idx), bool)
                if inner.any():   # inside the tray: lit only if the ray leaves over the walls
                    Q = Pi[inner]
                    s_top = (tb.top - Q[:, 2]) / max(Ls[2], 1e-3)
                    qx = Q[:, 0] + s_top * Ls[0]
                    qy = Q[:, 1] + s_top * Ls[1]
                    o[inner] = (np.abs(qx) > tb.ax) | (np.abs(qy) > tb.ay)
                if outer.any():
                    o[outer] = _hits_tray_2d(tb, Pi[outer], Ls)
                for j, die in enumerate(dice):
                    cd = dcand[j][idx]
                    if cd.any():
                        o[cd] |= _occluded(Pi[cd], Ls, [_die_occluder(die)])
                vis += ~o
            shadow[idx] = vis / len(samples)
        col += albedo * (diff * shadow)[:, None] * inten[None] * ao[:, None] ** 0.5
        if spec_k.any():
            Hh = _norm(L + V)
            ndh = np.clip((nrm * Hh).sum(1), 0, 1)
            fres = 0.35 + 0.65 * (1 - np.clip((nrm * V).sum(1), 0, 1)) ** 5
            sp = spec_k * fres * (ndh ** shin + 0.15 * ndh ** (shin / 8)) * (ndl > 0) * shadow
            col += sp[:, None] * inten[None]
    return col, mat


# ----------------------------------------------------------------------------------------
# Throws
# ----------------------------------------------------------------------------------------
_ROTS = None


def _cube_rotations():
    global _ROTS
    if _ROTS is None:
        import itertools
        out = []
        for perm in itertools.permutations(range(3)):
            for signs in itertools.product((1, -1), repeat=3):
                M = np.zeros((3, 3))
                for r, (c, s) in enumerate(zip(perm, signs, strict=True)):
                    M[r, c] = s
                if np.linalg.det(M) > 0:
                    out.append(M)
        _ROTS = out
    return _ROTS


def _die_rotation(face, yaw, rng):
    ax, s = [k for k, v in _CANON.items() if v == face][0]
    nloc = np.zeros(3)
    nloc[ax] = s
    opts = [M for M in _cube_rotations() if np.allclose(M @ nloc, [0, 0, 1])]
    M = opts[int(rng.integers(len(opts)))]
    cz, sz = math.cos(yaw), math.sin(yaw)
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return Rz @ M            # local -> world


def _square(cx, cy, yaw, r):
    h = HALF - r
    c, s = math.cos(yaw), math.sin(yaw)
    pts = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    return pts @ np.array([[c, s], [-s, c]]) + [cx, cy]


def _poly_dist(A, B):
    """Distance between two convex quads (0 if they overlap)."""
    for P, Q in ((A, B), (B, A)):
        for i in range(4):
            e = P[(i + 1) % 4] - P[i]
            nrm = np.array([e[1], -e[0]])
            pa = P @ nrm
            pb = Q @ nrm
            if pb.max() < pa.min() or pb.min() > pa.max():
                break
        else:
            continue
        break
    else:
        return 0.0
    best = np.inf
    for P, Q in ((A, B), (B, A)):
        for p in P:
            for i in range(4):
                a, b = Q[i], Q[(i + 1) % 4]
                ab = b - a
                t = np.clip((p - a) @ ab / (ab @ ab), 0, 1)
                best = min(best, float(np.linalg.norm(p - (a + t * ab))))
    return best


def _extent(yaw, r):
    return (HALF - r) * (abs(math.cos(yaw)) + abs(math.sin(yaw))) + r


def _throw(seed, tb, st):
    rng = np.random.default_rng([int(seed), 9001])
    calib = seed in (900, 901)
    r = st["radius"]
    if calib:
        n = 2
    else:
        n = int(rng.choice([2, 1, 0], p=[0.8, 0.12, 0.08]))
    hand = "none"
    if not calib:
        x = rng.random()
        hand = "partial" if x < 0.13 else ("full" if x < 0.18 else "none")
    touch_pair = n == 2 and not calib and rng.random() < 0.22
    for _attempt in range(400):
        dice = []
        ok = True
        for k in range(n):
            face = int(rng.integers(1, 7))
            yaw = rng.uniform(0, 2 * math.pi)
            e = _extent(yaw, r)
            mx, my = tb.ax - e, tb.ay - e
            if calib:
                mx, my = mx - 14, my - 14
            if k == 1 and touch_pair:
                a0 = dice[0]
                ang = rng.uniform(0, 2 * math.pi)
                dvec = np.array([math.cos(ang), math.sin(ang)])
                lo, hi = 0.0, 40.0
                A = _square(a0["x"], a0["y"], a0["yaw"], r)
                for _ in range(30):
                    mid = (lo + hi) / 2
                    p = np.array([a0["x"], a0["y"]]) + dvec * mid
                    if _poly_dist(A, _square(p[0], p[1], yaw, r)) > 2 * r:
                        hi = mid
                    else:
                        lo = mid
                x, y = np.array([a0["x"], a0["y"]]) + dvec * hi
                if abs(x) > mx or abs(y) > my:
                    ok = False
                    break
                touching = True
            else:
                x, y = rng.uniform(-mx, mx), rng.uniform(-my, my)
                touching = False
                if not calib and rng.random() < 0.18:
                    if rng.random() < 0.5:
                        x = math.copysign(tb.ax - e, rng.standard_normal())
                    else:
                        y = math.copysign(tb.ay - e, rng.standard_normal())
                    touching = True
            dice.append(dict(face=face, yaw=yaw, x=float(x), y=float(y), touching=touching))
        if not ok:
            continue
        if n == 2:
            gap = _poly_dist(_square(dice[0]["x"], dice[0]["y"], dice[0]["yaw"], r),
                             _square(dice[1]["x"], dice[1]["y"], dice[1]["yaw"], r)) - 2 * r
            if touch_pair:
                if gap < -0.05:
                    continue
                dice[0]["touching"] = True
            elif gap < (12.0 if calib else 1.0):
                continue
        if calib:
            built = [_build_die(d, tb, st, np.random.default_rng([seed, k]))
                     for k, d in enumerate(dice)]
            if not all(_top_visible(tb, b) for b in built):
                continue
        break
    rots_rng = np.random.default_rng([int(seed), 31337])
    out = [_build_die(d, tb, st, rots_rng) for d in dice]
    hand_rng = np.random.default_rng([int(seed), 555])
    return out, hand, hand_rng


def _build_die(d, tb, st, rng):
    return dict(
        face=d["face"], yaw=d["yaw"], touching=d["touching"],
        c=np.array([d["x"], d["y"], tb.fz + HALF]),
        R=_die_rotation(d["face"], d["yaw"], rng),
        radius=st["radius"], set=st,
        body=_lin(st["body"]), red=_lin(st["red"]), black=_lin(st["black"]))


def _top_corners(die, inset=0.0):
    h = HALF - inset
    pts = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    c, s = math.cos(die["yaw"]), math.sin(die["yaw"])
    xy = pts @ np.array([[c, s], [-s, c]]) + die["c"][:2]
    return np.column_stack([xy, np.full(4, die["c"][2] + HALF)])


def _top_visible(tb, die):
    """Top face wholly inside the picture and not hidden behind a tray wall."""
    uv = _project(tb, _top_corners(die))
    if (uv[:, 0] < 0).any() or (uv[:, 1] < 0).any() or (uv[:, 0] > tb.W - 1).any() \
            or (uv[:, 1] > tb.Hpx - 1).any():
        return False
    h = HALF - die["radius"] * 0.3
    g = np.linspace(-h, h, 7)
    gx, gy = np.meshgrid(g, g)
    c, s = math.cos(die["yaw"]), math.sin(die["yaw"])
    X = die["c"][0] + c * gx - s * gy
    Y = die["c"][1] + s * gx + c * gy
    P = np.column_stack([X.ravel(), Y.ravel(), np.full(X.size, die["c"][2] + HALF - 0.01)])
    toward = _norm(tb.C - P)
    for lo, hi, _ in tb.boxes:
        tn, _, tf = _slab(P, toward, lo, hi)
        if (np.isfinite(tn) & (tf > 1e-3)).any():
            return False
    return True


# ----------------------------------------------------------------------------------------
# The dealer's hand
# ----------------------------------------------------------------------------------------
def _capsule(x, y, a, b, w):
    ab = np.array(b) - a
    t = np.clip(((x - a[0]) * ab[0] + (y - a[1]) * ab[1]) / (ab @ ab), 0, 1)
    return np.hypot(x - a[0] - t * ab[0], y - a[1] - t * ab[1]) - w


def _hand_sdf(x, y):
    """Hand-local mm, fingers toward +x. Returns (sdf skin, sdf sleeve)."""
    palm = np.hypot(x / 48.0, y / 42.0) * 42.0 - 42.0
    d = palm
    for yy, ln in ((-27, 70), (-9, 82), (9, 78), (26, 62)):
        d = np.minimum(d, _capsule(x, y, (30, yy * 0.9), (30 + ln, yy * 1.25), 8.5))
    d = np.minimum(d, _capsule(x, y, (-5, -38), (35, -72), 10.5))     # thumb
    wrist = _capsule(x, y, (-40, 0), (-400, 0), 34)
    d = np.minimum(d, _capsule(x, y, (-30, 0), (-95, 0), 33))
    sleeve = np.maximum(wrist, -(x + 95))
    return d, sleeve


def _hand_layer(tb, dice, mode, rng, shape):
    Hh, W = shape
    z = tb.top + (rng.uniform(40, 110) if mode == "partial" else rng.uniform(60, 140))
    if mode == "partial" and dice:
        tgt = dice[int(rng.integers(len(dice)))]["c"][:2]
    else:
        tgt = np.zeros(2)
    ang = rng.uniform(0, 2 * math.pi)
    if mode == "partial":
        centre = tgt - np.array([math.cos(ang), math.sin(ang)]) * rng.uniform(40, 85)
        scale = 1.0
    else:   # a flat hand held over the tray, palm centred on it
        centre = np.zeros(2)
        scale = math.hypot(tb.ax, tb.ay) * 1.08 / 42.0
        z = tb.top + rng.uniform(40, 90)
    yy, xx = np.mgrid[0:Hh, 0:W].astype(np.float64)
    # hand plane z: back-project pixels
    D = _rays(tb, xx.ravel(), yy.ravel())
    t = (z - tb.C[2]) / D[:, 2]
    Pw = tb.C + t[:, None] * D
    dx, dy = Pw[:, 0] - centre[0], Pw[:, 1] - centre[1]
    c, s = math.cos(ang), math.sin(ang)
    lx = (c * dx + s * dy) / scale
    ly = (-s * dx + c * dy) / scale
    skin_d, sleeve_d = _hand_sdf(lx, ly)
    px_per_mm = 1.0 / (tb.mm_per_px * scale)
    skin_a = np.clip(0.5 - skin_d * px_per_mm, 0, 1).reshape(Hh, W)
    sleeve_a = np.clip(0.5 - sleeve_d * px_per_mm, 0, 1).reshape(Hh, W)
    skin_col = _lin(_jitter_col(rng, [(110, 140, 210), (92, 122, 188), (62, 88, 148),
                                      (132, 165, 228)][int(rng.integers(4))], 10))
    sleeve_col = _lin([(20, 20, 22), (230, 232, 235), (60, 30, 25), (40, 40, 120)][int(rng.integers(4))])
    roundness = np.clip(-skin_d / 14.0, 0, 1).reshape(Hh, W)
    # shadow of the hand on the scene below, along the main light
    L = tb.lights[0][0]
    shift_mm = (z - tb.fz) / max(L[2], 0.25) * np.hypot(L[0], L[1])
    dirw = -L[:2] / max(np.hypot(L[0], L[1]), 1e-6)
    p0 = _project(tb, np.array([[0, 0, tb.fz], [dirw[0] * shift_mm, dirw[1] * shift_mm, tb.fz]]))
    sh = p0[1] - p0[0]
    M = np.float32([[1, 0, sh[0]], [0, 1, sh[1]]])
    occl = np.maximum(skin_a, sleeve_a).astype(np.float32)
    shadow = cv2.warpAffine(occl, M, (W, Hh), borderMode=cv2.BORDER_CONSTANT)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 4 + tb.lights[0][2] * 300)
    return dict(skin_a=skin_a, sleeve_a=sleeve_a, skin_col=skin_col, sleeve_col=sleeve_col,
                roundness=roundness, shadow=shadow, light=tb.exposure ** -1)


# ----------------------------------------------------------------------------------------
# Camera and perturbations
# ----------------------------------------------------------------------------------------
def _camera(img_lin, tb, perturbation, seed):
    rng = np.random.default_rng([int(seed), tb.index, PERTURBATIONS.index(perturbation), 77])
    x = img_lin.astype(np.float32)
    Hh, W = x.shape[:2]
    yy, xx = np.mgrid[0:Hh, 0:W]
    r2 = ((xx + tb.ox - tb.cx) ** 2 + (yy + tb.oy - tb.cy) ** 2) / (1100.0 ** 2)
    x *= (1 - tb.vignette * r2)[..., None].astype(np.float32)
    x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.45, 0.7))      # lens softness always
    shot, read = 0.0005, 0.0022
    if perturbation == "blur":
        kind = int(rng.integers(3))
        if kind == 0:
            rad = rng.uniform(1.6, 2.6)
            k = int(math.ceil(rad)) * 2 + 1
            ker = np.zeros((k, k), np.float32)
            cv2.circle(ker, (k // 2, k // 2), int(round(rad * 8)), 1.0, -1, cv2.LINE_AA, 3)
            ker /= ker.sum()
        elif kind == 1:
            ln = rng.uniform(4, 7)
            ang = rng.uniform(0, math.pi)
            k = int(math.ceil(ln)) | 1
            ker = np.zeros((k, k), np.float32)
            h = (ln - 1) / 2
            p1 = (int(round((k // 2 - h * math.cos(ang)) * 8)), int(round((k // 2 - h * math.sin(ang)) * 8)))
            p2 = (int(round((k // 2 + h * math.cos(ang)) * 8)), int(round((k // 2 + h * math.sin(ang)) * 8)))
            cv2.line(ker, p1, p2, 1.0, 1, cv2.LINE_AA, 3)
            ker /= ker.sum()
        else:
            s = rng.uniform(1.2, 1.8)
            k = int(s * 3) * 2 + 1
            g = cv2.getGaussianKernel(k, s)
            ker = (g @ g.T).astype(np.float32)
        x = cv2.filter2D(x, -1, ker, borderType=cv2.BORDER_REFLECT)
    elif perturbation == "noise":
        shot, read = rng.uniform(0.0025, 0.004), rng.uniform(0.006, 0.01)
    elif perturbation == "dim":
        x *= rng.uniform(0.3, 0.38)
        shot, read = 0.0012, 0.004
    elif perturbation == "warm":
        kelvin = rng.uniform(2700, 3300)
        b = 0.42 + (kelvin - 2700) / 600 * 0.12
        x *= np.array([b, 0.78, 1.12], np.float32) * 1.12
    sig = np.sqrt(np.maximum(x, 0) * shot + read ** 2)
    x = x + sig * rng.standard_normal(x.shape).astype(np.float32)
    out = _to_srgb8(np.clip(x, 0, 1))
    if perturbation == "jpeg":
        q = int(rng.integers(30, 61))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# ----------------------------------------------------------------------------------------
# Public entry point
# ----------------------------------------------------------------------------------------
def render_dice_scene(set_name: str, seed: int, perturbation: str = "sharp", table: int = 0):
    _check_names(set_name, perturbation)
    tb = _table(int(table))
    st = DICE_SETS[set_name]
    dice, hand_mode, hand_rng = _throw(int(seed), tb, st)
    W, Hh = tb.W, tb.Hpx

    yy, xx = np.mgrid[0:Hh, 0:W]
    col, _ = _shade(tb, dice, xx.ravel().astype(np.float64), yy.ravel().astype(np.float64), False)
    img = col.reshape(Hh, W, 3)
    S = SUPERSAMPLE
    for die in dice:
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        pts = die["c"] + corners * (HALF + 0.5)
        uv = _project(tb, pts)
        x0 = max(int(math.floor(uv[:, 0].min())) - 2, 0)
        y0 = max(int(math.floor(uv[:, 1].min())) - 2, 0)
        x1 = min(int(math.ceil(uv[:, 0].max())) + 3, W)
        y1 = min(int(math.ceil(uv[:, 1].max())) + 3, Hh)
        if x1 <= x0 or y1 <= y0:
            continue
        sy, sx = np.mgrid[0:(y1 - y0) * S, 0:(x1 - x0) * S]
        u = x0 + (sx + 0.5) / S - 0.5
        v = y0 + (sy + 0.5) / S - 0.5
        c, _ = _shade(tb, dice, u.ravel(), v.ravel(), True)
        c = c.reshape(y1 - y0, S, x1 - x0, S, 3).mean((1, 3))
        img[y0:y1, x0:x1] = c
    img = img * tb.exposure

    # truth geometry
    truth_dice = []
    hand = None
    if hand_mode != "none":
        hand = _hand_layer(tb, dice, hand_mode, hand_rng, (Hh, W))
        occl = np.maximum(hand["skin_a"], hand["sleeve_a"])
        img = img * (1 - 0.5 * hand["shadow"][..., None])
        skin = hand["skin_col"] * (0.55 + 0.45 * hand["roundness"][..., None]) * 0.95
        img = img * (1 - hand["skin_a"][..., None]) + skin * hand["skin_a"][..., None]
        sl = hand["sleeve_a"][..., None] * (1 - hand["skin_a"][..., None])
        img = img * (1 - sl) + hand["sleeve_col"] * 0.8 * sl
    for die in dice:
        uv = _project(tb, _top_corners(die))
        full = _top_visible(tb, die)
        if full and hand is not None:
            mask = np.zeros((Hh, W), np.uint8)
            cv2.fillConvexPoly(mask, np.round(uv * 16).astype(np.int32), 1, cv2.LINE_8, 4)
            mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
            if (occl[mask > 0] > 0.02).any():
                full = False
        ctr = _project(tb, (die["c"] + [0, 0, HALF])[None])[0]
        sv = _jac_sv(tb, die["c"] + [0, 0, HALF])
        truth_dice.append(dict(
            face=int(die["face"]), in_full_view=bool(full),
            centre_px=[float(ctr[0]), float(ctr[1])],
            top_face_corners_px=[[float(a), float(b)] for a, b in uv],
            pip_diameter_px=float(die["set"]["pip_mm"] * sv[1]),
            touching=bool(die["touching"])))
    # the zone: generous quad round the tray
    mz = 12.0
    quad_w = np.array([[-tb.Ax - mz, -tb.Ay - mz], [tb.Ax + mz, -tb.Ay - mz],
                       [tb.Ax + mz, tb.Ay + mz], [-tb.Ax - mz, tb.Ay + mz]])
    lo = _project(tb, np.column_stack([quad_w, np.zeros(4)]))
    hi = _project(tb, np.column_stack([quad_w, np.full(4, tb.top)]))
    q = (lo + hi) / 2
    ctr = q.mean(0)
    allp = np.vstack([lo, hi])
    scale = 1.0
    path = q.astype(np.float32).reshape(-1, 1, 2)
    for _ in range(40):
        qq = (ctr + (q - ctr) * scale).astype(np.float32).reshape(-1, 1, 2)
        if all(cv2.pointPolygonTest(qq, (float(a), float(b)), True) >= 3 for a, b in allp):
            path = qq
            break
        scale *= 1.02
    else:
        path = qq
    zone = path.reshape(4, 2)
    zone[:, 0] = np.clip(zone[:, 0], 0, W - 1)
    zone[:, 1] = np.clip(zone[:, 1], 0, Hh - 1)

    if hand_mode == "full":
        tray_poly = _project(tb, np.array([[sx * tb.ax, sy * tb.ay, tb.fz]
                                           for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]))
        tm = np.zeros((Hh, W), np.uint8)
        cv2.fillConvexPoly(tm, np.round(tray_poly).astype(np.int32), 1)
        covered = bool((occl[tm > 0] > 0.5).all())
    else:
        covered = False
    if covered:
        expected = None
    else:
        expected = sorted(d["face"] if d["in_full_view"] else 0 for d in truth_dice)

    out = _camera(img, tb, perturbation, seed)
    truth = {
        "kind": "dice",
        "zones": {"DICE": {"corners_px": [[float(a), float(b)] for a, b in zone],
                           "expected": expected}},
        "dice": truth_dice,
        "mm_per_px": float(tb.mm_per_px),
        "table": {"index": tb.index, "felt": tb.felt_name, "tray_floor": tb.lining_name,
                  "tray_wall": tb.wall_name, "camera_height_mm": float(tb.height),
                  "camera_offset_mm": float(tb.offset), "wall_height_mm": float(tb.hw),
                  "lights": len(tb.lights), "frame_edge_cuts_tray": bool(tb.cut)},
        "set": set_name, "seed": int(seed), "perturbation": perturbation,
        "hand": hand_mode,
    }
    return out, truth
