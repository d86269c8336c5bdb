"""One Si Zhi Dao table as a fixed 4K overhead camera sees it.

World frame: the table plane in millimetres, seen from above with x to the right and y
towards the bottom of the layout drawing; the dealer stands at the top, at the centre of a
U-shaped arc of seven seat zones S1..S7 that run counter-clockwise seen from above (S1 at
the left end of the drawing, i.e. on the dealer's right hand, round to S7 at the right end).

A pinhole camera hangs above the layout, a little off-axis and tilted, with an arbitrary
roll (the dealer may be at the top or the bottom of the picture).  ``Table.H`` maps world
mm to image pixels (pixel centres at integer coordinates).  Everything that stays with the
table lives here: layout, camera, felt colour, how the zones are marked, lights, white
balance, vignetting and lens softness.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

IMG_W, IMG_H = 3840, 2160
MAX_MM_PER_PX = 0.33
EDGE_MARGIN_PX = 40


def _rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def project(H, pts):
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    p = np.c_[pts, np.ones(len(pts))] @ H.T
    return p[:, :2] / p[:, 2:3]


def mm_per_px(H, pts):
    """Worst-direction table mm per image pixel at each world point."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    out = []
    for x, y in pts:
        w = H[2] @ [x, y, 1.0]
        u = H[0] @ [x, y, 1.0] / w
        v = H[1] @ [x, y, 1.0] / w
        J = np.array([[(H[0, 0] - u * H[2, 0]) / w, (H[0, 1] - u * H[2, 1]) / w],
                      [(H[1, 0] - v * H[2, 0]) / w, (H[1, 1] - v * H[2, 1]) / w]])
        out.append(1.0 / np.linalg.svd(J, compute_uv=False).min())
    return np.array(out)


@dataclass
class Zone:
    name: str
    centre: np.ndarray      # world mm
    ex: np.ndarray          # unit, along the arc (the player's right)
    ey: np.ndarray          # unit, away from the dealer
    w: float
    h: float

    def corners(self):
        c, ex, ey = self.centre, self.ex, self.ey
        return np.array([c - ex * self.w / 2 - ey * self.h / 2, c + ex * self.w / 2 - ey * self.h / 2,
                         c + ex * self.w / 2 + ey * self.h / 2, c - ex * self.w / 2 + ey * self.h / 2])

    def to_local(self, pts):
        d = np.asarray(pts, np.float64).reshape(-1, 2) - self.centre
        return np.c_[d @ self.ex, d @ self.ey]

    def to_world(self, pts):
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        return self.centre + p[:, :1] * self.ex + p[:, 1:2] * self.ey


@dataclass
class Table:
    index: int
    zones: list
    dealer: np.ndarray
    H: np.ndarray
    mm_px_centre: float
    mm_px_max: float
    felt_bgr: np.ndarray
    mark_bgr: np.ndarray
    mark_style: str
    mark_mm: float
    mark_alpha: float
    label_style: int
    lens_sigma: float
    wb: np.ndarray
    exposure: float
    vignette: float
    grad: tuple
    spot: tuple
    read_noise: float
    shot_k: float
    tray: object = None
    extra: dict = field(default_factory=dict)


def _sepgap(A, B):
    best = -1e9
    for poly in (A, B):
        for k in range(4):
            e = poly[(k + 1) % 4] - poly[k]
            nn = np.array([-e[1], e[0]]) / np.linalg.norm(e)
            pa, pb = A @ nn, B @ nn
            best = max(best, pb.min() - pa.max(), pa.min() - pb.max())
    return best


def _arc_layout(a, b, n, t0, w, h):
    """Seven zones at equal arc length along the lower part of a superellipse."""
    th = np.linspace(np.pi - t0, t0, 700)
    c, s = np.cos(th), np.sin(th)
    pts = np.stack([a * np.sign(c) * np.abs(c) ** (2 / n), b * np.sign(s) * np.abs(s) ** (2 / n)], 1)
    seg = np.r_[0, np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))]
    zones = []
    for k, tg in enumerate(np.linspace(0, seg[-1], 7)):
        i = int(np.clip(np.searchsorted(seg, tg), 1, len(pts) - 1))
        f = (tg - seg[i - 1]) / max(seg[i] - seg[i - 1], 1e-9)
        p = pts[i - 1] + (pts[i] - pts[i - 1]) * f
        d = pts[i] - pts[i - 1]
        d /= np.linalg.norm(d)
        ey = np.array([d[1], -d[0]])
        if ey @ p < 0:
            ey = -ey
        # the player (outside the arc, facing the dealer) has their right along +ex
        ex = np.array([ey[1], -ey[0]])
        zones.append((p, ex, ey))
    # the path runs from the left end (x<0) round the bottom to the right end: seen from
    # above (y down) that is counter-clockwise about the dealer, so S1 is the left end.
    return [Zone(f"S{k + 1}", p, ex, ey, w, h) for k, (p, ex, ey) in enumerate(zones)]


def _find_layout(rng, w, h, s_max):
    """A U-shaped layout of the seven zones that fits the picture at <= s_max mm/px."""
    W = (IMG_W - 2 * EDGE_MARGIN_PX - 60)
    Hh = (IMG_H - 2 * EDGE_MARGIN_PX - 60)
    ok = []
    for n in (4.0, 5.0):
        for t0 in np.radians([-30, -20, -10]):
            for a in range(440, 530, 10):
                for b in range(200, 310, 10):
                    zs = _arc_layout(a, b, n, t0, w, h)
                    polys = [z.corners() for z in zs]
                    P = np.concatenate(polys)
                    ext = P.max(0) - P.min(0)
                    sreq = max(ext[0] / W, ext[1] / Hh)
                    if sreq > s_max:
                        continue
                    if min(_sepgap(polys[i], polys[i + 1]) for i in range(6)) < 10:
                        continue
                    ok.append((sreq, zs))
    if not ok:
        return None, None
    sreq, zs = ok[int(rng.integers(len(ok)))]
    return zs, sreq


def _camera(rng, zones, s_centre, flip, roll_deg):
    """Pinhole homography world(mm) -> image(px) with some tilt and off-axis placement."""
    P = np.concatenate([z.corners() for z in zones])
    mid = (P.max(0) + P.min(0)) / 2
    height = rng.uniform(1500, 2300)
    tx, ty = np.radians(rng.uniform(-4.5, 4.5)), np.radians(rng.uniform(-4.5, 4.5))
    roll = np.radians(roll_deg + (180.0 if flip else 0.0))
    Rz = np.array([[np.cos(roll), -np.sin(roll), 0], [np.sin(roll), np.cos(roll), 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, np.cos(tx), -np.sin(tx)], [0, np.sin(tx), np.cos(tx)]])
    Ry = np.array([[np.cos(ty), 0, np.sin(ty)], [0, 1, 0], [-np.sin(ty), 0, np.cos(ty)]])
    R = Rx @ Ry @ Rz
    # world z points into the table (x right, y down seen from above -> right-handed)
    off = rng.uniform(-120, 120, 2)
    C = np.array([mid[0] + off[0], mid[1] + off[1], -height])
    f = height / s_centre
    t = -R @ C
    M = np.c_[R[:, 0], R[:, 1], t]
    K = np.array([[f, 0, 0], [0, f, 0], [0, 0, 1.0]])
    H = K @ M
    # principal point: centre the layout in the picture
    q = project(H, P)
    c = (q.max(0) + q.min(0)) / 2
    T = np.array([[1, 0, (IMG_W - 1) / 2 - c[0]], [0, 1, (IMG_H - 1) / 2 - c[1]], [0, 0, 1]])
    return T @ H


PALETTE_FELT = [(60, 110, 25), (45, 90, 20), (95, 60, 15), (40, 30, 120), (70, 70, 65),
                (85, 95, 20), (75, 40, 70), (35, 75, 45), (110, 85, 40)]
PALETTE_MARK = [(235, 240, 240), (90, 190, 225), (200, 230, 240), (120, 215, 235), (230, 225, 200)]
MARK_STYLES = ("solid", "rounded", "double", "brackets", "dashed", "filled")


@lru_cache(maxsize=8)
def get_table(index: int) -> Table:
    rng = np.random.default_rng([int(index), 0x5A7AB1E])
    for attempt in range(40):
        w = rng.uniform(200.5, 206)
        h = rng.uniform(161, 168)
        zs, sreq = _find_layout(rng, w, h, 0.318)
        if zs is None:
            continue
        s_target = rng.uniform(sreq * 1.005, 0.32)
        flip = rng.random() < 0.5
        roll = rng.uniform(-4, 4)
        H = _camera(rng, zs, s_target, flip, roll)
        pts = []
        for z in zs:
            g = np.linspace(-0.5, 0.5, 5)
            pts += [z.to_world([[u * z.w, v * z.h]])[0] for u in g for v in g]
        mpp = mm_per_px(H, pts)
        q = project(H, np.concatenate([z.corners() for z in zs]))
        inside = (q.min() >= EDGE_MARGIN_PX and q[:, 0].max() <= IMG_W - 1 - EDGE_MARGIN_PX
                  and q[:, 1].max() <= IMG_H - 1 - EDGE_MARGIN_PX)
        if mpp.max() <= 0.327 and inside:
            break
    else:
        raise RuntimeError("no layout found")
    dealer = np.array([0.0, 0.0])
    felt = np.array(PALETTE_FELT[rng.integers(len(PALETTE_FELT))], float) * rng.uniform(0.85, 1.15, 3)
    mark = np.array(PALETTE_MARK[rng.integers(len(PALETTE_MARK))], float)
    wb = np.array([rng.uniform(0.93, 1.07), 1.0, rng.uniform(0.93, 1.07)])
    tray = None
    # a chip tray in front of the dealer when it clears the seat zones
    tw, th = rng.uniform(300, 420), rng.uniform(90, 130)
    cands = [np.array([0.0, -th / 2 + d]) for d in (-40, 0, 40, 80)]
    for c in cands:
        poly = np.array([c + [-tw / 2, -th / 2], c + [tw / 2, -th / 2], c + [tw / 2, th / 2], c + [-tw / 2, th / 2]])
        if min(_sepgap(poly, z.corners()) for z in zs) > 60:
            qq = project(H, poly)
            if qq.min() > 0 and qq[:, 0].max() < IMG_W and qq[:, 1].max() < IMG_H:
                tray = poly
                break
    return Table(
        index=int(index), zones=zs, dealer=dealer, H=H,
        mm_px_centre=float(s_target), mm_px_max=float(mpp.max()),
        felt_bgr=np.clip(felt, 10, 200), mark_bgr=mark,
        mark_style=MARK_STYLES[rng.integers(len(MARK_STYLES))],
        mark_mm=float(rng.uniform(3.0, 7.0)), mark_alpha=float(rng.uniform(0.55, 0.9)),
        label_style=int(rng.integers(3)),
        lens_sigma=float(rng.uniform(0.35, 0.85)), wb=wb, exposure=float(rng.uniform(0.9, 1.08)),
        vignette=float(rng.uniform(0.06, 0.22)),
        grad=(float(rng.uniform(-0.12, 0.12)), float(rng.uniform(-0.12, 0.12))),
        spot=(float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.0, 0.15)),
              float(rng.uniform(0.3, 0.6))),
        read_noise=float(rng.uniform(1.2, 2.5)), shot_k=float(rng.uniform(0.02, 0.06)),
        tray=tray,
    )


# --------------------------------------------------------------------------- felt
def _fp(pts):
    return np.round(np.asarray(pts) * 16).astype(np.int32)


def _zone_outline_world(z, inset=0.0, r=0.0, n_arc=6):
    """Zone rectangle (optionally rounded) as a world polygon."""
    hw, hh = z.w / 2 - inset, z.h / 2 - inset
    if r <= 0:
        loc = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    else:
        loc = []
        for (cx, cy), a0 in [((hw - r, -hh + r), -90), ((hw - r, hh - r), 0),
                             ((-hw + r, hh - r), 90), ((-hw + r, -hh + r), 180)]:
            for k in range(n_arc + 1):
                a = np.radians(a0 + 90.0 * k / n_arc)
                loc.append((cx + r * np.cos(a), cy + r * np.sin(a)))
        loc = np.array(loc)
    return z.to_world(loc)


def _label_patch(text, style):
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX][style]
    img = np.zeros((120, 240), np.uint8)
    (tw, th), _ = cv2.getTextSize(text, font, 3.0, 6)
    cv2.putText(img, text, ((240 - tw) // 2, (120 + th) // 2), font, 3.0, 255, 6, cv2.LINE_AA)
    return img


@lru_cache(maxsize=4)
def felt_image(index: int) -> np.ndarray:
    """The empty felt with its printed markings, before light and camera (uint8 BGR)."""
    T = get_table(index)
    rng = np.random.default_rng([int(index), 0xFE17])
    H = T.H
    # plain felt with a faint low-frequency mottling and a fine nap
    low = cv2.resize(rng.normal(0, 1, (27, 48)).astype(np.float32), (IMG_W, IMG_H),
                     interpolation=cv2.INTER_CUBIC)
    fine = cv2.GaussianBlur(rng.normal(0, 1, (IMG_H, IMG_W)).astype(np.float32), (0, 0), 0.8)
    base = 1.0 + 0.025 * low + 0.05 * fine
    img = (base[:, :, None] * T.felt_bgr[None, None, :].astype(np.float32))
    mark = np.zeros((IMG_H, IMG_W), np.uint8)
    s = T.mm_px_centre
    t_px = max(2, int(round(T.mark_mm / s)))
    for z in T.zones:
        if T.mark_style in ("solid", "filled"):
            q = project(H, _zone_outline_world(z))
            cv2.polylines(mark, [_fp(q)], True, 255, t_px, cv2.LINE_AA, 4)
        elif T.mark_style == "rounded":
            q = project(H, _zone_outline_world(z, r=18.0))
            cv2.polylines(mark, [_fp(q)], True, 255, t_px, cv2.LINE_AA, 4)
        elif T.mark_style == "double":
            q = project(H, _zone_outline_world(z))
            cv2.polylines(mark, [_fp(q)], True, 255, t_px, cv2.LINE_AA, 4)
            q2 = project(H, _zone_outline_world(z, inset=T.mark_mm + 5.0))
            cv2.polylines(mark, [_fp(q2)], True, 255, max(1, t_px // 2), cv2.LINE_AA, 4)
        elif T.mark_style == "brackets":
            C = z.corners()
            for i in range(4):
                a, b, c = C[i - 1], C[i], C[(i + 1) % 4]
                for other in (a, c):
                    d = (other - b) / np.linalg.norm(other - b)
                    q = project(H, [b, b + d * 45.0])
                    cv2.line(mark, tuple(_fp(q[0])), tuple(_fp(q[1])), 255, t_px, cv2.LINE_AA, 4)
        else:  # dashed
            C = z.corners()
            for i in range(4):
                a, b = C[i], C[(i + 1) % 4]
                L = np.linalg.norm(b - a)
                nd = int(L // 20)
                for k in range(nd):
                    f0, f1 = k / nd, (k + 0.6) / nd
                    q = project(H, [a + (b - a) * f0, a + (b - a) * f1])
                    cv2.line(mark, tuple(_fp(q[0])), tuple(_fp(q[1])), 255, t_px, cv2.LINE_AA, 4)
                q = project(H, [b])
                cv2.circle(mark, tuple(_fp(q[0])), max(1, t_px // 2) * 16, 255, -1, cv2.LINE_AA, 4)
        # seat number on the dealer side, just outside the zone
        lab = _label_patch(z.name[1:] if T.label_style != 2 else z.name, T.label_style)
        lw, lh = (36.0, 18.0) if T.label_style == 2 else (30.0, 15.0)
        cen = z.centre - z.ey * (z.h / 2 + 8 + lh / 2 + T.mark_mm)
        # label upright for the player reading it from outside: its "up" is -ey
        src = np.float32([[0, 0], [239, 0], [239, 119], [0, 119]])
        wc = [cen - z.ex * lw / 2 - z.ey * lh / 2, cen + z.ex * lw / 2 - z.ey * lh / 2,
              cen + z.ex * lw / 2 + z.ey * lh / 2, cen - z.ex * lw / 2 + z.ey * lh / 2]
        # text reads from the player's side: turn it so its top points away from the dealer
        wc = [wc[2], wc[3], wc[0], wc[1]]
        qd = project(H, wc)
        x0, y0 = np.floor(qd.min(0)).astype(int) - 2
        x1, y1 = np.ceil(qd.max(0)).astype(int) + 3
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, IMG_W), min(y1, IMG_H)
        if x1 > x0 and y1 > y0:
            M = cv2.getPerspectiveTransform(src, (qd - [x0, y0]).astype(np.float32))
            lab_w = cv2.warpPerspective(lab, M, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
            np.maximum(mark[y0:y1, x0:x1], lab_w, out=mark[y0:y1, x0:x1])
    m = mark.astype(np.float32)[:, :, None] / 255.0 * T.mark_alpha
    if T.mark_style == "filled":
        fill = np.zeros((IMG_H, IMG_W), np.uint8)
        for z in T.zones:
            cv2.fillPoly(fill, [_fp(project(H, _zone_outline_world(z)))], 255, cv2.LINE_AA, 4)
        f = fill.astype(np.float32)[:, :, None] / 255.0 * 0.12
        img = img * (1 - f) + f * np.minimum(T.felt_bgr * 1.6 + 30, 255)[None, None, :].astype(np.float32)
    img = img * (1 - m) + m * T.mark_bgr[None, None, :].astype(np.float32)
    if T.tray is not None:
        q = project(H, T.tray)
        cv2.fillPoly(img, [_fp(q)], (38, 38, 42), cv2.LINE_AA, 4)
        # chip stacks in the tray
        c = T.tray.mean(0)
        cols = [(40, 40, 190), (30, 140, 40), (200, 200, 200), (20, 20, 20), (170, 80, 30), (40, 170, 220)]
        tw = np.linalg.norm(T.tray[1] - T.tray[0])
        th = np.linalg.norm(T.tray[3] - T.tray[0])
        for k in range(int(tw // 48)):
            for j in range(max(1, int(th // 48))):
                p = T.tray[0] + [24 + 48 * k, 24 + 48 * j]
                qq = project(H, [p, p + [19, 0]])
                r = np.linalg.norm(qq[1] - qq[0])
                col = cols[(k + j * 3 + index) % len(cols)]
                cv2.circle(img, tuple(_fp(qq[0])), int(r * 16), col, -1, cv2.LINE_AA, 4)
                cv2.circle(img, tuple(_fp(qq[0])), int(r * 0.6 * 16), (230, 230, 230), max(1, int(r * 0.12)), cv2.LINE_AA, 4)
    return np.clip(img, 0, 255).astype(np.uint8)


@lru_cache(maxsize=4)
def light_gain(index: int) -> np.ndarray:
    """Per-pixel illumination x vignetting (float32, H x W)."""
    T = get_table(index)
    ys, xs = np.mgrid[0:IMG_H:8, 0:IMG_W:8].astype(np.float32)
    xn = (xs - IMG_W / 2) / (IMG_W / 2)
    yn = (ys - IMG_H / 2) / (IMG_W / 2)
    r2 = xn ** 2 + yn ** 2
    g = (1 - T.vignette * r2) * (1 + T.grad[0] * xn + T.grad[1] * yn)
    sx, sy, sa, sw = T.spot
    g *= 1 + sa * np.exp(-(((xs / IMG_W - sx) ** 2 + (ys / IMG_H - sy) ** 2) / (2 * sw ** 2)))
    g = cv2.resize(g.astype(np.float32), (IMG_W, IMG_H), interpolation=cv2.INTER_LINEAR)
    return (g * T.exposure).astype(np.float32)
