"""What a real camera does to a clean picture: each perturbation takes a BGR uint8 image and a
numpy Generator and returns a new image of the same size."""

from __future__ import annotations

import cv2
import numpy as np


def _sharp(img, rng):
    return img.copy()


def _blur(img, rng):
    kind = rng.integers(3)
    if kind == 0:      # out of focus
        r = int(rng.integers(2, 4))
        k = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
        cv2.circle(k, (r, r), r, 1.0, -1)
        return cv2.filter2D(img, -1, k / k.sum())
    if kind == 1:      # hand or camera motion
        n = int(rng.integers(5, 9))
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        k = cv2.warpAffine(k, rot, (n, n))
        return cv2.filter2D(img, -1, k / k.sum())
    return cv2.GaussianBlur(img, (0, 0), float(rng.uniform(1.0, 1.6)))


def _noise(img, rng):
    f = img.astype(np.float32)
    shot = rng.normal(0, 1, f.shape).astype(np.float32) * np.sqrt(f + 1) * 0.6
    read = rng.normal(0, float(rng.uniform(4, 8)), f.shape).astype(np.float32)
    return np.clip(f + shot + read, 0, 255).astype(np.uint8)


def _dim(img, rng):
    gain = float(rng.uniform(0.28, 0.42))
    f = img.astype(np.float32) * gain
    f += rng.normal(0, 2.5, f.shape).astype(np.float32)
    return np.clip(f, 0, 255).astype(np.uint8)


def _warm(img, rng):
    f = img.astype(np.float32)
    f[..., 2] *= rng.uniform(1.08, 1.18)   # R
    f[..., 1] *= rng.uniform(0.95, 1.0)    # G
    f[..., 0] *= rng.uniform(0.62, 0.75)   # B
    return np.clip(f, 0, 255).astype(np.uint8)


def _jpeg(img, rng):
    q = int(rng.integers(30, 56))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


PERTURBATIONS = {"sharp": _sharp, "blur": _blur, "noise": _noise, "dim": _dim,
                 "warm": _warm, "jpeg": _jpeg}


def pick(table: dict, name: str, what: str):
    """table[name], or a clear error naming what is known (dice sets, deck styles...)."""
    if name not in table:
        raise ValueError(f"unknown {what} {name!r}; known: {sorted(table)}")
    return table[name]


def apply(name: str, img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if name not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {name!r}; known: {sorted(PERTURBATIONS)}")
    return PERTURBATIONS[name](img, rng)


def sensor(img_f: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Linear RGB float [0,1] -> BGR uint8 as any camera gives it: lens softness, vignetting,
    gamma and a little noise. Every perturbation starts from this."""
    h, w = img_f.shape[:2]
    xs = ((np.arange(w, dtype=np.float32) - w / 2) / (w / 2)) ** 2
    ys = ((np.arange(h, dtype=np.float32) - h / 2) / (h / 2)) ** 2
    vignette = 1.0 - 0.09 * (ys[:, None] + xs[None, :])
    img = cv2.GaussianBlur(img_f.astype(np.float32), (0, 0), 0.55) * vignette[..., None]
    lut = (np.clip(np.arange(4096) / 4095.0, 0, 1) ** (1 / 2.2) * 255).astype(np.float32)
    img = lut[np.clip(img * 4095, 0, 4095).astype(np.int32)]
    img += rng.standard_normal(img.shape, dtype=np.float32) * 1.2
    return np.clip(img[..., ::-1], 0, 255).astype(np.uint8)
