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


#: a felt less saturated than this (OpenCV HSV) has no hue of its own: a grey felt
GREY_FELT_SAT = 45
#: a grey felt must lie between the cut card's black and a face's white (its grey, V) to be
#: told from both by lightness
GREY_FELT_VAL = (60, 100)
#: a grey felt is felt from this share of its calibrated grey (a dim corner, a vignette) up to
#: GREY_FELT_HI of it (a spotlight), never as light as a face's white
GREY_FELT_LO, GREY_FELT_HI = 0.62, 1.45
#: and no more saturated than a face's white may be (a coloured thing on it is no felt)
GREY_FELT_MAX_SAT = WHITE_MAX_SAT


def is_skin(h: int, s: int, v: int) -> bool:
    """Is this colour (HSV) one `classify` takes for the dealer's skin?"""
    return SKIN_HUE[0] <= h <= SKIN_HUE[1] and s > 55 and v > 70


def is_grey_felt(felt: tuple[int, int, int]) -> bool:
    """Is the felt (its HSV) a grey one: no hue to tell it by, only its lightness?"""
    return felt[1] < GREY_FELT_SAT


def grey_felt_band(felt_val: int) -> tuple[int, int]:
    """The lightness (V) a grey felt of calibrated lightness `felt_val` may show, lowest and
    highest: what light falls across a table varies, but a face's white stays lighter."""
    return int(GREY_FELT_LO * felt_val), min(int(GREY_FELT_HI * felt_val), WHITE_MIN_VAL - 5)


def felt_mask(h: np.ndarray, s: np.ndarray, v: np.ndarray, felt: tuple[int, int, int]) -> np.ndarray:
    fh, fs, fv = felt
    if is_grey_felt(felt):
        # no hue to go by: grey of about the felt's lightness. A face's code, its modules a
        # pixel across at quarter resolution, averages to such a grey too; the recogniser
        # takes what a card's outline encloses as card (fill_holes)
        lo, hi = grey_felt_band(fv)
        return (s < GREY_FELT_MAX_SAT) & (v >= lo) & (v <= hi)
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


#: a tone reaches this far in Lab (OpenCV's 8-bit scale: L 0-255, a and b about 128)
TONE_REACH = 16.0
#: a group of tones (dark, white, the rest) filling at least this share of a back must show
#: in a window at TONE_PRESENT of its share for the window to be back
TONE_GROUP_MIN = 0.08
TONE_PRESENT = 0.35


def lab_of(bgr: np.ndarray) -> np.ndarray:
    """An 8-bit BGR picture in Lab, float32 (OpenCV's 8-bit scale)."""
    return cv2.cvtColor(np.ascontiguousarray(bgr).clip(0, 255).astype(np.uint8), cv2.COLOR_BGR2Lab).astype(np.float32)


#: a tone is the cut card's ("dark") when it lies this close to black or a dark grey (L at most
#: DARK_TONE_L), a face's ("white") when this close to white or a light grey (L at least
#: WHITE_TONE_L), both in Lab
GREY_REACH = TONE_REACH + 6.0
DARK_TONE_L = 80.0
WHITE_TONE_L = 190.0


def tone_group(lab: tuple[float, float, float]) -> str:
    """"dark" (what the cut card shows), "white" (a face's stock) or "mid" (anything else)."""
    L, a, b = lab
    chroma = float(np.hypot(a - 128.0, b - 128.0))
    if np.hypot(max(0.0, L - DARK_TONE_L), chroma) < GREY_REACH:
        return "dark"
    if np.hypot(max(0.0, WHITE_TONE_L - L), chroma) < GREY_REACH:
        return "white"
    return "mid"


@dataclass(frozen=True)
class ToneModel:
    """A back learned as tones in Lab (a back with no hue, or the felt's hue)."""

    tones: tuple[tuple[float, float, float], ...]  # Lab, OpenCV's 8-bit scale
    weights: tuple[float, ...]  # share of a back's pixels (quarter resolution) of each tone
    felt_lab: tuple[float, float, float]
    level: float  # the back's mix of tones a window must show
    #: a black back with small dots (too small to show as a tone at quarter resolution): the
    #: share of its full-resolution pixels that are dots (`dot_share`); 0 for other backs
    dots: float = 0.0

    @property
    def groups(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {"dark": [], "white": [], "mid": []}
        for k, t in enumerate(self.tones):
            out[tone_group(t)].append(k)
        return out

    def group_weights(self) -> dict[str, float]:
        return {g: float(sum(self.weights[k] for k in ks)) for g, ks in self.groups.items()}

    def nearest(self, corrected_bgr: np.ndarray, reach: float = TONE_REACH) -> np.ndarray:
        """Per pixel, the index of its tone, or -1 (no tone within reach, or the felt nearer)."""
        lab = np.ascontiguousarray(corrected_bgr).clip(0, 255).astype(np.uint8)
        lab = cv2.cvtColor(lab, cv2.COLOR_BGR2Lab) >> LAB_SHIFT
        return _tone_lut(self, reach)[lab[..., 0], lab[..., 1], lab[..., 2]]

    def pixels(self, corrected_bgr: np.ndarray) -> np.ndarray:
        return self.nearest(corrected_bgr) >= 0

    def windowed(self, idx: np.ndarray, window: int, without_white: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(how much of the back's mix of tones each window shows, 0..1; whether it shows
        each group of tones the back needs to be told from the cut card and a face).
        `without_white`: the mix of its tones other than white, as a share of theirs (a card's
        white border shows none of it)."""
        sim = np.zeros(idx.shape, np.float32)
        shares = []
        whites = set(self.groups["white"]) if without_white else set()
        for k, w in enumerate(self.weights):
            sk = cv2.boxFilter((idx == k).astype(np.float32), -1, (window, window), normalize=True,
                               borderType=cv2.BORDER_REPLICATE)
            shares.append(sk)
            if k not in whites:
                sim += np.minimum(sk, w)
        if without_white:
            sim /= max(1e-6, sum(w for k, w in enumerate(self.weights) if k not in whites))
        ok = np.ones(idx.shape, bool)
        gw = self.group_weights()
        if gw["dark"] >= TONE_GROUP_MIN or gw["white"] >= TONE_GROUP_MIN:
            for g, ks in self.groups.items():
                if gw[g] >= TONE_GROUP_MIN:
                    ok &= sum((shares[k] for k in ks), np.zeros(idx.shape, np.float32)) >= TONE_PRESENT * gw[g]
        return sim, ok


#: a dot is a small mark brighter than its surround by this many grey levels (full resolution,
#: the light corrected), narrower than DOT_KERNEL_MM
DOT_CONTRAST = 30.0
DOT_KERNEL_MM = 4.0
#: a back with dots is back only where a window shows at least this share of its dots; the
#: cut card, plain black, shows none. A back needs DOT_MIN of its pixels dots to be learned so
DOT_PRESENT = 0.3
DOT_MIN = 0.01


#: a channel of the felt measured at this many grey levels (of 255) or more sets its own gain:
#: the median of thousands of the felt's pixels is good to about half a level, an eighth of it.
#: In a dim room a dark felt's weakest channel is a few levels (a blue felt's red, 27 in full
#: light, is 5 with a fifth of it), and a strong colour cast takes a channel as low
#: (a tungsten lamp on a daylight camera: blue a third)
GAIN_CHANNEL_MIN = 4.0
#: a channel darker than that (a level or two: its own gain could be anything) keeps its own
#: gain only within this factor of the gain the other channels show
GAIN_CHANNEL_SPREAD = 4.0
#: in a picture whose felt no channel measures, each channel is taken as at least this many levels
GAIN_DARK_FLOOR = 8.0


def felt_now(small: np.ndarray) -> np.ndarray:
    """The felt's colour in a (quarter-resolution) picture of the table, BGR float32: the felt
    is most of the picture, so the median of a sparse grid of its pixels is the felt."""
    return np.median(small[::4, ::4].reshape(-1, 3), axis=0).astype(np.float32)


def light_gains(felt_ref: np.ndarray, felt_now: np.ndarray) -> np.ndarray:
    """Per-channel gains that bring the felt measured now back to its calibrated colour: each
    channel's own. A channel too dark to measure (under GAIN_CHANNEL_MIN) keeps its own only
    within GAIN_CHANNEL_SPREAD of the gain of the channels that can be measured. With none that
    can (a picture all but black: the lens capped, the lights out) no channel is taken as
    darker than GAIN_DARK_FLOOR levels, as before: noise is not brightened into cards."""
    ref = np.asarray(felt_ref, np.float32)
    now = np.asarray(felt_now, np.float32)
    sure = now >= GAIN_CHANNEL_MIN
    if not sure.any():
        return ref / np.maximum(now, GAIN_DARK_FLOOR)
    own = ref / np.maximum(now, 1.0)
    if sure.all():
        return own
    whole = float(ref[sure].sum() / now[sure].sum())
    held = np.clip(own, whole / GAIN_CHANNEL_SPREAD, whole * GAIN_CHANNEL_SPREAD)
    return np.where(sure, own, held).astype(np.float32)


def balanced(bgr: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """`bgr` with the light's per-channel `gains` applied (the felt's colour as calibrated),
    as 8-bit colours."""
    return cv2.transform(bgr, np.diag(gains).astype(np.float32)).clip(0, 255).astype(np.uint8)


def dot_share(full_bgr: np.ndarray, gains: np.ndarray, mm_per_px: float, shape: tuple[int, ...]) -> np.ndarray:
    """The share of the full-resolution pixels of each pixel of a `shape` (quarter-resolution)
    picture that are dots: brighter than their surround by DOT_CONTRAST (a white top-hat
    narrower than DOT_KERNEL_MM). A plain black cut card has none."""
    grey = cv2.cvtColor(balanced(full_bgr, gains), cv2.COLOR_BGR2GRAY)
    k = max(3, int(round(DOT_KERNEL_MM / mm_per_px)) | 1)
    top = cv2.morphologyEx(grey, cv2.MORPH_TOPHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    dots = (top > DOT_CONTRAST).astype(np.float32)
    return cv2.resize(dots, (shape[1], shape[0]), interpolation=cv2.INTER_AREA)


def fill_holes(mask: np.ndarray, max_area: float) -> np.ndarray:
    """`mask` (bool or 0/1) with its holes smaller than `max_area` pixels filled (bool)."""
    inv = (np.asarray(mask) == 0).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(inv, connectivity=4)
    small = np.zeros(n, bool)
    small[1:] = stats[1:, cv2.CC_STAT_AREA] < max_area
    return (np.asarray(mask) > 0) | small[labels]


#: tones are looked up in a table of Lab cells this many bits coarser than 8-bit Lab
LAB_SHIFT = 2
_TONE_LUTS: dict[tuple, np.ndarray] = {}


def _tone_lut(model: ToneModel, reach: float) -> np.ndarray:
    """(64, 64, 64) int8: per Lab cell, the nearest tone within reach and nearer than the felt,
    else -1 (made once per model)."""
    key = (model.tones, model.felt_lab, reach)
    lut = _TONE_LUTS.get(key)
    if lut is None:
        n = 256 >> LAB_SHIFT
        c = (np.arange(n, dtype=np.float32) + 0.5) * (1 << LAB_SHIFT)
        grid = np.stack(np.meshgrid(c, c, c, indexing="ij"), axis=-1)
        d_felt = np.linalg.norm(grid - np.array(model.felt_lab, np.float32), axis=-1)
        best = np.full(grid.shape[:3], np.inf, np.float32)
        lut = np.full(grid.shape[:3], -1, np.int8)
        for k, t in enumerate(model.tones):
            d = np.linalg.norm(grid - np.array(t, np.float32), axis=-1)
            closer = d < best
            best[closer] = d[closer]
            lut[closer] = k
        lut[(best > reach) | (best >= d_felt)] = -1
        if len(_TONE_LUTS) > 16:
            _TONE_LUTS.clear()
        _TONE_LUTS[key] = lut
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


def classify(corrected_bgr: np.ndarray, felt: tuple[int, int, int], lut: np.ndarray | ToneModel | None,
             window: int, back_level: float, dots: np.ndarray | None = None) -> Classes:
    """`dots`: for a back learned with dots (ToneModel.dots), `dot_share` of the same picture;
    without it no place is such a back (it cannot be told from the cut card)."""
    hsv = cv2.cvtColor(corrected_bgr, cv2.COLOR_BGR2HSV)
    h, s, v = cv2.split(hsv)
    felt_m = felt_mask(h, s, v, felt)
    if isinstance(lut, ToneModel):
        idx = lut.nearest(corrected_bgr)
        back_px = idx >= 0
        # a navy back on blue felt: the felt's hue, not its colour (nearer the back's tones
        # than the felt's colour, even in noise or dim light, is no felt)
        felt_m &= lut.nearest(corrected_bgr, 2 * TONE_REACH) < 0
        share, ok = lut.windowed(idx, window)
        back = (share >= lut.level) & ok
        if lut.dots > 0:
            # a black back with small dots: back only where its dots show (the cut card is
            # plain black; its black is the back's tone too)
            dense = np.zeros(idx.shape, np.float32) if dots is None else cv2.boxFilter(
                dots, -1, (window, window), normalize=True, borderType=cv2.BORDER_REPLICATE)
            back &= dense >= DOT_PRESENT * lut.dots
        # a back's tones may be black or white too: only the back's places are back, and the
        # cut card's black, a face's white, are what is not
        skin = (h >= SKIN_HUE[0]) & (h <= SKIN_HUE[1]) & (s > 55) & (v > 70) & ~back_px & ~back
        if skin.any():
            skin = cv2.morphologyEx(skin.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
        white = (s < WHITE_MAX_SAT) & (v > WHITE_MIN_VAL) & ~back
        dark = (v < DARK_MAX_VAL) & ~skin & ~back
        if is_grey_felt(felt):
            dark &= ~felt_m  # a grey felt's dim corner is felt, not the cut card
        return Classes(felt_m, skin, back, back_px & ~white & ~dark, white, dark, share)
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
    if is_grey_felt(felt):
        dark &= ~felt_m  # a grey felt's dim corner is felt, not the cut card
    return Classes(felt_m, skin, back, back_px, white, dark, share)
