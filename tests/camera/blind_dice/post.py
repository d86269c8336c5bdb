"""The camera: exposure, white balance, vignetting, optics, sensor noise, 8-bit sRGB, and the
studio conditions (perturbations)."""
from __future__ import annotations

import cv2
import numpy as np

from .common import linear_to_srgb

_LUT = (linear_to_srgb(np.linspace(0, 1, 65536)) * 255.0).astype(np.float32)
from .tables import Table

PERTURBATIONS: tuple = ("sharp", "blur", "noise", "dim", "warm", "jpeg")


def _disc_kernel(radius):
    r = int(np.ceil(radius))
    yy, xx = np.mgrid[-r - 1:r + 2, -r - 1:r + 2].astype(np.float32)
    # antialiased disc
    k = np.clip(radius + 0.5 - np.hypot(xx, yy), 0, 1)
    return k / k.sum()


def _motion_kernel(length, angle):
    size = int(np.ceil(length)) + 3
    size += 1 - size % 2
    k = np.zeros((size * 4, size * 4), np.float32)
    c = size * 2
    dx, dy = np.cos(angle) * length * 2, np.sin(angle) * length * 2
    cv2.line(k, (int(c - dx), int(c - dy)), (int(c + dx), int(c + dy)), 1.0, 2, cv2.LINE_AA)
    k = cv2.resize(k, (size, size), interpolation=cv2.INTER_AREA)
    return k / k.sum()


def _noise(img, rng, shot, read):
    """Heteroscedastic sensor noise in linear light, slightly correlated (demosaicing)."""
    sigma = np.sqrt(shot * np.clip(img, 0, None) + read * read).astype(np.float32)
    nz = rng.standard_normal(img.shape, dtype=np.float32)
    nz = cv2.GaussianBlur(nz, (0, 0), 0.55)
    lum = rng.standard_normal(img.shape[:2], dtype=np.float32)
    lum = cv2.GaussianBlur(lum, (0, 0), 0.55)
    nz *= np.float32(0.6 * 1.9)
    nz += np.float32(0.8 * 1.9) * lum[:, :, None]
    nz *= sigma
    return img + nz


def develop(lin: np.ndarray, table: Table, perturbation: str, rng: np.random.Generator):
    img = lin * np.float32(table.exposure)
    img = img * table.wb_gains.astype(np.float32)[None, None, :]
    img = img * table.vignette_map[:, :, None]
    img = cv2.GaussianBlur(img, (0, 0), table.optics_sigma)
    shot, read = 0.00004 * table.base_noise, 0.0012 * table.base_noise
    if perturbation == "blur":
        if rng.random() < 0.5:
            img = cv2.filter2D(img, -1, _disc_kernel(rng.uniform(1.6, 3.0)),
                               borderType=cv2.BORDER_REFLECT)
        else:
            img = cv2.filter2D(img, -1, _motion_kernel(rng.uniform(3.0, 6.0),
                                                       rng.uniform(0, np.pi)),
                               borderType=cv2.BORDER_REFLECT)
    elif perturbation == "noise":
        shot, read = rng.uniform(0.0006, 0.0012), rng.uniform(0.006, 0.012)
    elif perturbation == "dim":
        gain = rng.uniform(0.22, 0.4)
        img = img * np.float32(gain)
        shot, read = rng.uniform(0.0003, 0.0006), rng.uniform(0.004, 0.008)
    elif perturbation == "warm":
        # tungsten-balanced light left uncorrected: an orange cast
        g = np.array([1.0, rng.uniform(0.80, 0.86), rng.uniform(0.48, 0.6)], np.float32)
        g = g / (0.2126 * g[0] + 0.7152 * g[1] + 0.0722 * g[2])
        img = img * g[None, None, :]
    img = _noise(img, rng, shot, read)
    idx = (np.clip(img, 0, 1) * np.float32(65535) + np.float32(0.5)).astype(np.uint16)
    out = _LUT[idx] + rng.random(img.shape, dtype=np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    bgr = np.ascontiguousarray(out[:, :, ::-1])
    if perturbation == "jpeg":
        q = int(rng.integers(30, 61))
        ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, q])
        bgr = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return bgr
