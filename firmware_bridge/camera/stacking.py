"""Which decoded codes are in full view when face-up cards overlap (CARD_FACES.md's one-code
rule names a card from a code only when that code is in full view).

A QR symbol decodes with part of its quiet zone, even a sliver of its modules, covered, so a
code that decodes may still lie partly under another card. Where each face-up card lies is
known from its codes (both read: to a millimetre or so; one read: up to the 2-6 mm margin the
sheet allows). A code is in full view when no other face-up card can reach its white square
(the symbol and its quiet zone, and CLEAR_MM round it; a card whose two codes were read lies
within PAIRED_TOL_MM of where they put it, one read by one code within its margin's range), or when that card is known to lie
under it: a code of this card lies, decoded, over a good part of the other card (a code lying
a quarter or more over another card can only have decoded from the card on top), or its
finder patterns, core included, or the modules its text encodes to show as printed where they
lie over the other card (and none of that the other way round), or, when the codes show
neither, this card's edge shows as a line over it and not the other's over this one. When the
order cannot be told, the code is not in full view: the card is XX, never named from it.
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np
import segno

from firmware_bridge.camera.decoders import QrRead

#: a code is in full view when nothing comes within this of its white square: the symbol and
#: its quiet zone, which the sheet prints as part of the code (a neighbour's edge on the quiet
#: zone alone takes the code out of full view; tried otherwise on 4 Dec 2026 and reverted,
#: docs/camera.md "A neighbour's edge on a quiet zone")
CLEAR_MM = 0.5
#: a code is covered when another face-up card surely reaches this far into its white square
#: (the one-code rule's other side: a twin whose quiet zone lies under a card is not in full
#: view either, so the card is named from its code in full view)
COVERED_MM = 0.5
#: a card known from both its codes lies within this of where they put it
PAIRED_TOL_MM = 0.6
#: a code lying this share of its symbol over another card decoded from the card on top
ON_TOP_SHARE = 0.25


def code_axes(orientation: float | None) -> tuple[np.ndarray, np.ndarray]:
    """A code's right and down (unit vectors in the picture) at its turn (degrees)."""
    a = math.radians(orientation or 0.0)
    return np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])


def turned_rect(centre, right, down, half_w: float, half_h: float) -> np.ndarray:
    """The corners of a rectangle turned to the axes `right`, `down` round `centre`."""
    c = np.asarray(centre, np.float64)
    return np.array([c - right * half_w - down * half_h, c + right * half_w - down * half_h,
                     c + right * half_w + down * half_h, c - right * half_w + down * half_h], np.float32)


def overlap_area(p: np.ndarray, q: np.ndarray) -> float:
    """The area two convex outlines share (px²)."""
    area, _ = cv2.intersectConvexConvex(p, q)
    return float(area)


def edge_margins(gray: np.ndarray, read: QrRead, qr_px: float, quiet_px: float,
                 mm_per_px: float) -> tuple[float | None, float | None]:
    """The margins (px, from the code's white square to the card's edge) above the code and
    to its left in the code's own frame, where the card's edge there lies on something darker
    (the felt); None where it cannot be seen (another card's white beyond it, the picture's
    edge). `gray` is in the read's pixels."""
    right, down = code_axes(read.orientation)
    c = np.array(read.centre, np.float64)
    start = qr_px / 2 + 0.5 * quiet_px
    reach = qr_px / 2 + quiet_px + EDGE_SEARCH_MM / mm_per_px
    steps = np.arange(start, reach, 0.5)
    beyond = int(round(2.0 / mm_per_px / 0.5))  # 2 mm past the edge, in steps
    out: list[float | None] = []
    for out_dir, across in ((-down, right), (-right, down)):
        found = []
        for o in np.linspace(-0.35, 0.35, 7) * qr_px:
            pts = c + across * o + out_dir * steps[:, None]
            # the line as far as the picture reaches: the edge of a blob's card lies a few
            # millimetres inside the piece of picture given, the search runs on beyond it
            inside = ((pts[:, 0] >= 0) & (pts[:, 1] >= 0) & (pts[:, 0] <= gray.shape[1] - 2)
                      & (pts[:, 1] <= gray.shape[0] - 2))
            if not inside.all():
                pts = pts[: int(np.argmin(inside))]
            if len(pts) < 2:
                continue
            xs, ys = pts[:, 0].astype(np.float32), pts[:, 1].astype(np.float32)
            prof = cv2.remap(gray, xs.reshape(1, -1), ys.reshape(1, -1), cv2.INTER_LINEAR).ravel().astype(np.float32)
            white = float(np.median(prof[: max(2, int(0.5 * quiet_px / 0.5))]))
            below = np.nonzero(prof < white - EDGE_DROP)[0]
            if not len(below):
                continue
            k = int(below[0])
            after = prof[k : k + beyond]
            if len(after) < beyond or float(np.median(after)) > white - EDGE_DROP:
                continue  # a printed line, not the card's edge on felt
            found.append(steps[k])
        if len(found) >= 4 and max(found) - min(found) <= 2.5:
            out.append(float(np.median(found)) - qr_px / 2 - quiet_px)
        else:
            out.append(None)
    return out[0], out[1]


def card_margins(gray: np.ndarray | None, read: QrRead, origin: tuple[int, int], qr_px: float,
                 quiet_px: float, mm_per_px: float,
                 margin_range_mm: tuple[float, float]) -> tuple[float | None, float | None]:
    """The margins (px, top and left in the code's frame) of the card seen by `read`, where
    its edges show on the felt (`edge_margins`) and lie within the sheet's range give or take
    PAIRED_TOL_MM; None for each that is not measured so (`gray`: the picture round the
    reads, its top-left at `origin` in the reads' pixels)."""
    if gray is None:
        return None, None
    lo_m, hi_m = (m / mm_per_px for m in margin_range_mm)
    tol = PAIRED_TOL_MM / mm_per_px
    return tuple(v if v is not None and lo_m - tol <= v <= hi_m + tol else None  # type: ignore[return-value]
                 for v in edge_margins(gray, read.shifted(-origin[0], -origin[1]), qr_px, quiet_px, mm_per_px))


#: the three finder patterns of a version 1 symbol (21 modules): (row, column) of each
#: pattern's top-left module in the symbol's own frame, and whether a module (r, c) of a
#: 7 x 7 pattern is dark (outer ring and 3 x 3 core)
FINDER_ORIGINS = ((0, 0), (0, 14), (14, 0))
SYMBOL_MODULES = 21


def _finder_core(r: int, c: int) -> bool:
    """The 3 x 3 dark core of a finder pattern."""
    return 2 <= r <= 4 and 2 <= c <= 4


def _finder_dark(r: int, c: int) -> bool:
    return r in (0, 6) or c in (0, 6) or _finder_core(r, c)


def _finder_beside_core(r: int, c: int) -> bool:
    """The light ring's modules in line with the core (above, below, left, right of it)."""
    return (r in (1, 5) and 2 <= c <= 4) or (c in (1, 5) and 2 <= r <= 4)


#: finder modules that must lie over the other card, of each shade, before they tell the
#: order; and the share of them that must show as printed
FINDER_CELLS_MIN = 4
FINDER_MATCH = 0.9
#: and at least this many of them of a finder's core and of the light ring beside the core
FINDER_CORE_MIN = 2


def symbol_corners(read: QrRead, qr_px: float) -> np.ndarray | None:
    """The corners of `read`'s symbol in its own order (top-left, top-right, bottom-right,
    bottom-left: the finder patterns at the first, second and fourth), from the decoder's
    outline; None when the outline is not a plausible square of about `qr_px`."""
    if read.orientation is None or len(read.polygon) != 4:
        return None
    poly = np.array(read.polygon, np.float64)
    right, down = code_axes(read.orientation)
    c = poly.mean(axis=0)
    h = qr_px / 2
    want = [c - right * h - down * h, c + right * h - down * h, c + right * h + down * h, c - right * h + down * h]
    order = [int(np.argmin(np.linalg.norm(poly - w, axis=1))) for w in want]
    if len(set(order)) != 4:
        return None
    corners = poly[order]
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    if not (0.8 * qr_px <= sides.min() and sides.max() <= 1.25 * qr_px):
        return None
    return corners


def _module_points(gray: np.ndarray, read: QrRead, origin: tuple[int, int], qr_px: float,
                   grid: np.ndarray) -> np.ndarray | None:
    """Where the module centres `grid` ((column, row) in the symbol's own modules) of `read`'s
    symbol lie in `gray` (its top-left at `origin` in the reads' pixels), placed through the
    symbol's own corners: the layout's scale is the table's average, and a few per cent off at
    a module ten modules from the centre is half a module. None when the symbol's outline is
    not measured or a module lies outside the picture."""
    corners = symbol_corners(read, qr_px)
    if corners is None:
        return None
    to_picture = cv2.getPerspectiveTransform(
        np.array([[0, 0], [SYMBOL_MODULES, 0], [SYMBOL_MODULES, SYMBOL_MODULES], [0, SYMBOL_MODULES]], np.float32),
        (corners - np.asarray(origin, np.float64)).astype(np.float32))
    pts = cv2.perspectiveTransform(np.asarray(grid, np.float32).reshape(-1, 1, 2), to_picture).reshape(-1, 2)
    pts = pts.astype(np.float64)
    inside = ((pts[:, 0] >= 1) & (pts[:, 1] >= 1) & (pts[:, 0] <= gray.shape[1] - 2)
              & (pts[:, 1] <= gray.shape[0] - 2))
    return pts if inside.all() else None


def _depth_in(pts: np.ndarray, origin: tuple[int, int], box) -> np.ndarray:
    """How far (px) each point (`_module_points`: in the picture's pixels, its top-left at
    `origin`) lies inside the rectangle `box` (centre, right, down, half width, half height,
    in the reads' pixels); negative outside."""
    bc, b_right, b_down, hw, hh = box
    d = pts + np.asarray(origin, np.float64) - bc
    return np.minimum(hw - np.abs(d @ b_right), hh - np.abs(d @ b_down))


def _shades(gray: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """The grey of `gray` at each point."""
    return cv2.remap(gray, pts[:, 0].astype(np.float32).reshape(1, -1),
                     pts[:, 1].astype(np.float32).reshape(1, -1), cv2.INTER_LINEAR).ravel().astype(np.float32)


def finders_over(gray: np.ndarray, read: QrRead, origin: tuple[int, int], qr_px: float,
                 box) -> bool:
    """Are the finder patterns of `read`'s symbol seen as printed where they lie over the
    rectangle `box` (centre, right, down, half width, half height: where another card surely
    lies)? A finder module is seen as printed only from the card on top: a card lying over
    the code would show its own white or art there, never the rings of a finder pattern at
    the module pitch. A code decodes with a few modules of its side hidden (its error
    correction), so the decode alone cannot tell this; the finders' fixed pattern can."""
    m = qr_px / SYMBOL_MODULES
    grid, dark, core, beside = [], [], [], []
    for r0, c0 in FINDER_ORIGINS:
        for r in range(7):
            for k in range(7):
                grid.append((c0 + k + 0.5, r0 + r + 0.5))
                dark.append(_finder_dark(r, k))
                core.append(_finder_core(r, k))
                beside.append(_finder_beside_core(r, k))
    pts = _module_points(gray, read, origin, qr_px, np.array(grid))
    if pts is None:
        return False
    want, core_m, beside_m = np.array(dark), np.array(core), np.array(beside)
    # a module counts when it lies wholly over the other card (its centre half a module in)
    over = _depth_in(pts, origin, box) > 0.75 * m
    if np.count_nonzero(over & want) < FINDER_CELLS_MIN or np.count_nonzero(over & ~want) < FINDER_CELLS_MIN:
        return False
    # the rings' outer rows alone (dark, then light) are what a straight printed line on the
    # card on top, its white beside it, also shows (a frame 2 mm in from a face's edge passed
    # for them): the core and the light modules in line with it must lie over the other card too
    if np.count_nonzero(over & core_m) < FINDER_CORE_MIN or np.count_nonzero(over & beside_m) < FINDER_CORE_MIN:
        return False
    shade = _shades(gray, pts)
    # the symbol's own dark and light, from its finder modules away from the other card
    away = ~over
    if np.count_nonzero(away & want) < 10 or np.count_nonzero(away & ~want) < 6:
        return False
    lo, hi = float(np.median(shade[away & want])), float(np.median(shade[away & ~want]))
    if hi - lo < EDGE_DROP:
        return False  # too little contrast to tell a module's shade
    seen_dark = shade < (lo + hi) / 2
    return float(np.mean(seen_dark[over] == want[over])) >= FINDER_MATCH


#: a symbol's modules, as its own text encodes them, must lie at least this many over the
#: other card, and of each shade this many, before they tell the order: light modules alone
#: match any white card over them, dark ones alone any print (a line along a row of the
#: symbol darkens its light modules too); and the share of each shade that must show as printed
MODULES_OVER_TOTAL = 12
MODULES_OVER_MIN = 3
MODULES_MATCH = 0.9
#: how far (modules) a module's centre must lie inside the other card's sure place to count
#: as over it: the sure place is off by up to a millimetre where the table's scale is (a card
#: placed by its codes, 44 mm from its centre to its far edge, at a scale 2% off), and a module
#: counted over the other card that in truth lies beyond its edge shows this code's pattern
#: whichever card is on top. With 0.75 (the finders' inset) a card placed 1.5-2 mm too far
#: named a code it covered (the second reader); with 1.25 it takes 2-2.5 mm.
MODULES_OVER_INSET = 1.25
#: the symbol's modules away from the other card must show the matrix its text encodes to at
#: least this share, or the matrix is not the one printed (another mode or mask than tried)
MODULES_AWAY_MATCH = 0.9


@functools.lru_cache(maxsize=512)
def code_matrices(text: str) -> tuple[np.ndarray, ...]:
    """The module matrices (21 x 21, True for dark) a printer's encoder may have made of `text`
    at the sheet's symbol (Model 2, version 1, error correction M). Encoders choose the mode
    by the text and the mask by the standard's penalty score, not always alike, and do not
    all lay out the same data alike: segno's each of the eight masks, in alphanumeric and in
    byte mode, and OpenCV's own choice in each mode. Which one was printed is told from the
    symbol's own modules (`modules_over`)."""
    out = []
    for mode in ("alphanumeric", "byte"):
        for mask in range(8):
            try:
                q = segno.make_qr(text, error="m", version=1, mode=mode, mask=mask, boost_error=False)
            except (ValueError, segno.DataOverflowError):
                break  # the text does not fit this mode in a version 1 symbol
            out.append(np.array([list(row) for row in q.matrix], np.uint8) > 0)
    for mode in (cv2.QRCodeEncoder_MODE_AUTO, cv2.QRCodeEncoder_MODE_ALPHANUMERIC, cv2.QRCodeEncoder_MODE_BYTE):
        params = cv2.QRCodeEncoder_Params()
        params.version, params.mode = 1, mode
        params.correction_level = cv2.QRCodeEncoder_CORRECT_LEVEL_M
        try:
            img = cv2.QRCodeEncoder.create(params).encode(text)
        except cv2.error:
            continue  # not in this mode
        if img is None or img.ndim != 2 or img.shape[0] < SYMBOL_MODULES or img.shape[0] != img.shape[1]:
            continue
        border = (img.shape[0] - SYMBOL_MODULES) // 2
        matrix = img[border:border + SYMBOL_MODULES, border:border + SYMBOL_MODULES] == 0
        if not any((matrix == m).all() for m in out):
            out.append(matrix)
    return tuple(out)


def modules_over(gray: np.ndarray, read: QrRead, origin: tuple[int, int], qr_px: float, box) -> bool:
    """Are the modules of `read`'s symbol, as its decoded text encodes them, seen printed where
    they lie over the rectangle `box` (centre, right, down, half width, half height: where
    another card surely lies)? The finder patterns alone (`finders_over`) need three modules
    of the symbol's side over the other card before their cores lie there; its other modules
    tell it from one: a card lying over the symbol shows its own white or print there, never
    the modules of this code. The matrix printed is the one, of those the text may encode to,
    that the symbol's modules away from the other card show."""
    matrices = code_matrices(read.text)
    if not matrices:
        return False
    n = SYMBOL_MODULES
    rows, cols = np.mgrid[0:n, 0:n]
    pts = _module_points(gray, read, origin, qr_px, np.stack([cols.ravel() + 0.5, rows.ravel() + 0.5], axis=1))
    if pts is None:
        return False
    # a module counts when its centre lies MODULES_OVER_INSET inside the other card's sure
    # place, and as away from it when it lies as far clear of it
    depth, inset = _depth_in(pts, origin, box), MODULES_OVER_INSET * qr_px / n
    over, away = depth > inset, depth < -inset
    if np.count_nonzero(over) < MODULES_OVER_TOTAL or np.count_nonzero(away) < n * n // 2:
        return False
    shade = _shades(gray, pts)
    # the matrix printed: the one the modules away from the other card agree with best, each
    # matrix's own dark and light measured there
    best, best_share, level = None, 0.0, 0.0
    for matrix in matrices:
        want = matrix.ravel()
        if np.count_nonzero(away & want) < 10 or np.count_nonzero(away & ~want) < 10:
            continue
        lo, hi = float(np.median(shade[away & want])), float(np.median(shade[away & ~want]))
        if hi - lo < EDGE_DROP:
            continue  # too little contrast to tell a module's shade (or not this matrix)
        share = float(np.mean((shade[away] < (lo + hi) / 2) == want[away]))
        if share > best_share:
            best, best_share, level = want, share, (lo + hi) / 2
    if best is None or best_share < MODULES_AWAY_MATCH:
        return False
    if np.count_nonzero(over & best) < MODULES_OVER_MIN or np.count_nonzero(over & ~best) < MODULES_OVER_MIN:
        return False
    seen_dark = shade < level
    # each shade on its own: a white card over the symbol matches its light modules, print on
    # it may match some dark ones, never both
    return (float(np.mean(seen_dark[over & best])) >= MODULES_MATCH
            and float(np.mean(~seen_dark[over & ~best])) >= MODULES_MATCH)


#: how far beyond the code's white square a card's edge is looked for: the sheet's widest
#: margin (6 mm), a card's tolerance and the 2 mm of felt beyond the edge that make it one
EDGE_SEARCH_MM = 9.0
#: the felt beyond a card's edge is at least this much darker than the card's white
EDGE_DROP = 50.0
#: a card's edge over another card is a line at least this much darker than the white
EDGE_LINE = 10.0
#: and shows along at least this share of the stretch of it that lies over the other card
EDGE_SHOWS = 0.35


def codes_in_full_view(reads: list[QrRead], partner: list[int], card_px: tuple[float, float],
                       mm_per_px: float, qr_px: float, quiet_px: float,
                       margin_range_mm: tuple[float, float],
                       gray: np.ndarray | None = None, origin: tuple[int, int] = (0, 0),
                       margins: dict[int, tuple[float | None, float | None]] | None = None) -> list[bool]:
    """Per read: may it name its card? `partner[i]` is the read of the same card's other code
    (-1: none read). Reads whose orientation is unknown are never in full view. `gray` (the
    picture round the reads, its top-left at `origin` in the reads' pixels) lets a lone code's
    card be placed by its edges (`edge_margins`; else anywhere the sheet's margins allow) and
    the order of two cards be seen from the upper one's edge. `margins`: `card_margins` of the
    reads seen alone, where the caller has measured them already."""
    n = len(reads)
    cw, ch = card_px
    lo_m, hi_m = (m / mm_per_px for m in margin_range_mm)
    # one body per card: (reads of it, centre, right, down, uncertainty px across, along)
    cards: list[tuple[list[int], np.ndarray, np.ndarray, np.ndarray, tuple[float, float]]] = []
    seen: set[int] = set()
    for i, r in enumerate(reads):
        if i in seen or r.orientation is None:
            continue
        right, down = code_axes(r.orientation)
        if partner[i] >= 0:
            j = partner[i]
            seen.update((i, j))
            centre = (np.array(r.centre) + np.array(reads[j].centre)) / 2
            cards.append(([i, j], centre, right, down, (PAIRED_TOL_MM / mm_per_px,) * 2))
        else:
            seen.add(i)
            top, left = (margins[i] if margins is not None and i in margins
                         else card_margins(gray, r, origin, qr_px, quiet_px, mm_per_px, margin_range_mm))
            tol = PAIRED_TOL_MM / mm_per_px
            # a margin measured places the card; one not seen may be any the sheet allows
            mx, tx = (left, tol) if left is not None else ((lo_m + hi_m) / 2, (hi_m - lo_m) / 2 + tol)
            my, ty = (top, tol) if top is not None else ((lo_m + hi_m) / 2, (hi_m - lo_m) / 2 + tol)
            edge = qr_px / 2 + quiet_px  # the white square's half side
            centre = np.array(r.centre) + right * (cw / 2 - mx - edge) + down * (ch / 2 - my - edge)
            cards.append(([i], centre, right, down, (tx, ty)))

    def body(k: int, sign: int) -> np.ndarray:
        """Card k's place grown (sign 1: everywhere it may reach) or shrunk (-1: where it
        surely lies) by its uncertainty."""
        _, c, right, down, (tx, ty) = cards[k]
        return turned_rect(c, right, down, cw / 2 + sign * tx, ch / 2 + sign * ty)

    def symbol(i: int) -> np.ndarray:
        right, down = code_axes(reads[i].orientation)
        return turned_rect(reads[i].centre, right, down, qr_px / 2, qr_px / 2)

    # rectangles as (centre, right, down, half width, half height), for tests on many points
    square_half = qr_px / 2 + quiet_px + 2
    squares = [(np.array(r.centre, np.float64), *code_axes(r.orientation), square_half, square_half)
               for r in reads if r.orientation is not None]

    def card_box(k: int, sign: int):
        _, c, right, down, (tx, ty) = cards[k]
        return c, right, down, cw / 2 + sign * tx, ch / 2 + sign * ty

    def within(pts: np.ndarray, box, pad: float) -> np.ndarray:
        """Which points lie inside `box` grown by `pad` (shrunk when pad < 0)."""
        c, right, down, hw, hh = box
        d = pts - c
        return (np.abs(d @ right) < hw + pad) & (np.abs(d @ down) < hh + pad)

    @functools.cache  # each ordered pair of cards looked at once
    def edge_over(a: int, b: int) -> bool:
        """Is card a's edge seen as a line where it lies over card b? (A card's edge on the
        card below it shows as a thin shadow; under the card above it, it does not show.)"""
        if gray is None:
            return False
        _, c, right, down, (tx, ty) = cards[a]
        certain = card_box(b, -1)
        others = [card_box(k, 1) for k in range(len(cards)) if k not in (a, b)] + squares
        where: list[np.ndarray] = []
        offsets = 0
        for normal, along, half_n, half_a, tol in ((-down, right, ch / 2, cw / 2, ty), (down, right, ch / 2, cw / 2, ty),
                                                    (-right, down, cw / 2, ch / 2, tx), (right, down, cw / 2, ch / 2, tx)):
            reach = tol + 3.0
            us = np.arange(-half_a + 8, half_a - 8, 3.0)
            pts = c + normal * half_n + along * us[:, None]
            keep = within(pts, certain, -reach)
            for box in others:
                keep &= ~within(pts, box, reach)
            pts = pts[keep] - np.asarray(origin, np.float64)
            if not len(pts):
                continue
            ts = np.arange(-reach, reach + 0.01, 0.5)
            grid = pts[:, None, :] + normal * ts[None, :, None]
            inside = ((grid[..., 0] >= 0) & (grid[..., 1] >= 0) & (grid[..., 0] <= gray.shape[1] - 2)
                      & (grid[..., 1] <= gray.shape[0] - 2)).all(axis=1)
            grid = grid[inside]
            if not len(grid):
                continue
            prof = cv2.remap(gray, grid[..., 0].astype(np.float32), grid[..., 1].astype(np.float32),
                             cv2.INTER_LINEAR).astype(np.float32)
            offsets += len(prof)
            k = prof.argmin(axis=1)
            dip = prof[np.arange(len(prof)), k] < np.median(prof, axis=1) - EDGE_LINE
            where.append(ts[k[dip]])
        hits = np.concatenate(where) if where else np.zeros(0)
        if offsets < 6 or not len(hits):
            return False
        # the edge is a line: where it shows, it shows at one offset across it
        on_line = int(np.count_nonzero(np.abs(hits - np.median(hits)) <= 1.5))
        return on_line >= EDGE_SHOWS * offsets

    @functools.cache
    def codes_over(a: int, b: int) -> bool:
        """Is card a seen over card b by its codes: one decoded lying a good part over b, or
        its finder patterns seen as printed over b (`finders_over`)? Only the card on top shows
        its code there."""
        certain = body(b, -1)
        return (any(overlap_area(symbol(i), certain) >= ON_TOP_SHARE * qr_px * qr_px for i in cards[a][0])
                or (gray is not None
                    and any(finders_over(gray, reads[i], origin, qr_px, card_box(b, -1))
                            or modules_over(gray, reads[i], origin, qr_px, card_box(b, -1)) for i in cards[a][0])))

    def on_top(a: int, b: int) -> bool:
        """Is card a seen to lie over card b? What the codes show decides (`codes_over`):
        a line found near a card's edge may be the other card's own edge lying a few pixels
        from it, where a code printed over another card can only be the upper card's. The
        edges (`edge_over`) decide only when the codes tell neither way."""
        a_codes, b_codes = codes_over(a, b), codes_over(b, a)
        if a_codes or b_codes:
            return a_codes and not b_codes  # (both ways: something is off, the order unknown)
        return edge_over(a, b) and not edge_over(b, a)

    clear_px = CLEAR_MM / mm_per_px
    out = [False] * n
    for a, (mine, *_rest) in enumerate(cards):
        texts = {reads[i].text for i in mine}
        for i in mine:
            right, down = code_axes(reads[i].orientation)
            half = qr_px / 2 + quiet_px + clear_px
            square = turned_rect(reads[i].centre, right, down, half, half)
            ok = True
            for b, (theirs, *_r) in enumerate(cards):
                if b == a or texts & {reads[k].text for k in theirs}:
                    continue  # the same card (its pairing missed) or a copy: not an occluder
                if overlap_area(square, body(b, 1)) <= 0:
                    continue
                if not on_top(a, b):
                    ok = False
                    break
            out[i] = ok
    return out
