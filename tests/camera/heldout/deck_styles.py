"""Deck styles: faces and backs printed to CARD_FACES.md, as three printers might do it.

Fixed by the sheet: 63 x 88 mm cards; on the face a QR code (Model 2, version 1, EC level M),
22 mm wide with a 2-module quiet zone, black on white, top-left and turned 180 deg bottom-right,
carrying the card (`7H`) or on serialized decks the card, a slash and its printed code
(`7H/3-0417`); a corner index for people; backs a uniform pattern per deck set, never a code.
Left to the printer and varied here: the code's margin to the edge (2-6 mm), the mask pattern,
a little ink spread, the card stock's shade, the index's place and type, the centre art, and the
back's design and colours."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import segno

CARD_W_MM, CARD_H_MM = 63.0, 88.0
QR_MM = 22.0
QR_MODULES = 21
MODULE_MM = QR_MM / QR_MODULES
QUIET_MM = 2 * MODULE_MM
PX_PER_MM = 8          # resolution of a card's texture
RANKS = "A23456789TJQK"
SUITS = "SHDC"
RED_SUITS = "HD"


@dataclass(frozen=True)
class DeckStyle:
    name: str
    stock_rgb: tuple[float, float, float]      # linear RGB of the face's card stock
    qr_margin_mm: tuple[float, float]          # range, drawn per deck: symbol to card edge
    qr_mask: int | None                        # the printer's fixed mask, or the encoder's
    ink_spread_mm: float                       # dark modules print this much larger
    serialized: bool
    back_kind: str                             # lattice | flat_logo | dots | stripes
    back_rgb: tuple[float, float, float]
    back_rgb2: tuple[float, float, float]
    back_border_mm: float
    centre_art: str                            # suit | pips | frame
    felts: tuple[tuple[float, float, float], ...]   # the tables this deck is used on


DECK_STYLES: dict[str, DeckStyle] = {s.name: s for s in [
    DeckStyle("red_lattice", (0.88, 0.87, 0.84), (2.2, 3.5), None, 0.0, False, "lattice",
              (0.50, 0.03, 0.04), (0.85, 0.80, 0.75), 3.5, "suit",
              ((0.03, 0.22, 0.08), (0.02, 0.12, 0.22))),
    DeckStyle("blue_logo_serial", (0.90, 0.90, 0.90), (4.0, 6.0), 5, 0.08, True, "flat_logo",
              (0.03, 0.08, 0.35), (0.70, 0.55, 0.18), 0.0, "frame",
              ((0.03, 0.22, 0.08), (0.30, 0.04, 0.05))),
    DeckStyle("green_dots_on_green", (0.80, 0.78, 0.70), (3.0, 5.0), 2, 0.05, False, "dots",
              (0.02, 0.18, 0.06), (0.06, 0.35, 0.12), 2.0, "pips",
              ((0.02, 0.16, 0.06), (0.10, 0.10, 0.11))),
    DeckStyle("black_gold_stripes_serial", (0.92, 0.90, 0.86), (2.5, 5.5), None, 0.03, True,
              "stripes", (0.03, 0.03, 0.03), (0.55, 0.42, 0.12), 1.0, "suit",
              ((0.03, 0.22, 0.08), (0.20, 0.12, 0.05))),
]}


def qr_matrix(text: str, mask: int | None) -> np.ndarray:
    """21 x 21 module matrix (1 = dark) of a version 1, level M QR code."""
    qr = segno.make_qr(text, version=1, error="m", boost_error=False, mask=mask)
    assert qr.version == 1 and qr.error == "M"
    return np.array(qr.matrix, np.uint8)


def _mm(v):
    return int(round(v * PX_PER_MM))


def _suit_shape(img, suit, centre, size, colour):
    """Draw a suit symbol of height `size` px at `centre` (texture px)."""
    cx, cy = centre
    s = size / 2
    if suit == "D":
        pts = np.array([[cx, cy - s], [cx + 0.7 * s, cy], [cx, cy + s], [cx - 0.7 * s, cy]])
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)
        return
    if suit in "HS":
        sign = 1 if suit == "H" else -1
        r = 0.5 * s
        for dx in (-r, r):
            cv2.circle(img, (int(cx + dx), int(cy - sign * 0.35 * s)), int(r), colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - 2 * r + 0.5, cy - sign * 0.2 * s], [cx + 2 * r - 0.5, cy - sign * 0.2 * s],
                        [cx, cy + sign * s]])
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)
    else:
        r = 0.42 * s
        for dx, dy in ((0, -0.5 * s), (-0.52 * s, 0.15 * s), (0.52 * s, 0.15 * s)):
            cv2.circle(img, (int(cx + dx), int(cy + dy)), int(r), colour, -1, cv2.LINE_AA)
    if suit in "SC":
        pts = np.array([[cx, cy], [cx + 0.35 * s, cy + s], [cx - 0.35 * s, cy + s]])
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)


def _rounded_alpha(w, h, r):
    a = np.zeros((h, w), np.uint8)
    cv2.rectangle(a, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w - 1, h - 1 - r), 255, -1)
    for x, y in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(a, (x, y), r, 255, -1, cv2.LINE_AA)
    return a.astype(np.float32) / 255


def qr_text(style: DeckStyle, card: str, deck_no: int, serial: int) -> str:
    return f"{card}/{deck_no}-{serial:04d}" if style.serialized else card


def face_texture(style: DeckStyle, card: str, text: str, margin_mm: float) -> np.ndarray:
    """RGBA float texture (PX_PER_MM) of a card's face; codes at `margin_mm` from the edges."""
    w, h = _mm(CARD_W_MM), _mm(CARD_H_MM)
    img = np.empty((h, w, 3), np.float32)
    img[:] = style.stock_rgb
    ink = (0.01, 0.01, 0.01)
    suit_col = (0.55, 0.02, 0.03) if card[1] in RED_SUITS else ink
    # centre art, kept clear of the two code corners
    if style.centre_art == "frame":
        cv2.rectangle(img, (_mm(9), _mm(31)), (w - _mm(9), h - _mm(31)), (0.70, 0.55, 0.18), _mm(0.8))
        _suit_shape(img, card[1], (w // 2, h // 2), _mm(16), suit_col)
    elif style.centre_art == "pips":
        for dx, dy in ((-12, -8), (12, -8), (-12, 8), (12, 8), (0, 0)):
            _suit_shape(img, card[1], (w // 2 + _mm(dx), h // 2 + _mm(dy)), _mm(8), suit_col)
    else:
        _suit_shape(img, card[1], (w // 2, h // 2), _mm(24), suit_col)
    # the corner index for people: beside each code, toward the card's long middle
    rank = "10" if card[0] == "T" else card[0]
    for flip in (False, True):
        layer = np.zeros_like(img)
        alpha = np.zeros((h, w), np.float32)
        x = _mm(margin_mm + QR_MM + QUIET_MM + 1.5)
        cv2.putText(layer, rank, (x, _mm(margin_mm + 8)), cv2.FONT_HERSHEY_DUPLEX,
                    PX_PER_MM * 0.3, suit_col, _mm(0.8), cv2.LINE_AA)
        cv2.putText(alpha, rank, (x, _mm(margin_mm + 8)), cv2.FONT_HERSHEY_DUPLEX,
                    PX_PER_MM * 0.3, 1.0, _mm(0.8), cv2.LINE_AA)
        _suit_shape(layer, card[1], (x + _mm(3), _mm(margin_mm + 14)), _mm(6), suit_col)
        _suit_shape(alpha, card[1], (x + _mm(3), _mm(margin_mm + 14)), _mm(6), 1.0)
        if flip:
            layer, alpha = layer[::-1, ::-1], alpha[::-1, ::-1]
        img = img * (1 - alpha[..., None]) + layer * alpha[..., None]
    # the two codes, each on white with its quiet zone
    m = qr_matrix(text, style.qr_mask)
    mod = MODULE_MM * PX_PER_MM
    spread = style.ink_spread_mm * PX_PER_MM
    size = int(round((QR_MM + 2 * QUIET_MM) * PX_PER_MM))
    code = np.ones((size, size), np.float32)
    q = QUIET_MM * PX_PER_MM
    for r, c in zip(*np.nonzero(m), strict=True):
        x0, y0 = q + c * mod - spread / 2, q + r * mod - spread / 2
        cv2.rectangle(code, (int(round(x0 * 16)), int(round(y0 * 16))),
                      (int(round((x0 + mod + spread) * 16)) - 1, int(round((y0 + mod + spread) * 16)) - 1),
                      0.0, -1, cv2.LINE_8, shift=4)
    white = np.array([0.88, 0.88, 0.88], np.float32)
    black = 0.015
    off = int(round((margin_mm - QUIET_MM) * PX_PER_MM))
    for flip in (False, True):
        c = code[::-1, ::-1] if flip else code
        x0 = off if not flip else w - off - size
        y0 = off if not flip else h - off - size
        xs0, ys0 = max(x0, 0), max(y0, 0)
        patch = c[ys0 - y0:, xs0 - x0:][: h - ys0, : w - xs0]
        img[ys0:ys0 + patch.shape[0], xs0:xs0 + patch.shape[1]] = \
            black + (white - black) * patch[..., None]
    return np.dstack([img, _rounded_alpha(w, h, _mm(3))])


def back_texture(style: DeckStyle) -> np.ndarray:
    """RGBA float texture of the deck's back: one pattern for every card, never a code."""
    w, h = _mm(CARD_W_MM), _mm(CARD_H_MM)
    img = np.empty((h, w, 3), np.float32)
    img[:] = (0.85, 0.84, 0.80) if style.back_border_mm > 0 else style.back_rgb
    b = _mm(style.back_border_mm)
    inner = np.empty((h - 2 * b, w - 2 * b, 3), np.float32)
    inner[:] = style.back_rgb
    ih, iw = inner.shape[:2]
    c2 = style.back_rgb2
    if style.back_kind == "lattice":
        step = _mm(4)
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih, ih), c2, _mm(0.5), cv2.LINE_AA)
            cv2.line(inner, (k, ih), (k + ih, 0), c2, _mm(0.5), cv2.LINE_AA)
    elif style.back_kind == "dots":
        step = _mm(5)
        for y in range(step // 2, ih, step):
            for x in range(step // 2 + (y // step % 2) * step // 2, iw, step):
                cv2.circle(inner, (x, y), _mm(1.2), c2, -1, cv2.LINE_AA)
    elif style.back_kind == "stripes":
        step = _mm(3)
        for k in range(-ih, iw + ih, step * 2):
            pts = np.array([[k, 0], [k + step, 0], [k + step + ih, ih], [k + ih, ih]])
            cv2.fillPoly(inner, [pts.astype(np.int32)], c2, cv2.LINE_AA)
    else:   # flat with a round logo in the middle and a thin inner line
        cv2.rectangle(inner, (_mm(3), _mm(3)), (iw - _mm(3), ih - _mm(3)), c2, _mm(0.6), cv2.LINE_AA)
        cv2.circle(inner, (iw // 2, ih // 2), _mm(12), c2, _mm(1.5), cv2.LINE_AA)
        cv2.circle(inner, (iw // 2, ih // 2), _mm(8), c2, -1, cv2.LINE_AA)
        cv2.putText(inner, "DS", (iw // 2 - _mm(5.5), ih // 2 + _mm(3.5)), cv2.FONT_HERSHEY_TRIPLEX,
                    PX_PER_MM * 0.28, style.back_rgb, _mm(0.8), cv2.LINE_AA)
    img[b:h - b, b:w - b] = inner
    return np.dstack([img, _rounded_alpha(w, h, _mm(3))])


def code_quads_mm(margin_mm: float) -> list[np.ndarray]:
    """The two codes, quiet zone included, as quads in card millimetres (x right, y down)."""
    out = []
    for x0, y0 in ((margin_mm - QUIET_MM, margin_mm - QUIET_MM),
                   (CARD_W_MM - margin_mm - QR_MM - QUIET_MM, CARD_H_MM - margin_mm - QR_MM - QUIET_MM)):
        s = QR_MM + 2 * QUIET_MM
        out.append(np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]]))
    return out
