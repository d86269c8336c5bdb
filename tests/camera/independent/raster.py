"""The picture as the sensor integrates it: drawn `ss` times larger, then area-averaged down.

Everything is drawn as planar textured quads placed in the table's 3-D frame and mapped onto
the picture through the camera's exact homography for that plane; 3-D objects (dice, the tray)
are drawn with a buffer of inverse depth so that what is nearer the camera wins, whatever the
order. Colours are float BGR in 0..255 while drawing.
"""

from __future__ import annotations

import weakref

import cv2
import numpy as np

from .camera import Camera


def rgba(texture_bgr: np.ndarray, alpha: np.ndarray | None = None) -> np.ndarray:
    """A float32 BGRA texture, alpha 0..1 (opaque when not given)."""
    t = texture_bgr.astype(np.float32)
    if alpha is None:
        alpha = np.ones(t.shape[:2], np.float32)
    return np.dstack([t, alpha.astype(np.float32)])


_PREMUL: dict[int, tuple[weakref.ref, np.ndarray]] = {}


def _premultiplied(texture: np.ndarray) -> np.ndarray:
    """Colour times alpha, so that warping blends edges right; kept for read-only (cached)
    textures, which are drawn again and again."""
    if not texture.flags.writeable:
        hit = _PREMUL.get(id(texture))
        if hit is not None and hit[0]() is texture:
            return hit[1]
    premul = texture.copy()
    premul[..., :3] *= premul[..., 3:4]
    if not texture.flags.writeable:
        if len(_PREMUL) > 512:
            _PREMUL.clear()
        _PREMUL[id(texture)] = (weakref.ref(texture), premul)
    return premul


class Canvas:
    def __init__(self, camera: Camera, ss: int, background: np.ndarray, *, depth: bool = False):
        if ss < 1:
            raise ValueError(f"supersampling must be >= 1, got {ss}")
        self.camera = camera
        self.ss = int(ss)
        h, w = camera.height * self.ss, camera.width * self.ss
        if background.shape[:2] != (h, w):
            raise ValueError("background does not match the supersampled picture")
        self.img = background.astype(np.float32, copy=False)
        self.inv_depth = np.zeros((h, w), np.float32) if depth else None

    def _bbox(self, pts: np.ndarray):
        h, w = self.img.shape[:2]
        x0 = max(int(np.floor(pts[:, 0].min())) - 1, 0)
        y0 = max(int(np.floor(pts[:, 1].min())) - 1, 0)
        x1 = min(int(np.ceil(pts[:, 0].max())) + 2, w)
        y1 = min(int(np.ceil(pts[:, 1].max())) + 2, h)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    def quad(
        self,
        texture: np.ndarray,
        corners_mm,
        *,
        depth_test: bool = False,
        depth_write: bool = False,
        opacity: float = 1.0,
    ) -> bool:
        """Draw a BGRA texture onto the planar quad whose corners (TL, TR, BR, BL of the
        texture) are given in table millimetres (4, 3). Returns whether anything was drawn."""
        corners = np.asarray(corners_mm, np.float64).reshape(4, -1)
        if corners.shape[1] == 2:
            corners = np.hstack([corners, np.zeros((4, 1))])
        dst = self.camera.project(corners, self.ss)
        box = self._bbox(dst)
        if box is None:
            return False
        x0, y0, x1, y1 = box
        th, tw = texture.shape[:2]
        src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32) - 0.5
        homography = cv2.getPerspectiveTransform(src, (dst - [x0, y0]).astype(np.float32))
        premul = _premultiplied(texture)
        warped = cv2.warpPerspective(
            premul,
            homography,
            (x1 - x0, y1 - y0),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0, 0),
        )
        alpha = warped[..., 3] * float(opacity)
        colour = warped[..., :3] * float(opacity)
        if depth_test or depth_write:
            keep = self._depth(np.ones_like(alpha), corners, box, depth_test, False)
            alpha = alpha * keep
            colour = colour * keep[..., None]
            if depth_write:
                self._depth(alpha, corners, box, False, True)
        region = self.img[y0:y1, x0:x1]
        region *= 1.0 - alpha[..., None]
        region += colour
        return True

    def polygon(self, corners_mm, colour_bgr, *, depth_test: bool = False, depth_write: bool = False,
                opacity: float = 1.0) -> bool:
        """Fill a planar polygon (table millimetres, (N, 3) or (N, 2) on the felt) with one
        colour; its edges are as sharp as the supersampled grid, like print on cloth."""
        corners = np.asarray(corners_mm, np.float64)
        if corners.shape[1] == 2:
            corners = np.hstack([corners, np.zeros((len(corners), 1))])
        dst = self.camera.project(corners, self.ss)
        box = self._bbox(dst)
        if box is None:
            return False
        x0, y0, x1, y1 = box
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        shift = 4
        pts = np.rint((dst - [x0, y0]) * (1 << shift)).astype(np.int32)
        cv2.fillPoly(mask, [pts], 1, cv2.LINE_8, shift)
        alpha = mask.astype(np.float32) * float(opacity)
        if depth_test or depth_write:
            alpha = self._depth(alpha, corners, box, depth_test, depth_write)
        region = self.img[y0:y1, x0:x1]
        region *= 1.0 - alpha[..., None]
        region += alpha[..., None] * np.asarray(colour_bgr, np.float32)
        return True

    def _depth(self, alpha, corners, box, depth_test, depth_write):
        if self.inv_depth is None:
            raise ValueError("this canvas keeps no depth")
        x0, y0, x1, y1 = box
        normal = np.cross(corners[1] - corners[0], corners[-1] - corners[0])
        a, b, c = self.camera.inverse_depth_plane(corners[0], normal, self.ss)
        us = np.arange(x0, x1, dtype=np.float32)
        vs = np.arange(y0, y1, dtype=np.float32)
        w_new = (a * us[None, :] + b * vs[:, None] + c).astype(np.float32)
        buf = self.inv_depth[y0:y1, x0:x1]
        if depth_test:
            alpha = alpha * (w_new >= buf * (1 - 2e-4))
        if depth_write:
            write = alpha > 0.5
            buf[write] = w_new[write]
        return alpha

    def result(self) -> np.ndarray:
        """The picture at the camera's resolution: the supersampled one area-averaged down."""
        img = self.img
        if self.ss > 1:
            img = cv2.resize(img, (self.camera.width, self.camera.height), interpolation=cv2.INTER_AREA)
        return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def felt_background(camera: Camera, ss: int, colour_bgr, rng: np.random.Generator, *, grain: float = 4.0) -> np.ndarray:
    """Felt of one plain colour with the faint low-frequency mottling and fibre grain of cloth
    (the grain at about a sensor pixel, made at the camera's size and enlarged)."""
    h, w = camera.height, camera.width
    low = rng.normal(0.0, 1.0, (max(h // 24, 2), max(w // 24, 2))).astype(np.float32)
    field = cv2.resize(low, (w, h), interpolation=cv2.INTER_CUBIC) * (grain * 0.6)
    field += rng.normal(0.0, grain, (h, w)).astype(np.float32)
    base = field[..., None] + np.asarray(colour_bgr, np.float32)
    if ss > 1:
        base = cv2.resize(base, (w * ss, h * ss), interpolation=cv2.INTER_LINEAR)
    return base
