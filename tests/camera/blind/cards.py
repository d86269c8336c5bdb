"""Card faces and backs printed to the card-face sheet, as textures in card millimetres.

A face carries its QR code (Model 2, version 1, EC M) twice: top-left, and turned 180° in the
bottom-right corner, 22 mm wide with its 2-module quiet zone on white stock, set 2-6 mm in from
the edges; what a printer is free to choose (stock shade, margin, mask, ink spread, index and
art) is a deck style. Backs are a uniform pattern per deck, never a code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
import segno

PX_PER_MM = 4
CARD_W_MM, CARD_H_MM = 63.0, 88.0
QR_MODULES = 21
QR_MM = 22.0  # the symbol, without its quiet zone
MODULE_MM = QR_MM / QR_MODULES
QUIET_MM = 2 * MODULE_MM
CORNER_R_MM = 3.2

RANKS = "A23456789TJQK"
SUITS = "SHDC"
RED = {"H", "D"}


@dataclass(frozen=True)
class DeckStyle:
    stock_bgr: tuple[float, float, float]
    margin_mm: tuple[float, float]  # range the printer sets the symbol in from each edge
    mask: int | None  # fixed QR mask, or None: the encoder's choice
    ink_spread_px: int  # +1 fattens dark modules, -1 thins them (at PX_PER_MM)
    serialized: bool
    index_place: str  # "beside" the code or "under" the art band
    art: str  # "pips", "frame", "big"
    back: str  # pattern name
    back_bgr: tuple[float, float, float]
    back_bgr2: tuple[float, float, float]
    back_border_mm: float  # 0: the pattern runs to the edge
    ink_bgr: tuple[float, float, float] = (0.08, 0.07, 0.07)


DECK_STYLES: dict[str, DeckStyle] = {
    # white stock, tight symbol, red diagonal lattice with a white border
    "lattice_red": DeckStyle((0.95, 0.96, 0.96), (3.1, 3.8), None, 0, False, "beside", "pips",
                             "lattice", (0.16, 0.12, 0.62), (0.55, 0.50, 0.85), 4.0),
    # cream stock, serialized deck, navy waves bleeding to the edge
    "waves_navy": DeckStyle((0.80, 0.90, 0.94), (3.5, 5.0), 4, 1, True, "under", "frame",
                            "waves", (0.38, 0.16, 0.08), (0.70, 0.45, 0.25), 0.0),
    # bright white, wide margin, grey plaid with border
    "plaid_grey": DeckStyle((0.97, 0.97, 0.97), (4.8, 6.0), 1, -1, False, "beside", "big",
                            "plaid", (0.40, 0.40, 0.42), (0.62, 0.62, 0.64), 3.0),
    # slightly blue-white stock, serialized, black dotted back with no border
    "dots_black": DeckStyle((0.97, 0.94, 0.92), (4.1, 5.0), None, 0, True, "beside", "pips",
                            "dots", (0.10, 0.10, 0.12), (0.55, 0.55, 0.58), 0.0),
    # warm white, plain purple back with a fine frame and emblem, border
    "emblem_purple": DeckStyle((0.90, 0.95, 0.97), (3.0, 5.5), 7, 0, False, "under", "frame",
                               "emblem", (0.45, 0.15, 0.35), (0.75, 0.55, 0.70), 5.0),
}


def qr_text(card: str, serial: str | None) -> str:
    return card if serial is None else f"{card}/{serial}"


@lru_cache(maxsize=512)
def qr_matrix(text: str, mask: int | None) -> np.ndarray:
    qr = segno.make_qr(text, version=1, error="m", boost_error=False, mask=mask)
    if qr.version != 1 or qr.error != "M":
        raise ValueError(f"{text!r} does not fit a version 1-M symbol")
    return np.array([list(row) for row in qr.matrix], np.uint8)


def _mm(v: float) -> int:
    return int(round(v * PX_PER_MM))


def _rounded_alpha(w_px: int, h_px: int) -> np.ndarray:
    a = np.zeros((h_px * 4, w_px * 4), np.uint8)
    r = _mm(CORNER_R_MM) * 4
    cv2.rectangle(a, (r, 0), (w_px * 4 - 1 - r, h_px * 4 - 1), 255, -1)
    cv2.rectangle(a, (0, r), (w_px * 4 - 1, h_px * 4 - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w_px * 4 - 1 - r, r), (r, h_px * 4 - 1 - r), (w_px * 4 - 1 - r, h_px * 4 - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return cv2.resize(a, (w_px, h_px), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _suit_shape(img, suit: str, cx: float, cy: float, size: float, colour, flip: bool = False):
    """A suit symbol drawn from circles and polygons, `size` pixels high."""
    s = size / 2
    sgn = -1 if flip else 1
    if suit == "D":
        pts = np.array([[cx, cy - s], [cx + 0.7 * s, cy], [cx, cy + s], [cx - 0.7 * s, cy]], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
        return
    if suit == "H":
        r = int(0.5 * s)
        cv2.circle(img, (int(cx - 0.45 * s), int(cy - sgn * 0.35 * s)), r, colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + 0.45 * s), int(cy - sgn * 0.35 * s)), r, colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - 0.93 * s, cy - sgn * 0.2 * s], [cx + 0.93 * s, cy - sgn * 0.2 * s], [cx, cy + sgn * s]], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
        return
    if suit == "S":
        r = int(0.45 * s)
        cv2.circle(img, (int(cx - 0.42 * s), int(cy + sgn * 0.2 * s)), r, colour, -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx + 0.42 * s), int(cy + sgn * 0.2 * s)), r, colour, -1, cv2.LINE_AA)
        pts = np.array([[cx - 0.86 * s, cy + sgn * 0.05 * s], [cx + 0.86 * s, cy + sgn * 0.05 * s], [cx, cy - sgn * s]], np.int32)
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    else:  # clubs
        r = int(0.36 * s)
        for dx, dy in ((0, -0.45), (-0.45, 0.15), (0.45, 0.15)):
            cv2.circle(img, (int(cx + dx * s), int(cy + sgn * dy * s)), r, colour, -1, cv2.LINE_AA)
    stem = np.array([[cx - 0.12 * s, cy + sgn * 0.2 * s], [cx + 0.12 * s, cy + sgn * 0.2 * s],
                     [cx + 0.35 * s, cy + sgn * s], [cx - 0.35 * s, cy + sgn * s]], np.int32)
    cv2.fillPoly(img, [stem], colour, cv2.LINE_AA)


def _qr_patch(matrix: np.ndarray, stock, ink, spread: int) -> np.ndarray:
    """The symbol with its quiet zone, at PX_PER_MM, the modules placed at their true pitch."""
    n = QR_MODULES + 4
    side = _mm(n * MODULE_MM)
    full = np.zeros((n, n), np.uint8)
    full[2:-2, 2:-2] = matrix
    big = cv2.resize(full * 255, (side * 4, side * 4), interpolation=cv2.INTER_NEAREST)
    dark = cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    if spread:
        k = np.ones((2, 2), np.uint8)
        dark = cv2.dilate(dark, k) if spread > 0 else cv2.erode(dark, k)
        dark = 0.5 * dark + 0.5 * cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    stock = np.array(stock, np.float32)
    ink = np.array(ink, np.float32)
    return stock * (1 - dark[..., None]) + ink * dark[..., None]


# a frame asks for each of its faces twice (drawing, then its codes' places); every card's
# margins differ, so a longer memory would only hold megabytes of faces never asked for again
@lru_cache(maxsize=64)
def face_texture(style_name: str, card: str, serial: str | None, margin_mm: tuple[float, float, float, float]):
    """(BGR float texture, alpha, quiet-zone squares in card mm: [(x0, y0, side)] top-left
    code first) of one printed face; margin_mm = (x, y) of the top-left symbol and of the
    bottom-right one, each measured from the nearest card edges."""
    st = DECK_STYLES[style_name]
    w, h = _mm(CARD_W_MM), _mm(CARD_H_MM)
    img = np.empty((h, w, 3), np.float32)
    img[:] = st.stock_bgr
    rank, suit = card[0], card[1]
    colour = (0.12, 0.12, 0.78) if suit in RED else (0.10, 0.09, 0.09)
    # centre art: in the band between the two codes' corners, never near a quiet zone
    band_top, band_bot = _mm(33), _mm(55)
    if st.art == "frame":
        cv2.rectangle(img, (_mm(6), band_top), (_mm(57), band_bot), colour, 2, cv2.LINE_AA)
        cv2.rectangle(img, (_mm(8), band_top + 6), (_mm(55), band_bot - 6), (0.35, 0.65, 0.85), -1)
    n_pips = {"A": 1, "T": 10, "J": 2, "Q": 3, "K": 4}.get(rank, None) or int(rank)
    if st.art == "big" or rank in "JQK" and st.art != "frame":
        _suit_shape(img, suit, w / 2, (band_top + band_bot) / 2, band_bot - band_top - 8, colour)
    else:
        cols = min(n_pips, 5)
        rows = (n_pips + cols - 1) // cols
        for i in range(n_pips):
            r_, c_ = divmod(i, cols)
            x = _mm(12) + (c_ + 0.5) * (_mm(39) / cols)
            y = band_top + (r_ + 0.5) * ((band_bot - band_top) / rows)
            _suit_shape(img, suit, x, y, min(_mm(8), (band_bot - band_top) / rows - 4), colour, flip=bool(r_ % 2))
    # corner index, for people
    label = "10" if rank == "T" else rank
    if st.index_place == "beside":
        org = (_mm(36), _mm(12))
        cv2.putText(img, label, org, cv2.FONT_HERSHEY_DUPLEX, 1.3, colour, 3, cv2.LINE_AA)
        _suit_shape(img, suit, _mm(52), _mm(22), _mm(8), colour)
        rot = cv2.rotate(img[_mm(2):_mm(30), _mm(33):_mm(61)].copy(), cv2.ROTATE_180)
        img[h - _mm(30):h - _mm(2), w - _mm(61):w - _mm(33)] = rot
    else:
        cv2.putText(img, label, (_mm(3), _mm(40)), cv2.FONT_HERSHEY_SIMPLEX, 1.0, colour, 3, cv2.LINE_AA)
        cv2.putText(img, label, (_mm(48), _mm(54)), cv2.FONT_HERSHEY_SIMPLEX, 1.0, colour, 3, cv2.LINE_AA)
    # the two codes, drawn last so no art reaches into a quiet zone
    text = qr_text(card, serial)
    patch = _qr_patch(qr_matrix(text, st.mask), st.stock_bgr, st.ink_bgr, st.ink_spread_px)
    side_px = patch.shape[0]
    q_side_mm = side_px / PX_PER_MM
    mx0, my0, mx1, my1 = margin_mm
    x0, y0 = _mm(mx0 - QUIET_MM), _mm(my0 - QUIET_MM)
    img[y0:y0 + side_px, x0:x0 + side_px] = patch
    x1, y1 = w - _mm(mx1 - QUIET_MM) - side_px, h - _mm(my1 - QUIET_MM) - side_px
    img[y1:y1 + side_px, x1:x1 + side_px] = patch[::-1, ::-1]
    img = cv2.GaussianBlur(img, (0, 0), 0.45)
    quiet = [(x0 / PX_PER_MM, y0 / PX_PER_MM, q_side_mm), (x1 / PX_PER_MM, y1 / PX_PER_MM, q_side_mm)]
    return img, _rounded_alpha(w, h), quiet


@lru_cache(maxsize=16)
def back_texture(style_name: str):
    st = DECK_STYLES[style_name]
    w, h = _mm(CARD_W_MM), _mm(CARD_H_MM)
    c1, c2 = np.array(st.back_bgr, np.float32), np.array(st.back_bgr2, np.float32)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32) / PX_PER_MM
    if st.back == "lattice":
        a = np.abs(((x + y) % 6.0) - 3.0) < 0.7
        b = np.abs(((x - y) % 6.0) - 3.0) < 0.7
        m = (a | b).astype(np.float32)
    elif st.back == "waves":
        m = (np.sin((y + 2.0 * np.sin(x / 3.0)) / 1.3) > 0.55).astype(np.float32)
    elif st.back == "plaid":
        m = 0.5 * ((x % 9.0) < 3.0) + 0.5 * ((y % 9.0) < 3.0)
    elif st.back == "dots":
        m = (np.hypot((x % 5.0) - 2.5, (y % 5.0) - 2.5) < 1.2).astype(np.float32)
    elif st.back == "emblem":
        m = np.zeros((h, w), np.float32)
        cv2.rectangle(m, (_mm(7), _mm(7)), (w - _mm(7), h - _mm(7)), 1.0, 2, cv2.LINE_AA)
        pts = np.array([[w / 2, h / 2 - _mm(14)], [w / 2 + _mm(10), h / 2], [w / 2, h / 2 + _mm(14)], [w / 2 - _mm(10), h / 2]], np.int32)
        cv2.polylines(m, [pts], True, 1.0, 3, cv2.LINE_AA)
        cv2.circle(m, (w // 2, h // 2), _mm(4), 1.0, -1, cv2.LINE_AA)
    else:
        raise ValueError(st.back)
    img = c1 * (1 - m[..., None]) + c2 * m[..., None]
    if st.back_border_mm > 0:
        b = _mm(st.back_border_mm)
        border = np.ones((h, w), bool)
        border[b:h - b, b:w - b] = False
        img[border] = (0.93, 0.94, 0.94)
    img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.5)
    return img, _rounded_alpha(w, h)


def full_deck() -> list[str]:
    return [r + s for s in SUITS for r in RANKS]
