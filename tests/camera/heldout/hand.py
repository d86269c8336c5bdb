"""The dealer's hand held over the table: a palm, four fingers and a thumb, drawn through the
camera at a height above the felt, with its soft shadow."""

from __future__ import annotations

import cv2
import numpy as np

from .camera_model import Camera

SKIN_TONES = [(0.62, 0.42, 0.30), (0.45, 0.28, 0.18), (0.72, 0.55, 0.45), (0.30, 0.18, 0.11),
              (0.55, 0.40, 0.33)]
#: a white glove, as some studios use
GLOVE = (0.80, 0.80, 0.78)


def hand_mask(cam: Camera, palm_xy_mm, angle_rad, height_mm, scale, ss=1) -> np.ndarray:
    """Float mask (0..1, image size) of a hand whose palm centre is above `palm_xy_mm`,
    fingers pointing along `angle_rad` on the table."""
    w, h = cam.width_px * ss, cam.height_px * ss
    mask = np.zeros((h, w), np.uint8)
    c, s = np.cos(angle_rad), np.sin(angle_rad)

    def to_img(pts):
        pts = np.asarray(pts, float) * scale
        world = np.stack([palm_xy_mm[0] + pts[:, 0] * s + pts[:, 1] * c,
                          palm_xy_mm[1] - pts[:, 0] * c + pts[:, 1] * s,
                          np.full(len(pts), height_mm)], 1)
        return cam.project(world) * ss

    t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    palm = to_img(np.stack([44 * np.cos(t), 52 * np.sin(t)], 1))
    cv2.fillPoly(mask, [np.round(palm * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    px_per_mm = np.linalg.norm(to_img([[0, 0], [0, 10]])[1] - to_img([[0, 0], [0, 10]])[0]) / (10 * scale)
    fingers = [((-27, 35), (-31, 100)), ((-9, 42), (-10, 120)), ((9, 42), (10, 124)),
               ((26, 36), (30, 108)), ((-42, -5), (-78, 45))]
    for (a, b) in fingers:
        pa, pb = to_img([a, b])
        thick = max(1, int(round(18 * scale * px_per_mm)))
        cv2.line(mask, tuple(np.round(pa).astype(int)), tuple(np.round(pb).astype(int)), 255,
                 thick, cv2.LINE_AA)
    m = mask.astype(np.float32) / 255
    if ss > 1:
        m = cv2.resize(m, (cam.width_px, cam.height_px), interpolation=cv2.INTER_AREA)
    return m


def draw_hand(img_lin: np.ndarray, mask: np.ndarray, light_xy, rgb, rng) -> np.ndarray:
    """Composite a hand (mask from hand_mask) onto a linear RGB image with its shadow."""
    h, w = mask.shape
    shift = np.float32([[1, 0, -light_xy[0] * 40], [0, 1, light_xy[1] * 40]])
    shadow = cv2.warpAffine(mask, shift, (w, h))
    shadow = cv2.GaussianBlur(shadow, (0, 0), 25)
    out = img_lin * (1 - 0.45 * shadow[..., None])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    shade = 0.85 + 0.25 * np.sin(xx / 90.0 + rng.uniform(0, 6)) * np.cos(yy / 110.0)
    inner = cv2.GaussianBlur(mask, (0, 0), 6)
    col = np.asarray(rgb, np.float32)[None, None, :] * (shade * (0.6 + 0.4 * inner))[..., None]
    a = mask[..., None]
    return out * (1 - a) + col * a
