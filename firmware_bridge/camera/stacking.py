"""Which decoded codes are in full view when face-up cards overlap (CARD_FACES.md's one-code
rule names a card from a code only when that code is in full view).

A QR symbol decodes with part of its quiet zone, even a sliver of its modules, covered, so a
code that decodes may still lie partly under another card. Where each face-up card lies is
known from its codes (both read: to a millimetre or so; one read: up to the 2-6 mm margin the
sheet allows). A code is in full view when no other face-up card can reach its white square
(the symbol and its quiet zone, and CLEAR_MM round it; a card whose two codes were read lies
within PAIRED_TOL_MM of where they put it, one read by one code within its margin's range), or when that card is known to lie
under it: a code of this card lies, decoded, over a good part of the other card (a code lying
a quarter or more over another card can only have decoded from the card on top), and no code
of the other card lies so over this one. Or when the picture shows it clear whichever card
lies on top (`seen_clear` in `codes_in_full_view`): the nearest line beyond it, on the side
the other card's place covers, is a card's faint edge, not print, and nothing a third as
faint as that edge crosses its quiet zone. When the order cannot be told, the code is not in
full view: the card is XX, never named from it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import cv2
import numpy as np

from firmware_bridge.camera.decoders import QrRead
from firmware_bridge.camera.layout import QR_MODULES

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


#: how far beyond the code's white square a card's edge is looked for: the sheet's widest
#: margin (6 mm), a card's tolerance and the 2 mm of felt beyond the edge that make it one
EDGE_SEARCH_MM = 9.0
#: the felt beyond a card's edge is at least this much darker than the card's white
EDGE_DROP = 50.0
#: a card's edge over another card is a line at least this much darker than the white
EDGE_LINE = 10.0
#: and shows along at least this share of the stretch of it that lies over the other card
EDGE_SHOWS = 0.35


# ---- a code's white square seen whole --------------------------------------------------
#: the symbol's outermost line of modules is at least this share dark on every side (the
#: finder patterns alone make a third of it), which finds where the symbol ends
SYMBOL_EDGE_DARK = 0.2
#: a card's edge beyond a code runs within this of parallel to the code's side: the cards of
#: one seat lie nearly aligned, and the line looked for is one of their edges
EDGE_LINE_SLOPE = math.tan(math.radians(10.0))
#: a card's edge over another card is a line at most this share of a code's contrast (white
#: less black) darker than the white: a thin shadow, not print
EDGE_LINE_MAX = 0.4
#: what a code seen clear keeps clear round its white square, in the picture: wider than
#: CLEAR_MM (what a card's place, known to PAIRED_TOL_MM, may come within), as the independent
#: renderer reads the sheet (nothing within 1 mm); a line is seen to a pixel
SEEN_CLEAR_MM = 1.0
#: a side of the quiet zone needs an edge seen beyond it when another card's place covers at
#: least this share of it (a card grazing a corner of it needs the side it grazes most)
BAND_SHARE = 0.25


def _sample(gray: np.ndarray, centre: np.ndarray, normal: np.ndarray, along: np.ndarray,
            ts: np.ndarray, us: np.ndarray) -> np.ndarray | None:
    """The picture on a grid in a code's frame: rows `ts` out along `normal`, columns `us`
    along `along` (px); None when the grid leaves the picture."""
    pts = centre + normal * ts[:, None, None] + along * us[None, :, None]
    if pts[..., 0].min() < 0 or pts[..., 1].min() < 0 or pts[..., 0].max() > gray.shape[1] - 2 \
            or pts[..., 1].max() > gray.shape[0] - 2:
        return None
    return cv2.remap(gray, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32),
                     cv2.INTER_LINEAR).astype(np.float32)


def _sides(read: QrRead) -> list[tuple[np.ndarray, np.ndarray]]:
    """A code's four sides as (outward normal, along): top, bottom, left, right."""
    right, down = code_axes(read.orientation)
    return [(-down, right), (down, right), (-right, down), (right, down)]


class SymbolSquare(NamedTuple):
    """A decoded code's symbol as the picture shows it."""

    edges: list[float]  # px from the code's centre to where its modules end: top, bottom, left, right
    contrast: float  # its white less its black (grey levels)


def symbol_edges(gray: np.ndarray, read: QrRead, qr_px: float) -> SymbolSquare | None:
    """How far (px) from the code's centre its symbol ends on each side (top, bottom, left,
    right), measured on the picture (`gray` in the read's pixels): the print's size and the
    decoder's centre are each a pixel or so off the sheet's. None when the four do not make
    one square (a side of it covered or merged with a line: not to be judged)."""
    mod = qr_px / QR_MODULES
    c = np.asarray(read.centre, np.float64)
    ts = np.arange(qr_px / 2 - 3 * mod, qr_px / 2 + 2 * mod, 0.5)
    us = np.arange(-qr_px / 2 + mod, qr_px / 2 - mod + 1e-6, 0.5)
    edges, contrasts = [], []
    for normal, along in _sides(read):
        grid = _sample(gray, c, normal, along, ts, us)
        if grid is None:
            return None
        white = float(np.percentile(grid, 95))
        contrasts.append(white - float(np.percentile(grid, 5)))
        rows = np.nonzero((grid < white - EDGE_LINE).mean(axis=1) >= SYMBOL_EDGE_DARK)[0]
        if not len(rows):
            return None
        edges.append(float(ts[rows[-1]]) + 0.5)
    # a square: opposite sides add up alike, and no side strays by more than two modules
    if max(edges) - min(edges) > 2 * mod or abs(edges[0] + edges[1] - edges[2] - edges[3]) > 1.5:
        return None
    return SymbolSquare(edges, float(np.median(contrasts)))


def quiet_zone_crossed(gray: np.ndarray, read: QrRead, edges: list[float], quiet_px: float,
                       clear_px: float, level: float = EDGE_LINE) -> bool | None:
    """Does anything lie on the code's quiet zone (and `clear_px` beyond it): a line (a card's
    edge) or a patch `level` or more darker than its white, running a quiet zone's width along
    it or most of the way across? None when it leaves the picture."""
    c = np.asarray(read.centre, np.float64)
    reach = float(np.mean(edges)) + quiet_px
    bands = []
    for (normal, along), edge in zip(_sides(read), edges):
        band = _sample(gray, c, normal, along, np.arange(edge + 0.5, edge + quiet_px + clear_px + 1e-6, 0.5),
                       np.arange(-reach, reach + 1e-6, 0.5))
        if band is None:
            return None
        bands.append(band)
    white = float(np.median(np.concatenate([b.ravel() for b in bands])))
    for band in bands:
        dark = (cv2.GaussianBlur(band, (0, 0), 1.0) < white - level).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
        for k in range(1, n):  # (the grid's step is half a pixel)
            if stats[k, cv2.CC_STAT_HEIGHT] * 0.5 >= 0.6 * quiet_px or stats[k, cv2.CC_STAT_WIDTH] * 0.5 >= quiet_px:
                return True
    return False


def edge_line_beyond(gray: np.ndarray, read: QrRead, edges: list[float], side: int, quiet_px: float,
                     clear_px: float, reach_px: float) -> float | None:
    """How much darker than the white round it (grey levels) a card's edge is seen beyond the
    code's quiet zone on `side` (within `reach_px`): a straight line, nearly parallel to the
    side, along at least EDGE_SHOWS of it; None when there is none."""
    normal, along = _sides(read)[side]
    start = edges[side] + quiet_px + clear_px
    ts = np.arange(start, start + reach_px, 0.5)
    span = float(np.mean(edges)) + quiet_px
    us = np.arange(-span, span + 1e-6, 1.0)
    grid = _sample(gray, np.asarray(read.centre, np.float64), normal, along, ts, us)
    if grid is None:
        return None
    profiles = cv2.GaussianBlur(grid, (0, 0), 0.7).T  # one per column, outward
    # per column the first dip outward: the upper card's edge is the nearest line (what lies
    # beyond it, the other card's print, is no edge of the two)
    white = np.percentile(profiles, 75, axis=1)[:, None]
    below = profiles < white - EDGE_LINE
    dip = below.any(axis=1)
    if dip.sum() < EDGE_SHOWS * len(profiles):
        return None
    first = below.argmax(axis=1)
    rows = np.arange(len(profiles))
    k = first.copy()
    for step in range(1, 5):  # down to the bottom of that dip (a line is a few pixels wide)
        nxt = np.minimum(first + step, profiles.shape[1] - 1)
        deeper = profiles[rows, nxt] < profiles[rows, k]
        k = np.where(deeper & (nxt == k + 1), nxt, k)
    depth = white[:, 0] - profiles[rows, k]
    u, t = us[dip], ts[k[dip]]
    on_line = np.ones(len(u), bool)
    for _ in range(3):  # a straight line through the dips, those far off it left out
        slope, offset = np.polyfit(u[on_line], t[on_line], 1)
        on_line = np.abs(t - (offset + slope * u)) <= 1.5
        if on_line.sum() < 3:
            return None
    if on_line.sum() < EDGE_SHOWS * len(profiles) or abs(slope) > EDGE_LINE_SLOPE:
        return None
    return float(np.median(depth[dip][on_line]))


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

    memo: dict[tuple[int, int], bool] = {}

    def on_top(a: int, b: int) -> bool:
        """Is card a seen to lie over card b: a code of a decoded over a good part of b, or
        a's edge seen as a line over b?"""
        if (a, b) not in memo:
            certain = body(b, -1)
            memo[a, b] = (any(overlap_area(symbol(i), certain) >= ON_TOP_SHARE * qr_px * qr_px for i in cards[a][0])
                          or edge_over(a, b))
        return memo[a, b]

    clear_px = CLEAR_MM / mm_per_px
    measured: dict[int, SymbolSquare | None] = {}

    def seen_clear(i: int, b: int) -> bool:
        """Is code i seen clear of card b, whichever lies on top? Beyond each side that b's
        place covers a card's edge is seen (a faint straight line, not print), and the quiet
        zone shows no line nor patch down to a third of that edge's contrast: the edge seen is
        the upper card's, so either b lies on top with its edge clear of the quiet zone, or
        this card lies on top of b. Only where b's sure place (shrunk by its tolerance) stays
        off the symbol; a card reaching further into the modules is caught by the symbol's
        square (`symbol_edges`). Where edges do not show (no line at a card's edge over
        another card), nothing is seen clear."""
        if gray is None:
            return False
        right, down = code_axes(reads[i].orientation)
        if overlap_area(turned_rect(reads[i].centre, right, down, qr_px / 2 - 1, qr_px / 2 - 1), body(b, -1)) > 0:
            return False
        here = reads[i].shifted(-origin[0], -origin[1])
        if i not in measured:
            measured[i] = symbol_edges(gray, here, qr_px)
        square = measured[i]
        if square is None:
            return False
        edges = square.edges
        # which sides b's place covers: on each an edge is looked for, as far as the sheet's
        # widest margin and a card's tolerance (this card's own edge, when it lies on top)
        seen_px = SEEN_CLEAR_MM / mm_per_px
        depth = quiet_px + seen_px
        placed, grown = [], []
        for side, (normal, along) in enumerate(_sides(reads[i])):
            band = turned_rect(np.asarray(reads[i].centre) + normal * (edges[side] + depth / 2), along, normal,
                               edges[side], depth / 2)
            placed.append(overlap_area(band, body(b, 0)) / (2 * edges[side] * depth))
            grown.append(overlap_area(band, body(b, 1)))
        need = [k for k in range(4) if placed[k] >= BAND_SHARE] or ([int(np.argmax(grown))] if max(grown) > 0 else [])
        if not need:
            return False
        reach = margin_range_mm[1] / mm_per_px + PAIRED_TOL_MM / mm_per_px + 2.0
        lines = [edge_line_beyond(gray, here, edges, k, quiet_px, seen_px, reach) for k in need]
        # a card's edge is a faint line, far paler than the code's black (a line as dark as
        # print is print: the other card's own code, lying on top); and an edge on the quiet
        # zone would show as that edge does: looked for down to a third of its contrast
        if any(c is None or c > EDGE_LINE_MAX * square.contrast for c in lines):
            return False
        level = min(EDGE_LINE, min(lines) / 3)  # type: ignore[type-var]
        return quiet_zone_crossed(gray, here, edges, quiet_px, seen_px, level) is False

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
                if not (on_top(a, b) and not on_top(b, a)) and not seen_clear(i, b):
                    ok = False
                    break
            out[i] = ok
    return out
