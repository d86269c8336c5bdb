"""The table: seat layout on the felt, the camera (a homography from the table plane), felt,
markings, lights. Everything here depends on `table` only.

Table coordinates are millimetres on the felt: origin at the dealer (the centre of the seats'
arc), x to the right and y away from the dealer as a camera over the dealer's shoulder would
see it (a right-handed frame viewed from above, like an image). Seat k's zone has its own
frame: u along the arc (the seated player's right) and v away from the dealer.
"""

import math
import zlib
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

IMG_W, IMG_H = 3840, 2160
OVERHANG_MM = 16.0  # how far cards may stick out of a zone; kept inside the picture
SEATS = tuple(f"S{i}" for i in range(1, 8))

FELTS = (  # BGR
    ("green", (52, 104, 34)),
    ("blue", (120, 62, 22)),
    ("burgundy", (40, 28, 105)),
    ("teal", (98, 102, 24)),
    ("charcoal", (56, 54, 52)),
    ("purple", (92, 40, 70)),
    ("olive", (40, 92, 78)),
    ("light_green", (70, 140, 60)),
)
PRINTS = (  # zone marking inks, BGR
    ("gold", (70, 168, 212)),
    ("white", (228, 230, 232)),
    ("cream", (170, 214, 232)),
    ("yellow", (60, 210, 235)),
    ("light_blue", (220, 190, 140)),
    ("silver", (180, 182, 184)),
)


def rng_for(*parts):
    key = "|".join(str(p) for p in parts).encode()
    return np.random.default_rng([zlib.crc32(key), zlib.adler32(key), len(key)])


def proj(H, pts):
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    ph = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return ph[:, :2] / ph[:, 2:3]


def local_mm_per_px(H, pt):
    """Largest table distance per pixel around a table point (1 / smallest singular value)."""
    e = 1.0
    p0, px, py = proj(H, [pt, (pt[0] + e, pt[1]), (pt[0], pt[1] + e)])
    J = np.stack([(px - p0) / e, (py - p0) / e], axis=1)
    s = np.linalg.svd(J, compute_uv=False)
    return 1.0 / s.min(), 1.0 / math.sqrt(abs(np.linalg.det(J)))


@dataclass
class Zone:
    name: str
    centre: np.ndarray  # table mm
    u: np.ndarray
    v: np.ndarray
    w: float
    d: float

    def to_table(self, a, b):
        return self.centre + a * self.u + b * self.v

    def corners_mm(self, grow=0.0):
        w, d = self.w / 2 + grow, self.d / 2 + grow
        return np.array([self.to_table(a, b) for a, b in ((-w, -d), (w, -d), (w, d), (-w, d))])

    @property
    def angle(self):
        return math.atan2(self.u[1], self.u[0])


@dataclass(eq=False)
class Table:
    index: int
    H: np.ndarray  # table mm -> image px
    zones: list
    mm_per_px: float
    felt_name: str
    felt: tuple
    marking: dict
    light: dict
    camera: dict
    extras: dict = field(default_factory=dict)


def _zone_at(name, a, b, t, W, D):
    c = np.array([a * math.sin(t), b * math.cos(t)])
    v = c / np.linalg.norm(c)
    u = np.array([v[1], -v[0]])
    return Zone(name, c, u, v, W, D)


def _overlap(p, q):
    area, _ = cv2.intersectConvexConvex(p.astype(np.float32), q.astype(np.float32))
    return area > 0


def _layout(a, b, W, D, gap):
    """Seven zones on an elliptic arc (semi-axes a across, b towards the players), each facing
    the dealer, neighbours `gap` apart."""
    ts = [0.0]
    for _ in range(3):
        p = _zone_at("", a, b, ts[-1], W, D).corners_mm(gap / 2)
        lo, hi = ts[-1], ts[-1] + 1.2
        for _ in range(22):
            m = (lo + hi) / 2
            if _overlap(p, _zone_at("", a, b, m, W, D).corners_mm(gap / 2)):
                lo = m
            else:
                hi = m
        ts.append(hi)
    ts = [-x for x in ts[:0:-1]] + ts
    return [_zone_at(SEATS[i], a, b, t, W, D) for i, t in enumerate(ts)], ts[-1]


def _content_pts(zones):
    return np.vstack([z.corners_mm(OVERHANG_MM) for z in zones])


def _camera(rng, target, h_mm, tilt, azim, roll):
    C = np.array([target[0] - h_mm * math.tan(tilt) * math.cos(azim),
                  target[1] - h_mm * math.tan(tilt) * math.sin(azim), -h_mm])
    T = np.array([target[0], target[1], 0.0])
    f = T - C
    f /= np.linalg.norm(f)
    a = np.array([math.cos(roll), math.sin(roll), 0.0])
    x = a - a.dot(f) * f
    x /= np.linalg.norm(x)
    y = np.cross(f, x)
    R = np.stack([x, y, f])
    t = -R @ C
    return np.column_stack([R[:, 0], R[:, 1], t])  # [r1 r2 t]


@lru_cache(maxsize=16)
def get_table(index: int) -> Table:
    if not isinstance(index, (int, np.integer)) or isinstance(index, bool) or index < 0:
        raise ValueError(f"table must be a non-negative int, got {index!r}")
    rng = rng_for("table", int(index))
    felt_name, felt = FELTS[index % len(FELTS)] if index < len(FELTS) else FELTS[rng.integers(len(FELTS))]
    felt = tuple(float(np.clip(c * rng.uniform(0.92, 1.08), 0, 255)) for c in felt)
    target_m = rng.uniform(0.285, 0.325)
    h_mm = rng.uniform(1600, 2000)
    tilt = math.radians(rng.uniform(1.5, 6.0))
    azim = rng.uniform(0, 2 * math.pi)
    roll = math.radians(rng.uniform(-3.0, 3.0)) + (math.pi if rng.random() < 0.35 else 0.0)
    W, D, gap = rng.uniform(160, 172), rng.uniform(200, 214), rng.uniform(8, 24)

    for _attempt in range(40):
        best = None
        for ea in np.arange(360.0, 600.0, 30.0):
            for ratio in np.arange(0.5, 0.96, 0.075):
                zones, tmax = _layout(ea, ea * ratio, W, D, gap)
                if tmax > math.radians(112):
                    continue
                pts = _content_pts(zones)
                c, s = math.cos(roll), math.sin(roll)
                rp = pts @ np.array([[c, -s], [s, c]])
                need = max(np.ptp(rp[:, 0]) / (IMG_W * 0.95), np.ptp(rp[:, 1]) / (IMG_H * 0.92))
                if best is None or need < best[0]:
                    best = (need, ea, ratio, zones)
        need, ea, ratio, zones = best
        pts = _content_pts(zones)
        centre = (pts.min(0) + pts.max(0)) / 2
        M = _camera(rng, centre, h_mm, tilt, azim, roll)
        f = h_mm / need
        for _ in range(8):  # largest focal length that keeps the content in the frame
            K = np.array([[f, 0, IMG_W / 2], [0, f, IMG_H / 2], [0, 0, 1.0]])
            q = proj(K @ M, pts)
            k = min((IMG_W - 40) / np.ptp(q[:, 0]), (IMG_H - 36) / np.ptp(q[:, 1]))
            f *= k * 0.999
            if abs(k - 1) < 0.002:
                break
        f_fit = f
        K = np.array([[f, 0, IMG_W / 2], [0, f, IMG_H / 2], [0, 0, 1.0]])
        worst = max(local_mm_per_px(K @ M, p)[0] for z in zones for p in z.corners_mm())
        f_min = f * worst / 0.3285
        if f_min <= f_fit:
            mean = float(np.mean([local_mm_per_px(K @ M, z.centre)[1] for z in zones]))
            f_target = f * mean / target_m
            f = float(np.clip(f_target, f_min, f_fit))
            H = np.array([[f, 0, IMG_W / 2], [0, f, IMG_H / 2], [0, 0, 1.0]]) @ M
            break
        W, D, gap = max(160.0, W - 3), max(200.0, D - 3), max(6.0, gap - 3)
        tilt *= 0.8
    else:  # pragma: no cover - the loop always finds a fit for the ranges above
        raise RuntimeError("no camera fits")
    # principal point: content centred, with some of the slack used at random
    q = proj(H, pts)
    lo, hi = q.min(0), q.max(0)
    slack = np.array([IMG_W, IMG_H]) - (hi - lo)
    shift = -lo + slack * rng.uniform(0.4, 0.6, 2)
    H = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1.0]]) @ H
    H = H / H[2, 2]
    mmpp = float(np.mean([local_mm_per_px(H, z.centre)[1] for z in zones]))

    marking = {
        "kind": rng.choice(["outline", "outline", "outline", "double", "corners", "none"]),
        "ink": PRINTS[rng.integers(len(PRINTS))][1],
        "width_mm": float(rng.uniform(3.0, 12.0)),
        "radius_mm": float(rng.choice([0.0, rng.uniform(8, 30)])),
        "alpha": float(rng.uniform(0.65, 0.92)),
        "number": rng.choice(["digit", "S", "none"], p=[0.45, 0.35, 0.2]),
        "number_mm": float(rng.uniform(16, 26)),
        "arc": bool(rng.random() < 0.55),
        "title": bool(rng.random() < 0.5),
        "fill": bool(rng.random() < 0.25),
    }
    ld = rng.uniform(0, 2 * math.pi)
    light = {
        "spots": [(rng.uniform(-700, 700), rng.uniform(-200, ea * ratio + 300), rng.uniform(300, 650), rng.uniform(0.08, 0.22))
                  for _ in range(rng.integers(1, 4))],
        "ambient": float(rng.uniform(0.80, 0.9)),
        "vignette": float(rng.uniform(0.06, 0.22)),
        "gains": tuple(float(g) for g in rng.uniform(0.96, 1.04, 3)),
        "shadow_dir": (math.cos(ld), math.sin(ld)),
        "card_shadow_mm": float(rng.uniform(0.6, 1.8)),
        "card_shadow_blur_mm": float(rng.uniform(1.0, 2.4)),
        "card_shadow_k": float(rng.uniform(0.22, 0.42)),
        "hand_shadow_mm": float(rng.uniform(18, 45)),
        "hand_shadow_blur_mm": float(rng.uniform(6, 12)),
        "hand_shadow_k": float(rng.uniform(0.3, 0.5)),
        "lens_sigma_px": float(rng.uniform(0.45, 0.75)),
        "read_noise": float(rng.uniform(1.0, 2.0)),
        "shot_gain": float(rng.uniform(0.015, 0.04)),
    }
    camera = {"height_mm": h_mm, "tilt_deg": math.degrees(tilt), "roll_deg": math.degrees(roll) % 360,
              "arc_mm": [float(ea), float(ea * ratio)], "zone_mm": [W, D], "gap_mm": gap}
    return Table(int(index), H, zones, mmpp, felt_name, felt, marking, light, camera,
                 {"felt_seed": int(rng.integers(1 << 31))})


def table_px_per_mm(t: Table):
    return 1.0 / t.mm_per_px
