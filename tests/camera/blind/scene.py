"""What every table shares: felt, light, printed zone outlines, the dealer's hand, and putting a
flat thing (a card, a zone line) on the table through the camera."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from .camera import Camera, apply_h, rot2

# Felts: one plain colour each; the sheet asks for one plain colour and names none, so greens,
# blues, greys, a wine red and a purple all stand (never black, which is the cut card's colour).
FELTS_BGR = (
    (0.18, 0.42, 0.10),  # casino green
    (0.52, 0.30, 0.10),  # royal blue
    (0.38, 0.37, 0.35),  # slate grey
    (0.14, 0.12, 0.42),  # wine red
    (0.38, 0.18, 0.30),  # aubergine
    (0.34, 0.36, 0.08),  # teal
    (0.12, 0.30, 0.16),  # olive green
)
LINE_BGR = ((0.55, 0.78, 0.86), (0.85, 0.86, 0.86), (0.30, 0.62, 0.80))  # cream, white, gold

SKINS_BGR = {
    "fair": (0.62, 0.72, 0.90),
    "light_olive": (0.50, 0.63, 0.80),
    "medium": (0.38, 0.52, 0.72),
    "brown": (0.24, 0.36, 0.55),
    "deep_brown": (0.14, 0.21, 0.33),
    "white_glove": (0.90, 0.91, 0.91),
    "black_glove": (0.09, 0.09, 0.10),
    "blue_nitrile": (0.82, 0.55, 0.30),
}


@lru_cache(maxsize=2)
def felt_layer(width: int, height: int, felt_bgr: tuple, seed: int) -> np.ndarray:
    """The felt's reflectance over the whole picture: its colour with the nap's fine mottling,
    made at a quarter of the size and scaled up (the fine grain comes from the sensor)."""
    rng = np.random.default_rng(seed)
    sw, sh = width // 4, height // 4
    n = rng.standard_normal((sh, sw)).astype(np.float32)
    n = cv2.GaussianBlur(n, (0, 0), 1.2) * 0.05 + cv2.GaussianBlur(rng.standard_normal((sh, sw)).astype(np.float32), (0, 0), 12) * 0.25
    small = np.array(felt_bgr, np.float32) * (1.0 + n[..., None])
    return cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)


def light_field(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """Light falling on the table: a broad pool from the lamp over the table, brightest off centre."""
    sh, sw = 36, 64
    y, x = np.mgrid[0:sh, 0:sw].astype(np.float32)
    cx, cy = rng.uniform(0.3, 0.7) * sw, rng.uniform(0.3, 0.7) * sh
    r2 = ((x - cx) / sw) ** 2 + ((y - cy) / sh) ** 2
    f = (1.0 - rng.uniform(0.15, 0.4) * r2 * 2).astype(np.float32) * rng.uniform(0.95, 1.08)
    return cv2.resize(f, (width, height), interpolation=cv2.INTER_LINEAR)


def padded_box(pts_px, pad: int) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1): whole pixels round the points, `pad` more on each side."""
    p = np.asarray(pts_px, float)
    x0, y0 = np.floor(p.min(0)).astype(int) - pad
    x1, y1 = np.ceil(p.max(0)).astype(int) + pad
    return int(x0), int(y0), int(x1), int(y1)


def clip_box(box, shape) -> tuple[int, int, int, int] | None:
    """The box cut to the picture; None when nothing of it is inside."""
    x0, y0, x1, y1 = box
    h, w = shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def draw_outline(canvas: np.ndarray, cam: Camera, poly_mm: np.ndarray, colour, width_mm: float) -> None:
    pts = cam.project(np.column_stack([poly_mm, np.zeros(len(poly_mm))]))
    mmpp = float(cam.mm_per_px([poly_mm.mean(0)])[0])
    t = max(1, int(round(width_mm / mmpp)))
    cv2.polylines(canvas, [np.round(pts * 4).astype(np.int32)], True, colour, t, cv2.LINE_AA, shift=2)


def tint_poly(canvas: np.ndarray, cam: Camera, poly_mm: np.ndarray, factor: float) -> None:
    """Print a zone as a panel: the felt under it a little lighter or darker."""
    pts = cam.project(np.column_stack([poly_mm, np.zeros(len(poly_mm))]))
    box = clip_box(padded_box(pts, 2), canvas.shape)
    if box is None:
        return
    x0, y0, x1, y1 = box
    m = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillPoly(m, [np.round((pts - [x0, y0]) * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
    canvas[y0:y1, x0:x1] *= (1.0 + (factor - 1.0) * m)[..., None]


def draw_label(canvas: np.ndarray, cam: Camera, text: str, at_mm, colour, height_mm: float) -> None:
    p = cam.project([[at_mm[0], at_mm[1], 0.0]])[0]
    mmpp = float(cam.mm_per_px([at_mm])[0])
    scale = height_mm / mmpp / 22.0
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(scale * 2)))
    cv2.putText(canvas, text, (int(p[0] - tw / 2), int(p[1] + th / 2)), cv2.FONT_HERSHEY_SIMPLEX, scale, colour,
                max(1, int(scale * 2)), cv2.LINE_AA)


def paste_flat(canvas: np.ndarray, cam: Camera, texture: np.ndarray, alpha: np.ndarray, tex_to_table: np.ndarray,
               z_mm: float = 0.0, shadow: float = 0.22, coverage: np.ndarray | None = None) -> None:
    """Lay a texture (px) on the table through `tex_to_table` (3x3, texture px -> table mm),
    with a faint contact shadow round it. Works in the picture's bounding box only; `coverage`
    (the picture's size) collects where the texture lies."""
    H = cam.homography(z_mm) @ tex_to_table
    th, tw = alpha.shape
    box = clip_box(padded_box(apply_h(H, [[0, 0], [tw, 0], [tw, th], [0, th]]), 4), canvas.shape)
    if box is None:
        return
    x0, y0, x1, y1 = box
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float) @ H
    size = (x1 - x0, y1 - y0)
    a = cv2.warpPerspective(alpha, T, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    col = cv2.warpPerspective(texture, T, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    roi = canvas[y0:y1, x0:x1]
    if shadow:
        s = cv2.GaussianBlur(a, (0, 0), 2.0)
        s = np.roll(s, (2, 1), axis=(0, 1))
        roi *= (1.0 - shadow * s * (1.0 - a))[..., None]
    roi[:] = roi * (1 - a[..., None]) + col * a[..., None]
    if coverage is not None:
        cov = coverage[y0:y1, x0:x1]
        np.maximum(cov, a, out=cov)


def glare(coverage: np.ndarray, rng) -> np.ndarray:
    """The lamp mirrored in the cards' gloss: a broad soft spot, only on card (the felt is matte),
    faint enough that print stays legible under it. (h, w) light to add."""
    h, w = coverage.shape
    sh, sw = h // 16, w // 16
    y, x = np.mgrid[0:sh, 0:sw].astype(np.float32)
    cx, cy, r = rng.uniform(0.1, 0.9) * sw, rng.uniform(0.1, 0.9) * sh, rng.uniform(0.08, 0.2) * sw
    spot = (np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r)) * rng.uniform(0.12, 0.25)).astype(np.float32)
    return cv2.resize(spot, (w, h), interpolation=cv2.INTER_LINEAR) * coverage


CHIP_BGR = ((0.15, 0.15, 0.75), (0.70, 0.35, 0.10), (0.12, 0.12, 0.12), (0.20, 0.60, 0.20), (0.85, 0.85, 0.85))


def draw_chip_stack(canvas: np.ndarray, cam: Camera, centre_mm, chips: int, colour, rng) -> None:
    """A stack of 39 mm chips seen from above: its top chip with the edge spots and inlay."""
    z = -3.3 * chips
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    c = np.asarray(centre_mm, float)

    def poly(r, dz=0.0):
        return cam.project(np.column_stack([c + r * ring, np.full(len(ring), z + dz)]))

    side = np.concatenate([poly(19.5, -z), poly(19.5)])
    cv2.fillConvexPoly(canvas, cv2.convexHull(np.round(side * 4).astype(np.int32)), (np.array(colour) * 0.6).tolist(), cv2.LINE_AA, shift=2)
    cv2.fillConvexPoly(canvas, np.round(poly(19.5) * 4).astype(np.int32), colour, cv2.LINE_AA, shift=2)
    turn = rng.uniform(0, 2 * np.pi)
    for k in range(6):
        a0 = turn + k * np.pi / 3
        arc = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(a0, a0 + 0.3, 5)])
        spot = np.concatenate([c + 19.3 * arc, c + 14.5 * arc[::-1]])
        p = cam.project(np.column_stack([spot, np.full(len(spot), z)]))
        cv2.fillConvexPoly(canvas, np.round(p * 4).astype(np.int32), (0.92, 0.92, 0.92), cv2.LINE_AA, shift=2)
    cv2.fillConvexPoly(canvas, np.round(poly(11.0) * 4).astype(np.int32), (np.array(colour) * 0.8 + 0.15).tolist(), cv2.LINE_AA, shift=2)


def card_to_table(cx: float, cy: float, theta: float, px_per_mm: float, w_mm: float, h_mm: float) -> np.ndarray:
    """3x3: card texture pixels -> table mm, the card's centre at (cx, cy) turned by theta."""
    R = rot2(theta)
    S = np.array([[1 / px_per_mm, 0, -w_mm / 2], [0, 1 / px_per_mm, -h_mm / 2], [0, 0, 1]])
    M = np.eye(3)
    M[:2, :2] = R
    M[:2, 2] = (cx, cy)
    return M @ S


def hand_polygons(centre_mm, pointing_rad: float, scale: float, spread: float, forearm_mm: float) -> list[np.ndarray]:
    """A dealer's open hand seen from above as convex pieces (palm, fingers, thumb, forearm), in
    table mm, fingers pointing along `pointing_rad`."""
    pieces = []

    def capsule(p0, p1, r, n=10):
        p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
        d = p1 - p0
        a = np.arctan2(d[1], d[0])
        arc0 = [p0 + r * np.array([np.cos(t), np.sin(t)]) for t in np.linspace(a + np.pi / 2, a + 3 * np.pi / 2, n)]
        arc1 = [p1 + r * np.array([np.cos(t), np.sin(t)]) for t in np.linspace(a - np.pi / 2, a + np.pi / 2, n)]
        return np.array(arc0 + arc1)

    t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    pieces.append(np.column_stack([46 * np.cos(t), 42 * np.sin(t)]))  # palm, fingers along +x
    for i, (off, length) in enumerate(((-27, 62), (-9, 74), (9, 70), (26, 56))):
        ang = (i - 1.5) * spread
        base = np.array([34.0, off])
        tip = base + length * np.array([np.cos(ang), np.sin(ang)])
        pieces.append(capsule(base, tip, 8.5))
    pieces.append(capsule((5, 35), (45, 75), 10))  # thumb
    pieces.append(capsule((-30, 0), (-30 - forearm_mm, 0), 34))  # wrist and forearm
    R = rot2(pointing_rad) * scale
    return [p @ R.T + np.asarray(centre_mm, float) for p in pieces]


def draw_hand(canvas: np.ndarray, cam: Camera, pieces_mm: list[np.ndarray], z_mm: float, colour, rng) -> np.ndarray:
    """Paint the hand held at height -z_mm over the table, with its shadow; returns the picture
    mask of the hand (bool)."""
    h, w = canvas.shape[:2]
    H = cam.homography(z_mm)
    polys = [apply_h(H, p) for p in pieces_mm]
    mask_full = np.zeros((h, w), bool)
    box = clip_box(padded_box(np.concatenate(polys), 40), canvas.shape)
    if box is None:
        return mask_full
    x0, y0, x1, y1 = box
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for p in polys:
        cv2.fillConvexPoly(m, np.round((p - [x0, y0]) * 4).astype(np.int32), 255, cv2.LINE_AA, shift=2)
    mf = m.astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1]
    # shadow on the table: the hand's outline thrown sideways by the lamp, softened
    shift = int(min(30, abs(z_mm) / 3))
    sh = cv2.GaussianBlur(np.roll(mf, (shift, shift // 2), axis=(0, 1)), (0, 0), 6)
    roi *= (1.0 - 0.45 * sh)[..., None]
    # the hand: its colour, lit from one side, a soft rim where it curves away
    yy, xx = np.mgrid[0:m.shape[0], 0:m.shape[1]].astype(np.float32)
    g = 0.85 + 0.25 * (xx / max(1, m.shape[1]) * rng.uniform(0.5, 1.0) + yy / max(1, m.shape[0]) * rng.uniform(0, 0.5))
    rim = cv2.GaussianBlur(mf, (0, 0), 5)
    tex = 1.0 + 0.04 * cv2.GaussianBlur(rng.standard_normal(mf.shape).astype(np.float32), (0, 0), 2)
    shade = (g * (0.7 + 0.3 * rim) * tex)[..., None] * np.array(colour, np.float32)
    a = mf[..., None]
    roi[:] = roi * (1 - a) + shade * a
    mask_full[y0:y1, x0:x1] = m > 0
    return mask_full
