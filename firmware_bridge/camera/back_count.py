"""How many face-down cards make up one blob of backs (a seat's row or fan, a hand of two).

Area cannot tell: each card of a row may cover anything from none to half of the one before
it (CARD_FACES.md, "Seats"), so three cards cover 2 to 3 cards' area and four 2.5 to 4. What
does tell is that every card shows at least half of its back, and that the back of the card
on top is cut off from the one below by the upper card's edge: its white border. So the blob
is looked at closely (full resolution, only for blobs bigger than one card): the places of
the calibrated back's colours are split at the borders, and each piece of at least a fifth
of a card is one card's visible back (counted also with threads of a pixel or two cut: the
border may fail to part two backs where it meets the edge of the card below). A back without
a border, whose pattern runs on across the seam, cannot be counted this way: the area's
estimate stands (docs/camera.md).

A back whose pattern runs on from card to card (no border, or a border of the back's own
colour) is counted by the edges of the cards instead (`count_by_edges`): each card lying on
the one before shows its edge, and the frame or border printed along it, as long straight
lines across the row, at least half a card apart (every card shows at least half of its back)
and never within a third of a card of the row's ends. A back printed with fine lines all
over (a lattice, pinstripes) is full of such lines: it is left to the colours.

The count is trusted only when the blob's area agrees with it (n cards each showing at least
half: between 1 + (n-1)/2 and n cards' area, with some slack); otherwise the caller keeps
its own estimate.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from firmware_bridge.camera import colours

#: a thin line (bright or dark) differs by this many grey levels from both sides of it, 1.3 mm away
LINE_LEVEL = 10.0
#: a back whose thin lines cover more than this share of it is patterned with them all over
LINE_DENSITY_MAX = 0.25
#: a card's edge across the row is a straight line of at least this share of the card's length
EDGE_LENGTH = 0.6
#: and turned at most this far from across the row (a fan turns each card a little further)
EDGE_TURN_DEG = 40.0
#: a card's edge across the row runs through the blob: along it the blob's outline is at least
#: this far (median, mm); a frame printed along an outer edge runs a few millimetres inside it
EDGE_DEPTH_MM = 8.0
#: two cards' edges lie at least this share of a card's width apart along the row
EDGE_GAP = 0.4
#: lines across the row closer than this (mm) are one edge seen twice (its shadow and its
#: frame, a line's two sides); further apart and closer than EDGE_GAP, a back's print
LINE_PAIR_MM = 3.0
#: a piece of back smaller than this share of a card is a fragment (a corner, a crumb)
MIN_PIECE = 0.22
#: two backs joined by a thread of back no wider than this less one (pixels: the thread is
#: the picture's, a pixel or two of anti-aliased border) are two pieces (see _threads_cut)
THREAD_PX = 3
#: the light ink of a back (a white lattice) is pooled over this many millimetres, as the
#: calibration saw the back at quarter resolution; a card's border is wider
POOL_MM = 1.2
#: a back learned as tones is told by its mix of tones over a window this wide (mm) when its
#: cards are counted: wider than a pattern's pitch, narrower than twice a card's border
TONE_WINDOW_MM = 3.0
#: and where it shows at least this share of the mix of its tones other than white (a card's
#: white border shows none of them, though its white may be one of the back's tones)
TONE_COUNT_LEVEL = 0.7
#: a white mark of a back learned as tones no bigger than this (mm², a disc 5 mm across) is
#: its pattern (white dots); a card's white border showing on the card below is longer
DOT_AREA_MM2 = 20.0

def count_backs(full_bgr: np.ndarray, blob_mask: np.ndarray, gains: np.ndarray,
                lut: np.ndarray | colours.ToneModel, card_area_px: float, mm_per_px: float,
                level: float = 0.5) -> list[int]:
    """The number of separate back pieces of a card's size in `full_bgr` (a full-resolution
    crop) within `blob_mask` (same size), seen two ways: pixel by pixel (a thin border parts
    two backs of fine pattern), and pooled over POOL_MM (a bold light lattice is back; a wide
    border still parts). The caller keeps the count the blob's area allows."""
    corrected = cv2.transform(full_bgr, np.diag(gains).astype(np.float32))
    pool = max(2, int(round(POOL_MM / mm_per_px)))
    inside = blob_mask > 0
    counts = []
    for pooled, view in ((False, corrected), (True, cv2.blur(corrected, (pool, pool)))):
        if isinstance(lut, colours.ToneModel):
            counts += _count_tones(view, pooled, inside, lut, card_area_px, mm_per_px, pool)
            continue
        else:
            hsv = cv2.cvtColor(view, cv2.COLOR_BGR2HSV)
            h, s, v = cv2.split(hsv)
            back_px = lut[h, s] & (v > colours.MIN_BACK_VAL)
        if pooled:
            # as the recogniser does at quarter resolution: back where the back's colours
            # fill the calibrated share of a small window (a pattern's colours alternate)
            share = cv2.blur(back_px.astype(np.float32), (pool + 1, pool + 1))
            back_px = share >= level
        back = back_px & inside
        counts.append(_pieces(back, card_area_px))
        if not pooled:
            counts.append(_pieces(_threads_cut(back), card_area_px))
    return counts


def _threads_cut(back: np.ndarray) -> np.ndarray:
    """`back` with its threads cut (eroded by THREAD_PX): where a card's border meets the edge
    of the card below it (its corner over the other's side, the border's anti-aliased end), a
    pixel or two of back may join two cards' backs across it. The pieces shrink by a pixel all
    round, which a piece of a fifth of a card does not notice."""
    return cv2.erode(back.astype(np.uint8), np.ones((THREAD_PX, THREAD_PX), np.uint8)) > 0


def _pieces(back: np.ndarray, card_area_px: float) -> int:
    n, _, stats, _ = cv2.connectedComponentsWithStats(back.astype(np.uint8), connectivity=4)
    return sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= MIN_PIECE * card_area_px)


def _count_tones(view: np.ndarray, pooled: bool, inside: np.ndarray, lut: colours.ToneModel,
                 card_area_px: float, mm_per_px: float, pool: int) -> list[int]:
    """A back learned as tones: pixel by pixel, its tones; pooled (as the calibration saw the
    back at quarter resolution), where its tones fill half of a small window, and where a
    window of TONE_WINDOW_MM shows the back's mix of tones other than white: a card's border,
    solid and wider than the pattern's lines, is not back even when its white is near a tone
    of the back (a black and white lattice)."""
    idx = lut.nearest(view)
    if not pooled:
        out = [_pieces((idx >= 0) & inside, card_area_px), _pieces(_threads_cut((idx >= 0) & inside), card_area_px)]
        whites = lut.groups["white"]
        if whites:
            # white dots (or any small white marks) are the back's pattern; a card's white
            # border, a long band, parts two cards: back is the back's tones but for white
            # that lies in pieces bigger than a dot
            # (noise and JPEG break a border's white into crumbs: looked at through a median)
            white = np.isin(lut.nearest(cv2.medianBlur(np.ascontiguousarray(view).clip(0, 255).astype(np.uint8), 5)),
                            whites).astype(np.uint8)
            white = cv2.morphologyEx(white, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
            n, labels, stats, _ = cv2.connectedComponentsWithStats(white, connectivity=8)
            big = np.zeros(n, bool)
            big[1:] = stats[1:, cv2.CC_STAT_AREA] > DOT_AREA_MM2 / (mm_per_px * mm_per_px)
            back = (idx >= 0) & ~big[labels]
            back = colours.fill_holes(back, DOT_AREA_MM2 / (mm_per_px * mm_per_px))
            out.append(_pieces(back & inside, card_area_px))
        return out
    share = cv2.blur((idx >= 0).astype(np.float32), (pool + 1, pool + 1))
    out = [_pieces((share >= 0.5) & inside, card_area_px)]
    sim, ok = lut.windowed(idx, max(3, int(round(TONE_WINDOW_MM / mm_per_px)) | 1), without_white=True)
    # a seam of border narrower than the window shows only in part: pieces joined by a
    # thread of back are parted
    mix = cv2.erode(((sim >= TONE_COUNT_LEVEL) & ok).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    out.append(_pieces(mix & inside, card_area_px))
    return out


def plausible(n: int, area: float, card_area: float) -> bool:
    """Can n face-down cards, each showing at least half of its back, cover `area`?"""
    if n < 1:
        return False
    return (0.5 * (n + 1) - 0.3) * card_area <= area <= (n + 0.2) * card_area


def count_by_edges(full_bgr: np.ndarray, blob_mask: np.ndarray, gains: np.ndarray,
                   card_px: tuple[float, float], mm_per_px: float) -> int | None:
    """The number of cards in a row or fan of backs (a full-resolution crop and its blob mask)
    counted by the cards' edges across the row; None when the back is patterned with thin
    lines all over. Read at half resolution (a line of 0.5 mm still shows), first in grey;
    where grey shows no edge, in each colour channel: a card's edge (its shadow, a frame printed
    along it) that crosses a pattern of two colours of about the same grey (orange rays on
    yellow) is hardly darker in grey than the darker of them, but it is in the channel where
    both are light."""
    h, w = full_bgr.shape[:2]
    small = cv2.resize(full_bgr, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    mask = cv2.resize(blob_mask, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
    mm = 2 * mm_per_px
    balanced = colours.balanced(small, gains)
    # the blob's own outline (a card's edge on the felt) is not looked at
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(2.5 / mm) | 1,) * 2)) > 0
    grey = cv2.cvtColor(balanced, cv2.COLOR_BGR2GRAY).astype(np.float32)
    hits = ((_thin_lines(grey) > LINE_LEVEL) & inner).astype(np.uint8)
    if np.count_nonzero(hits) > LINE_DENSITY_MAX * max(1, np.count_nonzero(inner)):
        return None
    n = _edges_across(hits, mask, (card_px[0] / 2, card_px[1] / 2), mm)
    if n != 1:
        return n
    chans = balanced.astype(np.float32)
    line = np.max([_thin_lines(chans[..., k]) for k in range(3)], axis=0)
    hits = ((line > LINE_LEVEL) & inner).astype(np.uint8)
    if np.count_nonzero(hits) > LINE_DENSITY_MAX * max(1, np.count_nonzero(inner)):
        return n  # lines all over in a channel (a pattern of hues): grey's answer stands
    # lines of a hue grey does not see may be the back's print (pinstripes, a lattice of one
    # hue on another): then they come closer than cards' edges can, and grey's answer stands
    by_colour = _edges_across(hits, mask, (card_px[0] / 2, card_px[1] / 2), mm, printed_lines=True)
    return n if by_colour is None else by_colour


def _thin_lines(img: np.ndarray) -> np.ndarray:
    """How much each pixel of `img` (one channel) is brighter or darker than both its sides, 2
    pixels away across or along: a thin line's strength."""
    line = np.zeros_like(img)
    for axis in (0, 1):
        a, b = np.roll(img, 2, axis), np.roll(img, -2, axis)
        line = np.maximum(line, np.maximum(np.minimum(a, b) - img, img - np.maximum(a, b)))
    return line


def _edges_across(hits: np.ndarray, mask: np.ndarray, card: tuple[float, float], mm: float,
                  printed_lines: bool = False) -> int | None:
    """The cards of the blob `mask` counted by the long straight lines of `hits` across its row
    (`card`: a card's width and length, `mm`: millimetres per pixel, at the hits' resolution);
    None when the blob has no outline, or, with `printed_lines`, when two of the lines lie
    more than LINE_PAIR_MM and less than EDGE_GAP of a card apart: cards' edges cannot (each
    card shows at least half of its back), a back's printed lines at their pitch do."""
    card_w, card_h = card
    cs, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cs:
        return None
    outline = max(cs, key=cv2.contourArea)
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(outline)
    row = math.radians(ang if rw >= rh else ang + 90.0)  # along the blob's longer side
    # lines whose normal lies within EDGE_TURN_DEG of the row (Hough angles are 0..180°)
    lo = (row - math.radians(EDGE_TURN_DEG)) % math.pi
    hi = lo + math.radians(2 * EDGE_TURN_DEG)
    spans = [(lo, hi)] if hi <= math.pi else [(lo, math.pi), (0.0, hi - math.pi)]
    found: list[tuple[float, float]] = []
    for t0, t1 in spans:
        lines = cv2.HoughLines(hits, 1, math.radians(0.5), int(EDGE_LENGTH * card_h), min_theta=t0, max_theta=t1)
        if lines is not None:
            found += [(float(r), float(t)) for r, t in lines[:, 0]]
    along = np.array([math.cos(row), math.sin(row)])
    ends = outline.reshape(-1, 2).astype(np.float64) @ along
    first, last = float(ends.min()), float(ends.max())
    centre = np.array([cx, cy])
    # how far each place inside the blob lies from its outline (mm)
    depth = cv2.distanceTransform(mask, cv2.DIST_L2, 3) * mm
    kept: list[float] = []
    seen: list[float] = []
    for rho, theta in found:  # strongest first
        normal = np.array([math.cos(theta), math.sin(theta)])
        foot = centre - (centre @ normal - rho) * normal
        x = float(foot @ along)  # where it crosses the row
        if x - first < 0.35 * card_w or last - x < 0.35 * card_w:
            continue  # the first card shows at least half of itself; the last one whole
        if _median_depth(depth, foot, np.array([-normal[1], normal[0]])) < EDGE_DEPTH_MM:
            continue  # a frame printed along the blob's own outline: a card's edge on the felt
        seen.append(x)
        if all(abs(x - k) >= EDGE_GAP * card_w for k in kept):
            kept.append(x)
    if printed_lines and any(LINE_PAIR_MM / mm < abs(a - b) < EDGE_GAP * card_w for a in seen for b in seen):
        return None
    return len(kept) + 1


def _median_depth(depth: np.ndarray, point: np.ndarray, direction: np.ndarray) -> float:
    """The median depth (`depth`, inside the blob) along the line through `point`."""
    h, w = depth.shape
    ts = np.arange(-max(h, w), max(h, w), 2.0)
    xs = np.round(point[0] + ts * direction[0]).astype(int)
    ys = np.round(point[1] + ts * direction[1]).astype(int)
    keep = (xs >= 0) & (ys >= 0) & (xs < w) & (ys < h)
    d = depth[ys[keep], xs[keep]]
    d = d[d > 0]
    return float(np.median(d)) if d.size else 0.0


#: an outline's straight run is a card's own edge when at least this share of a card's width
#: long (a rounded corner, a crumb of noise, is far shorter; a card of a fan shows at least
#: half of its outer edge)
OUTLINE_RUN = 0.3
#: the outline is followed to within this many pixels (quarter resolution) when it is cut into
#: straight runs
OUTLINE_TOLERANCE_PX = 1.0
#: two cards of a fan are told apart by their edges when turned at least this far from each
#: other (degrees, modulo 90: a card's edges run at its turn and a right angle to it). A dealer
#: lays a row's cards a few degrees apart at most; fans turn each card further
OUTLINE_TURN_DEG = 11.0


def count_by_outline(blob_mask: np.ndarray, card_w_px: float, zone_mask: np.ndarray | None = None) -> int | None:
    """The number of cards of a fan counted by the turns of their edges on the blob's outline
    (`blob_mask` and `card_w_px` at one resolution, quarter resolution in the recogniser): each
    card of a fan is turned on from the one before and shows a stretch of its outer edge on the
    felt, so the outline's long straight runs take as many directions (modulo a right angle) as
    there are cards. A row's cards all lie one way: it gives 1, and the caller keeps another
    count. Runs along the zone's own edge (`zone_mask`: a card lying over it, cut off) are not
    a card's edge. None when the blob has no outline."""
    cs, _ = cv2.findContours(blob_mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cs:
        return None
    outline = max(cs, key=cv2.contourArea)
    poly = cv2.approxPolyDP(outline, OUTLINE_TOLERANCE_PX, True).reshape(-1, 2).astype(np.float64)
    rim = None
    if zone_mask is not None:
        # the zone's edge, a pixel either side: a blob cut off there has a straight run along it
        z = (zone_mask > 0).astype(np.uint8)
        rim = cv2.dilate(z, np.ones((3, 3), np.uint8)) - cv2.erode(z, np.ones((5, 5), np.uint8))
    turns: list[float] = []
    for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        if float(np.hypot(*(b - a))) < OUTLINE_RUN * card_w_px:
            continue
        if rim is not None:
            mx, my = (int(round(v)) for v in (a + b) / 2)
            if 0 <= my < rim.shape[0] and 0 <= mx < rim.shape[1] and rim[my, mx]:
                continue
        turns.append(math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 90.0)
    if not turns:
        return 1
    turns.sort()
    if len(turns) == 1:
        return 1
    # directions round the circle of 90 degrees: each gap of OUTLINE_TURN_DEG or more parts two
    # cards' directions
    gaps = [(turns[(i + 1) % len(turns)] - turns[i]) % 90.0 for i in range(len(turns))]
    return max(1, sum(1 for g in gaps if g >= OUTLINE_TURN_DEG))


#: a back's pattern repeats along the row with a pitch of PITCH_MM[0] to PITCH_MM[1] (dots,
#: a lattice, a plaid, waves); shifted by its pitch it matches itself to within
#: PITCH_MATCH of what other shifts leave (the median)
PITCH_MM = (2.5, 16.0)
PITCH_MATCH = 0.5
#: a seam shows where the pattern, shifted by its pitch, does not match itself: a band one
#: pitch wide (PHASE_BAND of a pitch, either way: an emblem in the middle of a back is far
#: wider) running across the whole row
PHASE_BAND = (0.4, 1.6)
#: and where it leaves at least PHASE_CONTRAST times the mismatch within a card, and this many
#: grey levels more
PHASE_CONTRAST = 3.0
PHASE_LEVEL = 3.0


def count_by_phase(full_bgr: np.ndarray, blob_mask: np.ndarray, gains: np.ndarray,
                   card_px: tuple[float, float], mm_per_px: float) -> int | None:
    """The number of cards in a row of backs whose pattern repeats (dots, a lattice, waves)
    with neither border nor a line at the cards' edges: within a card, the pattern shifted by
    its pitch along the row matches itself; where a card lies on the one before, the upper
    card's pattern starts afresh at its edge (the lower one's is cut anywhere in its pitch), so
    the shifted pattern fails to match over a band one pitch wide across the row. The pitch is
    the row's own (no deck's pitch is built in). None when the blob shows no repeating pattern
    along its length (a flat back, an emblem, a fan: each card turned its own way)."""
    grey = cv2.cvtColor(colours.balanced(full_bgr, gains), cv2.COLOR_BGR2GRAY).astype(np.float32)
    cs, _ = cv2.findContours(blob_mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cs:
        return None
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(max(cs, key=cv2.contourArea))
    if rw < rh:
        ang += 90.0
    # the row laid along x
    h, w = grey.shape
    size = int(math.hypot(w, h)) + 2
    m = cv2.getRotationMatrix2D((cx, cy), ang, 1.0)
    m[:, 2] += [size / 2 - cx, size / 2 - cy]
    g = cv2.GaussianBlur(cv2.warpAffine(grey, m, (size, size), flags=cv2.INTER_LINEAR), (0, 0), 0.3 / mm_per_px)
    blob = cv2.warpAffine(blob_mask, m, (size, size), flags=cv2.INTER_NEAREST)
    # a few millimetres in from the outline (the felt, a card's shadow on it)
    inner = cv2.erode(blob, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(4 / mm_per_px) | 1,) * 2)) > 0
    lo, hi = (int(round(v / mm_per_px)) for v in PITCH_MM)
    mismatch = np.full(hi + 1, np.inf)
    for d in range(lo, hi + 1):
        both = inner[:, :-d] & inner[:, d:]
        if np.count_nonzero(both) >= 200:
            mismatch[d] = float(np.mean(np.abs(g[:, :-d] - g[:, d:])[both]))
    finite = mismatch[np.isfinite(mismatch)]
    if finite.size < 5:
        return None
    pitch = int(np.argmin(mismatch))
    if pitch <= lo or pitch >= hi or mismatch[pitch] > PITCH_MATCH * float(np.median(finite)):
        return None  # no repeating pattern along the row
    both = inner[:, :-pitch] & inner[:, pitch:]
    diff = np.abs(g[:, :-pitch] - g[:, pitch:]) * both
    per_col = np.count_nonzero(both, axis=0).astype(np.float32)
    cols = np.nonzero(per_col >= 0.3 * per_col.max())[0]
    if cols.size < 10:
        return None
    c0, c1 = int(cols.min()), int(cols.max()) + 1
    with np.errstate(invalid="ignore", divide="ignore"):
        profile = diff[:, c0:c1].sum(axis=0) / per_col[c0:c1]
    profile = np.where(per_col[c0:c1] >= 0.3 * per_col.max(), profile, np.nan)
    profile = np.where(np.isnan(profile), np.nanmedian(profile), profile)
    k = max(3, pitch // 2)
    smooth = np.convolve(profile, np.ones(k) / k, mode="same")
    base, peak = float(np.median(smooth)), float(smooth.max())
    if peak < PHASE_CONTRAST * base or peak < base + PHASE_LEVEL:
        return 1  # the pattern runs on along the whole row: no seam seen
    level = (base + peak) / 2
    xs = np.nonzero(blob.any(axis=0))[0]
    first, last = float(xs.min()), float(xs.max())
    card_w = card_px[0]
    kept: list[float] = []
    above = np.concatenate([[False], smooth > level, [False]])
    starts = np.nonzero(~above[:-1] & above[1:])[0]
    ends = np.nonzero(above[:-1] & ~above[1:])[0]
    for a, b in zip(starts, ends, strict=True):
        if not PHASE_BAND[0] * pitch <= b - a <= PHASE_BAND[1] * pitch:
            continue  # narrower than a pitch: noise; wider: an emblem, a change of print
        # across the whole row: each half of the blob's height there mismatches (a mark on
        # one card, a fold of light, lies in one place)
        band, rows = diff[:, c0 + a : c0 + b], both[:, c0 + a : c0 + b]
        ys = np.nonzero(rows.any(axis=1))[0]
        if ys.size < 4:
            continue
        mid = (int(ys.min()) + int(ys.max())) // 2
        halves = [(band[y0:y1].sum() / max(1, np.count_nonzero(rows[y0:y1])))
                  for y0, y1 in ((0, mid), (mid, band.shape[0]))]
        if min(halves) < PHASE_CONTRAST * base:
            continue
        x = c0 + (a + b) / 2 + pitch / 2  # the upper card's edge: the band's far end
        if x - first < 0.35 * card_w or last - x < 0.35 * card_w:
            continue  # the first card shows at least half of itself; the last one whole
        if all(abs(x - q) >= EDGE_GAP * card_w for q in kept):
            kept.append(x)
    return len(kept) + 1


#: a back with an emblem: its two colours (the ground, the emblem) lie at least this far apart
#: in Lab (OpenCV's 8-bit scale); the emblem is one island of the rarer colour, covering at
#: least MARK_MIN of the back, clear of the card's edge by MARK_EDGE_MM
MARK_SPLIT_LAB = 20.0
MARK_MIN = 0.08
#: and at most this share of it: an emblem has the ground round it (an island covering most of
#: the back is the inside of a border, a lattice's ground seen whole)
MARK_MAX = 0.5
MARK_EDGE_MM = 2.0
#: a card under another shows at least half of itself, and so of an emblem in its middle: an
#: island of MARK_PIECE of the emblem or more is one card's (at most MARK_WHOLE of it: the
#: whole emblem of the card on top)
MARK_PIECE = (0.35, 1.3)


def marks(full_bgr: np.ndarray, mask: np.ndarray, gains: np.ndarray, mm_per_px: float) -> list[tuple[float, float, float]]:
    """The islands of a back's rarer colour within `mask` (a full-resolution crop of one card or
    a blob of cards): each (area in full-resolution pixels, centre x, centre y), read at half
    resolution. The back's pixels are split into its two colours (k-means in Lab); an island
    is a piece of the rarer one that stays MARK_EDGE_MM clear of the outline (an emblem in
    a card's middle; a border or a lattice reaches the outline). Empty when the two colours
    lie closer than MARK_SPLIT_LAB (a flat back, noise)."""
    h, w = full_bgr.shape[:2]
    f = 2
    small = cv2.resize(full_bgr, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    inside = cv2.resize(mask.astype(np.uint8), (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST)
    mm = mm_per_px * f
    lab = colours.lab_of(cv2.transform(small, np.diag(gains).astype(np.float32)))
    k = int(MARK_EDGE_MM / mm) | 1
    clear = cv2.erode(inside, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1,) * 2)) > 0
    px = lab[clear]
    if px.shape[0] < 200:
        return []
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, labels, centres = cv2.kmeans(px.astype(np.float32), 2, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    if float(np.linalg.norm(centres[0] - centres[1])) < MARK_SPLIT_LAB:
        return []
    rare = int(np.argmin(np.bincount(labels.ravel(), minlength=2)))
    near = np.linalg.norm(lab - centres[rare], axis=2) < np.linalg.norm(lab - centres[1 - rare], axis=2)
    ink = (near & (inside > 0)).astype(np.uint8)
    # an emblem's ring and star of the ground, its shading, do not part it; specks are no emblem
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(3.0 / mm) | 1,) * 2)
    ink = cv2.morphologyEx(cv2.morphologyEx(ink, cv2.MORPH_CLOSE, disc), cv2.MORPH_OPEN, disc)
    n, lab_img, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    rim = (inside > 0) & ~clear
    touching = set(np.unique(lab_img[rim]).tolist())
    return [(float(stats[i, cv2.CC_STAT_AREA]) * f * f, float(cents[i][0]) * f, float(cents[i][1]) * f)
            for i in range(1, n) if i not in touching]


def count_by_marks(full_bgr: np.ndarray, blob_mask: np.ndarray, gains: np.ndarray,
                   card_px: tuple[float, float], mm_per_px: float, emblem: float) -> int | None:
    """The number of cards in a row or fan of backs with one emblem in the middle of each
    (`emblem`: its share of a back, learned at calibration from lone cards): each card shows
    at least half of itself, so at least half of its emblem, an island of the back's rarer
    colour apart from the others (the ground lies round each emblem). None when no island of
    an emblem's size is seen."""
    if emblem <= 0:
        return None
    whole = emblem * card_px[0] * card_px[1]
    found = [a for a, _, _ in marks(full_bgr, blob_mask, gains, mm_per_px)
             if MARK_PIECE[0] * whole <= a <= MARK_PIECE[1] * whole]
    return len(found) or None
