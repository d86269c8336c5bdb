"""Our card faces, backs and cut card (CARD_FACES.md), both ways round.

* `parse_face_text` is the one place that decides whether a QR text is a card: `7H` or
  `7H/3-0417`. Anything else makes the card unreadable (`XX`).
* `CardArtist` draws faces, backs and the cut card as the printer does, at the camera's
  scale, for the synthetic camera. The QR symbols come from OpenCV's own encoder, fixed to
  version 1 and error correction M like the printed decks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import cv2
import numpy as np

from firmware_bridge.camera.layout import (
    CARD_H_MM,
    CARD_W_MM,
    QR_MARGIN_MM,
    QR_MODULES,
    QR_QUIET_MODULES,
    QR_WIDTH_MM,
)
from firmware_bridge.cards import CardError, parse_card

# Printed code on serialized decks: what the shoe sends as CARD's optional field. A frame
# field cannot carry `$ * ,` and the slash separates it from the card, so neither may it.
_FACE_RE = re.compile(r"([A2-9TJQK][SHDC])(?:/([\x21-\x7e]{1,24}))?")
_FORBIDDEN_IN_CODE = set("$*,/")


@dataclass(frozen=True, slots=True)
class FaceText:
    card: str  # canonical, e.g. "7H"
    code: str | None  # printed code on serialized decks


def parse_face_text(text: str) -> FaceText | None:
    """The card a QR text names, or None when the text is not of our decks' form."""
    m = _FACE_RE.fullmatch(text)
    if m is None:
        return None
    code = m.group(2)
    if code is not None and _FORBIDDEN_IN_CODE & set(code):
        return None
    try:
        card = str(parse_card(m.group(1)))
    except CardError:
        return None
    return FaceText(card, code)


def face_text(card: str, code: str | None = None) -> str:
    """The QR text printed on a card (inverse of parse_face_text)."""
    c = str(parse_card(card))
    if code is None:
        return c
    if not code or _FORBIDDEN_IN_CODE & set(code) or any(not 0x21 <= ord(ch) <= 0x7E for ch in code):
        raise ValueError(f"printed code {code!r} cannot be carried by the shoe or the QR text")
    return f"{c}/{code}"


_QR_PARAMS = cv2.QRCodeEncoder_Params()
_QR_PARAMS.version = 1
_QR_PARAMS.correction_level = cv2.QRCodeEncoder_CORRECT_LEVEL_M
_QR_ENCODER = cv2.QRCodeEncoder.create(_QR_PARAMS)


def qr_modules(text: str) -> np.ndarray:
    """The symbol as a (25, 25) uint8 array, 0 = dark module, quiet zone of 2 included."""
    img = _QR_ENCODER.encode(text)
    side = QR_MODULES + 2 * QR_QUIET_MODULES
    if img is None or img.shape != (side, side):
        raise ValueError(f"{text!r} does not fit a version-1, EC-M QR symbol")
    return img


_SUPERSAMPLE = 4
_RED = (40, 40, 200)
_BLACK = (25, 25, 25)
FACE_WHITE = (243, 244, 240)
BACK_BLUE = (150, 70, 25)
BACK_LINE = (195, 125, 65)
CUT_BLACK = (18, 18, 20)


def _suit_glyph(img: np.ndarray, suit: str, cx: float, cy: float, size: float) -> None:
    """Draw a suit symbol of height `size` centred at (cx, cy)."""
    colour = _RED if suit in "HD" else _BLACK
    s = size / 2
    if suit == "D":
        pts = np.array([[cx, cy - s], [cx + 0.7 * s, cy], [cx, cy + s], [cx - 0.7 * s, cy]])
        cv2.fillPoly(img, [pts.astype(np.int32)], colour, cv2.LINE_AA)
        return
    r = 0.48 * s
    if suit == "H":
        cv2.circle(img, (int(cx - r * 0.95), int(cy - 0.35 * s)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + r * 0.95), int(cy - 0.35 * s)), int(r), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - 1.9 * r, cy - 0.2 * s], [cx + 1.9 * r, cy - 0.2 * s], [cx, cy + s]])
        cv2.fillPoly(img, [pts.astype(np.int32)], colour, cv2.LINE_AA)
        return
    if suit == "S":
        cv2.circle(img, (int(cx - r * 0.95), int(cy + 0.2 * s)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + r * 0.95), int(cy + 0.2 * s)), int(r), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - 1.9 * r, cy + 0.05 * s], [cx + 1.9 * r, cy + 0.05 * s], [cx, cy - s]])
        cv2.fillPoly(img, [pts.astype(np.int32)], colour, cv2.LINE_AA)
    else:  # clubs
        cv2.circle(img, (int(cx), int(cy - 0.45 * s)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx - r * 1.05), int(cy + 0.15 * s)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + r * 1.05), int(cy + 0.15 * s)), int(r), colour, -1, cv2.LINE_AA)
    stem = np.array([[cx, cy], [cx + 0.35 * s, cy + s], [cx - 0.35 * s, cy + s]])
    cv2.fillPoly(img, [stem.astype(np.int32)], colour, cv2.LINE_AA)


class CardArtist:
    """Card images at `mm_per_px`, drawn 4× larger and averaged down like a printed card
    photographed by a sharp lens. Images are cached: a table needs at most 52 faces."""

    def __init__(self, mm_per_px: float, *, qr_margin_mm: float = QR_MARGIN_MM, back_design=None) -> None:
        self.mm_per_px = mm_per_px
        self.qr_margin_mm = qr_margin_mm
        self.back_design = back_design  # a decks.BackDesign, None: our blue lattice
        self.size = (round(CARD_W_MM / mm_per_px), round(CARD_H_MM / mm_per_px))  # (w, h)
        self._cache: dict[tuple[str, ...], np.ndarray] = {}

    def _finish(self, big: np.ndarray) -> np.ndarray:
        return cv2.resize(big, self.size, interpolation=cv2.INTER_AREA)

    def _canvas(self, colour: tuple[int, int, int]) -> tuple[np.ndarray, float]:
        px_per_mm = _SUPERSAMPLE / self.mm_per_px
        w, h = self.size[0] * _SUPERSAMPLE, self.size[1] * _SUPERSAMPLE
        img = np.empty((h, w, 3), np.uint8)
        img[:] = colour
        return img, px_per_mm

    def face(self, card: str, code: str | None = None, *, misprint: str | None = None) -> np.ndarray:
        """A card face. `misprint` puts a different text in the bottom-right symbol (a faulty
        print run, which the station must read as XX)."""
        key = ("face", card, code or "", misprint or "")
        if key in self._cache:
            return self._cache[key]
        c = parse_card(card)
        img, k = self._canvas(FACE_WHITE)
        h, w = img.shape[:2]
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), (200, 200, 200), max(1, int(0.3 * k)))
        qr_side_mm = QR_WIDTH_MM / QR_MODULES * (QR_MODULES + 2 * QR_QUIET_MODULES)
        side = round(qr_side_mm * k)
        top = face_text(card, code)
        for text, corner in ((top, "tl"), (misprint or top, "br")):
            sym = cv2.resize(qr_modules(text), (side, side), interpolation=cv2.INTER_NEAREST)
            sym = cv2.cvtColor(sym, cv2.COLOR_GRAY2BGR)
            sym[sym > 127] = FACE_WHITE[0]
            m = round(self.qr_margin_mm * k)
            if corner == "tl":
                img[m : m + side, m : m + side] = sym
            else:
                img[h - m - side : h - m, w - m - side : w - m] = sym[::-1, ::-1]
        colour = _RED if c.suit in "HD" else _BLACK
        rank = "10" if c.rank == "T" else c.rank
        font = cv2.FONT_HERSHEY_DUPLEX
        # Centre print: big rank over a big suit, for the people at the table; codes set
        # further in leave less room between them, and the print never runs over a code.
        compact = self.qr_margin_mm > 3.0
        scale = (0.10 if compact else 0.16) * k
        (tw, th), _ = cv2.getTextSize(rank, font, scale, max(1, int(0.12 * k * 10)))
        cv2.putText(img, rank, (int(w / 2 - tw / 2), int(h * (0.465 if compact else 0.47))), font, scale, colour,
                    max(1, int((0.8 if compact else 1.2) * k)), cv2.LINE_AA)
        _suit_glyph(img, c.suit, w / 2, h * (0.565 if compact else 0.62), (9 if compact else 16) * k)
        # Corner indices in the two corners without a symbol.
        small = 0.07 * k
        cv2.putText(img, rank, (int(w - 11 * k), int(8 * k)), font, small, colour, max(1, int(0.6 * k)), cv2.LINE_AA)
        _suit_glyph(img, c.suit, w - 8 * k, 13 * k, 5 * k)
        cv2.putText(img, rank, (int(3 * k), int(h - 9 * k)), font, small, colour, max(1, int(0.6 * k)), cv2.LINE_AA)
        _suit_glyph(img, c.suit, 6 * k, h - 5 * k, 5 * k)
        out = self._finish(img)
        self._cache[key] = out
        return out

    def back(self) -> np.ndarray:
        """The uniform back of our deck set: a blue lattice to the edge within a thin
        white border; never a code."""
        key = ("back",)
        if key in self._cache:
            return self._cache[key]
        if self.back_design is not None:
            from firmware_bridge.camera.decks import paint_back

            self._cache[key] = paint_back(self.back_design, self.mm_per_px)
            return self._cache[key]
        img, k = self._canvas(BACK_BLUE)
        h, w = img.shape[:2]
        step = 5 * k
        thick = max(1, int(0.5 * k))
        for i in range(-int(h / step) - 2, int(w / step) + int(h / step) + 2):
            x = i * step
            cv2.line(img, (int(x), 0), (int(x + h), h), BACK_LINE, thick, cv2.LINE_AA)
            cv2.line(img, (int(x), 0), (int(x - h), h), BACK_LINE, thick, cv2.LINE_AA)
        b = max(1, int(1.5 * k))
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), FACE_WHITE, b)
        out = self._finish(img)
        self._cache[key] = out
        return out

    def cut(self) -> np.ndarray:
        key = ("cut",)
        if key not in self._cache:
            img, _ = self._canvas(CUT_BLACK)
            self._cache[key] = self._finish(img)
        return self._cache[key]
