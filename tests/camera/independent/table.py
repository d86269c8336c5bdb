"""The felt and the zones marked on it."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .raster import Canvas, rgba

FELTS_BGR = {
    "green": (52, 102, 30),
    "blue": (110, 60, 20),
    "burgundy": (40, 30, 100),
    "teal": (90, 90, 20),
    "grey": (88, 84, 80),
}
LINES_BGR = ((215, 225, 230), (110, 190, 220), (190, 200, 160))


@dataclass(frozen=True)
class Zone:
    name: str
    centre_mm: tuple[float, float]
    rotation_deg: float  # of the zone's x axis from the table's x axis
    size_mm: tuple[float, float]  # (width, depth)

    def axes(self):
        a = np.radians(self.rotation_deg)
        ux = np.array([np.cos(a), np.sin(a)])
        uy = np.array([-np.sin(a), np.cos(a)])
        return ux, uy

    def to_table(self, local_mm) -> np.ndarray:
        ux, uy = self.axes()
        p = np.asarray(local_mm, float).reshape(-1, 2)
        return np.asarray(self.centre_mm) + p[:, :1] * ux + p[:, 1:2] * uy

    def corners_mm(self, grow_mm: float = 0.0) -> np.ndarray:
        """TL, TR, BR, BL in the zone's own frame (TL: -x, -y), on the table."""
        w, d = self.size_mm[0] / 2 + grow_mm, self.size_mm[1] / 2 + grow_mm
        return self.to_table([(-w, -d), (w, -d), (w, d), (-w, d)])


def _label_texture(text: str, colour, height_mm: float, px_per_mm: float = 8.0) -> tuple[np.ndarray, float]:
    scale = height_mm * px_per_mm / 22.0
    thick = max(int(scale * 2.2), 1)
    (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    pad = thick * 2
    mask = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(mask, text, (pad, pad + th), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thick, cv2.LINE_AA)
    img = np.empty(mask.shape + (3,), np.float32)
    img[:] = colour
    return rgba(img, mask.astype(np.float32) / 255.0), mask.shape[1] / px_per_mm


def draw_zone(canvas: Canvas, zone: Zone, colour, *, line_mm: float = 4.0, label_side: float = 1.0) -> None:
    """The zone's outline (its outer edge on the zone's boundary) and its name beside it, on
    the side of +y (towards the dealer) when label_side > 0."""
    c = zone.corners_mm()
    inner = zone.corners_mm(-line_mm)
    for i in range(4):
        j = (i + 1) % 4
        canvas.polygon([c[i], c[j], inner[j], inner[i]], colour)
    label, width_mm = _label_texture(zone.name, colour, 18.0)
    lh_mm = width_mm * label.shape[0] / label.shape[1]
    y0 = label_side * (zone.size_mm[1] / 2 + 6.0) if label_side > 0 else -(zone.size_mm[1] / 2 + 6.0 + lh_mm)
    box = zone.to_table([(-width_mm / 2, y0), (width_mm / 2, y0), (width_mm / 2, y0 + lh_mm), (-width_mm / 2, y0 + lh_mm)])
    canvas.quad(label, box)
