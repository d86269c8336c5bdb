"""Pixel classes at quarter resolution: felt, card face, card back, black (the cut card), skin.

The felt and the back are what `station camera calibrate` measured (calibration.py); nothing
here assumes a colour for either. Faces are white stock with print (CARD_FACES.md: black on
white codes), the cut card is black, and the dealer's hand is skin.

The back is learned as a set of (hue, saturation) cells: the colours its pattern shows at
quarter resolution, where a lattice or stripes are partly averaged. A pixel whose colour is
in the set is a *back pixel*; a place where back pixels fill most of a window about the size
of a thumb is *back*. The window is what tells a patterned back (its colours everywhere)
from a face whose pips or court panel happen to share a colour with the back (small, solid
patches among white).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

HUE_BIN = 4  # OpenCV hue (0-180) per cell
SAT_BIN = 32  # saturation per cell
MIN_BACK_SAT = 56  # achromatic colours (white, grey, black) are never back evidence
MIN_BACK_VAL = 35
SKIN_HUE = (3, 26)
WHITE_MAX_SAT = 70
WHITE_MIN_VAL = 135
DARK_MAX_VAL = 60


def felt_hsv(felt_bgr: tuple[int, int, int]) -> tuple[int, int, int]:
    h, s, v = cv2.cvtColor(np.uint8([[felt_bgr]]), cv2.COLOR_BGR2HSV)[0, 0]
    return int(h), int(s), int(v)


def felt_mask(h: np.ndarray, s: np.ndarray, v: np.ndarray, felt: tuple[int, int, int]) -> np.ndarray:
    fh, fs, _ = felt
    hue_d = cv2.absdiff(h, np.full_like(h, fh))
    hue_d = np.minimum(hue_d, 180 - hue_d)
    return (hue_d < 22) & (s > max(40, fs // 3)) & (v > 25)


def back_lut(cells: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> np.ndarray:
    """(180, 256) bool: which (hue, saturation) pairs are the back's colours. Each learned
    cell is widened by one hue cell either way (noise, white balance) and down to two
    saturation cells paler (a reflection washes colour out), never below MIN_BACK_SAT."""
    lut = np.zeros((180, 256), bool)
    for hb, sb in cells:
        for dh in (-1, 0, 1):
            h0 = ((hb + dh) % (180 // HUE_BIN)) * HUE_BIN
            s_lo = max(MIN_BACK_SAT, (sb - 2) * SAT_BIN)
            s_hi = min(256, (sb + 2) * SAT_BIN)
            lut[h0 : h0 + HUE_BIN, s_lo:s_hi] = True
    return lut


def window_px(card_w_px: float) -> int:
    """The back window, quarter-resolution pixels: a quarter of a card's width, odd."""
    n = max(3, int(round(card_w_px / 4)))
    return n if n % 2 else n + 1


@dataclass
class Classes:
    felt: np.ndarray
    skin: np.ndarray
    back: np.ndarray  # places covered by a back (windowed)
    back_px: np.ndarray  # pixels of a back colour
    white: np.ndarray
    dark: np.ndarray
    back_level: np.ndarray | None = None  # windowed share of back pixels, 0..1

    def explained(self) -> np.ndarray:
        return self.felt | self.skin | self.back | self.back_px | self.white | self.dark


def classify(corrected_bgr: np.ndarray, felt: tuple[int, int, int], lut: np.ndarray | None,
             window: int, back_level: float) -> Classes:
    hsv = cv2.cvtColor(corrected_bgr, cv2.COLOR_BGR2HSV)
    h, s, v = cv2.split(hsv)
    felt_m = felt_mask(h, s, v, felt)
    if lut is not None:
        back_px = lut[h, s] & (v > MIN_BACK_VAL) & ~felt_m
        share = cv2.boxFilter(back_px.astype(np.float32), -1, (window, window), normalize=True,
                              borderType=cv2.BORDER_REPLICATE)
        back = share >= back_level
    else:
        back_px = np.zeros(h.shape, bool)
        share = None
        back = back_px
    skin = (h >= SKIN_HUE[0]) & (h <= SKIN_HUE[1]) & (s > 55) & (v > 70) & ~back_px & ~back
    if skin.any():
        # a card's edge blended with the felt can take a skin-like tint for a pixel or two;
        # a hand is far wider
        skin = cv2.morphologyEx(skin.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
    white = (s < WHITE_MAX_SAT) & (v > WHITE_MIN_VAL) & ~back
    dark = (v < DARK_MAX_VAL) & ~skin & ~back_px & ~back
    return Classes(felt_m, skin, back, back_px, white, dark, share)
