"""What a real camera does to the picture, selectable by name (and chained: "blur+noise")."""

from __future__ import annotations

import cv2
import numpy as np


def _sharp(img, rng):
    return img.copy()


def _blur(img, rng):
    # slight defocus: a spread of under a pixel, at 0.30 mm/px about a quarter of a QR module
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.6, 1.0))


def _noise(img, rng):
    # sensor noise: shot noise growing with the signal, read noise, a little colour noise
    f = img.astype(np.float32)
    sigma = np.sqrt(4.0 + 0.06 * f)
    f += rng.normal(0.0, 1.0, f.shape).astype(np.float32) * sigma
    return np.clip(np.rint(f), 0, 255).astype(np.uint8)


def _dim(img, rng):
    # underexposed: less light, the same sensor, so noise shows more
    f = img.astype(np.float32) * rng.uniform(0.45, 0.6)
    f += rng.normal(0.0, 2.0, f.shape).astype(np.float32)
    return np.clip(np.rint(f), 0, 255).astype(np.uint8)


def _warm(img, rng):
    # white balance set for tungsten light: blue down, red up
    gains = np.array([rng.uniform(0.78, 0.86), 1.0, rng.uniform(1.08, 1.15)], np.float32)
    return np.clip(np.rint(img.astype(np.float32) * gains), 0, 255).astype(np.uint8)


def _jpeg(img, rng):
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _light_field(shape, centre, radius, floor):
    h, w = shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    d2 = ((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (radius**2)
    return floor + (1.0 - floor) / (1.0 + d2)


def _vignette(img, rng):
    h, w = img.shape[:2]
    centre = (w / 2 + rng.uniform(-0.05, 0.05) * w, h / 2 + rng.uniform(-0.05, 0.05) * h)
    field = _light_field(img.shape, centre, 0.75 * np.hypot(w, h) / 2, 0.35)
    field /= field.max()
    return np.clip(np.rint(img.astype(np.float32) * field[..., None]), 0, 255).astype(np.uint8)


def _spotlight(img, rng):
    # a ceiling spot off to one side: bright pool, the far corners in half light
    h, w = img.shape[:2]
    centre = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h)
    field = _light_field(img.shape, centre, 0.45 * max(w, h), 0.45)
    gain = 0.6 + 0.55 * field / field.max()
    return np.clip(np.rint(img.astype(np.float32) * gain[..., None]), 0, 255).astype(np.uint8)


PERTURBATIONS = {
    "sharp": _sharp,
    "blur": _blur,
    "noise": _noise,
    "dim": _dim,
    "warm": _warm,
    "jpeg": _jpeg,
    "vignette": _vignette,
    "spotlight": _spotlight,
}


def perturb(image_bgr: np.ndarray, name: str, *, seed: int = 0) -> np.ndarray:
    """The picture as a camera would give it under `name` ("sharp", "blur", "noise", "dim",
    "warm", "jpeg", "vignette", "spotlight", or several joined by "+", applied in order)."""
    if image_bgr.dtype != np.uint8 or image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
        raise ValueError("perturb takes an 8-bit BGR picture")
    rng = np.random.default_rng(seed)
    out = image_bgr
    for part in name.split("+"):
        try:
            fn = PERTURBATIONS[part.strip()]
        except KeyError:
            raise ValueError(f"unknown perturbation {part!r} (known: {', '.join(PERTURBATIONS)})") from None
        out = fn(out, rng)
    return out
