"""Learning the felt and the deck's back from stills (`station camera calibrate`).

CARD_FACES.md fixes no back colour ("a uniform pattern, one per deck set") and the felt is
"one plain colour": both are measured at the table. From a still of the empty felt the felt's
colour is taken; from stills with a face-down card (or a few) of the deck set in use, the
back's colours (as (hue, saturation) cells at the recogniser's quarter resolution), how much
of a back they fill, how much white its border and pattern show, and its texture. The result
is written into the camera config as `[calibration.felt]` and `[calibration.back]`; the
recogniser reads backs only by what was calibrated, and a layout without `[calibration.back]`
makes it say so on its status instead of guessing.

A back with no hue (black, grey, white and grey, black and white) or with the felt's hue
(navy on blue felt) cannot be learned as hue cells: the cards are then found as what differs
from the felt in Lab (lightness included) and the back is learned as a few tones with the
share of a back each fills (`colours.ToneModel`, written as `tones`). Refused: a back whose
tones are the felt's, a plain black back (the cut card is plain black on both sides:
CARD_FACES.md) and a plain white one (a face's stock).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from firmware_bridge.camera import back_count, colours
from firmware_bridge.camera.layout import CARD_H_MM, CARD_W_MM, LayoutError

SHRINK = 4
#: the lone cards may measure this much smaller or bigger than the config's scale says; beyond
#: it the config's scale is wrong (or the still holds no lone card) and calibrate says so
CARD_SIZE_RANGE = (0.8, 1.25)


class CalibrationError(LayoutError):
    """Stills that do not allow a calibration; the message says what to change."""


@dataclass(frozen=True)
class FeltModel:
    bgr: tuple[int, int, int]


@dataclass(frozen=True)
class BackModel:
    cells: tuple[tuple[int, int], ...]  # (hue // HUE_BIN, saturation // SAT_BIN)
    level: float  # windowed share of back pixels above which a place is back
    white_edge: float  # white pixels of a back (border, pattern) per back pixel
    mean_bgr: tuple[int, int, int]
    texture: float  # grey-level standard deviation over a back at full resolution
    coverage: float  # share of a back's pixels that are of its cells
    cards: int  # how many face-down cards the calibration saw
    #: a lone card's measured size over the size the config's mm_per_px gives it (1.0: not
    #: measured); the config's scale is the engineer's estimate, the cards are 63 x 88 mm
    card_size: float = 1.0
    #: a back learned as tones (colours.ToneModel): (L, a, b, share) in OpenCV's 8-bit Lab;
    #: empty for a back learned as hue cells
    tones: tuple[tuple[float, float, float, float], ...] = ()
    #: a black back with small dots: the share of its full-resolution pixels that are dots
    #: (colours.dot_share); 0 for every other back
    dots: float = 0.0
    #: a back with one emblem in its middle (a medallion, a crest of another colour): the
    #: emblem's share of the back, measured on the lone cards (back_count.marks); 0 for a back
    #: without one. A row or fan of such backs is counted by its emblems
    emblem: float = 0.0

    def tone_model(self, felt_bgr: tuple[int, int, int]) -> colours.ToneModel:
        lab = colours.lab_of(np.uint8([[felt_bgr]]))[0, 0]
        return colours.ToneModel(tuple((t[0], t[1], t[2]) for t in self.tones), tuple(t[3] for t in self.tones),
                                 (float(lab[0]), float(lab[1]), float(lab[2])), self.level, self.dots)

    def describe(self) -> str:
        b, g, r = self.mean_bgr
        if self.tones:
            kind = "patterned" if self.texture > 12 else "flat"
            tones = ", ".join(f"L {t[0] * 100 / 255:.0f} ({100 * t[3]:.0f}%)" for t in self.tones)
            return (f"{kind} back learned as {len(self.tones)} tone(s) in Lab ({tones}), mean colour (B,G,R) = "
                    f"({b},{g},{r}), texture {self.texture:.1f} grey levels, from {self.cards} card(s)")
        kind = "patterned" if self.texture > 12 else "flat"
        return (f"{kind} back, mean colour (B,G,R) = ({b},{g},{r}), texture {self.texture:.1f} grey levels, "
                f"{len(self.cells)} colour cells covering {100 * self.coverage:.0f}% of it, from {self.cards} card(s)")


@dataclass(frozen=True)
class Calibration:
    felt: FeltModel | None = None
    back: BackModel | None = None
    warnings: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {}
        if self.felt is not None:
            out["felt"] = {"bgr": list(self.felt.bgr)}
        if self.back is not None:
            b = self.back
            out["back"] = {
                "cells": [list(c) for c in b.cells], "level": round(b.level, 3),
                "white_edge": round(b.white_edge, 3), "mean_bgr": list(b.mean_bgr),
                "texture": round(b.texture, 1), "coverage": round(b.coverage, 3), "cards": b.cards,
            }
            if b.card_size != 1.0:
                out["back"]["card_size"] = round(b.card_size, 4)  # type: ignore[index]
            if b.dots:
                out["back"]["dots"] = round(b.dots, 4)  # type: ignore[index]
            if b.emblem:
                out["back"]["emblem"] = round(b.emblem, 4)  # type: ignore[index]
            if b.tones:
                out["back"]["tones"] = [[round(v, 1) for v in t[:3]] + [round(t[3], 3)] for t in b.tones]  # type: ignore[index]
        return out


def calibration_from_dict(data: object, *, source: str = "<dict>") -> Calibration:
    if data is None:
        return Calibration()
    if not isinstance(data, dict):
        raise LayoutError(f"{source}: [calibration] must be a table")
    felt = back = None
    try:
        if "felt" in data:
            bgr = data["felt"]["bgr"]
            if not (isinstance(bgr, list) and len(bgr) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in bgr)):
                raise ValueError("bgr must be three integers 0-255")
            felt = FeltModel((bgr[0], bgr[1], bgr[2]))
        if "back" in data:
            d = data["back"]
            cells = tuple((int(h), int(s)) for h, s in d["cells"])
            tones = tuple((float(t[0]), float(t[1]), float(t[2]), float(t[3])) for t in d.get("tones", ()))
            if not all(0 <= v <= 255 for t in tones for v in t[:3]) or not all(0 < t[3] <= 1 for t in tones):
                raise ValueError("tones must be [L, a, b, share] in 8-bit Lab")
            if not (cells or tones) or not all(0 <= h < 180 // colours.HUE_BIN and 0 <= s < 256 // colours.SAT_BIN for h, s in cells):
                raise ValueError("cells must be [hue cell, saturation cell] pairs")
            level = float(d["level"])
            if not 0.05 <= level <= 1.0:
                raise ValueError(f"level {level} outside 0.05..1")
            back = BackModel(cells, level, float(d.get("white_edge", 0.0)),
                             tuple(int(v) for v in d.get("mean_bgr", (0, 0, 0))),  # type: ignore[arg-type]
                             float(d.get("texture", 0.0)), float(d.get("coverage", 0.0)), int(d.get("cards", 0)),
                             float(d.get("card_size", 1.0)), tones, float(d.get("dots", 0.0)),
                             float(d.get("emblem", 0.0)))
            if not 0.0 <= back.emblem < 1.0:
                raise ValueError(f"emblem {back.emblem}: a share 0..1 of a back")
            if not 0.0 <= back.dots <= 1.0 or (back.dots and not tones):
                raise ValueError(f"dots {back.dots}: a share 0..1, of a back learned as tones")
            if not CARD_SIZE_RANGE[0] <= back.card_size <= CARD_SIZE_RANGE[1]:
                raise ValueError(f"card_size {back.card_size} outside {CARD_SIZE_RANGE[0]}..{CARD_SIZE_RANGE[1]}")
    except (KeyError, TypeError, ValueError) as exc:
        raise LayoutError(f"{source}: [calibration]: {exc}; run `station camera calibrate` again") from exc
    return Calibration(felt, back)


def _quarter(frame: np.ndarray) -> np.ndarray:
    h, w = frame.shape[:2]
    return cv2.resize(frame, (w // SHRINK, h // SHRINK), interpolation=cv2.INTER_AREA)


def _gains(small: np.ndarray, felt_bgr: tuple[int, int, int]) -> np.ndarray:
    return colours.light_gains(np.array(felt_bgr, np.float32), colours.felt_now(small))


def learn_felt(frames: list[np.ndarray]) -> FeltModel:
    """The felt's colour: the median of the empty table (the felt is most of the picture)."""
    if not frames:
        raise CalibrationError("no still of the empty felt")
    samples = np.concatenate([f[::8, ::8].reshape(-1, 3) for f in frames])
    bgr = tuple(int(v) for v in np.median(samples, axis=0))
    hsv = colours.felt_hsv(bgr)  # type: ignore[arg-type]
    v = hsv[2]
    if not colours.is_grey_felt(hsv):
        if v < 30:
            raise CalibrationError(
                f"the felt measures (B,G,R) = {bgr}: too dark to tell from the cut card and dark backs; "
                "light the table or use a lighter felt")
        if colours.is_skin(*hsv):
            # every zone would be taken for the dealer's hand over it, and held
            raise CalibrationError(
                f"the felt measures (B,G,R) = {bgr}: the colour of the dealer's skin, so a hand over a "
                "zone could not be told from the felt; use a felt of another colour (a grey felt seen "
                "under warm light or a white balance set too warm looks so: set the camera's white "
                "balance with the felt in view)")
        return FeltModel(bgr)  # type: ignore[arg-type]
    # a grey felt has no hue to tell it by, only its lightness: between the cut card's black
    # and a face's white
    lo, hi = colours.GREY_FELT_VAL
    if v < lo:
        raise CalibrationError(
            f"the felt measures (B,G,R) = {bgr}: a grey this dark (lightness {v}, at least {lo} needed) "
            "cannot be told from the cut card, which is plain black (CARD_FACES.md); light the table "
            "or use a lighter or coloured felt")
    if v > hi:
        raise CalibrationError(
            f"the felt measures (B,G,R) = {bgr}: a grey this light (lightness {v}, at most {hi}) cannot "
            "be told from a card face's white stock; dim the light on the felt or use a darker or "
            "coloured felt")
    return FeltModel(bgr)  # type: ignore[arg-type]


def learn_back(frames: list[np.ndarray], felt: FeltModel, mm_per_px: float) -> tuple[BackModel, list[str]]:
    """The back of the deck set from stills holding face-down cards, each lying on its own: as
    hue cells when it has a hue of its own, else as tones in Lab (no hue, or the felt's)."""
    if not frames:
        raise CalibrationError("no still with a face-down card: lay one (or a few, apart) on the felt")
    try:
        model, warnings, unexplained, dark = _learn_back_hue(frames, felt, mm_per_px)
    except CalibrationError as by_hue:
        try:
            return learn_back_tones(frames, felt, mm_per_px)
        except CalibrationError as by_tone:
            if "no face-down card" in str(by_tone) and "no face-down card" not in str(by_hue):
                raise by_hue from None
            raise by_tone from None
    if unexplained > HUE_UNEXPLAINED or (model.coverage < HUE_COVERAGE_FOR_TONES and dark >= HUE_DARK_FOR_TONES):
        # the hue cells leave much of the back to no class (a muted colour, too grey for a
        # hue) or to skin: every card of it would be held as another deck or a hand; or
        # they cover less than half of it and much of the rest is too dark for a hue (a
        # dark back, its print and lighter ground alone coloured): cards lying in a row are
        # then parted and counted on a minority of their pixels. Its tones in Lab may tell
        # it whole. (A back whose cells leave white print out, a lattice or a wide border,
        # covers as little, but its white parts cards well: it stays cells.)
        try:
            return learn_back_tones(frames, felt, mm_per_px)
        except CalibrationError:
            pass
    return model, warnings


#: a back whose hue cells leave more than this share of it to no class or to skin is learned
#: as tones when it can be
HUE_UNEXPLAINED = 0.15
#: a back whose hue cells cover less than this share of it (white print counts as not
#: covered: a red back with a white lattice and border measures 0.45-0.65) and whose pixels
#: are at least HUE_DARK_FOR_TONES too dark for a hue (value at most colours.MIN_BACK_VAL)
#: is learned as tones when it can be (docs/camera.md "Which backs")
HUE_COVERAGE_FOR_TONES = 0.5
HUE_DARK_FOR_TONES = 0.15


def learn_back_hue(frames: list[np.ndarray], felt: FeltModel, mm_per_px: float) -> tuple[BackModel, list[str]]:
    """The back as (hue, saturation) cells: a back with a colour of its own, not the felt's."""
    model, warnings, _, _ = _learn_back_hue(frames, felt, mm_per_px)
    return model, warnings


def _learn_back_hue(frames: list[np.ndarray], felt: FeltModel,
                    mm_per_px: float) -> tuple[BackModel, list[str], float, float]:
    """learn_back_hue, the share of the backs the model leaves to no class or to skin, and the
    share of the backs' pixels too dark for a hue."""
    if not frames:
        raise CalibrationError("no still with a face-down card: lay one (or a few, apart) on the felt")
    fh = colours.felt_hsv(felt.bgr)
    card_w, card_h = CARD_W_MM / mm_per_px / SHRINK, CARD_H_MM / mm_per_px / SHRINK
    card_area = card_w * card_h
    window = colours.window_px(card_w)
    cards: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # hsv, comp, interior, full-res grey
    notes: list[str] = []
    sides: list[tuple[float, float] | None] = []  # each lone card's (short, long) side, full-res px
    for n, frame in enumerate(frames, 1):
        small = _quarter(frame)
        corrected = cv2.transform(small, np.diag(_gains(small, felt.bgr)).astype(np.float32))
        hsv = cv2.cvtColor(corrected, cv2.COLOR_BGR2HSV)
        h, s, v = cv2.split(hsv)
        felt_m = colours.felt_mask(h, s, v, fh)
        # a face's stock is white through and through; a back's white pattern, averaged with
        # its ground at quarter resolution, keeps a tint
        paper = (s < 30) & (v > 150)
        ink = v < colours.DARK_MAX_VAL  # the codes' black modules
        nonfelt = (~felt_m).astype(np.uint8)
        if colours.is_grey_felt(fh):
            # a back's pattern may average to the grey felt's grey in places: the card is what
            # its outline encloses (before the opening, which may break a thin border)
            nonfelt = colours.fill_holes(nonfelt, card_area).astype(np.uint8)
        nonfelt = cv2.morphologyEx(nonfelt, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        found = 0
        for comp, area, box in _lone_cards(nonfelt, card_area):
            if np.count_nonzero(paper & comp) > 0.5 * area and np.count_nonzero(ink & comp) > 0.02 * area:
                notes.append(f"still {n}: a face-up card was left out (lay the cards face down)")
                continue
            interior, grey = _card_inside(frame, comp, box)
            cards.append((hsv, comp, interior, grey))
            sides.append(_card_sides(frame, box, felt.bgr, fh))
            found += 1
        if not found:
            notes.append(f"still {n}: no face-down card lying on its own was found")
    if not cards:
        raise _no_lone_card(notes)
    hist: Counter = Counter()
    total = 0
    felt_like = 0
    too_dark = 0
    for hsv, _, interior, _ in cards:
        planes = cv2.split(hsv)
        felt_like += int(np.count_nonzero(colours.felt_mask(*planes, fh) & interior))
        h, s, v = (c[interior] for c in planes)
        total += h.size
        too_dark += int(np.count_nonzero(v <= colours.MIN_BACK_VAL))
        chroma = (s >= colours.MIN_BACK_SAT) & (v > colours.MIN_BACK_VAL)
        hist.update(zip((h[chroma] // colours.HUE_BIN).tolist(), (s[chroma] // colours.SAT_BIN).tolist(), strict=True))
    if felt_like > 0.1 * total:
        raise CalibrationError(
            f"{100 * felt_like / total:.0f}% of the back looks like the felt: this deck cannot be told from "
            "this felt; use a deck set or a felt of another colour")
    cells = tuple(sorted(c for c, m in hist.items() if m >= 0.01 * total))
    cells = _unexplained_cells(cards, hist, total, cells, fh)
    coverage = sum(hist[c] for c in cells) / total
    if coverage < 0.35:
        raise CalibrationError(
            f"only {100 * coverage:.0f}% of the back is coloured: a white, grey or black back cannot be told "
            "from card faces and the cut card; use a deck set with a coloured back")
    lut = colours.back_lut(cells)
    shares, regions, whites, backs, odd = [], 0, 0, 0, 0
    for hsv, _comp, interior, _ in cards:
        h, s, v = cv2.split(hsv)
        back_px = lut[h, s] & (v > colours.MIN_BACK_VAL)
        share = cv2.boxFilter(back_px.astype(np.float32), -1, (window, window), normalize=True,
                              borderType=cv2.BORDER_REPLICATE)
        shares.append(share[interior])
    level = max(0.2, 0.5 * float(np.median(np.concatenate(shares))))
    for (hsv, comp, _, _), _share in zip(cards, shares, strict=True):
        corrected = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
        cls = colours.classify(corrected, fh, lut, window, level)
        regions += int(np.count_nonzero(cls.back & comp))
        whites += int(np.count_nonzero(cls.white & comp))
        backs += int(np.count_nonzero(comp))
        odd += int(np.count_nonzero((cls.skin | ~cls.explained()) & comp))
    if regions < 0.6 * backs:
        raise CalibrationError(
            f"the learned colours cover only {100 * regions / backs:.0f}% of the backs: the back is too close "
            "to white faces; use a deck set with a stronger back colour")
    hsv_all = np.concatenate([c[0][c[2]] for c in cards]).reshape(-1, 1, 3)
    mean_bgr = tuple(int(x) for x in cv2.cvtColor(hsv_all, cv2.COLOR_HSV2BGR).reshape(-1, 3).mean(axis=0))
    texture = float(np.mean([float(np.std(c[3])) for c in cards if c[3].size]))
    warnings = list(notes)
    skin_cells = [c for c in cells if colours.SKIN_HUE[0] <= c[0] * colours.HUE_BIN <= colours.SKIN_HUE[1]]
    if skin_cells:
        warnings.append(f"{len(skin_cells)} of the back's colour cells are skin-coloured: a dealer's hand over a "
                        "card of this deck may be read as back (the zone is not held)")
    size = _card_size([s for s in sides if s is not None], mm_per_px, warnings)
    model = BackModel(cells, level, whites / max(1, regions), mean_bgr, texture, coverage, len(cards), size)  # type: ignore[arg-type]
    return model, warnings, odd / max(1, backs), too_dark / max(1, total)


#: a back's colours the learned cells leave to skin or to no class at all (a shaded gold
#: emblem spread over many cells, each under 1% of the back) are learned too when together
#: they fill this share of a back; each such cell must hold RARE_CELL of it
UNEXPLAINED_MAX = 0.03
RARE_CELL = 0.004


def _unexplained_cells(cards: list, hist: Counter, total: int, cells: tuple, fh: tuple[int, int, int]) -> tuple:
    """`cells` with the back's rarer colours added when, left out, they would be taken for a
    dealer's hand (skin) or for another deck (no known class) wherever this back lies: a
    medallion is larger than the back's window, so the window does not make it back."""
    if not cells:
        return cells
    lut = colours.back_lut(cells)
    left: Counter = Counter()
    for hsv, _, interior, _ in cards:
        h, s, v = (c[interior] for c in cv2.split(hsv))
        known = lut[h, s] & (v > colours.MIN_BACK_VAL)
        white = (s < colours.WHITE_MAX_SAT) & (v > colours.WHITE_MIN_VAL)
        dark = v < colours.DARK_MAX_VAL
        odd = ~known & ~white & ~dark & (s >= colours.MIN_BACK_SAT) & (v > colours.MIN_BACK_VAL)
        left.update(zip((h[odd] // colours.HUE_BIN).tolist(), (s[odd] // colours.SAT_BIN).tolist(), strict=True))
    if sum(left.values()) < UNEXPLAINED_MAX * total:
        return cells
    more = {c for c, m in left.items() if m >= RARE_CELL * total and hist[c] > 0}
    return tuple(sorted(set(cells) | more))


#: at calibration, a pixel differs from the felt by more than this in Lab (8-bit scale) when
#: the back is learned as tones: a card whose back has the felt's hue or no hue at all
SEGMENT_LAB = 14.0
#: a back's tone this close to the felt's colour cannot be told from it: such tones are left
#: out of the back's mix, and a back more than FELT_TONE_SHARE of which they fill is refused
FELT_TONE_MIN = 24.0
FELT_TONE_SHARE = 0.4
#: calibrate warns of a back's tone this close to the felt's colour (glare on the felt)
FELT_TONE_WARN = 40.0


def _lone_cards(nonfelt: np.ndarray, card_area: float):
    """Each blob of `nonfelt` that is one whole card lying alone (a card's area, filling its
    turned rectangle): its mask, its area and its box (x, y, w, h), at quarter resolution."""
    k, labels, stats, _ = cv2.connectedComponentsWithStats(nonfelt, connectivity=8)
    for i in range(1, k):
        area = stats[i, cv2.CC_STAT_AREA]
        if not 0.6 * card_area <= area <= 1.4 * card_area:
            continue
        comp = labels == i
        cs, _ = cv2.findContours(comp.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        (_, _), (rw, rh), _ = cv2.minAreaRect(max(cs, key=cv2.contourArea))
        if area < 0.85 * rw * rh:
            continue  # not one whole card lying alone
        box = tuple(int(stats[i, c]) for c in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP,
                                               cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
        yield comp, area, box


def _card_inside(frame: np.ndarray, comp: np.ndarray,
                 box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A lone card's inside, clear of its edge: its mask at quarter resolution, and the full
    resolution grey picture of its box less a margin."""
    x, y, bw, bh = box
    interior = cv2.erode(comp.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    grey = cv2.cvtColor(frame[(y + 3) * SHRINK : (y + bh - 3) * SHRINK, (x + 3) * SHRINK : (x + bw - 3) * SHRINK],
                        cv2.COLOR_BGR2GRAY)
    return interior, grey


def _no_lone_card(notes: list[str]) -> CalibrationError:
    return CalibrationError("no face-down card found in the back stills (a back the colour of the felt "
                            "cannot be seen at all): " + "; ".join(notes))


def _not_felt_lab(bgr: np.ndarray, felt_lab: np.ndarray) -> np.ndarray:
    return np.linalg.norm(colours.lab_of(bgr) - felt_lab, axis=2) > SEGMENT_LAB


def _carries_code(frame: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Does a QR code of our notation lie in this box (quarter-resolution x, y, w, h)?"""
    from firmware_bridge.camera.decoders import make_decoder
    from firmware_bridge.camera.faces import parse_face_text

    x, y, bw, bh = box
    h, w = frame.shape[:2]
    crop = frame[max(0, (y - 2) * SHRINK) : min(h, (y + bh + 2) * SHRINK), max(0, (x - 2) * SHRINK) : min(w, (x + bw + 2) * SHRINK)]
    reads = make_decoder("auto").decode(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY))
    return any(parse_face_text(r.text) is not None for r in reads)


def _tones(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A few Lab centroids that most of `samples` (N x 3) lie within reach of, and the share of
    the samples each holds (the fewest that leave at most 10% out of reach)."""
    rng_pick = samples[np.linspace(0, len(samples) - 1, min(len(samples), 20000)).astype(int)]
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    best = None
    cv2.setRNGSeed(7)
    for k in range(1, 7):
        if len(rng_pick) < k:
            break
        _, _, centres = cv2.kmeans(rng_pick.astype(np.float32), k, None, crit, 3, cv2.KMEANS_PP_CENTERS)
        d = np.linalg.norm(samples[:, None, :] - centres[None, :, :], axis=2)
        near = d.argmin(axis=1)
        within = d.min(axis=1) <= colours.TONE_REACH
        weights = np.array([np.count_nonzero(within & (near == j)) for j in range(k)], np.float64) / len(samples)
        best = (centres, weights)
        if within.mean() >= 0.9:
            break
    assert best is not None
    centres, weights = best
    keep = weights >= 0.03
    return centres[keep], weights[keep]


def learn_back_tones(frames: list[np.ndarray], felt: FeltModel, mm_per_px: float) -> tuple[BackModel, list[str]]:
    """The back as tones in Lab: the cards are what differs from the felt in lightness or colour."""
    fh = colours.felt_hsv(felt.bgr)
    felt_lab = colours.lab_of(np.uint8([[felt.bgr]]))[0, 0]
    card_w, card_h = CARD_W_MM / mm_per_px / SHRINK, CARD_H_MM / mm_per_px / SHRINK
    card_area = card_w * card_h
    window = colours.window_px(card_w)
    cards: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # corrected, comp, interior, grey
    notes: list[str] = []
    sides: list[tuple[float, float] | None] = []
    dot_maps: list[np.ndarray] = []  # per card, colours.dot_share of its still
    for n, frame in enumerate(frames, 1):
        small = _quarter(frame)
        gains = _gains(small, felt.bgr)
        corrected = colours.balanced(small, gains)
        hsv = cv2.cvtColor(corrected, cv2.COLOR_BGR2HSV)
        _, s, v = cv2.split(hsv)
        paper = (s < 30) & (v > 150)
        ink = v < colours.DARK_MAX_VAL
        nonfelt = _not_felt_lab(corrected, felt_lab).astype(np.uint8)
        if colours.is_grey_felt(fh):
            # (on a grey felt a black and grey pattern averages to the felt's grey over much of
            # a card: its outline is filled before the opening, which may break a thin border)
            nonfelt = colours.fill_holes(nonfelt, card_area).astype(np.uint8)
        nonfelt = cv2.morphologyEx(nonfelt, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        # a back whose pattern, averaged, takes the felt's colour in places (a navy back with a
        # white lattice on blue felt): the card is what its outline encloses
        nonfelt = colours.fill_holes(nonfelt, card_area).astype(np.uint8)
        found = 0
        for comp, area, box in _lone_cards(nonfelt, card_area):
            if np.count_nonzero(paper & comp) > 0.5 * area and np.count_nonzero(ink & comp) > 0.02 * area \
                    and _carries_code(frame, box):
                # white with black print may be a back too (a black and white lattice): a face
                # is what carries a code of ours
                notes.append(f"still {n}: a face-up card was left out (lay the cards face down)")
                continue
            interior, grey = _card_inside(frame, comp, box)
            cards.append((corrected, comp, interior, grey))
            dot_maps.append(_dot_map(frame, gains, mm_per_px, corrected.shape))
            sides.append(_card_sides(frame, box, felt.bgr, fh, felt_lab))
            found += 1
        if not found:
            notes.append(f"still {n}: no face-down card lying on its own was found")
    if not cards:
        raise _no_lone_card(notes)
    samples = np.concatenate([colours.lab_of(c[0])[c[2]] for c in cards]).astype(np.float32)
    centres, weights = _tones(samples)
    if not len(centres):
        raise CalibrationError("the back shows no colour over more than 3% of it: calibrate again on sharper stills")
    near_felt = [float(np.linalg.norm(c - felt_lab)) for c in centres]
    close = sum(w for w, d in zip(weights, near_felt, strict=True) if d < FELT_TONE_MIN)
    if close > FELT_TONE_SHARE:
        raise CalibrationError(
            f"{100 * close:.0f}% of the back is within {FELT_TONE_MIN:.0f} Lab units of the felt's colour: this "
            "deck cannot be told from this felt (the colour of the felt); use a deck set or a felt of another colour")
    keep = np.array([d >= FELT_TONE_MIN for d in near_felt])
    centres, weights = centres[keep], weights[keep]
    model = colours.ToneModel(tuple(tuple(float(v) for v in c) for c in centres), tuple(float(w) for w in weights),
                              tuple(float(v) for v in felt_lab), 1.0)  # type: ignore[arg-type]
    gw = model.group_weights()
    dots = 0.0
    if gw["mid"] < colours.TONE_GROUP_MIN and not (gw["dark"] >= colours.TONE_GROUP_MIN <= gw["white"]) \
            and gw["dark"] >= gw["white"]:
        # black at quarter resolution; small dots may still show at full resolution, which
        # the cut card (plain black) never does
        dots = float(np.mean([float(dm[c[2]].mean()) for dm, c in zip(dot_maps, cards, strict=True)]))
        if dots >= colours.DOT_MIN:
            model = dataclasses.replace(model, dots=dots)
        else:
            dots = 0.0
    if not dots and gw["mid"] < colours.TONE_GROUP_MIN and not (gw["dark"] >= colours.TONE_GROUP_MIN <= gw["white"]):
        if gw["dark"] >= gw["white"]:
            raise CalibrationError(
                "the back is plain black (no pattern of another shade over 8% of it): it cannot be told from "
                "the cut card, which is plain black on both sides (CARD_FACES.md); use a deck set whose back "
                "is not plain black")
        raise CalibrationError(
            "the back is plain white (no pattern of another shade over 8% of it): it cannot be told from a "
            "card face's white; use a deck set with a coloured, grey or patterned back")
    sims = []
    for corrected, _comp, interior, _ in cards:
        sim, ok = model.windowed(model.nearest(corrected), window)
        sims.append(np.where(ok, sim, 0.0)[interior])
    level = max(0.3, 0.6 * float(np.median(np.concatenate(sims))))
    model = dataclasses.replace(model, level=level)
    regions = whites = backs = 0
    for (corrected, comp, _, _), dm in zip(cards, dot_maps, strict=True):
        cls = colours.classify(corrected, fh, model, window, level, dm)
        regions += int(np.count_nonzero(cls.back & comp))
        whites += int(np.count_nonzero(cls.white & comp))
        backs += int(np.count_nonzero(comp))
    if regions < 0.6 * backs:
        raise CalibrationError(
            f"the learned tones cover only {100 * regions / backs:.0f}% of the backs: the back cannot be told "
            "from card faces, the cut card and the felt; use a deck set with a bolder back")
    all_px = np.concatenate([c[0][c[2]] for c in cards])
    mean_bgr = tuple(int(x) for x in all_px.reshape(-1, 3).mean(axis=0))
    texture = float(np.mean([float(np.std(c[3])) for c in cards if c[3].size]))
    warnings = list(notes)
    near = [d for d, k in zip(near_felt, keep, strict=True) if k and d < FELT_TONE_WARN]
    if near:
        warnings.append(f"a tone of the back lies {min(near):.0f} Lab units from the felt's colour: glare or a "
                        "bright spot on the felt may be read as this back (a card where there is none)")
    size = _card_size([s for s in sides if s is not None], mm_per_px, warnings)
    tones = tuple((round(float(c[0]), 1), round(float(c[1]), 1), round(float(c[2]), 1), round(float(w), 3))
                  for c, w in zip(centres, weights, strict=True))
    if dots:
        warnings.append(f"a black back with small dots ({100 * dots:.1f}% of it): told from the cut card by its "
                        "dots alone; keep the camera in focus")
    back = BackModel((), level, whites / max(1, regions), mean_bgr, texture, float(weights.sum()), len(cards),  # type: ignore[arg-type]
                     size, tones, dots)
    return back, warnings


def _dot_map(frame: np.ndarray, gains: np.ndarray, mm_per_px: float, shape: tuple[int, ...]) -> np.ndarray:
    """colours.dot_share of a whole still, at the quarter resolution of `shape`."""
    h, w = shape[0] * SHRINK, shape[1] * SHRINK
    return colours.dot_share(frame[:h, :w], gains, mm_per_px, shape)


def _card_sides(frame: np.ndarray, box: tuple[int, int, int, int], felt_bgr: tuple[int, int, int],
                felt_hsv: tuple[int, int, int], felt_lab: np.ndarray | None = None) -> tuple[float, float] | None:
    """A lone card's (short, long) side in full-resolution pixels: the smallest rectangle
    round what is not felt in its box (quarter-resolution x, y, w, h), measured at full
    resolution where a pixel is a third of a millimetre."""
    x, y, bw, bh = box
    h, w = frame.shape[:2]
    x0, y0 = max(0, (x - 2) * SHRINK), max(0, (y - 2) * SHRINK)
    x1, y1 = min(w, (x + bw + 2) * SHRINK), min(h, (y + bh + 2) * SHRINK)
    crop = frame[y0:y1, x0:x1]
    corrected = cv2.transform(crop, np.diag(_gains(_quarter(frame), felt_bgr)).astype(np.float32))
    if felt_lab is not None:
        card = _not_felt_lab(corrected.clip(0, 255).astype(np.uint8), felt_lab)
    else:
        hh, ss, vv = cv2.split(cv2.cvtColor(corrected, cv2.COLOR_BGR2HSV))
        card = ~colours.felt_mask(hh, ss, vv, felt_hsv)
    card = cv2.morphologyEx(card.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    cs, _ = cv2.findContours(card, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cs:
        return None
    (_, _), (rw, rh), _ = cv2.minAreaRect(max(cs, key=cv2.contourArea))
    return min(rw, rh), max(rw, rh)


def _card_size(sides: list[tuple[float, float]], mm_per_px: float, warnings: list[str]) -> float:
    """The lone cards' size over the size the config's scale gives them (1.0 when they
    cannot be measured or their shape is not a card's)."""
    if not sides:
        return 1.0
    short = float(np.median([s for s, _ in sides]))
    long = float(np.median([long for _, long in sides]))
    ratio = 0.5 * (short * mm_per_px / CARD_W_MM + long * mm_per_px / CARD_H_MM)
    if abs((short / long) / (CARD_W_MM / CARD_H_MM) - 1.0) > 0.06:
        warnings.append(f"the lone cards measure {short:.0f} x {long:.0f} px, not a card's shape: the table's "
                        "scale was not measured (the config's mm_per_px stands)")
        return 1.0
    if not CARD_SIZE_RANGE[0] <= ratio <= CARD_SIZE_RANGE[1]:
        warnings.append(f"the lone cards measure {short:.0f} x {long:.0f} px, {ratio:.2f} times what "
                        f"mm_per_px = {mm_per_px} gives: correct mm_per_px in the config and calibrate again")
        return 1.0
    return ratio


def calibrate(felt_frames: list[np.ndarray], back_frames: list[np.ndarray], mm_per_px: float,
              ignore: Sequence[Sequence[tuple[float, float]]] = ()) -> Calibration:
    """The felt and the deck's back from the stills. `ignore`: polygons (full-resolution
    corners) of places where no card is laid (`Layout.places_without_cards`: a dice tray,
    whose pad is about a card's size and, on a felt of another colour, was learned as a lone
    face-down card's back)."""
    if ignore:
        felt_frames = [_hidden(f, ignore) for f in felt_frames]
        back_frames = [_hidden(f, ignore) for f in back_frames]
    felt = learn_felt(felt_frames)
    back, warnings = learn_back(back_frames, felt, mm_per_px)
    if colours.is_grey_felt(colours.felt_hsv(felt.bgr)):
        warnings = [*warnings, "a grey felt: told from the cards by its lightness alone; keep glare off the felt "
                               "(a reflection there is as light as a card face's white and reads as an "
                               "unreadable face, XX)"]
    # (the table's scale as measured on the lone cards, as the recogniser takes it)
    emblem = learn_emblem(back_frames, felt, mm_per_px / back.card_size)
    if emblem:
        back = dataclasses.replace(back, emblem=emblem)
    return Calibration(felt, back, tuple(warnings))


def _hidden(frame: np.ndarray, places: Sequence[Sequence[tuple[float, float]]]) -> np.ndarray:
    """`frame` with `places` painted in its felt's colour (the median of a sparse grid of its
    pixels: the felt is most of a still)."""
    out = frame.copy()
    felt = tuple(int(v) for v in np.median(frame[::8, ::8].reshape(-1, 3), axis=0))
    for poly in places:
        cv2.fillPoly(out, [np.round(np.asarray(poly, np.float64)).astype(np.int32).reshape(-1, 1, 2)], felt)
    return out


#: an emblem lies in the middle of its card: its centre within this share of the card's
#: width of the card's centre
EMBLEM_CENTRE = 0.15


def learn_emblem(frames: list[np.ndarray], felt: FeltModel, mm_per_px: float) -> float:
    """The share of a back its emblem covers, when every lone face-down card in the stills
    shows exactly one island of the back's rarer colour in its middle, clear of its edges and
    at least back_count.MARK_MIN of it and at most MARK_MAX (a medallion, a crest); else 0 (a border, a lattice, dots,
    a flat back, two emblems)."""
    felt_lab = colours.lab_of(np.uint8([[felt.bgr]]))[0, 0]
    card_w, card_h = CARD_W_MM / mm_per_px, CARD_H_MM / mm_per_px
    card_area = card_w * card_h / (SHRINK * SHRINK)
    shares: list[float] = []
    for frame in frames:
        small = _quarter(frame)
        gains = _gains(small, felt.bgr)
        corrected = colours.balanced(small, gains)
        nonfelt = cv2.morphologyEx(_not_felt_lab(corrected, felt_lab).astype(np.uint8), cv2.MORPH_OPEN,
                                   np.ones((3, 3), np.uint8))
        nonfelt = colours.fill_holes(nonfelt, card_area).astype(np.uint8)
        for comp, _, (x, y, bw, bh) in _lone_cards(nonfelt, card_area):
            crop = frame[y * SHRINK : (y + bh) * SHRINK, x * SHRINK : (x + bw) * SHRINK]
            mask = cv2.resize(comp[y : y + bh, x : x + bw].astype(np.uint8), (crop.shape[1], crop.shape[0]),
                              interpolation=cv2.INTER_NEAREST)
            islands = [m for m in back_count.marks(crop, mask, gains, mm_per_px)
                       if m[0] >= back_count.MARK_MIN * card_w * card_h]
            if len(islands) != 1:
                return 0.0
            area, cx, cy = islands[0]
            ys, xs = np.nonzero(mask)
            if math.hypot(cx - xs.mean(), cy - ys.mean()) > EMBLEM_CENTRE * card_w:
                return 0.0
            share = area / float(np.count_nonzero(mask))
            if share > back_count.MARK_MAX:
                return 0.0
            shares.append(share)
    return float(np.mean(shares)) if shares else 0.0


_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*(#.*)?$")


def toml_text(cal: Calibration) -> str:
    d = cal.as_dict()
    lines = ["# Learned by `station camera calibrate` from stills of the empty felt and of face-down",
             "# cards of the deck set in use (docs/camera.md, \"Calibrating a new deck\")."]
    felt = d.get("felt")
    if felt:
        lines += ["[calibration.felt]", f"bgr = {felt['bgr']}"]  # type: ignore[index]
    back = d.get("back")
    if back:
        lines.append("[calibration.back]")
        for k, v in back.items():  # type: ignore[union-attr]
            lines.append(f"{k} = {v}")
    return "\n".join(lines) + "\n"


def write_calibration(path: str | Path, cal: Calibration) -> None:
    """Replace the `[calibration.*]` tables of a camera config, keeping everything else (the
    dice tray's `[calibration.dice]` is written on its own: dice_calibration.py)."""
    replace_tables(path, lambda name: name.startswith("calibration") and name != "calibration.dice",
                   ("# Learned by `station camera calibrate`", "# cards of the deck set in use"), toml_text(cal))


def replace_tables(path: str | Path, drop, drop_lines: tuple[str, ...], text: str) -> None:
    """Rewrite a TOML file without the tables whose name `drop(name)` is true and the lines
    starting with any of `drop_lines` (the comment a writer put over its tables), then `text`
    appended."""
    p = Path(path)
    old = p.read_text(encoding="utf-8").splitlines() if p.exists() else []
    kept: list[str] = []
    skipping = False
    for line in old:
        m = _SECTION.match(line)
        if m:
            skipping = drop(m.group(1).strip())
        if skipping or line.startswith(drop_lines):
            continue
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    p.write_text("\n".join(kept) + ("\n\n" if kept else "") + text, encoding="utf-8")
