"""A second, independent card art for the synthetic camera: another printer's deck.

Written apart from faces.CardArtist on purpose, so the recogniser is tested on faces that
share none of that artist's habits: the QR symbols come from segno (not OpenCV's encoder),
the stock is ivory with a coloured frame, ranks 2–10 carry a grid of small pips and courts a
tinted panel, the corner indices sit in the other two corners, each code is printed with its
own small skew, and everything is drawn at 3× and averaged down (CardArtist draws at 4×).
Still within CARD_FACES.md: QR version 1, level M, 22 mm, two modules of quiet zone, black on
white, top-left and (turned 180°) bottom-right.
"""

from __future__ import annotations

import zlib

import cv2
import numpy as np
import segno

from firmware_bridge.camera.decks import BackDesign, paint_back
from firmware_bridge.camera.faces import face_text
from firmware_bridge.camera.layout import CARD_H_MM, CARD_W_MM
from firmware_bridge.cards import parse_card

_OVERSAMPLE = 3
IVORY = (226, 240, 248)
QR_WHITE = (250, 250, 250)
INK_RED = (48, 32, 190)
INK_BLACK = (30, 28, 26)
CUT_BLACK = (20, 19, 19)
_PIP_ROWS = {  # rows of pips per rank, left/right columns and a centre column
    2: ((0, 1, 0), (0, 1, 0)),
    3: ((0, 1, 0), (0, 1, 0), (0, 1, 0)),
    4: ((1, 0, 1), (1, 0, 1)),
    5: ((1, 0, 1), (0, 1, 0), (1, 0, 1)),
    6: ((1, 0, 1), (1, 0, 1), (1, 0, 1)),
    7: ((1, 0, 1), (0, 1, 0), (1, 0, 1), (1, 0, 1)),
    8: ((1, 0, 1), (0, 1, 0), (1, 0, 1), (0, 1, 0), (1, 0, 1)),
    9: ((1, 0, 1), (1, 0, 1), (0, 1, 0), (1, 0, 1), (1, 0, 1)),
    10: ((1, 0, 1), (0, 1, 0), (1, 0, 1), (1, 0, 1), (0, 1, 0), (1, 0, 1)),
}


def qr_matrix(text: str) -> np.ndarray:
    """(25, 25) uint8, 0 = dark, quiet zone of two modules, from segno (version 1, level M)."""
    q = segno.make_qr(text, version=1, error="m", boost_error=False)
    m = np.array([[0 if v else 255 for v in row] for row in q.matrix], np.uint8)
    return np.pad(m, 2, constant_values=255)


def _pip(img: np.ndarray, suit: str, cx: float, cy: float, r: float, colour) -> None:
    """A pip as a polygon (hearts and spades as a pointed oval, clubs as three dots)."""
    if suit == "D":
        pts = [[cx, cy - r], [cx + 0.72 * r, cy], [cx, cy + r], [cx - 0.72 * r, cy]]
        cv2.fillConvexPoly(img, np.array(pts, np.int32), colour, cv2.LINE_AA)
    elif suit in "HS":
        up = -1 if suit == "S" else 1
        cv2.ellipse(img, (int(cx - 0.45 * r), int(cy - up * 0.25 * r)), (int(0.55 * r), int(0.5 * r)), 0, 0, 360, colour, -1, cv2.LINE_AA)
        cv2.ellipse(img, (int(cx + 0.45 * r), int(cy - up * 0.25 * r)), (int(0.55 * r), int(0.5 * r)), 0, 0, 360, colour, -1, cv2.LINE_AA)
        tri = [[cx - r, cy - up * 0.1 * r], [cx + r, cy - up * 0.1 * r], [cx, cy + up * r]]
        cv2.fillConvexPoly(img, np.array(tri, np.int32), colour, cv2.LINE_AA)
    else:
        for dx, dy in ((0, -0.45), (-0.48, 0.2), (0.48, 0.2)):
            cv2.circle(img, (int(cx + dx * r), int(cy + dy * r)), int(0.42 * r), colour, -1, cv2.LINE_AA)
        cv2.fillConvexPoly(img, np.array([[cx, cy], [cx + 0.3 * r, cy + r], [cx - 0.3 * r, cy + r]], np.int32), colour, cv2.LINE_AA)


class PressArtist:
    """Faces, back and cut card of the `press` art (same interface as faces.CardArtist)."""

    def __init__(self, mm_per_px: float, *, qr_margin_mm: float, back_design: BackDesign,
                 skew_deg: float = 0.0) -> None:
        self.mm_per_px = mm_per_px
        self.margin_mm = qr_margin_mm
        self.back_design = back_design
        self.skew_deg = skew_deg
        self.out_size = (round(CARD_W_MM / mm_per_px), round(CARD_H_MM / mm_per_px))
        self._memo: dict[tuple, np.ndarray] = {}

    def _skew(self, text: str, corner: int) -> float:
        # the same card always prints the same way; its two codes are skewed independently
        u = (zlib.crc32(f"{text}|{corner}".encode()) % 2001) / 1000.0 - 1.0
        return u * self.skew_deg

    def _stamp(self, sheet: np.ndarray, text: str, x0: float, y0: float, px_mm: float,
               turned: bool, skew: float) -> None:
        modules = qr_matrix(text)
        side = int(round(modules.shape[0] * 22.0 / 21.0 * px_mm))
        sym = cv2.resize(modules, (side, side), interpolation=cv2.INTER_NEAREST)
        if turned:
            sym = np.rot90(sym, 2)
        sym_bgr = np.where(sym[:, :, None] > 127, np.array(QR_WHITE, np.uint8), np.array(INK_BLACK, np.uint8))
        # print skew: the symbol (with its white quiet zone) turned a little about its centre
        rot = cv2.getRotationMatrix2D((side / 2, side / 2), skew, 1.0)
        pad = int(side * 0.06) + 2
        canvas = np.full((side + 2 * pad, side + 2 * pad, 3), QR_WHITE, np.uint8)
        rot[0, 2] += pad
        rot[1, 2] += pad
        cv2.warpAffine(sym_bgr.astype(np.uint8), rot, (side + 2 * pad, side + 2 * pad), dst=canvas,
                       flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_TRANSPARENT)
        ix, iy = int(round(x0)) - pad, int(round(y0)) - pad
        h, w = sheet.shape[:2]
        cx0, cy0 = max(0, ix), max(0, iy)
        cx1, cy1 = min(w, ix + canvas.shape[1]), min(h, iy + canvas.shape[0])
        sheet[cy0:cy1, cx0:cx1] = canvas[cy0 - iy : cy1 - iy, cx0 - ix : cx1 - ix]

    def face(self, card: str, code: str | None = None, *, misprint: str | None = None) -> np.ndarray:
        key = ("face", card, code, misprint)
        if key in self._memo:
            return self._memo[key]
        c = parse_card(card)
        px_mm = _OVERSAMPLE / self.mm_per_px
        W, H = self.out_size[0] * _OVERSAMPLE, self.out_size[1] * _OVERSAMPLE
        sheet = np.empty((H, W, 3), np.uint8)
        sheet[:] = IVORY
        ink = INK_RED if c.suit in "HD" else INK_BLACK
        # a thin frame in the suit's ink just inside the edge, broken where the codes sit
        inset = int(1.2 * px_mm)
        cv2.rectangle(sheet, (inset, inset), (W - inset, H - inset), ink, max(1, int(0.35 * px_mm)), cv2.LINE_AA)
        quiet_side = 25 * 22.0 / 21.0 * px_mm  # symbol incl. quiet zone
        m = self.margin_mm * px_mm
        top = face_text(card, code)
        bottom = misprint if misprint is not None else top
        # clear the corner of the frame where each code sits (the printer's frame stops there)
        for (x, y) in ((m, m), (W - m - quiet_side, H - m - quiet_side)):
            cv2.rectangle(sheet, (int(x - 2), int(y - 2)), (int(x + quiet_side + 2), int(y + quiet_side + 2)), QR_WHITE, -1)
        self._stamp(sheet, top, m, m, px_mm, False, self._skew(top, 0))
        self._stamp(sheet, bottom, W - m - quiet_side, H - m - quiet_side, px_mm, True, self._skew(bottom, 1))
        rank = {"T": "10"}.get(c.rank, c.rank)
        font = cv2.FONT_HERSHEY_TRIPLEX
        # indices, top-right and (turned) bottom-left
        idx = np.full((int(12 * px_mm), int(8 * px_mm), 3), IVORY, np.uint8)
        cv2.putText(idx, rank, (int(0.3 * px_mm), int(5.5 * px_mm)), font, 0.055 * px_mm, ink, max(1, int(0.5 * px_mm)), cv2.LINE_AA)
        _pip(idx, c.suit, 4 * px_mm, 9 * px_mm, 2.2 * px_mm, ink)
        ih, iw = idx.shape[:2]
        sheet[int(2.5 * px_mm) : int(2.5 * px_mm) + ih, W - int(2.5 * px_mm) - iw : W - int(2.5 * px_mm)] = idx
        sheet[H - int(2.5 * px_mm) - ih : H - int(2.5 * px_mm), int(2.5 * px_mm) : int(2.5 * px_mm) + iw] = idx[::-1, ::-1]
        # the middle: pips in a grid between the codes, or a tinted panel with the court's letter
        n = {"A": 1, "J": 0, "Q": 0, "K": 0, "T": 10}.get(c.rank)
        n = int(c.rank) if n is None else n
        cx, cy = W / 2, H / 2
        if c.rank in "JQK":
            tint = tuple(int(0.55 * v + 0.45 * 255) for v in ink)
            cv2.rectangle(sheet, (int(cx - 10 * px_mm), int(cy - 10 * px_mm)), (int(cx + 10 * px_mm), int(cy + 10 * px_mm)), tint, -1, cv2.LINE_AA)
            (tw, th), _ = cv2.getTextSize(c.rank, font, 0.12 * px_mm, max(1, int(0.9 * px_mm)))
            cv2.putText(sheet, c.rank, (int(cx - tw / 2), int(cy + th / 2)), font, 0.12 * px_mm, ink, max(1, int(0.9 * px_mm)), cv2.LINE_AA)
        elif n == 1:
            _pip(sheet, c.suit, cx, cy, 7 * px_mm, ink)
        else:
            rows = _PIP_ROWS[n]
            ys = np.linspace(cy - 9 * px_mm, cy + 9 * px_mm, len(rows))
            for row, y in zip(rows, ys, strict=True):
                for col, on in zip((-7.0, 0.0, 7.0), row, strict=True):
                    if on:
                        _pip(sheet, c.suit, cx + col * px_mm, y, (2.3 if len(rows) < 5 else 1.7) * px_mm, ink)
        out = cv2.resize(sheet, self.out_size, interpolation=cv2.INTER_AREA)
        self._memo[key] = out
        return out

    def back(self) -> np.ndarray:
        if ("back",) not in self._memo:
            self._memo[("back",)] = paint_back(self.back_design, self.mm_per_px)
        return self._memo[("back",)]

    def cut(self) -> np.ndarray:
        if ("cut",) not in self._memo:
            tile = np.empty((self.out_size[1], self.out_size[0], 3), np.uint8)
            tile[:] = CUT_BLACK
            self._memo[("cut",)] = tile
        return self._memo[("cut",)]
