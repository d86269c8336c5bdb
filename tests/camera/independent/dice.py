"""Six dice sets and the 3-D die: a 16 mm cube with a correct net, its faces textured with
round pips (1 and 4 red), rounded edges shaded by the light, pips shaded by their depth."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .camera import rot_z, rotation_between
from .raster import Canvas

DIE_MM = 16.0
FACE_PX_PER_MM = 20.0
UP = np.array([0.0, 0.0, -1.0])  # out of the table

# The die's own frame: face value -> outward normal. Opposite faces sum to 7, and 1, 2, 3 run
# counter-clockwise round their common corner seen from outside (the usual right-handed die).
FACE_NORMALS = {
    1: np.array([0.0, 0.0, 1.0]),
    6: np.array([0.0, 0.0, -1.0]),
    2: np.array([1.0, 0.0, 0.0]),
    5: np.array([-1.0, 0.0, 0.0]),
    3: np.array([0.0, 1.0, 0.0]),
    4: np.array([0.0, -1.0, 0.0]),
}
# each face's texture x axis in the die's frame (its y axis is x cross normal)
FACE_XAXIS = {1: (1, 0, 0), 6: (1, 0, 0), 2: (0, 1, 0), 5: (0, 1, 0), 3: (0, 0, 1), 4: (0, 0, 1)}


@dataclass(frozen=True)
class DiceSet:
    name: str
    plastic_bgr: tuple[int, int, int]
    red_bgr: tuple[int, int, int]
    black_bgr: tuple[int, int, int]
    edge_radius_mm: float  # rounding of the cube's edges and corners
    pip_mm: float  # diameter of the pips 2-6
    one_pip_mm: float  # diameter of the single pip of the 1
    pip_offset_mm: float  # centre to the corner pips, along each axis
    pip_depth: float  # 0..1, how dark the pip's wall towards the light is
    translucency: float  # 0..1, light scattered in the plastic: softer pips, lifted shadows
    turned: tuple[int, ...] = ()  # faces whose pips this maker lays a quarter turn round (2, 3, 6)


DICE_SETS: dict[str, DiceSet] = {
    "casino_ivory": DiceSet("casino_ivory", (206, 232, 242), (36, 34, 196), (24, 22, 22), 0.8, 3.2, 4.6, 4.3, 0.5, 0.0),
    "rounded_cool": DiceSet("rounded_cool", (250, 248, 240), (70, 50, 228), (44, 38, 36), 2.6, 2.8, 5.4, 4.0, 0.35, 0.1, (2, 6)),
    "translucent": DiceSet("translucent", (236, 240, 240), (90, 70, 212), (58, 54, 56), 1.6, 3.4, 4.0, 4.5, 0.15, 0.55),
    "small_pips": DiceSet("small_pips", (190, 226, 240), (40, 20, 160), (16, 16, 16), 1.2, 2.4, 3.6, 3.8, 0.6, 0.05, (3,)),
    "big_pips": DiceSet("big_pips", (244, 244, 244), (40, 64, 232), (64, 34, 22), 1.6, 3.8, 6.0, 4.4, 0.45, 0.0),
    "worn_matte": DiceSet("worn_matte", (212, 220, 226), (74, 72, 178), (34, 38, 48), 2.4, 3.0, 5.0, 4.0, 0.25, 0.2, (2, 3, 6)),
}


def dice_set(name: str) -> DiceSet:
    try:
        return DICE_SETS[name]
    except KeyError:
        raise ValueError(f"unknown dice set {name!r} (known: {', '.join(DICE_SETS)})") from None


def pip_layout(value: int, s: float) -> list[tuple[float, float]]:
    """Pip centres (mm from the face's centre, texture x right, y down)."""
    return {
        1: [(0, 0)],
        2: [(-s, -s), (s, s)],
        3: [(-s, -s), (0, 0), (s, s)],
        4: [(-s, -s), (s, -s), (-s, s), (s, s)],
        5: [(-s, -s), (s, -s), (0, 0), (-s, s), (s, s)],
        6: [(-s, -s), (-s, 0), (-s, s), (s, -s), (s, 0), (s, s)],
    }[value]


def _lambert(normal, light) -> float:
    return float(max(0.0, normal @ light))


class Die:
    """A die at rest on a floor at height floor_mm (table frame, z up negative), showing `top`,
    turned yaw_deg about the vertical, its footprint centred at (x, y)."""

    def __init__(self, top: int, xy_mm, yaw_deg: float, floor_mm: float):
        if top not in FACE_NORMALS:
            raise ValueError(f"a die shows 1 to 6, not {top!r}")
        self.top = top
        self.xy = np.asarray(xy_mm, float)
        self.yaw_deg = float(yaw_deg)
        self.floor_mm = float(floor_mm)
        # body -> table: the top face's normal onto "up", then the turn about the vertical
        self.rotation = rot_z(yaw_deg) @ rotation_between(FACE_NORMALS[top], UP)
        self.centre = np.array([self.xy[0], self.xy[1], -floor_mm - DIE_MM / 2])

    def faces(self):
        """(value, outward normal, centre, corners TL TR BR BL) of each face, table frame."""
        out = []
        h = DIE_MM / 2
        for v, n_body in FACE_NORMALS.items():
            ax = np.asarray(FACE_XAXIS[v], float)
            ay = np.cross(ax, n_body)  # texture y so that x, y, normal read as seen from outside
            n = self.rotation @ n_body
            x = self.rotation @ ax
            y = self.rotation @ ay
            c = self.centre + h * n
            corners = np.array([c - h * x - h * y, c + h * x - h * y, c + h * x + h * y, c - h * x + h * y])
            out.append((v, n, c, corners, x, y))
        return out

    def top_corners(self) -> np.ndarray:
        for v, _n, _c, corners, _x, _y in self.faces():
            if v == self.top:
                return corners
        raise AssertionError

    def footprint_mm(self) -> np.ndarray:
        corners = np.vstack([f[3] for f in self.faces()])[:, :2]
        hull = cv2.convexHull(corners.astype(np.float32)).reshape(-1, 2)
        return hull.astype(np.float64)


def face_texture(ds: DiceSet, value: int, normal, tex_x, tex_y, light, rng, ambient=0.42):
    """The face as lit: BGRA, alpha rounding the corners of the cube."""
    n_px = int(DIE_MM * FACE_PX_PER_MM)
    k = FACE_PX_PER_MM
    coords = (np.arange(n_px, dtype=np.float32) + 0.5) / k - DIE_MM / 2  # mm from centre
    X, Y = np.meshgrid(coords, coords)
    r = max(ds.edge_radius_mm, 0.2)
    half = DIE_MM / 2
    # distances to the four edges (mm): -y (top), +x (right), +y (bottom), -x (left)
    d_edges = [Y + half, half - X, half - Y, X + half]
    edge_dirs = [-tex_y, tex_x, tex_y, -tex_x]
    base = ambient + (1 - ambient) * _lambert(normal, light)
    shade = np.full((n_px, n_px), base, np.float32)
    for d, direction in zip(d_edges, edge_dirs, strict=True):
        w = np.clip(1.0 - d / r, 0.0, 1.0) ** 1.5
        nb = normal + direction
        nb /= np.linalg.norm(nb)
        s_edge = ambient + (1 - ambient) * _lambert(nb, light)
        shade += w * (s_edge - base) * 0.9
    shade = shade * (1 - ds.translucency * 0.35) + ds.translucency * 0.35 * (base + 0.15)
    colour = np.empty((n_px, n_px, 3), np.float32)
    colour[:] = np.asarray(ds.plastic_bgr, np.float32)
    # pips: discs of ink, the wall towards the light in shadow (they are drilled)
    lx, ly = float(light @ tex_x), float(light @ tex_y)
    ln = np.hypot(lx, ly) + 1e-6
    ink = np.asarray(ds.red_bgr if value in (1, 4) else ds.black_bgr, np.float32)
    pip_mask = np.zeros((n_px, n_px), np.float32)
    pip_shade = np.ones((n_px, n_px), np.float32)
    diam = ds.one_pip_mm if value == 1 else ds.pip_mm
    pips = pip_layout(value, ds.pip_offset_mm)
    if value in ds.turned:
        pips = [(-y, x) for x, y in pips]
    for px, py in pips:
        rr = diam / 2
        dist = np.hypot(X - px, Y - py)
        m = np.clip((rr - dist) * k + 0.5, 0.0, 1.0)
        pip_mask = np.maximum(pip_mask, m)
        toward = ((X - px) * lx + (Y - py) * ly) / (ln * rr)
        pip_shade = np.where(m > 0, np.clip(1.0 - ds.pip_depth * np.clip(toward, 0, 1), 0.3, 1.0), pip_shade)
    colour = colour * (1 - pip_mask[..., None]) + (ink * pip_shade[..., None]) * pip_mask[..., None]
    if ds.translucency > 0:
        colour = cv2.GaussianBlur(colour, (0, 0), 0.25 * ds.translucency * k)
    colour *= shade[..., None]
    colour += rng.normal(0, 1.2, colour.shape[:2]).astype(np.float32)[..., None]
    # rounded corners of the cube: the silhouette is cut by a quarter circle at each corner
    cx = np.maximum(np.abs(X) - (half - r), 0)
    cy = np.maximum(np.abs(Y) - (half - r), 0)
    alpha = np.clip((r - np.hypot(cx, cy)) * k + 0.5, 0.0, 1.0)
    return np.dstack([np.clip(colour, 0, 255), alpha]).astype(np.float32)


def draw_die(canvas: Canvas, die: Die, ds: DiceSet, light, rng) -> dict[int, float]:
    """Draw the die's visible faces with depth; returns the picture area (px) of each face
    that faces the camera."""
    areas = {}
    for v, n, c, corners, tx, ty in die.faces():
        if not canvas.camera.faces_camera(c, n):
            continue
        tex = face_texture(ds, v, n, tx, ty, light, rng)
        canvas.quad(tex, corners, depth_test=True, depth_write=True)
        p = canvas.camera.project(corners)
        areas[v] = float(abs(cv2.contourArea(p.astype(np.float32))))
    return areas


def draw_die_shadow(canvas: Canvas, die: Die, light) -> None:
    """A soft shadow on the floor, cast away from the light."""
    size = 64
    m = np.zeros((size, size), np.float32)
    cv2.rectangle(m, (14, 14), (size - 14, size - 14), 1.0, -1)
    m = cv2.GaussianBlur(m, (0, 0), 5.0) * 0.45
    tex = np.dstack([np.zeros((size, size, 3), np.float32), m])
    shift = -np.asarray(light[:2]) / max(abs(light[2]), 0.3) * DIE_MM * 0.35
    a = np.radians(die.yaw_deg)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    h = DIE_MM * 0.5 * size / (size - 28)
    pts = [die.xy + shift + R @ np.array(p) for p in ((-h, -h), (h, -h), (h, h), (-h, h))]
    z = -die.floor_mm - 0.05
    canvas.quad(tex, [[p[0], p[1], z] for p in pts])

