"""QR decoders behind one small interface, restricted to QR Model 2 (CARD_FACES.md): no other
symbology is ever on our cards, and decoders allowed to try them produce false reads.

* `zxing` (zxing-cpp): the default (`auto` picks it when installed): in the benchmark it
  decodes a newly turned card about twice as fast as pyzbar, and in the accuracy suite it
  left fewer cards `XX` under blur (docs/camera.md has the figures).
* `zbar` (pyzbar): the fallback, and the decoder the station started with.

Each read gives the text, the symbol's centre and its turn on the table in degrees (0 = the
symbol upright in the picture, 90 = its top turned to the right), which the recogniser uses
to tell the two symbols of one card from those of two cards.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True, slots=True)
class QrRead:
    text: str
    centre: tuple[float, float]
    orientation: float | None  # degrees, see module doc; None when the decoder cannot say
    polygon: tuple[tuple[float, float], ...]

    def scaled(self, k: float) -> QrRead:
        return QrRead(
            self.text,
            (self.centre[0] * k, self.centre[1] * k),
            self.orientation,
            tuple((x * k, y * k) for x, y in self.polygon),
        )

    def shifted(self, dx: float, dy: float) -> QrRead:
        return QrRead(
            self.text,
            (self.centre[0] + dx, self.centre[1] + dy),
            self.orientation,
            tuple((x + dx, y + dy) for x, y in self.polygon),
        )


class QrDecoder(Protocol):
    name: str

    def decode(self, gray: np.ndarray) -> list[QrRead]: ...


_ZBAR_QUADRANT = {"UP": 0.0, "RIGHT": 90.0, "DOWN": 180.0, "LEFT": 270.0}


def _refine(quadrant: float, polygon: list[tuple[float, float]]) -> float:
    """zbar tells the symbol's quarter turn; the sides of its outline tell the angle modulo
    90°. Together: the full angle."""
    if len(polygon) < 4:
        return quadrant
    pts = np.asarray(polygon, np.float64)
    angles = []
    for i in range(len(pts)):
        dx, dy = pts[(i + 1) % len(pts)] - pts[i]
        if math.hypot(dx, dy) < 4:
            continue
        angles.append(math.degrees(math.atan2(dy, dx)) % 90.0)
    if not angles:
        return quadrant
    # circular mean on the 90° circle
    s = sum(math.sin(math.radians(a * 4)) for a in angles)
    c = sum(math.cos(math.radians(a * 4)) for a in angles)
    mod = (math.degrees(math.atan2(s, c)) / 4) % 90.0
    best = min((quadrant + mod + k * 90.0 for k in (-1, 0, 1)), key=lambda a: abs(a - quadrant))
    return best % 360.0


class ZbarDecoder:
    name = "zbar"

    def __init__(self) -> None:
        from pyzbar import pyzbar

        self._pyzbar = pyzbar
        self._symbols = [pyzbar.ZBarSymbol.QRCODE]

    def decode(self, gray: np.ndarray) -> list[QrRead]:
        out = []
        for d in self._pyzbar.decode(gray, symbols=self._symbols):
            if d.type != "QRCODE":
                continue
            try:
                text = d.data.decode("utf-8")
            except UnicodeDecodeError:
                text = "\ufffd"  # not our text: the card will be XX
            poly = [(float(p.x), float(p.y)) for p in d.polygon]
            cx = sum(p[0] for p in poly) / len(poly)
            cy = sum(p[1] for p in poly) / len(poly)
            quadrant = _ZBAR_QUADRANT.get(getattr(d, "orientation", None) or "", None)
            angle = None if quadrant is None else _refine(quadrant, poly)
            out.append(QrRead(text, (cx, cy), angle, tuple(poly)))
        return out


class ZxingDecoder:
    name = "zxing"

    def __init__(self) -> None:
        import zxingcpp

        self._zx = zxingcpp
        self._formats = zxingcpp.BarcodeFormat.QRCode

    def decode(self, gray: np.ndarray) -> list[QrRead]:
        out = []
        for r in self._zx.read_barcodes(gray, formats=self._formats):
            if not r.valid:
                continue
            p = r.position
            poly = [(float(q.x), float(q.y)) for q in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)]
            cx = sum(q[0] for q in poly) / 4
            cy = sum(q[1] for q in poly) / 4
            # the symbol's own top edge, top-left to top-right, gives its turn directly
            ang = math.degrees(math.atan2(poly[1][1] - poly[0][1], poly[1][0] - poly[0][0])) % 360.0
            out.append(QrRead(r.text, (cx, cy), ang, tuple(poly)))
        return out


DECODERS = {"zbar": ZbarDecoder, "zxing": ZxingDecoder}
DEFAULT_DECODER = "auto"


def make_decoder(name: str = DEFAULT_DECODER) -> QrDecoder:
    """`auto` is zxing-cpp when installed (faster and more robust on our cards, see
    docs/camera.md), else pyzbar."""
    if name == "auto":
        try:
            return ZxingDecoder()
        except ImportError:
            return ZbarDecoder()
    if name not in DECODERS:
        raise ValueError(f"no QR decoder {name!r}; choose auto or one of {', '.join(DECODERS)}")
    try:
        return DECODERS[name]()
    except ImportError as exc:
        raise ValueError(f"QR decoder {name!r} is not installed ({exc})") from exc
