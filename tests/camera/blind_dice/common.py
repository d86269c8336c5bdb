"""Small shared helpers: deterministic RNG, colour conversions."""
from __future__ import annotations

import zlib

import numpy as np

W, H = 1920, 1080

# RNG stream tags (arbitrary constants, never Python's hash()).
TAG_TABLE = 7301
TAG_THROW = 7302
TAG_PERT = 7303
TAG_TEX = 7304


def rng_for(*ints: int) -> np.random.Generator:
    return np.random.default_rng([int(i) & 0xFFFFFFFF for i in ints])


def name_key(s: str) -> int:
    return zlib.crc32(s.encode("utf-8")) & 0xFFFFFFFF


def srgb_to_linear(c) -> np.ndarray:
    c = np.asarray(c, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1.0 / 2.4) - 0.055)


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear-RGB colour of a black body (Tanner Helland fit), luminance 1."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * np.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * np.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    c = np.clip(np.array([r, g, b]) / 255.0, 0.0, 1.0)
    lin = srgb_to_linear(c)
    return lin / luminance(lin)


def luminance(c) -> float:
    c = np.asarray(c, dtype=np.float64)
    return float(0.2126 * c[..., 0] + 0.7152 * c[..., 1] + 0.0722 * c[..., 2])


def normalize(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def smoothstep01(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x * x * (3.0 - 2.0 * x)
