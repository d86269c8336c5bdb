"""Ray casting and shading of one throw at one table, in linear light."""
from __future__ import annotations

import cv2
import numpy as np

from .common import H, W, smoothstep01
from .dice_sets import FACE_LAYOUT, RED_FACES, SIZE_MM, DiceSet, face_of_axis
from .geometry import (DIE, FELT, FLOOR, INF, INNER_WALL, OUTER_WALL, RIM_TOP, SKIN, SLEEVE,
                       capsule_normal, ray_capsule, rbox_normal, sdf_rbox, segment_ray_clearance,
                       sphere_trace_rbox)
from .tables import Table, sample_texture
from .throws import Throw

HALF = SIZE_MM / 2
RB = HALF * np.sqrt(3.0)


def _dot(a, b):
    return np.einsum("ij,ij->i", a, b)


class Ctx:
    """Everything the tracer needs for one throw."""

    def __init__(self, table: Table, dset: DiceSet, throw: Throw):
        self.table = table
        self.dset = dset
        self.throw = throw
        self.cam = table.cam
        self.tray = table.tray
        self.dice = throw.dice
        self.caps = throw.capsules
        self.r = dset.edge_radius_mm
        self.pip_tab = self._pip_table(dset)
        self.plastic = dset.plastic_lin
        self.tray_box = self._tray_box()
        self.die_boxes = [self.cam.bbox_of_sphere(d.center, RB) for d in self.dice]
        self.cap_boxes = []
        for c in self.caps:
            m = (c.a + c.b) / 2
            rad = np.linalg.norm(c.b - c.a) / 2 + c.r
            self.cap_boxes.append(self.cam.bbox_of_sphere(m, rad))
        self.cap_spheres = [((c.a + c.b) / 2, np.linalg.norm(c.b - c.a) / 2 + c.r)
                            for c in self.caps]
        if self.caps:
            ends = np.concatenate([[c.a, c.b] for c in self.caps])
            hc = (ends.min(0) + ends.max(0)) / 2
            self.hand_sphere = (hc, max(np.linalg.norm(m - hc) + rr for m, rr in
                                        self.cap_spheres))

    # ---------------------------------------------------------------- setup
    @staticmethod
    def _pip_table(dset: DiceSet):
        fmap = face_of_axis(dset.chirality)
        tab = np.zeros((6, 6, 6))   # face index, pip, (U, V, a, depth, Rs, red)
        tab[:, :, 2] = 0.0
        tab[:, :, 0] = 1e3
        for (k, sg), val in fmap.items():
            fi = 2 * k + (0 if sg > 0 else 1)
            a = (dset.one_diameter_mm if val == 1 else dset.pip_diameter_mm) / 2
            dep = dset.one_depth_mm if val == 1 else dset.pip_depth_mm
            Rs = (a * a + dep * dep) / (2 * dep)
            for j, (iu, iv) in enumerate(FACE_LAYOUT[val]):
                tab[fi, j] = (iu * dset.pip_spacing_mm, iv * dset.pip_spacing_mm, a, dep, Rs,
                              1.0 if val in RED_FACES else 0.0)
        return tab

    def _tray_box(self):
        tr = self.tray
        pts = [tr.outline(0.0), tr.outline(tr.z_r)]
        top = tr.outline(tr.z_r)
        for L in self.table.lights:
            if L.pos[2] <= tr.z_r + 1:
                continue
            s = L.pos[2] / (L.pos[2] - top[:, 2])
            pts.append(L.pos + (top - L.pos) * s[:, None])
        pts = np.concatenate(pts)
        u, v, _ = self.cam.project(pts)
        pad = 6 + 40.0 / self.table.mm_per_px * 0.1
        return (u.min() - pad, v.min() - pad, u.max() + pad, v.max() + pad)

    def roi(self):
        boxes = [self.tray_box] + self.cap_boxes
        x0 = max(0, int(np.floor(min(b[0] for b in boxes))))
        y0 = max(0, int(np.floor(min(b[1] for b in boxes))))
        x1 = min(W, int(np.ceil(max(b[2] for b in boxes))) + 1)
        y1 = min(H, int(np.ceil(max(b[3] for b in boxes))) + 1)
        return x0, y0, x1, y1


def _inbox(u, v, b):
    return (u >= b[0]) & (u <= b[2]) & (v >= b[1]) & (v <= b[3])


# ----------------------------------------------------------------------------- dice
def intersect_die(ctx: Ctx, di, ro, rd):
    """Returns t (INF on miss) and, for hits, world normal, albedo, specular, paint mask,
    dimple ambient factor."""
    die = ctx.dice[di]
    Rm = die.R
    rol = (ro - die.center) @ Rm
    rdl = rd @ Rm
    r = ctx.r
    t = sphere_trace_rbox(rol, rdl, HALF, r)
    hit = np.nonzero(t < INF)[0]
    m = len(hit)
    out = dict(n=np.zeros((m, 3)), alb=np.zeros((m, 3)), ks=np.zeros(m), ao=np.ones(m),
               paint=np.zeros(m, bool))
    if m == 0:
        return t, hit, out
    o = rol if rol.ndim == 1 else rol[hit]
    d = rdl[hit]
    th = t[hit]
    p = o + th[:, None] * d
    n = rbox_normal(p, HALF, r)
    k = np.argmax(np.abs(n), axis=1)
    ar = np.arange(m)
    sg = np.sign(n[ar, k])
    flat = np.abs(n[ar, k]) > 0.99999
    fi = 2 * k + (sg < 0)
    ku = (k + 1) % 3
    kv = (k + 2) % 3
    pu = p[ar, ku]
    pv = p[ar, kv]
    tab = ctx.pip_tab[fi]                          # (m, 6, 6)
    du = pu[:, None] - tab[:, :, 0]
    dv = pv[:, None] - tab[:, :, 1]
    inside = (du * du + dv * dv < tab[:, :, 2] ** 2) & flat[:, None]
    anyin = inside.any(axis=1)
    j = np.argmax(inside, axis=1)
    ds = ctx.dset
    alb = np.broadcast_to(ctx.plastic, (m, 3)).copy()
    ks = np.full(m, ds.specular)
    ao = np.ones(m)
    paint = np.zeros(m, bool)
    if anyin.any():
        q = np.nonzero(anyin)[0]
        row = tab[q, j[q]]
        U, V, a, dep, Rs, red = row.T
        cen = np.zeros((len(q), 3))
        cen[np.arange(len(q)), k[q]] = sg[q] * (HALF + Rs - dep)
        cen[np.arange(len(q)), ku[q]] = U
        cen[np.arange(len(q)), kv[q]] = V
        oq = o if o.ndim == 1 else o[q]
        oc = oq - cen
        b = _dot(oc, d[q]) if oc.ndim == 2 else oc @ d[q].T
        cc = _dot(oc, oc) - Rs * Rs if oc.ndim == 2 else (oc * oc).sum(-1) - Rs * Rs
        hh = np.maximum(b * b - cc, 0)
        t2 = -b + np.sqrt(hh)
        p2 = oq + t2[:, None] * d[q]
        n2 = (cen - p2) / Rs[:, None]
        th[q] = t2
        n[q] = n2
        # how deep below the face plane, for the dimple's own ambient occlusion
        depth_here = sg[q] * (HALF) - p2[np.arange(len(q)), k[q]] * 1.0
        depth_here = np.abs(depth_here)
        ao[q] = 1.0 - 0.55 * np.clip(depth_here / np.maximum(a, 1e-6), 0, 1) - 0.1
        rad = np.hypot(p2[np.arange(len(q)), ku[q]] - U, p2[np.arange(len(q)), kv[q]] - V)
        painted = rad < ds.paint_fill * a
        col = np.where(red[:, None] > 0.5, ds.red_lin[None], ds.black_lin[None])
        alb[q] = np.where(painted[:, None], col, alb[q])
        ks[q] = np.where(painted, ds.paint_specular, ks[q])
        paint[q] = painted
    if ds.wear > 0:
        # grime in the rounded edges
        edge = 1.0 - np.abs(n[ar, k])
        alb *= (1.0 - 0.25 * ds.wear * np.clip(edge * 3, 0, 1))[:, None]
    t[hit] = th
    out.update(n=n @ Rm.T, alb=alb, ks=ks, ao=ao, paint=paint)
    return t, hit, out


def dice_shadow(ctx: Ctx, P, l, dist, alpha, own):
    res = np.full(len(P), 10.0)
    r = ctx.r
    for di, die in enumerate(ctx.dice):
        oc = die.center - P
        tc = _dot(oc, l)
        dc2 = _dot(oc, oc) - tc * tc
        reach = RB + alpha * np.maximum(tc, 0) + 0.5
        cand = (tc > -RB) & (dc2 < reach * reach) & (own != di)
        idx = np.nonzero(cand)[0]
        if len(idx) == 0:
            continue
        pl = (P[idx] - die.center) @ die.R
        ll = l[idx] @ die.R
        t = np.maximum(tc[idx] - RB - 0.5, 0.03)
        t_end = np.minimum(tc[idx] + RB, dist[idx])
        al = alpha[idx]
        rr = res[idx]
        alive = np.arange(len(idx))
        for _ in range(60):
            if len(alive) == 0:
                break
            h = sdf_rbox(pl[alive] + t[alive, None] * ll[alive], HALF, r)
            rr[alive] = np.minimum(rr[alive], h / (al[alive] * t[alive] + 0.02))
            t[alive] += np.clip(np.abs(h), 0.2, 6.0)
            alive = alive[(t[alive] < t_end[alive]) & (rr[alive] > -1.0)]
        res[idx] = rr
    vis = smoothstep01((res + 1.0) * 0.5)
    tr = ctx.dset.translucency
    return 1.0 - (1.0 - vis) * (1.0 - 0.45 * tr)


def hand_shadow(ctx: Ctx, P, l, dist, alpha):
    res = np.full(len(P), 10.0)
    hc, hr = ctx.hand_sphere
    oc = hc - P
    tc = _dot(oc, l)
    dc2 = _dot(oc, oc) - tc * tc
    reach = hr + alpha * np.maximum(tc, 0) * 1.2 + 1
    keep = np.nonzero((tc > 0) & (dc2 < reach * reach))[0]
    if len(keep) == 0:
        return np.ones(len(P))
    if len(keep) < len(P):
        out = np.ones(len(P))
        out[keep] = hand_shadow(ctx, P[keep], l[keep], dist[keep], alpha[keep])
        return out
    for c, (m, rad) in zip(ctx.caps, ctx.cap_spheres):
        oc = m - P
        tc = _dot(oc, l)
        dc2 = _dot(oc, oc) - tc * tc
        reach = rad + alpha * np.maximum(tc, 0) * 1.2 + 1
        cand = np.nonzero((tc > 0) & (dc2 < reach * reach))[0]
        if len(cand) == 0:
            continue
        dd, s = segment_ray_clearance(P[cand], l[cand], dist[cand], c.a, c.b)
        hh = dd - c.r
        res[cand] = np.minimum(res[cand], hh / (alpha[cand] * s + 0.05))
    return smoothstep01((res + 1.0) * 0.5)


def tray_shadow(ctx: Ctx, P, kind, l, alpha):
    """Soft shadow of the tray's walls: for points inside the tray (the rim on the light's
    side) and for felt outside it (the tray body)."""
    tr = ctx.tray
    vis = np.ones(len(P))
    lxy = np.hypot(l[:, 0], l[:, 1])
    ok = lxy > 1e-6
    dx = np.where(ok, l[:, 0] / np.maximum(lxy, 1e-9), 1.0)
    dy = np.where(ok, l[:, 1] / np.maximum(lxy, 1e-9), 0.0)
    tanz = l[:, 2] / np.maximum(lxy, 1e-9)
    inside = (kind == FLOOR) | (kind == INNER_WALL) | (kind == DIE)
    ii = np.nonzero(inside & ok)[0]
    if len(ii):
        x = P[ii, 0] - dx[ii] * 1e-3
        y = P[ii, 1] - dy[ii] * 1e-3
        s = tr.exit_dist(x, y, dx[ii], dy[ii])
        zw = P[ii, 2] + s * tanz[ii]
        s3 = s / lxy[ii] * 1.0
        pen = s3 * alpha[ii] / np.maximum(lxy[ii], 0.2) + 0.03
        vis[ii] = smoothstep01(0.5 + 0.5 * (zw - tr.z_r) / pen)
    oo = np.nonzero((kind == FELT) & ok)[0]
    if len(oo):
        s = tr.entry_dist_outer(P[oo, 0], P[oo, 1], dx[oo], dy[oo])
        fin = np.isfinite(s)
        s = np.where(fin, s, 0.0)
        zw = P[oo, 2] + s * tanz[oo]
        s3 = s / lxy[oo]
        pen = s3 * alpha[oo] / np.maximum(lxy[oo], 0.2) + 0.03
        v = smoothstep01(0.5 + 0.5 * (zw - tr.z_r) / pen)
        vis[oo] = np.where(fin, v, 1.0)
    return vis


def ambient_occlusion(ctx: Ctx, P, Nn, kind, own):
    tr = ctx.tray
    ao = np.ones(len(P))
    # walls of the tray, analytic
    inside = (kind == FLOOR) | (kind == DIE)
    ii = np.nonzero(inside)[0]
    if len(ii):
        dxw, dyw = tr.inner_dist_xy(P[ii, 0], P[ii, 1])
        hh = np.maximum(tr.z_r - P[ii, 2], 0.0)
        for dw in (dxw, dyw):
            if not np.all(np.isfinite(dw)):
                continue
            dw = np.maximum(dw, 0.05)
            occ = 0.5 * (1 - dw / np.sqrt(dw * dw + hh * hh))
            ao[ii] *= 1.0 - 0.75 * occ
    iw = np.nonzero(kind == INNER_WALL)[0]
    if len(iw):
        ao[iw] *= 1.0 - 0.35 * np.exp(-(P[iw, 2] - tr.z_f) / 4.0)
    ff = np.nonzero(kind == FELT)[0]
    if len(ff):
        dd = np.maximum(tr.outer_dist(P[ff, 0], P[ff, 1]), 0.05)
        occ = 0.5 * (1 - dd / np.sqrt(dd * dd + tr.z_r ** 2))
        ao[ff] *= 1.0 - 0.6 * occ
    # dice (and the floor, for die points)
    if ctx.dice:
        near = np.zeros(len(P), bool)
        for die in ctx.dice:
            near |= np.hypot(P[:, 0] - die.center[0], P[:, 1] - die.center[1]) < RB + 16
        near &= (kind == FLOOR) | (kind == DIE) | (kind == INNER_WALL)
        idx = np.nonzero(near)[0]
        if len(idx):
            hs = np.array([0.6, 1.5, 3.0, 5.5, 9.0, 14.0])
            ws = np.array([1.0, 0.9, 0.8, 0.6, 0.45, 0.3])
            ws = ws / ws.sum()
            occ = np.zeros(len(idx))
            Pi, Ni, oi = P[idx], Nn[idx], own[idx]
            for h, w in zip(hs, ws):
                q = Pi + h * Ni
                dmin = q[:, 2] - tr.z_f
                for di, die in enumerate(ctx.dice):
                    dd = sdf_rbox((q - die.center) @ die.R, HALF, ctx.r)
                    dmin = np.where(oi == di, dmin, np.minimum(dmin, dd))
                occ += w * np.clip((h - dmin) / h, 0, 1)
            ao[idx] *= 1.0 - 0.85 * occ
    return ao


# ----------------------------------------------------------------------------- shading
def shade(ctx: Ctx, P, Nn, V, kind, alb, ks, gexp, wrap, ao, own, sss, hand_shadows=True):
    """Returns (D, S): radiance = albedo * D + S. V: unit vectors toward the camera."""
    n = len(P)
    diff = np.zeros((n, 3))
    spec = np.zeros((n, 3))
    irr = np.zeros((n, 3))
    is_hand = (kind == SKIN) | (kind == SLEEVE)
    for L in ctx.table.lights:
        Ld = L.pos - P
        dist = np.linalg.norm(Ld, axis=1)
        l = Ld / dist[:, None]
        alpha = L.radius / dist
        ndl = _dot(Nn, l)
        lit = np.nonzero((ndl + wrap > 0) | (sss > 0))[0]
        vis = np.ones(n)
        if len(lit):
            v = tray_shadow(ctx, P[lit], kind[lit], l[lit], alpha[lit])
            nh = ~is_hand[lit]
            if ctx.dice:
                sub = lit[nh]
                v[nh] *= dice_shadow(ctx, P[sub] + Nn[sub] * 0.02, l[sub], dist[sub], alpha[sub],
                                     own[sub])
            if ctx.caps and hand_shadows:
                sub = lit[nh]
                v[nh] *= hand_shadow(ctx, P[sub], l[sub], dist[sub], alpha[sub])
            vis[lit] = v
        E = L.colour[None, :] / (dist * dist)[:, None]
        cosw = np.clip((ndl + wrap) / (1 + wrap), 0, None)
        diff += E * (cosw * vis)[:, None]
        irr += E * (np.clip(ndl, 0, None) * vis)[:, None]
        has = np.nonzero(ks > 0)[0]
        if len(has):
            hv = l[has] + V[has]
            hv /= np.linalg.norm(hv, axis=1, keepdims=True)
            ndh = np.clip(_dot(Nn[has], hv), 0, 1)
            e_eff = 1.0 / (1.0 / gexp[has] + alpha[has] ** 2 / 8.0)
            ndv = np.clip(_dot(Nn[has], V[has]), 0, 1)
            fres = 1.0 + 2.0 * (1 - ndv) ** 5
            lobe = ks[has] * fres * (e_eff + 2) / 8.0 * ndh ** e_eff * np.clip(ndl[has], 0, None)
            spec[has] += E[has] * (lobe * vis[has])[:, None]
    tbl = ctx.table
    sky = tbl.ambient[None, :] * (0.55 + 0.45 * Nn[:, 2:3])
    inside = np.ones(n, bool) if ctx.tray is None else ctx.tray.inside_inner(P[:, 0], P[:, 1])
    ground = np.where(inside[:, None], tbl.lining_lin[None, :], tbl.felt_lin[None, :])
    bounce = ground * tbl.notes["avg_light"][None, :] * 0.8 * np.clip(0.5 - 0.5 * Nn[:, 2:3], 0, 1)
    amb = (sky + bounce) * ao[:, None]
    D = diff * (0.35 + 0.65 * ao[:, None]) + amb
    S = spec
    if np.any(sss > 0):
        tint = alb * alb / np.maximum(alb.max(axis=1, keepdims=True), 1e-3)
        S = S + sss[:, None] * tint * (irr.sum(axis=1, keepdims=True) / 3.0 * 0.5 + 0.15)
    return D, S

# ----------------------------------------------------------------------------- tracing
LOWRES_OK = (FELT, FLOOR, INNER_WALL, RIM_TOP, OUTER_WALL, SKIN, SLEEVE)


def intersect_all(ctx: Ctx, u, v):
    """Primary hits of the pixel rays (u, v): geometry and materials, no lighting."""
    cam = ctx.cam
    tbl = ctx.table
    rd = cam.rays(u, v)
    ro = cam.C
    n = len(u)
    t = -ro[2] / rd[:, 2]
    kind = np.full(n, FELT, np.int16)
    nrm = np.zeros((n, 3))
    nrm[:, 2] = 1.0
    obj = np.zeros(n, np.int16)
    idx = np.nonzero(_inbox(u, v, ctx.tray_box))[0]
    if len(idx):
        tt, kk, nn = ctx.tray.intersect(ro, rd[idx])
        ok = kk >= 0
        idx, tt, kk, nn = idx[ok], tt[ok], kk[ok], nn[ok]
        t[idx] = tt
        kind[idx] = kk
        nrm[idx] = nn
        obj[idx] = kk
    alb = np.zeros((n, 3))
    ks = np.zeros(n)
    gexp = np.full(n, 10.0)
    wrap = np.zeros(n)
    aox = np.ones(n)
    sss = np.zeros(n)
    own = np.full(n, -1, np.int32)
    for di in range(len(ctx.dice)):
        idx = np.nonzero(_inbox(u, v, ctx.die_boxes[di]))[0]
        if len(idx) == 0:
            continue
        tt, hit, info = intersect_die(ctx, di, ro, rd[idx])
        closer = tt[hit] < t[idx[hit]]
        g = idx[hit][closer]
        t[g] = tt[hit][closer]
        kind[g] = DIE
        obj[g] = 100 + di
        own[g] = di
        nrm[g] = info["n"][closer]
        alb[g] = info["alb"][closer]
        ks[g] = info["ks"][closer]
        aox[g] = info["ao"][closer]
    for ci, c in enumerate(ctx.caps):
        idx = np.nonzero(_inbox(u, v, ctx.cap_boxes[ci]))[0]
        if len(idx) == 0:
            continue
        tt = ray_capsule(ro, rd[idx], c.a, c.b, c.r)
        closer = tt < t[idx]
        g = idx[closer]
        t[g] = tt[closer]
        kind[g] = SKIN if c.kind == "skin" else SLEEVE
        obj[g] = 200 + ci
        own[g] = 1000 + ci
        aox[g] = 1.0
    P = ro + t[:, None] * rd
    for ci, c in enumerate(ctx.caps):
        g = np.nonzero(own == 1000 + ci)[0]
        if len(g):
            nrm[g] = capsule_normal(P[g], c.a, c.b, c.r)
    m = kind == FELT
    if m.any():
        alb[m] = sample_texture(tbl.felt_texture, P[m, 0], P[m, 1])
    m = (kind == FLOOR) | ((kind == INNER_WALL) & bool(tbl.walls_lined))
    if m.any():
        alb[m] = sample_texture(tbl.lining_texture, P[m, 0], P[m, 1])
        if "leather" in tbl.lining_name:
            ks[m] = 0.03
            gexp[m] = 15.0
    tint = np.ones((n, 3))
    m = (kind == RIM_TOP) | (kind == OUTER_WALL) | ((kind == INNER_WALL) & (not tbl.walls_lined))
    if m.any():
        alb[m] = tbl.rim_lin
        ks[m] = tbl.rim_spec
        gexp[m] = tbl.rim_gloss
        if tbl.rim_spec >= 0.3:   # metal: coloured reflection
            tint[m] = tbl.rim_lin / tbl.rim_lin.max()
    m = kind == DIE
    if m.any():
        gexp[m] = ctx.dset.gloss_exp
        wrap[m] = 0.6 * ctx.dset.translucency
        sss[m] = ctx.dset.translucency
    m = kind == SKIN
    if m.any():
        alb[m] = tbl.skin_lin
        ks[m] = 0.03
        gexp[m] = 12.0
        wrap[m] = 0.35
    m = kind == SLEEVE
    if m.any():
        alb[m] = tbl.sleeve_lin
        ks[m] = 0.02
        gexp[m] = 4.0
        wrap[m] = 0.2
    own_die = np.where(own < 100, own, -1)
    return dict(P=P, V=-rd, nrm=nrm, kind=kind, obj=obj, alb=alb, ks=ks, gexp=gexp, wrap=wrap,
                aox=aox, sss=sss, own=own_die, tint=tint)


def light_hits(ctx: Ctx, g):
    ao = ambient_occlusion(ctx, g["P"], g["nrm"], g["kind"], g["own"]) * g["aox"]
    D, S = shade(ctx, g["P"], g["nrm"], g["V"], g["kind"], g["alb"], g["ks"], g["gexp"],
                 g["wrap"], ao, g["own"], g["sss"])
    return D, S * g["tint"]


def trace(ctx: Ctx, u, v):
    g = intersect_all(ctx, u, v)
    D, S = light_hits(ctx, g)
    return g["alb"] * D + S, g["obj"]


def felt_irradiance_lowres(ctx: Ctx, step=4):
    """Irradiance (albedo 1) of the felt plane, computed coarsely for the whole frame."""
    cam = ctx.cam
    hs, ws = H // step, W // step
    vv, uu = np.mgrid[0:hs, 0:ws].astype(np.float64)
    u = (uu * step + step / 2).ravel()
    v = (vv * step + step / 2).ravel()
    rd = cam.rays(u, v)
    t = -cam.C[2] / rd[:, 2]
    P = cam.C + t[:, None] * rd
    n = len(P)
    Nn = np.zeros((n, 3))
    Nn[:, 2] = 1
    kind = np.full(n, FELT, np.int16)
    ao = ambient_occlusion(ctx, P, Nn, kind, np.full(n, -1))
    alb = np.ones((n, 3))
    z = np.zeros(n)
    D, _ = shade(ctx, P, Nn, -rd, kind, alb, z, np.full(n, 10.0), z, ao, np.full(n, -1), z)
    return D.reshape(hs, ws, 3).astype(np.float32)


def _dice_influence_boxes(ctx: Ctx):
    """Image rectangles where a die's shadow or ambient occlusion can fall."""
    tr = ctx.tray
    boxes = []
    for die in ctx.dice:
        c = die.center
        corners = np.array([[c[0] + sx * RB, c[1] + sy * RB, tr.z_f + SIZE_MM]
                            for sx in (-1, 1) for sy in (-1, 1)])
        pts = [corners, corners - [0, 0, SIZE_MM]]
        for L in ctx.table.lights:
            if L.pos[2] <= corners[0, 2] + 1:
                continue
            s = (L.pos[2] - tr.z_f) / (L.pos[2] - corners[:, 2])
            sh = L.pos + (corners - L.pos) * s[:, None]
            dist = np.linalg.norm(L.pos - c)
            pen = 2.5 * SIZE_MM * L.radius / dist + 2.0
            for sx in (-1, 1):
                for sy in (-1, 1):
                    pts.append(sh + [sx * pen, sy * pen, 0])
        pts = np.concatenate(pts)
        grow = 14.0
        pts = np.concatenate([pts + [dx, dy, 0] for dx in (-grow, grow) for dy in (-grow, grow)])
        u, v, _ = ctx.cam.project(pts)
        boxes.append((u.min() - 2, v.min() - 2, u.max() + 2, v.max() + 2))
    return boxes


def _upsample(arr, hh, ww, step):
    """Upsample a coarse grid whose samples sit at block centres to (hh, ww)."""
    return cv2.resize(arr.astype(np.float32), (arr.shape[1] * step, arr.shape[0] * step),
                      interpolation=cv2.INTER_LINEAR)[:hh, :ww]


def _boundary(obj):
    edge = np.zeros(obj.shape, bool)
    dh = obj[:, 1:] != obj[:, :-1]
    dv = obj[1:, :] != obj[:-1, :]
    edge[:, 1:] |= dh
    edge[:, :-1] |= dh
    edge[1:, :] |= dv
    edge[:-1, :] |= dv
    return edge


def _supersample(ctx, ys, xs, k, x0=0, y0=0):
    offs = (np.arange(k) + 0.5) / k
    ox, oy = np.meshgrid(offs, offs)
    su = (xs[:, None] + x0 + ox.ravel()[None, :]).ravel()
    sv = (ys[:, None] + y0 + oy.ravel()[None, :]).ravel()
    return trace(ctx, su, sv)[0].reshape(len(ys), k * k, 3).mean(axis=1)


STEP = 2


class _NoDice:
    dice = []
    capsules = []


def _static_tray(table: Table, dset: DiceSet):
    """The tray and the felt around it without dice or hand: full-resolution radiance,
    surface kinds, albedo, and the coarse lighting grid (for relighting under a hand)."""
    key = "_static_tray"
    cached = table.notes.get(key)
    if cached is not None:
        return cached
    ctx = Ctx(table, dset, _NoDice())
    x0, y0, x1, y1 = ctx.roi()
    hh, ww = y1 - y0, x1 - x0
    vv, uu = np.mgrid[y0:y1, x0:x1].astype(np.float64)
    gA = intersect_all(ctx, uu.ravel() + 0.5, vv.ravel() + 0.5)
    kindA = gA["kind"].reshape(hh, ww)
    albA = gA["alb"].reshape(hh, ww, 3)
    del gA
    hb, wb = (hh + STEP - 1) // STEP, (ww + STEP - 1) // STEP
    vb, ub = np.mgrid[0:hb, 0:wb].astype(np.float64)
    ucb = (ub * STEP + x0 + STEP / 2).ravel()
    vcb = (vb * STEP + y0 + STEP / 2).ravel()
    gB = intersect_all(ctx, ucb, vcb)
    DB, SB = light_hits(ctx, gB)
    kindB = gB["kind"].reshape(hb, wb)
    D_up = _upsample(DB.reshape(hb, wb, 3), hh, ww, STEP)
    S_up = _upsample(SB.reshape(hb, wb, 3), hh, ww, STEP)
    k8 = np.ones((3, 3), np.uint8)
    kmin = cv2.erode(kindB.astype(np.uint8), k8)
    kmax = cv2.dilate(kindB.astype(np.uint8), k8)
    kmin = cv2.resize(kmin, (wb * STEP, hb * STEP), interpolation=cv2.INTER_NEAREST)[:hh, :ww]
    kmax = cv2.resize(kmax, (wb * STEP, hb * STEP), interpolation=cv2.INTER_NEAREST)[:hh, :ww]
    clean = (kmin == kindA) & (kmax == kindA)
    lum = np.log(DB.reshape(hb, wb, 3).mean(axis=2) + 0.02)
    gx = np.zeros_like(lum)
    gx[:, 1:] = np.abs(lum[:, 1:] - lum[:, :-1])
    gy = np.zeros_like(lum)
    gy[1:, :] = np.abs(lum[1:, :] - lum[:-1, :])
    sharp = cv2.dilate(((gx > 0.12) | (gy > 0.12)).astype(np.uint8), k8)
    sharp = cv2.resize(sharp, (wb * STEP, hb * STEP), interpolation=cv2.INTER_NEAREST)[:hh, :ww]
    sharp = sharp > 0
    col = albA * D_up + S_up
    edge = _boundary(kindA)
    exact = (~clean | sharp) & ~edge
    ys, xs = np.nonzero(exact)
    if len(ys):
        col[ys, xs] = trace(ctx, xs + x0 + 0.5, ys + y0 + 0.5)[0]
    ys, xs = np.nonzero(edge)
    if len(ys):
        col[ys, xs] = _supersample(ctx, ys, xs, 3, x0, y0)
    st = dict(box=(x0, y0, x1, y1), col=col.astype(np.float32), kind=kindA,
              DB=DB.reshape(hb, wb, 3), ucb=ucb, vcb=vcb, hb=hb, wb=wb)
    table.notes[key] = st
    return st


def _influenced(ctx: Ctx, st, xs, ys, step=4):
    """Which pixels can a die reach (shadow, ambient occlusion, or the die itself)?
    Tested conservatively on a coarse grid, on the static surface under each point; walls are
    always redone."""
    x0, y0, x1, y1 = st["box"]
    bx0, by0 = xs.min(), ys.min()
    hb = (ys.max() - by0) // step + 1
    wb = (xs.max() - bx0) // step + 1
    vb, ub = np.mgrid[0:hb, 0:wb]
    cu = (bx0 + ub * step + step // 2).ravel()
    cv = (by0 + vb * step + step // 2).ravel()
    inb = (cu >= x0) & (cu < x1) & (cv >= y0) & (cv < y1)
    kind = np.full(len(cu), FELT, np.int16)
    kind[inb] = st["kind"][cv[inb] - y0, cu[inb] - x0]
    tr = ctx.tray
    zp = np.where(kind == FLOOR, tr.z_f, np.where(kind == RIM_TOP, tr.z_r, 0.0))
    rd = ctx.cam.rays(cu + 0.5, cv + 0.5)
    t = (zp - ctx.cam.C[2]) / rd[:, 2]
    P = ctx.cam.C + t[:, None] * rd
    need = (kind == INNER_WALL) | (kind == OUTER_WALL)
    slack = 2.5 * step * ctx.table.mm_per_px + 1.0
    for die in ctx.dice:
        oc0 = die.center - P
        need |= _dot(oc0, oc0) < (RB + 16.0 + slack) ** 2
        for L in ctx.table.lights:
            Ld = L.pos - P
            dist = np.sqrt(_dot(Ld, Ld))
            l = Ld / dist[:, None]
            alpha = L.radius / dist
            tc = _dot(oc0, l)
            dc2 = _dot(oc0, oc0) - tc * tc
            reach = RB + alpha * np.maximum(tc, 0) + 1.0 + slack
            need |= (tc > -RB - slack) & (dc2 < reach * reach)
    need = cv2.dilate(need.reshape(hb, wb).astype(np.uint8), np.ones((3, 3), np.uint8))
    return need[(ys - by0) // step, (xs - bx0) // step] > 0


def _render_hand(ctx: Ctx, img, HS=3):
    b = ctx.cap_boxes
    bx0 = int(max(0, np.floor(min(q[0] for q in b))))
    by0 = int(max(0, np.floor(min(q[1] for q in b))))
    bx1 = int(min(W, np.ceil(max(q[2] for q in b)) + 1))
    by1 = int(min(H, np.ceil(max(q[3] for q in b)) + 1))
    if bx1 <= bx0 or by1 <= by0:
        return
    hh, ww = by1 - by0, bx1 - bx0
    hb, wb = (hh + HS - 1) // HS, (ww + HS - 1) // HS
    vb, ub = np.mgrid[0:hb, 0:wb].astype(np.float64)
    g = intersect_all(ctx, (ub * HS + bx0 + HS / 2).ravel(), (vb * HS + by0 + HS / 2).ravel())
    D = np.zeros((len(g["P"]), 3))
    S = np.zeros((len(g["P"]), 3))
    onhand = np.nonzero(g["obj"] >= 200)[0]
    if len(onhand):
        D[onhand], S[onhand] = light_hits(ctx, {k: v[onhand] for k, v in g.items()})
    objc = g["obj"].astype(np.int32)
    cls = np.where(objc >= 200, objc - 199, 0).astype(np.uint8).reshape(hb, wb)
    if not cls.any():
        return
    k8 = np.ones((3, 3), np.uint8)
    mn = cv2.erode(cls, k8)
    mx = cv2.dilate(cls, k8)
    full = (wb * HS, hb * HS)
    mn = cv2.resize(mn, full, interpolation=cv2.INTER_NEAREST)[:hh, :ww]
    mx = cv2.resize(mx, full, interpolation=cv2.INTER_NEAREST)[:hh, :ww]
    interior = (mn == mx) & (mn > 0)
    band = (mx > 0) & ~interior
    D_up = _upsample(D.reshape(hb, wb, 3), hh, ww, HS)
    S_up = _upsample(S.reshape(hb, wb, 3), hh, ww, HS)
    tbl = ctx.table
    alb_tab = np.zeros((len(ctx.caps) + 1, 3))
    for ci, c in enumerate(ctx.caps):
        alb_tab[ci + 1] = tbl.skin_lin if c.kind == "skin" else tbl.sleeve_lin
    alb = alb_tab[mn]
    reg = img[by0:by1, bx0:bx1]
    reg[interior] = (alb * D_up + S_up)[interior]
    # full-resolution hand mask in the band (capsule tests only)
    ys, xs = np.nonzero(band)
    cls_full = np.zeros((hh, ww), np.uint8)
    cls_full[interior] = mn[interior]
    if len(ys):
        u = xs + bx0 + 0.5
        v = ys + by0 + 0.5
        rd = ctx.cam.rays(u, v)
        tbest = np.full(len(u), INF)
        kb = np.zeros(len(u), np.uint8)
        for ci, (c, bb) in enumerate(zip(ctx.caps, ctx.cap_boxes)):
            sel = np.nonzero(_inbox(u, v, bb))[0]
            if len(sel) == 0:
                continue
            tt = ray_capsule(ctx.cam.C, rd[sel], c.a, c.b, c.r)
            closer = tt < tbest[sel]
            tbest[sel[closer]] = tt[closer]
            kb[sel[closer]] = ci + 1
        # a hand point must be in front of everything else; the hand is above the tray
        cls_full[ys, xs] = kb
        hit = kb > 0
        if hit.any():
            c, _ = trace(ctx, u[hit], v[hit])
            reg[ys[hit], xs[hit]] = c
    edge = _boundary(cls_full.astype(np.int16)) & (band | interior)
    ys, xs = np.nonzero(edge)
    if len(ys):
        reg[ys, xs] = _supersample(ctx, ys + by0, xs + bx0, 2)


def render_linear(table: Table, dset: DiceSet, throw: Throw) -> np.ndarray:
    ctx = Ctx(table, dset, throw)
    st = _static_tray(table, dset)
    hand_only = _NoDice()
    hand_only.capsules = throw.capsules
    if throw.capsules:
        E = felt_irradiance_lowres(Ctx(table, dset, hand_only), step=8)
    else:
        E = table.notes.get("_felt_E")
        if E is None:
            E = felt_irradiance_lowres(Ctx(table, dset, _NoDice()))
            table.notes["_felt_E"] = E
    img = table.felt_albedo_image * cv2.resize(E, (W, H), interpolation=cv2.INTER_LINEAR)
    x0, y0, x1, y1 = st["box"]
    hh, ww = y1 - y0, x1 - x0
    col = st["col"]
    if ctx.caps:
        # relight the static tray under the hand's shadow (coarse ratio)
        ucb = st["ucb"].reshape(st["hb"], st["wb"])[::2, ::2]
        vcb = st["vcb"].reshape(st["hb"], st["wb"])[::2, ::2]
        gB = intersect_all(Ctx(table, dset, hand_only), ucb.ravel(), vcb.ravel())
        DB, _ = light_hits(ctx, gB)
        ratio = (DB.reshape(ucb.shape + (3,)) + 1e-3) / (st["DB"][::2, ::2] + 1e-3)
        col = col * _upsample(ratio, hh, ww, 2 * STEP)
    img[y0:y1, x0:x1] = col
    # ---- dice, their shadows and ambient occlusion: exact
    k8 = np.ones((3, 3), np.uint8)
    done = np.zeros((H, W), bool)
    kind_st = st["kind"]
    for b in _dice_influence_boxes(ctx):
        bx0, by0 = int(max(0, np.floor(b[0]))), int(max(0, np.floor(b[1])))
        bx1, by1 = int(min(W, np.ceil(b[2]) + 1)), int(min(H, np.ceil(b[3]) + 1))
        if bx1 <= bx0 or by1 <= by0:
            continue
        ys, xs = np.nonzero(~done[by0:by1, bx0:bx1])
        if len(ys) == 0:
            continue
        ys = ys + by0
        xs = xs + bx0
        need = _influenced(ctx, st, xs, ys)
        ys, xs = ys[need], xs[need]
        if len(ys) == 0:
            continue
        c, obj = trace(ctx, xs + 0.5, ys + 0.5)
        img[ys, xs] = c
        done[ys, xs] = True
        objm = np.zeros((by1 - by0, bx1 - bx0), np.int16)
        objm[ys - by0, xs - bx0] = obj
        # dice pixels and their surroundings, supersampled
        isdie = ((objm >= 100) & (objm < 200)).astype(np.uint8)
        dpx = cv2.dilate(isdie, k8, iterations=1) > 0
        ys2, xs2 = np.nonzero(dpx)
        if len(ys2):
            img[ys2 + by0, xs2 + bx0] = _supersample(ctx, ys2 + by0, xs2 + bx0, 3)
    # ---- the hand: smooth, so shaded on a coarse grid inside, exactly along its outline
    if ctx.caps:
        _render_hand(ctx, img)
    return img
