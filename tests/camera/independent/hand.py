"""The dealer's hand: a skin-coloured blob (palm, fingers, forearm) held above the table."""

from __future__ import annotations

import cv2
import numpy as np

from .raster import Canvas, rgba

SKIN_TONES_BGR = ((120, 160, 214), (96, 134, 190), (70, 100, 150), (150, 186, 230))
HAND_PX_PER_MM = 3.0


def _hand_texture(rng: np.random.Generator, length_mm: float, width_mm: float):
    """BGRA texture of a hand seen from above, fingers towards the top edge, forearm leaving at
    the bottom; its outline (mm, texture frame) for occlusion."""
    w, h = int(width_mm * HAND_PX_PER_MM), int(length_mm * HAND_PX_PER_MM)
    mask = np.zeros((h, w), np.uint8)
    k = HAND_PX_PER_MM
    palm_c = (w // 2, int(h * 0.42))
    cv2.ellipse(mask, palm_c, (int(w * 0.36), int(h * 0.17)), 0, 0, 360, 255, -1, cv2.LINE_AA)
    for i, dx in enumerate((-0.24, -0.08, 0.08, 0.24)):
        top = int(h * (0.06 + 0.03 * abs(i - 1.5)))
        cv2.line(mask, (int(w / 2 + dx * w), palm_c[1]), (int(w / 2 + dx * w * 1.15), top), 255, int(17 * k), cv2.LINE_AA)
    cv2.line(mask, (int(w * 0.2), int(h * 0.5)), (int(w * 0.02), int(h * 0.3)), 255, int(20 * k), cv2.LINE_AA)
    cv2.rectangle(mask, (int(w * 0.2), int(h * 0.5)), (int(w * 0.8), h), 255, -1)
    soft = cv2.GaussianBlur(mask, (0, 0), 2.0)
    tone = np.asarray(SKIN_TONES_BGR[int(rng.integers(len(SKIN_TONES_BGR)))], np.float32)
    body = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 12 * k)  # rounder in the middle
    shade = 0.72 + 0.38 * body
    img = tone[None, None, :] * shade[..., None]
    img += rng.normal(0, 3.0, img.shape[:2])[..., None]
    ys, xs = np.nonzero(mask > 127)
    pts = np.stack([xs, ys], axis=1).astype(np.int32)
    hull = cv2.convexHull(pts).reshape(-1, 2).astype(np.float64) / k
    return rgba(np.clip(img, 0, 255), soft.astype(np.float32) / 255.0), hull


class Hand:
    """A hand at height_mm above the felt, its fingertips' middle at `tip_mm`, pointing along
    `direction_deg` (0: +x, 90: +y, table frame)."""

    def __init__(self, rng, centre_mm, direction_deg: float, *, height_mm: float = 45.0,
                 length_mm: float = 230.0, width_mm: float = 120.0):
        self.texture, hull = _hand_texture(rng, length_mm, width_mm)
        self.height_mm = height_mm
        self.centre = np.asarray(centre_mm, float)
        a = np.radians(direction_deg)
        fwd = np.array([np.cos(a), np.sin(a)])  # fingers
        right = np.array([-fwd[1], fwd[0]])
        self._axes = (right, -fwd)  # texture x, texture y (fingers at texture top)
        self._size = (width_mm, length_mm)
        self.hull_mm = np.array([self._to_table(p) for p in hull])

    def _to_table(self, tex_mm):
        right, down = self._axes
        w, h = self._size
        return self.centre + (tex_mm[0] - w / 2) * right + (tex_mm[1] - h * 0.42) * down

    def corners(self, z_mm: float) -> np.ndarray:
        w, h = self._size
        pts = [self._to_table(p) for p in ((0, 0), (w, 0), (w, h), (0, h))]
        return np.array([[p[0], p[1], z_mm] for p in pts])

    def outline_px(self, camera) -> np.ndarray:
        """The hand's convex outline in the picture (what it can cover)."""
        pts = np.hstack([self.hull_mm, np.full((len(self.hull_mm), 1), -self.height_mm)])
        return camera.project(pts)

    def draw(self, canvas: Canvas, *, shadow_offset_mm=(18.0, 12.0)):
        sh = self.texture.copy()
        sh[..., :3] = 0
        sh[..., 3] = cv2.GaussianBlur(sh[..., 3], (0, 0), 6.0) * 0.35
        c = self.corners(0.0)
        c[:, 0] += shadow_offset_mm[0]
        c[:, 1] += shadow_offset_mm[1]
        canvas.quad(sh, c)
        canvas.quad(self.texture, self.corners(-self.height_mm))
