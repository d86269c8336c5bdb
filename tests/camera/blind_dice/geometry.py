"""3-D geometry: pinhole camera, the tray (analytic), rounded-cube dice (sphere traced with
analytic pip dimples) and capsule hands. World units are millimetres, z up, table felt at z=0."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import W, H

INF = np.inf

# surface kinds
FELT, FLOOR, INNER_WALL, RIM_TOP, OUTER_WALL, DIE, SKIN, SLEEVE = range(8)


def _dot(a, b):
    return np.einsum("...i,...i->...", a, b)


# ----------------------------------------------------------------------------- camera
@dataclass
class Camera:
    C: np.ndarray        # centre (3,)
    R: np.ndarray        # rows: camera x (right), y (down), z (forward) in world coords
    f: float
    cx: float
    cy: float

    @staticmethod
    def look_at(C, target, right_hint, f, cx=W / 2, cy=H / 2):
        C = np.asarray(C, float)
        z = np.asarray(target, float) - C
        z /= np.linalg.norm(z)
        a = np.asarray(right_hint, float)
        x = a - _dot(a, z) * z
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        return Camera(C, np.stack([x, y, z]), float(f), float(cx), float(cy))

    def project(self, P):
        P = np.atleast_2d(np.asarray(P, float))
        pc = (P - self.C) @ self.R.T
        return (self.f * pc[:, 0] / pc[:, 2] + self.cx,
                self.f * pc[:, 1] / pc[:, 2] + self.cy, pc[:, 2])

    def rays(self, u, v):
        d = np.stack([(u - self.cx) / self.f, (v - self.cy) / self.f, np.ones_like(u)], -1)
        d = d @ self.R
        return d / np.linalg.norm(d, axis=-1, keepdims=True)

    def homography_z(self, z=0.0):
        """3x3 map from world (x, y, 1) on the plane z to image (u, v, 1)."""
        K = np.array([[self.f, 0, self.cx], [0, self.f, self.cy], [0, 0, 1.0]])
        M = np.stack([self.R[:, 0], self.R[:, 1], self.R @ (np.array([0, 0, z]) - self.C)], 1)
        return K @ M

    def mm_per_px_at(self, P):
        """Geometric-mean scale of the horizontal plane through P (mm per pixel)."""
        P = np.asarray(P, float)
        pts = np.stack([P, P + [1, 0, 0], P + [0, 1, 0]])
        u, v, _ = self.project(pts)
        J = np.array([[u[1] - u[0], u[2] - u[0]], [v[1] - v[0], v[2] - v[0]]])
        return 1.0 / np.sqrt(abs(np.linalg.det(J)))

    def bbox_of_sphere(self, c, r):
        u, v, z = self.project(c)
        rr = r * self.f / max(z[0] - r, 1.0) * 1.15 + 2
        return (u[0] - rr, v[0] - rr, u[0] + rr, v[0] + rr)


# ----------------------------------------------------------------------------- tray
@dataclass
class Tray:
    shape: str            # "rect" or "round"
    A: float              # inner half width (x) / inner radius for round
    B: float              # inner half depth (y); unused for round
    w: float              # rim wall thickness
    z_f: float            # floor height above felt
    z_r: float            # rim top height above felt

    # ---- 2-D helpers on the inner / outer outline
    def inner_dist(self, x, y):
        """Distance to the inner wall, positive inside."""
        if self.shape == "rect":
            return np.minimum(self.A - np.abs(x), self.B - np.abs(y))
        return self.A - np.hypot(x, y)

    def inner_dist_xy(self, x, y):
        """(dist to x-walls, dist to y-walls) for rect; (radial, inf) for round."""
        if self.shape == "rect":
            return self.A - np.abs(x), self.B - np.abs(y)
        return self.A - np.hypot(x, y), np.full_like(np.asarray(x, float), INF)

    def outer_dist(self, x, y):
        """Distance outside the outer outline (positive outside, negative inside)."""
        if self.shape == "rect":
            dx = np.abs(x) - (self.A + self.w)
            dy = np.abs(y) - (self.B + self.w)
            out = np.hypot(np.maximum(dx, 0), np.maximum(dy, 0))
            return out + np.minimum(np.maximum(dx, dy), 0)
        return np.hypot(x, y) - (self.A + self.w)

    def inside_inner(self, x, y):
        if self.shape == "rect":
            return (np.abs(x) < self.A) & (np.abs(y) < self.B)
        return x * x + y * y < self.A * self.A

    def inside_outer(self, x, y):
        if self.shape == "rect":
            return (np.abs(x) <= self.A + self.w) & (np.abs(y) <= self.B + self.w)
        return x * x + y * y <= (self.A + self.w) ** 2

    def exit_dist(self, x, y, dx, dy):
        """From a point inside the inner outline, 2-D distance along unit (dx,dy) to the wall."""
        if self.shape == "rect":
            with np.errstate(divide="ignore", invalid="ignore"):
                tx = np.where(dx > 1e-12, (self.A - x) / dx,
                              np.where(dx < -1e-12, (-self.A - x) / dx, INF))
                ty = np.where(dy > 1e-12, (self.B - y) / dy,
                              np.where(dy < -1e-12, (-self.B - y) / dy, INF))
            return np.maximum(np.minimum(tx, ty), 0.0)
        b = x * dx + y * dy
        c = x * x + y * y - self.A ** 2
        return np.maximum(-b + np.sqrt(np.maximum(b * b - c, 0.0)), 0.0)

    def entry_dist_outer(self, x, y, dx, dy):
        """From a point outside the outer outline: 2-D distance along (dx,dy) to enter it."""
        if self.shape == "rect":
            Ao, Bo = self.A + self.w, self.B + self.w
            with np.errstate(divide="ignore", invalid="ignore"):
                t1x = (-Ao - x) / dx
                t2x = (Ao - x) / dx
                t1y = (-Bo - y) / dy
                t2y = (Bo - y) / dy
            tminx = np.where(np.abs(dx) > 1e-12, np.minimum(t1x, t2x),
                             np.where(np.abs(x) <= Ao, -INF, INF))
            tmaxx = np.where(np.abs(dx) > 1e-12, np.maximum(t1x, t2x),
                             np.where(np.abs(x) <= Ao, INF, -INF))
            tminy = np.where(np.abs(dy) > 1e-12, np.minimum(t1y, t2y),
                             np.where(np.abs(y) <= Bo, -INF, INF))
            tmaxy = np.where(np.abs(dy) > 1e-12, np.maximum(t1y, t2y),
                             np.where(np.abs(y) <= Bo, INF, -INF))
            tn = np.maximum(tminx, tminy)
            tf = np.minimum(tmaxx, tmaxy)
            ok = (tf >= tn) & (tn >= 0)
            return np.where(ok, tn, INF)
        Ro = self.A + self.w
        b = x * dx + y * dy
        c = x * x + y * y - Ro * Ro
        h = b * b - c
        t = -b - np.sqrt(np.maximum(h, 0))
        return np.where((h > 0) & (t >= 0), t, INF)

    def outline(self, z, margin=0.0, outer=True, n_round=4):
        """Polygon corners (world) of the outer outline at height z, expanded by margin.
        For a round tray, the circumscribing square."""
        a = (self.A + (self.w if outer else 0)) + margin
        b = (self.B + (self.w if outer else 0)) + margin if self.shape == "rect" else a
        return np.array([[-a, -b, z], [a, -b, z], [a, b, z], [-a, b, z]], float)

    # ---- 3-D ray intersection
    def intersect(self, ro, rd, eps=1e-6):
        """Nearest hit of rays with the tray and the felt. Returns t, kind, normal."""
        ro = np.broadcast_to(np.asarray(ro, float), rd.shape)
        ox, oy, oz = ro[:, 0], ro[:, 1], ro[:, 2]
        dx, dy, dz = rd[:, 0], rd[:, 1], rd[:, 2]
        n = len(rd)
        t = np.full(n, INF)
        kind = np.full(n, -1, np.int8)
        nrm = np.zeros((n, 3))
        with np.errstate(divide="ignore", invalid="ignore"):
            inv_dz = 1.0 / dz

            def take(tc, valid, k, normal):
                nonlocal t
                m = valid & (tc > eps) & (tc < t)
                t = np.where(m, tc, t)
                kind[m] = k
                nrm[m] = normal if np.ndim(normal) == 1 else normal[m]

            for zc, k in ((0.0, FELT), (self.z_r, RIM_TOP), (self.z_f, FLOOR)):
                tc = (zc - oz) * inv_dz
                x = ox + tc * dx
                y = oy + tc * dy
                if k == FELT:
                    valid = ~self.inside_outer(x, y)
                elif k == RIM_TOP:
                    valid = self.inside_outer(x, y) & ~self.inside_inner(x, y)
                else:
                    valid = self.inside_inner(x, y)
                take(tc, valid, k, np.array([0, 0, 1.0]))

            if self.shape == "rect":
                Ao, Bo = self.A + self.w, self.B + self.w
                for axis, half, other_half in ((0, self.A, self.B), (1, self.B, self.A)):
                    o_a, d_a = (ox, dx) if axis == 0 else (oy, dy)
                    o_b, d_b = (oy, dy) if axis == 0 else (ox, dx)
                    for sgn in (1.0, -1.0):
                        # inner wall at sgn*half, seen from inside (ray moving outward)
                        tc = (sgn * half - o_a) / d_a
                        zc = oz + tc * dz
                        valid = (sgn * d_a > 0) & (np.abs(o_b + tc * d_b) <= other_half) & \
                                (zc >= self.z_f) & (zc <= self.z_r)
                        nn = np.zeros(3)
                        nn[axis] = -sgn
                        take(tc, valid, INNER_WALL, nn)
                        # outer wall, seen from outside
                        ho = half + self.w
                        oho = other_half + self.w
                        tc = (sgn * ho - o_a) / d_a
                        zc = oz + tc * dz
                        valid = (sgn * d_a < 0) & (np.abs(o_b + tc * d_b) <= oho) & \
                                (zc >= 0) & (zc <= self.z_r)
                        nn = np.zeros(3)
                        nn[axis] = sgn
                        take(tc, valid, OUTER_WALL, nn)
            else:
                a2 = dx * dx + dy * dy
                b = ox * dx + oy * dy
                for radius, k in ((self.A, INNER_WALL), (self.A + self.w, OUTER_WALL)):
                    c = ox * ox + oy * oy - radius * radius
                    h = b * b - a2 * c
                    sq = np.sqrt(np.maximum(h, 0))
                    tc = ((-b + sq) if k == INNER_WALL else (-b - sq)) / a2
                    zc = oz + tc * dz
                    lo = self.z_f if k == INNER_WALL else 0.0
                    valid = (h > 0) & (zc >= lo) & (zc <= self.z_r)
                    px = ox + tc * dx
                    py = oy + tc * dy
                    rr = np.hypot(px, py) + 1e-12
                    sgn = -1.0 if k == INNER_WALL else 1.0
                    normal = np.stack([sgn * px / rr, sgn * py / rr, np.zeros_like(px)], -1)
                    take(tc, valid, k, normal)
        return t, kind, nrm


# ----------------------------------------------------------------------------- capsules
def ray_capsule(ro, rd, pa, pb, ra):
    """Nearest t (>0) of rays with a capsule, INF when missed (after Inigo Quilez)."""
    ba = pb - pa
    oa = ro - pa
    baba = float(ba @ ba)
    bard = rd @ ba
    baoa = oa @ ba if oa.ndim == 2 else np.full(len(rd), float(oa @ ba))
    rdoa = _dot(rd, oa)
    oaoa = _dot(oa, oa) if oa.ndim == 2 else float(oa @ oa)
    a = baba - bard * bard
    b = baba * rdoa - baoa * bard
    c = baba * oaoa - baoa * baoa - ra * ra * baba
    h = b * b - a * c
    t = np.full(len(rd), INF)
    ok = h >= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        tb = (-b - np.sqrt(np.maximum(h, 0))) / a
    y = baoa + tb * bard
    body = ok & (y > 0) & (y < baba) & (a > 1e-9)
    t[body] = tb[body]
    caps = ok & ~body
    if np.any(caps):
        rob = ro - pb
        oc = np.where((y <= 0)[:, None], oa if oa.ndim == 2 else oa[None], rob if rob.ndim == 2
                      else rob[None])
        b2 = _dot(rd, oc)
        c2 = _dot(oc, oc) - ra * ra
        h2 = b2 * b2 - c2
        capok = caps & (h2 > 0)
        tc = -b2 - np.sqrt(np.maximum(h2, 0))
        t[capok] = tc[capok]
    t[t <= 1e-6] = INF
    return t


def capsule_normal(P, pa, pb, ra):
    ba = pb - pa
    s = np.clip(((P - pa) @ ba) / (ba @ ba), 0, 1)
    q = pa + s[:, None] * ba
    n = P - q
    return n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)


def segment_ray_clearance(P, l, tmax, pa, pb):
    """Closest approach between rays P + t l (0 < t < tmax) and segment [pa, pb].
    Returns (distance, t at the closest point)."""
    d2 = pb - pa
    r = P - pa
    a = 1.0  # |l|^2
    e = float(d2 @ d2)
    b = l @ d2
    c = _dot(l, r)
    f = r @ d2
    denom = a * e - b * b
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(denom > 1e-9, (b * f - c * e) / denom, 0.0)
    s = np.clip(s, 1e-3, tmax)
    u = np.clip((b * s + f) / e, 0.0, 1.0)
    s = np.clip(b * u - c, 1e-3, tmax)
    u = np.clip((b * s + f) / e, 0.0, 1.0)
    q1 = P + s[:, None] * l
    q2 = pa + u[:, None] * d2
    return np.linalg.norm(q1 - q2, axis=1), s


# ----------------------------------------------------------------------------- dice
def sdf_rbox(p, h, r):
    q = np.abs(p) - (h - r)
    qp = np.maximum(q, 0.0)
    return np.sqrt(_dot(qp, qp)) + np.minimum(q.max(axis=-1), 0.0) - r


def sphere_trace_rbox(rol, rdl, h, r, max_iter=72):
    """Sphere-trace local rays against the rounded box. Returns t (INF on miss)."""
    n = len(rdl)
    rol = np.broadcast_to(rol, rdl.shape)
    Rb = np.sqrt(3.0) * h + 1e-3
    b = _dot(rol, rdl)
    c = _dot(rol, rol) - Rb * Rb
    disc = b * b - c
    t_out = np.full(n, INF)
    idx = np.nonzero(disc > 0)[0]
    if len(idx) == 0:
        return t_out
    sq = np.sqrt(disc[idx])
    t = np.maximum(-b[idx] - sq, 0.0)
    t_end = -b[idx] + sq
    o = rol[idx]
    d = rdl[idx]
    alive = np.arange(len(idx))
    for _ in range(max_iter):
        if len(alive) == 0:
            break
        p = o[alive] + t[alive, None] * d[alive]
        dist = sdf_rbox(p, h, r)
        t[alive] += dist
        hit = dist < 2e-4
        miss = t[alive] > t_end[alive]
        t_out[idx[alive[hit & ~miss]]] = t[alive[hit & ~miss]]
        alive = alive[~(hit | miss)]
    # stragglers (grazing) that got very close count as hits
    if len(alive):
        p = o[alive] + t[alive, None] * d[alive]
        close = (np.abs(sdf_rbox(p, h, r)) < 5e-3) & (t[alive] <= t_end[alive])
        t_out[idx[alive[close]]] = t[alive[close]]
    return t_out


def rbox_normal(p, h, r):
    q = np.abs(p) - (h - r)
    qp = np.maximum(q, 0.0)
    n = np.sign(p) * qp
    ln = np.linalg.norm(n, axis=1, keepdims=True)
    # fallback: dominant axis
    k = np.argmax(np.abs(p), axis=1)
    fb = np.zeros_like(p)
    fb[np.arange(len(p)), k] = np.sign(p[np.arange(len(p)), k])
    return np.where(ln > 1e-9, n / np.maximum(ln, 1e-12), fb)
