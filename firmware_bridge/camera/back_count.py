"""How many face-down cards make up one blob of backs (a seat's row or fan, a hand of two).

Area cannot tell: each card of a row may cover anything from none to half of the one before
it (CARD_FACES.md, "Seats"), so three cards cover 2 to 3 cards' area and four 2.5 to 4. What
does tell is that every card shows at least half of its back, and that the back of the card
on top is cut off from the one below by the upper card's edge: its white border. So the blob
is looked at closely (full resolution, only for blobs bigger than one card): the places of
the calibrated back's colours are split at the borders, and each piece of at least a fifth
of a card is one card's visible back. A back without a border, whose pattern runs on across
the seam, cannot be counted this way: the area's estimate stands (docs/camera.md).

The count is trusted only when the blob's area agrees with it (n cards each showing at least
half: between 1 + (n-1)/2 and n cards' area, with some slack); otherwise the caller keeps
its own estimate.
"""

from __future__ import annotations

import cv2
import numpy as np

from firmware_bridge.camera import colours

#: a piece of back smaller than this share of a card is a fragment (a corner, a crumb)
MIN_PIECE = 0.22
#: the light ink of a back (a white lattice) is pooled over this many millimetres, as the
#: calibration saw the back at quarter resolution; a card's border is wider
POOL_MM = 1.2


def count_backs(full_bgr: np.ndarray, blob_mask: np.ndarray, gains: np.ndarray, lut: np.ndarray,
                card_area_px: float, mm_per_px: float, level: float = 0.5) -> list[int]:
    """The number of separate back pieces of a card's size in `full_bgr` (a full-resolution
    crop) within `blob_mask` (same size), seen two ways: pixel by pixel (a thin border parts
    two backs of fine pattern), and pooled over POOL_MM (a bold light lattice is back; a wide
    border still parts). The caller keeps the count the blob's area allows."""
    corrected = cv2.transform(full_bgr, np.diag(gains).astype(np.float32))
    pool = max(2, int(round(POOL_MM / mm_per_px)))
    inside = blob_mask > 0
    counts = []
    for pooled, view in ((False, corrected), (True, cv2.blur(corrected, (pool, pool)))):
        hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
        h, s, v = cv2.split(hsv)
        back_px = lut[h, s] & (v > colours.MIN_BACK_VAL)
        if pooled:
            # as the recogniser does at quarter resolution: back where the back's colours
            # fill the calibrated share of a small window (a pattern's colours alternate)
            share = cv2.blur(back_px.astype(np.float32), (pool + 1, pool + 1))
            back_px = share >= level
        back = (back_px & inside).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(back, connectivity=4)
        counts.append(sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= MIN_PIECE * card_area_px))
    return counts


def plausible(n: int, area: float, card_area: float) -> bool:
    """Can n face-down cards, each showing at least half of its back, cover `area`?"""
    if n < 1:
        return False
    return (0.5 * (n + 1) - 0.3) * card_area <= area <= (n + 0.2) * card_area
