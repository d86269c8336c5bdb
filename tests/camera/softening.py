"""Soft pictures for the camera's tests and figures: a frame blurred as a lens out of focus
(a disc), a shaken camera (a line) or a soft lens (a Gaussian) would blur it, with the
sensor's noise and JPEG on top. A blur is named in a short notation: `gS` a Gaussian of S px,
`dR` a disc of radius R px, `mL` a line of L px at 30°, `nS` noise of S grey levels, `jQ`
JPEG at quality Q; `+` chains them (`g2.0+n6+j60`)."""

from __future__ import annotations

import cv2
import numpy as np


def disc(img: np.ndarray, r: int) -> np.ndarray:
    """A lens out of focus: each point spread over a disc of radius `r` px."""
    k = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    cv2.circle(k, (r, r), r, 1.0, -1)
    return cv2.filter2D(img, -1, k / k.sum())


def _motion(img: np.ndarray, length: int, turn_deg: float = 30.0) -> np.ndarray:
    """A shaken camera: each point drawn out along a line of `length` px."""
    k = np.zeros((length, length), np.float32)
    k[length // 2, :] = 1.0
    m = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), turn_deg, 1.0)
    k = cv2.warpAffine(k, m, (length, length))
    return cv2.filter2D(img, -1, k / k.sum())


def soften(img: np.ndarray, blur: str, rng: np.random.Generator) -> np.ndarray:
    """`img` blurred as `blur` (the notation above) says; the noise drawn from `rng`."""
    out = img
    for part in blur.split("+"):
        kind, value = part[0], float(part[1:])
        if kind == "g":
            out = cv2.GaussianBlur(out, (0, 0), value)
        elif kind == "d":
            out = disc(out, int(value))
        elif kind == "m":
            out = _motion(out, int(value))
        elif kind == "n":
            out = np.clip(out.astype(np.float32) + rng.normal(0, value, out.shape), 0, 255).astype(np.uint8)
        elif kind == "j":
            out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(value)])[1], cv2.IMREAD_COLOR)
        else:
            raise ValueError(f"unknown blur {part!r}")
    return out
