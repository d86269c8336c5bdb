"""Three printers' decks: face stock, QR placement, art and backs.

A face is 63 x 88 mm. Its two QR symbols (22 mm, 21 modules) sit on white squares that
include the 2-module quiet zone; the sheet's margin (2-6 mm) is taken here from the card's
edge to that white square. The art is this renderer's own: corner indices (rank and suit in
print) beside each code and pips or a court panel in the middle band.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .notation import canonical, qr_text
from .qr import QUIET_MODULES, VERSION1_MODULES, qr_modules
from .raster import rgba

CARD_W_MM = 63.0
CARD_H_MM = 88.0
QR_MM = 22.0
MODULE_MM = QR_MM / VERSION1_MODULES
QR_WITH_QUIET_MM = QR_MM + 2 * QUIET_MODULES * MODULE_MM
TEXTURE_PX_PER_MM = 10.0
CARD_THICKNESS_MM = 0.3


@dataclass(frozen=True)
class DeckStyle:
    name: str
    face_bgr: tuple[int, int, int]  # the face stock (paper) colour
    red_ink: tuple[int, int, int]
    black_ink: tuple[int, int, int]
    margin_mm: tuple[float, float]  # card edge to the code's white square: (x, y)
    back: str  # "lattice" | "flat" | "logo"
    back_bgr: tuple[int, int, int]
    back_ink_bgr: tuple[int, int, int]
    back_border_mm: float
    corner_radius_mm: float
    font: int
    serialized: bool  # QR texts like 7H/3-0417


DECK_STYLES: dict[str, DeckStyle] = {
    # red lattice back, bright white stock, codes close to the edge
    "red_lattice": DeckStyle(
        "red_lattice", (246, 247, 248), (38, 30, 196), (28, 24, 24), (2.5, 3.0),
        "lattice", (40, 36, 168), (226, 226, 236), 3.5, 3.0, cv2.FONT_HERSHEY_DUPLEX, False,
    ),
    # dark navy flat back with a thin gold line, ivory stock, codes well inside, serialized
    "midnight_flat": DeckStyle(
        "midnight_flat", (214, 236, 244), (40, 40, 178), (40, 30, 26), (5.5, 5.0),
        "flat", (54, 30, 22), (90, 170, 200), 0.0, 3.5, cv2.FONT_HERSHEY_TRIPLEX, True,
    ),
    # green back with a round logo, cool white stock, codes at 4 mm, serialized
    "emerald_logo": DeckStyle(
        "emerald_logo", (250, 246, 240), (60, 36, 214), (50, 44, 36), (4.0, 4.0),
        "logo", (60, 110, 24), (200, 226, 236), 2.5, 2.5, cv2.FONT_HERSHEY_SIMPLEX, True,
    ),
}


def deck_style(name: str) -> DeckStyle:
    try:
        return DECK_STYLES[name]
    except KeyError:
        raise ValueError(f"unknown deck style {name!r} (known: {', '.join(DECK_STYLES)})") from None


def serial_of(card: str, deck_index: int = 3) -> str:
    """A printed code for a card of a serialized deck: shoe digit, dash, four digits."""
    c = canonical(card)
    ranks = "A23456789TJQK"
    suits = "SHDC"
    n = suits.index(c[1]) * 13 + ranks.index(c[0])
    return f"{deck_index % 10}-{(n * 37 + 101) % 10000:04d}"


def card_qr_text(card: str, style: DeckStyle) -> str:
    return qr_text(card, serial_of(card) if style.serialized else None)


def _px(mm: float) -> int:
    return int(round(mm * TEXTURE_PX_PER_MM))


def _rounded_alpha(w: int, h: int, r: int) -> np.ndarray:
    m = np.zeros((h * 4, w * 4), np.uint8)
    r4 = r * 4
    cv2.rectangle(m, (r4, 0), (w * 4 - 1 - r4, h * 4 - 1), 255, -1)
    cv2.rectangle(m, (0, r4), (w * 4 - 1, h * 4 - 1 - r4), 255, -1)
    for cx, cy in ((r4, r4), (w * 4 - 1 - r4, r4), (r4, h * 4 - 1 - r4), (w * 4 - 1 - r4, h * 4 - 1 - r4)):
        cv2.circle(m, (cx, cy), r4, 255, -1, cv2.LINE_AA)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def draw_suit(img: np.ndarray, suit: str, centre, size_px: float, colour) -> None:
    """A suit symbol about size_px tall, centred at centre (pixels, float)."""
    cx, cy = float(centre[0]), float(centre[1])
    s = size_px / 2.0
    sh = 4  # sub-pixel bits for cv2's fixed point drawing
    k = 1 << sh

    def P(x, y):
        return [int(round((cx + x * s) * k)), int(round((cy + y * s) * k))]

    def circle(x, y, r):
        cv2.circle(img, tuple(P(x, y)), int(round(r * s * k)), colour, -1, cv2.LINE_AA, sh)

    def poly(pts):
        cv2.fillPoly(img, [np.array([P(x, y) for x, y in pts], np.int32)], colour, cv2.LINE_AA, sh)

    if suit == "D":
        poly([(0, -1), (0.72, 0), (0, 1), (-0.72, 0)])
    elif suit == "H":
        circle(-0.45, -0.38, 0.5)
        circle(0.45, -0.38, 0.5)
        poly([(-0.93, -0.2), (0.93, -0.2), (0, 1.0)])
    elif suit == "S":
        circle(-0.45, 0.2, 0.48)
        circle(0.45, 0.2, 0.48)
        poly([(-0.92, 0.05), (0.92, 0.05), (0, -1.0)])
        poly([(0, 0.3), (0.3, 1.0), (-0.3, 1.0)])
    elif suit == "C":
        circle(0, -0.45, 0.42)
        circle(-0.48, 0.2, 0.42)
        circle(0.48, 0.2, 0.42)
        poly([(0, 0.1), (0.3, 1.0), (-0.3, 1.0)])
    else:
        raise ValueError(f"not a suit: {suit!r}")


def _pip_positions(n: int) -> list[tuple[float, float]]:
    """Pip centres in the middle band, in units of the band (x, y in -1..1)."""
    layouts = {
        2: [(0, -0.6), (0, 0.6)],
        3: [(0, -0.7), (0, 0), (0, 0.7)],
        4: [(-0.5, -0.6), (0.5, -0.6), (-0.5, 0.6), (0.5, 0.6)],
        5: [(-0.5, -0.6), (0.5, -0.6), (0, 0), (-0.5, 0.6), (0.5, 0.6)],
        6: [(-0.55, -0.7), (0, -0.7), (0.55, -0.7), (-0.55, 0.7), (0, 0.7), (0.55, 0.7)],
        7: [(-0.6, -0.7), (0, -0.7), (0.6, -0.7), (-0.3, 0), (0.3, 0), (-0.6, 0.7), (0.6, 0.7)],
        8: [(-0.72, -0.7), (-0.24, -0.7), (0.24, -0.7), (0.72, -0.7), (-0.72, 0.7), (-0.24, 0.7), (0.24, 0.7), (0.72, 0.7)],
        9: [(-0.72, -0.7), (-0.24, -0.7), (0.24, -0.7), (0.72, -0.7), (0, 0), (-0.72, 0.7), (-0.24, 0.7), (0.24, 0.7), (0.72, 0.7)],
        10: [(-0.8, -0.7), (-0.4, -0.7), (0, -0.7), (0.4, -0.7), (0.8, -0.7), (-0.8, 0.7), (-0.4, 0.7), (0, 0.7), (0.4, 0.7), (0.8, 0.7)],
    }
    return layouts[n]


def qr_square_rect_mm(style: DeckStyle) -> tuple[tuple[float, float, float, float], tuple[float, float, float, float]]:
    """The two codes' white squares (quiet zone included) on the face, (x0, y0, x1, y1) in mm
    from the face's top-left: the upright one top-left, the turned one bottom-right."""
    mx, my = style.margin_mm
    s = QR_WITH_QUIET_MM
    return (mx, my, mx + s, my + s), (CARD_W_MM - mx - s, CARD_H_MM - my - s, CARD_W_MM - mx, CARD_H_MM - my)


def _paint_qr(img: np.ndarray, text: str, x0_mm: float, y0_mm: float) -> None:
    """The white quiet square and the symbol, upright, with its top-left at (x0, y0) mm."""
    s_px = _px(QR_WITH_QUIET_MM)
    X0, Y0 = _px(x0_mm), _px(y0_mm)
    img[Y0:Y0 + s_px, X0:X0 + s_px] = 255
    mods = qr_modules(text)
    q = QUIET_MODULES * MODULE_MM
    # module boundaries rounded to texture pixels, so every module is within a pixel of its size
    edges = [int(round((x0_mm + q + i * MODULE_MM) * TEXTURE_PX_PER_MM)) for i in range(VERSION1_MODULES + 1)]
    edges_y = [int(round((y0_mm + q + i * MODULE_MM) * TEXTURE_PX_PER_MM)) for i in range(VERSION1_MODULES + 1)]
    for r in range(VERSION1_MODULES):
        for c in range(VERSION1_MODULES):
            if mods[r, c]:
                img[edges_y[r]:edges_y[r + 1], edges[c]:edges[c + 1]] = 0


@lru_cache(maxsize=256)
def face_texture(card: str, style_name: str) -> np.ndarray:
    """The printed face of a card, float BGRA at TEXTURE_PX_PER_MM, alpha rounding its corners."""
    style = deck_style(style_name)
    c = canonical(card)
    rank, suit = c[0], c[1]
    w, h = _px(CARD_W_MM), _px(CARD_H_MM)
    ink = style.red_ink if suit in "HD" else style.black_ink
    img = np.empty((h, w, 3), np.uint8)
    img[:] = style.face_bgr
    text = card_qr_text(c, style)
    (qx0, qy0, qx1, _), _ = qr_square_rect_mm(style)
    rank_print = "10" if rank == "T" else rank
    for _half in range(2):
        _paint_qr(img, text, qx0, qy0)
        # the corner index in the corner the code leaves free (top-right)
        ix = qx1 + (CARD_W_MM - qx1) / 2.0
        scale = 2.2 if len(rank_print) == 1 else 1.7
        (tw, th), _ = cv2.getTextSize(rank_print, style.font, scale, 3)
        org = (int(_px(ix) - tw / 2), int(_px(qy0) + th + 4))
        cv2.putText(img, rank_print, org, style.font, scale, ink, 3, cv2.LINE_AA)
        draw_suit(img, suit, (_px(ix), _px(qy0) + th + 4 + _px(7.0)), _px(9.0), ink)
        img = np.ascontiguousarray(img[::-1, ::-1])
    # the middle band between the two codes
    band_y0, band_y1 = qy0 + QR_WITH_QUIET_MM + 1.5, CARD_H_MM - qy0 - QR_WITH_QUIET_MM - 1.5
    band_x0, band_x1 = 7.0, CARD_W_MM - 7.0
    bcx, bcy = (band_x0 + band_x1) / 2, (band_y0 + band_y1) / 2
    bw, bh = (band_x1 - band_x0) / 2, (band_y1 - band_y0) / 2
    if rank == "A":
        draw_suit(img, suit, (_px(bcx), _px(bcy)), _px(min(bh * 2 - 2, 20)), ink)
    elif rank in "JQK":
        cv2.rectangle(img, (_px(band_x0 + 6), _px(band_y0)), (_px(band_x1 - 6), _px(band_y1)), ink, 3, cv2.LINE_AA)
        (tw, th), _ = cv2.getTextSize(rank, style.font, 3.2, 6)
        cv2.putText(img, rank, (int(_px(bcx - 8) - tw / 2), int(_px(bcy) + th / 2)), style.font, 3.2, ink, 6, cv2.LINE_AA)
        draw_suit(img, suit, (_px(bcx + 12), _px(bcy)), _px(9.0), ink)
    else:
        n = 10 if rank == "T" else int(rank)
        pip_mm = min(7.0, bh * 0.75)
        for px, py in _pip_positions(n):
            draw_suit(img, suit, (_px(bcx + px * (bw - pip_mm / 2)), _px(bcy + py * (bh - pip_mm / 2))), _px(pip_mm), ink)
    alpha = _rounded_alpha(w, h, _px(style.corner_radius_mm))
    tex = rgba(img, alpha)
    tex.setflags(write=False)
    return tex


@lru_cache(maxsize=16)
def back_texture(style_name: str) -> np.ndarray:
    """The deck's back: one uniform pattern, no code."""
    style = deck_style(style_name)
    w, h = _px(CARD_W_MM), _px(CARD_H_MM)
    img = np.empty((h, w, 3), np.uint8)
    b = _px(style.back_border_mm)
    img[:] = (250, 250, 250) if b else style.back_bgr
    img[b:h - b, b:w - b] = style.back_bgr
    inner = img[b:h - b, b:w - b]
    ih, iw = inner.shape[:2]
    if style.back == "lattice":
        step = _px(5.0)
        for k in range(-ih, iw + ih, step):
            cv2.line(inner, (k, 0), (k + ih, ih), style.back_ink_bgr, 3, cv2.LINE_AA)
            cv2.line(inner, (k, 0), (k - ih, ih), style.back_ink_bgr, 3, cv2.LINE_AA)
    elif style.back == "flat":
        cv2.rectangle(inner, (_px(3), _px(3)), (iw - _px(3), ih - _px(3)), style.back_ink_bgr, 4, cv2.LINE_AA)
    elif style.back == "logo":
        c = (iw // 2, ih // 2)
        cv2.circle(inner, c, _px(16), style.back_ink_bgr, 6, cv2.LINE_AA)
        cv2.circle(inner, c, _px(12), style.back_ink_bgr, 3, cv2.LINE_AA)
        (tw, th), _ = cv2.getTextSize("DS", cv2.FONT_HERSHEY_TRIPLEX, 3.0, 6)
        cv2.putText(inner, "DS", (c[0] - tw // 2, c[1] + th // 2), cv2.FONT_HERSHEY_TRIPLEX, 3.0, style.back_ink_bgr, 6, cv2.LINE_AA)
        for dy in (-1, 1):
            y = c[1] + dy * _px(30)
            cv2.line(inner, (_px(6), y), (iw - _px(6), y), style.back_ink_bgr, 3, cv2.LINE_AA)
    else:
        raise ValueError(f"unknown back {style.back!r}")
    # the cut edge: the paper's core shows as a hairline lighter than the print
    edge = np.clip(np.asarray(style.back_bgr, np.float32) * 0.5 + 120, 0, 255).astype(np.uint8).tolist()
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), edge, 2)
    tex = rgba(img, _rounded_alpha(w, h, _px(style.corner_radius_mm)))
    tex.setflags(write=False)
    return tex
