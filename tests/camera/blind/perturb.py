"""What the camera does to the light: every frame passes through a lens and a sensor, and each
named perturbation adds one more thing that happens at real tables."""

from __future__ import annotations

import cv2
import numpy as np

PERTURBATIONS = ("sharp", "blur", "noise", "dim", "warm", "jpeg")


def _vignette(h: int, w: int, strength: float) -> np.ndarray:
    # computed on a small grid and scaled up: the falloff is smooth, a 4K grid would cost time
    sh, sw = max(2, h // 16), max(2, w // 16)
    y, x = np.mgrid[0:sh, 0:sw].astype(np.float32)
    r2 = ((x - (sw - 1) / 2) / (sw / 2)) ** 2 + ((y - (sh - 1) / 2) / (sh / 2)) ** 2
    small = (1.0 - strength * r2 / 2.0).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _defocus_kernel(radius_px: float) -> np.ndarray:
    r = int(np.ceil(radius_px))
    y, x = np.mgrid[-r : r + 1, -r : r + 1]
    k = np.clip(radius_px + 0.5 - np.hypot(x, y), 0.0, 1.0).astype(np.float32)
    return k / k.sum()


def _motion_kernel(length_px: float, angle_rad: float) -> np.ndarray:
    n = int(np.ceil(length_px)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = np.cos(angle_rad) * length_px / 2, np.sin(angle_rad) * length_px / 2
    cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1, cv2.LINE_AA)
    return k / k.sum()


def camera_pipeline(linear_bgr: np.ndarray, perturbation: str, rng: np.random.Generator) -> np.ndarray:
    """8-bit BGR frame from a float BGR scene (0..1 reflected light). Deterministic in rng."""
    if perturbation not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {perturbation!r}; one of {', '.join(PERTURBATIONS)}")
    img = linear_bgr.astype(np.float32, copy=False)
    h, w = img.shape[:2]
    # every frame: lens softness, vignetting, exposure wobble
    img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.35, 0.7)))
    img = img * _vignette(h, w, float(rng.uniform(0.05, 0.22)))[..., None] * float(rng.uniform(0.93, 1.05))
    if perturbation == "blur":
        kind = rng.integers(3)
        if kind == 0:
            img = cv2.filter2D(img, -1, _defocus_kernel(float(rng.uniform(1.2, 2.2))))
        elif kind == 1:
            img = cv2.filter2D(img, -1, _motion_kernel(float(rng.uniform(2.5, 4.5)), float(rng.uniform(0, np.pi))))
        else:
            img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.9, 1.5)))
    elif perturbation == "dim":
        img = img * float(rng.uniform(0.3, 0.45))
    elif perturbation == "warm":
        # a tungsten lamp the white balance did not follow: blue down, red up
        img = img * np.array([rng.uniform(0.62, 0.75), rng.uniform(0.9, 0.97), rng.uniform(1.05, 1.15)], np.float32)
    # sensor: shot noise grows with the signal, read noise does not
    shot = 0.010 if perturbation != "noise" else float(rng.uniform(0.03, 0.05))
    read = 0.004 if perturbation != "noise" else float(rng.uniform(0.012, 0.022))
    if perturbation == "dim":
        read *= 1.8
    sigma = np.sqrt(np.clip(img, 0, None) * shot * shot + read * read)
    noise = rng.standard_normal(img.shape[:2], dtype=np.float32)[..., None] * 0.8
    noise = noise + rng.standard_normal(img.shape, dtype=np.float32) * 0.6
    img = img + sigma * noise
    # display gamma and quantisation
    img = np.clip(img, 0.0, 1.0)
    out = (np.power(img, 1 / 1.1) * 255.0 + 0.5).astype(np.uint8)
    if perturbation == "jpeg":
        q = int(rng.integers(30, 58))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        assert ok
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
