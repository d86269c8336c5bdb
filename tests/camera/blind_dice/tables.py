"""One table = what stays the same there: camera pose and lens, scale, tray, felt, lights,
camera pipeline (white balance, exposure, vignetting, optics), the dealer's side and skin."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

from .common import (H, TAG_TABLE, TAG_TEX, W, kelvin_rgb, luminance, rng_for,
                     srgb_to_linear)
from .geometry import Camera, Tray

FELTS = [  # sRGB, name
    ((0.05, 0.30, 0.16), "casino green"), ((0.03, 0.20, 0.12), "dark green"),
    ((0.06, 0.16, 0.38), "royal blue"), ((0.04, 0.07, 0.16), "navy"),
    ((0.42, 0.06, 0.08), "red"), ((0.26, 0.04, 0.07), "burgundy"),
    ((0.06, 0.06, 0.07), "black"), ((0.20, 0.20, 0.21), "charcoal"),
    ((0.55, 0.55, 0.55), "light grey"), ((0.78, 0.72, 0.60), "cream"),
    ((0.30, 0.18, 0.10), "brown"), ((0.05, 0.33, 0.34), "teal"),
]
LININGS = [
    ((0.04, 0.04, 0.05), "black suede"), ((0.08, 0.28, 0.14), "green felt"),
    ((0.35, 0.05, 0.07), "red velvet"), ((0.05, 0.10, 0.28), "blue felt"),
    ((0.78, 0.77, 0.74), "light grey suede"), ((0.86, 0.83, 0.76), "ivory leather"),
    ((0.90, 0.90, 0.89), "white leather"), ((0.62, 0.52, 0.38), "tan leather"),
    ((0.22, 0.22, 0.23), "charcoal felt"), ((0.50, 0.10, 0.30), "purple felt"),
]
RIMS = [  # sRGB albedo, specular (F0-like), gloss exponent
    ((0.30, 0.16, 0.08), 0.04, 40.0, "walnut"), ((0.55, 0.36, 0.20), 0.035, 25.0, "oak"),
    ((0.03, 0.03, 0.03), 0.05, 400.0, "black lacquer"),
    ((0.35, 0.35, 0.36), 0.45, 30.0, "brushed steel"),
    ((0.40, 0.28, 0.10), 0.50, 50.0, "brass"), ((0.92, 0.92, 0.90), 0.04, 300.0, "white acrylic"),
    ((0.35, 0.05, 0.05), 0.05, 300.0, "red lacquer"), ((0.12, 0.12, 0.13), 0.02, 8.0,
                                                        "dark rubber"),
]
PRINT_COLOURS = [(0.85, 0.70, 0.30), (0.92, 0.92, 0.88), (0.95, 0.85, 0.20), (0.10, 0.10, 0.10)]
SKINS = [(0.93, 0.76, 0.65), (0.86, 0.66, 0.52), (0.74, 0.54, 0.40), (0.58, 0.40, 0.29),
         (0.42, 0.28, 0.20)]
SLEEVES = [(0.92, 0.92, 0.92), (0.05, 0.05, 0.06), (0.42, 0.07, 0.10), (0.10, 0.12, 0.30),
           (0.70, 0.60, 0.45)]


@dataclass
class Light:
    pos: np.ndarray
    radius: float
    colour: np.ndarray    # linear RGB, intensity folded in (irradiance units * mm^2)


@dataclass
class Table:
    index: int
    cam: Camera
    tray: Tray
    mm_per_px: float           # at the tray floor, tray centre
    cam_height: float
    cam_offset: float          # horizontal distance camera centre <-> tray centre
    felt_lin: np.ndarray
    felt_name: str
    lining_lin: np.ndarray
    lining_name: str
    walls_lined: bool          # inner walls carry the lining (else rim material)
    rim_lin: np.ndarray
    rim_spec: float
    rim_gloss: float
    rim_name: str
    lights: list
    ambient: np.ndarray        # linear RGB irradiance of the room (sky)
    exposure: float
    wb_gains: np.ndarray
    vignette: float
    optics_sigma: float
    base_noise: float
    dealer_angle: float
    skin_lin: np.ndarray
    sleeve_lin: np.ndarray
    print_lin: np.ndarray
    felt_grain: float
    lining_grain: float
    seed_tex: int = 0
    notes: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ textures (cached)
    @functools.cached_property
    def felt_texture(self):
        """(tex, x0, y0, res): felt albedo with the printed layout, world coordinates."""
        res = 0.5
        # footprint of the image on z=0
        us = np.array([0, W, W, 0], float)
        vs = np.array([0, 0, H, H], float)
        d = self.cam.rays(us, vs)
        t = -self.cam.C[2] / d[:, 2]
        pts = self.cam.C + t[:, None] * d
        x0, y0 = pts[:, 0].min() - 40, pts[:, 1].min() - 40
        x1, y1 = pts[:, 0].max() + 40, pts[:, 1].max() + 40
        nx, ny = int((x1 - x0) / res) + 1, int((y1 - y0) / res) + 1
        rng = rng_for(TAG_TEX, self.index, 1)
        base = self.felt_lin.astype(np.float32)
        fine = rng.standard_normal((ny, nx)).astype(np.float32)
        fine = cv2.GaussianBlur(fine, (0, 0), 0.6)
        mott = cv2.resize(rng.standard_normal((ny // 40 + 2, nx // 40 + 2)).astype(np.float32),
                          (nx, ny), interpolation=cv2.INTER_CUBIC)
        mod = 1.0 + self.felt_grain * fine / (fine.std() + 1e-6) + 0.02 * mott
        tex = base[None, None, :] * mod[:, :, None]
        # printed markings: zone outlines around the tray and elsewhere, a "DICE" label
        mask = np.zeros((ny, nx), np.uint8)

        def to_tex(p):
            return (int(round((p[0] - x0) / res * 16)), int(round((p[1] - y0) / res * 16)))

        tr = self.tray
        m = rng.uniform(25, 45)
        a = (tr.A + tr.w + m)
        b = (tr.B + tr.w + m) if tr.shape == "rect" else a
        lw = int(max(2, rng.uniform(3, 6) / res))
        corners = [(-a, -b), (a, -b), (a, b), (-a, b)]
        pts2 = np.array([to_tex(c) for c in corners], np.int32)
        if tr.shape == "rect" or rng.random() < 0.5:
            cv2.polylines(mask, [pts2], True, 255, lw, cv2.LINE_AA, shift=4)
        else:
            cv2.circle(mask, to_tex((0, 0)), int(a / res * 16), 255, lw, cv2.LINE_AA, shift=4)
        for _ in range(int(rng.integers(2, 6))):
            cxz, cyz = rng.uniform(-500, 500), rng.uniform(-350, 350)
            if abs(cxz) < a + 120 and abs(cyz) < b + 120:
                continue
            wz, hz = rng.uniform(80, 200), rng.uniform(60, 160)
            rect = np.array([to_tex((cxz - wz, cyz - hz)), to_tex((cxz + wz, cyz - hz)),
                             to_tex((cxz + wz, cyz + hz)), to_tex((cxz - wz, cyz + hz))],
                            np.int32)
            cv2.polylines(mask, [rect], True, 255, lw, cv2.LINE_AA, shift=4)
        # label next to the tray outline
        side = rng.integers(4)
        lab = {0: (-a * 0.35, -b - 14), 1: (-a * 0.35, b + 40), 2: (-a - 10, 0), 3: (a + 10, 0)}
        pos = lab[int(side)]
        if side in (0, 1):
            # drawn upright as seen from above (texture rows run along +y, so flip)
            scale = 28 * 0.5 / res / 22
            thick = max(2, int(2.2 / res))
            (tw, th), base = cv2.getTextSize("DICE", cv2.FONT_HERSHEY_DUPLEX, scale, thick)
            lab_img = np.zeros((th + base + 4, tw + 4), np.uint8)
            cv2.putText(lab_img, "DICE", (2, th + 2), cv2.FONT_HERSHEY_DUPLEX, scale, 255,
                        thick, cv2.LINE_AA)
            lab_img = cv2.flip(lab_img, 0)
            cx_, cy_ = int((pos[0] - x0) / res), int((pos[1] - y0) / res)
            r0, c0 = cy_ - lab_img.shape[0] // 2, cx_
            if 0 <= r0 and r0 + lab_img.shape[0] <= ny and 0 <= c0 and c0 + lab_img.shape[1] <= nx:
                sl = mask[r0:r0 + lab_img.shape[0], c0:c0 + lab_img.shape[1]]
                np.maximum(sl, lab_img, out=sl)
        pm = (mask.astype(np.float32) / 255.0)[:, :, None] * 0.9
        tex = tex * (1 - pm) + self.print_lin.astype(np.float32)[None, None, :] * pm
        return np.ascontiguousarray(tex, np.float32), x0, y0, res

    @functools.cached_property
    def lining_texture(self):
        res = 0.3
        tr = self.tray
        a = tr.A + 2
        b = (tr.B if tr.shape == "rect" else tr.A) + 2
        nx, ny = int(2 * a / res) + 1, int(2 * b / res) + 1
        rng = rng_for(TAG_TEX, self.index, 2)
        fine = cv2.GaussianBlur(rng.standard_normal((ny, nx)).astype(np.float32), (0, 0), 0.8)
        mott = cv2.resize(rng.standard_normal((ny // 60 + 2, nx // 60 + 2)).astype(np.float32),
                          (nx, ny), interpolation=cv2.INTER_CUBIC)
        mod = 1.0 + self.lining_grain * fine / (fine.std() + 1e-6) + 0.025 * mott
        tex = self.lining_lin.astype(np.float32)[None, None, :] * mod[:, :, None]
        return np.ascontiguousarray(tex, np.float32), -a, -b, res

    @functools.cached_property
    def felt_albedo_image(self):
        tex, x0, y0, res = self.felt_texture
        S = np.array([[res, 0, x0], [0, res, y0], [0, 0, 1.0]])
        Hm = self.cam.homography_z(0.0) @ S
        return cv2.warpPerspective(tex, Hm, (W, H), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REFLECT)

    @functools.cached_property
    def vignette_map(self):
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        r2 = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
        return (1.0 - self.vignette * r2 - 0.35 * self.vignette * r2 * r2).astype(np.float32)

    def zone_polygon(self):
        return zone_polygon(self.cam, self.tray, self.notes["zone_margin_mm"])


def zone_polygon(cam, tray, margin):
    """Generous DICE zone: the smallest rectangle (in the image) around the whole tray, its rim
    top and its foot, grown by a margin in mm."""
    if tray.shape == "rect":
        pts = np.concatenate([tray.outline(z, margin=margin) for z in (0.0, tray.z_r)])
    else:
        ang = np.linspace(0, 2 * np.pi, 72, endpoint=False)
        rr = tray.A + tray.w + margin
        pts = np.concatenate([np.stack([rr * np.cos(ang), rr * np.sin(ang), np.full(72, z)], 1)
                              for z in (0.0, tray.z_r)])
    u, v, _ = cam.project(pts)
    box = cv2.boxPoints(cv2.minAreaRect(np.stack([u, v], 1).astype(np.float32)))
    return box.astype(np.float64)


def sample_texture(tex_info, x, y):
    """Bilinear lookup of a world-space texture at points (x, y)."""
    tex, x0, y0, res = tex_info
    n = len(x)
    cols = 1024
    rows = (n + cols - 1) // cols
    mx = np.full(rows * cols, 0, np.float32)
    my = np.full(rows * cols, 0, np.float32)
    mx[:n] = (x - x0) / res
    my[:n] = (y - y0) / res
    out = cv2.remap(tex, mx.reshape(rows, cols), my.reshape(rows, cols), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REFLECT)
    return out.reshape(-1, 3)[:n].astype(np.float64)


def _make_lights(rng, tray_center_z):
    n = int(rng.choice([1, 2, 3, 4], p=[0.2, 0.35, 0.3, 0.15]))
    style = rng.choice(["hard", "medium", "soft"], p=[0.25, 0.4, 0.35])
    base_k = rng.uniform(3200, 6500)
    lights = []
    weights = []
    for i in range(n):
        az = rng.uniform(0, 2 * np.pi)
        horiz = rng.uniform(0, 1300) if i == 0 else rng.uniform(200, 1800)
        height = rng.uniform(900, 2600)
        pos = np.array([horiz * np.cos(az), horiz * np.sin(az), height])
        s = style if rng.random() < 0.7 else rng.choice(["hard", "medium", "soft"])
        radius = {"hard": rng.uniform(8, 40), "medium": rng.uniform(60, 250),
                  "soft": rng.uniform(300, 700)}[s]
        k = np.clip(base_k + rng.normal(0, 400), 2700, 7000)
        weights.append(1.0 if i == 0 else rng.uniform(0.2, 0.9))
        lights.append((pos, radius, kelvin_rgb(k)))
    return lights, np.array(weights), base_k


@functools.lru_cache(maxsize=6)
def get_table(index: int) -> Table:
    rng = rng_for(TAG_TABLE, index)
    # ---- tray
    if rng.random() < 0.7:
        A = rng.uniform(62, 98)
        B = rng.uniform(48, min(A, 72))
        tray = Tray("rect", A, B, rng.uniform(8, 20), rng.uniform(2, 9), 0.0)
    else:
        tray = Tray("round", rng.uniform(58, 90), 0.0, rng.uniform(8, 18), rng.uniform(2, 9), 0.0)
    rim_h = rng.choice([rng.uniform(6, 14), rng.uniform(14, 26), rng.uniform(26, 42)],
                       p=[0.2, 0.4, 0.4])
    tray.z_r = tray.z_f + rim_h
    # ---- camera
    mmpp = rng.uniform(0.24, 0.33)
    zone_margin = rng.uniform(8, 16)
    for attempt in range(60):
        cam_h = rng.uniform(1500, 2000)
        off = rng.choice([rng.uniform(0, 120), rng.uniform(120, 300), rng.uniform(300, 500)],
                         p=[0.2, 0.4, 0.4])
        oaz = rng.uniform(0, 2 * np.pi)
        C = np.array([off * np.cos(oaz), off * np.sin(oaz), cam_h])
        k90 = int(rng.integers(4))
        roll = k90 * np.pi / 2 + rng.normal(0, np.radians(8))
        shrink = 1.0 if attempt < 30 else 0.4
        aim = np.array([rng.uniform(-140, 140) * shrink, rng.uniform(-100, 100) * shrink,
                        tray.z_f])
        # mostly the camera looks along a steep axis; sometimes straight down
        if rng.random() < 0.35:
            aim_pt = np.array([C[0] + aim[0], C[1] + aim[1], 0.0])
        else:
            aim_pt = aim
        cam = Camera.look_at(C, aim_pt, [np.cos(roll), np.sin(roll), 0.0], 1000.0)
        cam.C = C
        s1 = cam.mm_per_px_at(np.array([0, 0, tray.z_f]))
        cam.f = 1000.0 * s1 / mmpp
        poly = zone_polygon(cam, tray, zone_margin)
        u, v = poly[:, 0], poly[:, 1]
        if u.min() > 12 and v.min() > 12 and u.max() < W - 13 and v.max() < H - 13:
            break
    else:  # pragma: no cover - fall back to a centred straight-down view
        C = np.array([0.0, 0.0, 1700.0])
        cam = Camera.look_at(C, [0, 0, 0], [1, 0, 0], 1000.0)
        cam.f = 1000.0 * cam.mm_per_px_at(np.array([0, 0, tray.z_f])) / mmpp
        cam_h, off = 1700.0, 0.0
    # ---- materials
    fi = int(rng.integers(len(FELTS)))
    li = int(rng.integers(len(LININGS)))
    ri = int(rng.integers(len(RIMS)))
    rim = RIMS[ri]
    lights_raw, weights, base_k = _make_lights(rng, tray.z_f)
    amb_frac = rng.uniform(0.10, 0.35)
    amb_k = np.clip(base_k + rng.normal(0, 350), 2800, 7500)
    # normalise: horizontal irradiance at the tray centre = 1 (luminance)
    P0 = np.array([0, 0, tray.z_f])
    lights = []
    wsum = weights.sum()
    for (pos, radius, col), wt in zip(lights_raw, weights):
        d = pos - P0
        dist = np.linalg.norm(d)
        cos = d[2] / dist
        inten = (1 - amb_frac) * (wt / wsum) * dist * dist / cos
        lights.append(Light(pos, radius, col * inten))
    ambient = kelvin_rgb(amb_k) * amb_frac
    # white balance: the camera corrects the average light, with a residual error
    avg = sum(l.colour / np.linalg.norm(l.pos - P0) ** 2 for l in lights) + ambient
    avg = avg / luminance(avg)
    wb = (1.0 / avg) * np.exp(rng.normal(0, 0.035, 3))
    wb = wb / luminance(wb * avg)
    exposure = rng.uniform(0.78, 1.0)
    felt_srgb = np.clip(np.array(FELTS[fi][0]) * np.exp(rng.normal(0, 0.06, 3)), 0, 1)
    lin_srgb = np.clip(np.array(LININGS[li][0]) * np.exp(rng.normal(0, 0.04, 3)), 0, 1)
    t = Table(
        index=index, cam=cam, tray=tray, mm_per_px=float(mmpp), cam_height=float(cam_h),
        cam_offset=float(off),
        felt_lin=srgb_to_linear(felt_srgb), felt_name=FELTS[fi][1],
        lining_lin=srgb_to_linear(lin_srgb), lining_name=LININGS[li][1],
        walls_lined=bool(rng.random() < 0.5),
        rim_lin=srgb_to_linear(rim[0]), rim_spec=rim[1], rim_gloss=rim[2], rim_name=rim[3],
        lights=lights, ambient=ambient, exposure=float(exposure), wb_gains=wb,
        vignette=float(rng.uniform(0.05, 0.35)), optics_sigma=float(rng.uniform(0.35, 0.7)),
        base_noise=float(rng.uniform(0.4, 1.2)), dealer_angle=float(rng.uniform(0, 2 * np.pi)),
        skin_lin=srgb_to_linear(SKINS[int(rng.integers(len(SKINS)))]),
        sleeve_lin=srgb_to_linear(SLEEVES[int(rng.integers(len(SLEEVES)))]),
        print_lin=srgb_to_linear(PRINT_COLOURS[int(rng.integers(len(PRINT_COLOURS)))]),
        felt_grain=float(rng.uniform(0.02, 0.07)), lining_grain=float(rng.uniform(0.015, 0.05)),
    )
    t.notes["zone_margin_mm"] = float(zone_margin)
    t.notes["avg_light"] = avg
    return t
