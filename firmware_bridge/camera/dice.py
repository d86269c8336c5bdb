"""The dice reader: the faces up of the dice in a dice tray's zone (a zone of kind dice;
CARD_FACES.md, "Dice").

Input: the zone's picture (BGR, cropped from a real frame) and a die's size in pixels (from
the camera's scale, or measured at the tray by `station camera calibrate --dice`). Output: one
entry per die seen, left to right: its face 1-6, or `0` for a die that is there but not read
with certainty; `[]` for an empty tray. A wrong face is the worst failure, so every step that
could make one is a check that turns the die into `0` instead. Nothing here knows a colour of
felt, tray or plastic: every level is relative to the die's own white.

1. **Top faces.** Dice are white plastic and their top faces face the studio's overhead
   light, so a top face is the brightest thing of a die's breadth within its reach: its
   rounded edges, its shadow, the tray's floor and rim are darker. A side face turned to a
   low light may be brighter, but seen from above it is only a strip, which an opening
   narrower than a die takes away before the level is set. With the pips filled in (a closing
   wider than a pip), what is nearly as bright as that level leaves each top face ringed by a
   moat; far from dice the floor or felt is its own brightest thing and makes regions far
   larger than a die. A large region is looked at again at higher levels (a die whose white
   is close to a cream floor's comes apart from it there). Done at half resolution, it only
   gives each die's rough place.
2. **A die is a region that holds a pip**: a round spot of a pip's size, darker than the
   region's white (at most 60 % of it when sharp, less deep when out of focus) and ringed by
   it. A light patch of rim, tray or glare holds none. A die with broad rounded edges may set
   its pips on the edges' shade, outside the region: a colourless region at least 0.6 as bright
   as the brightest in the picture is also looked at half a pip beyond, for a pip's disc
   ringed by white on its inner side and by nothing darker than itself (`_ringed`).
3. **Touching dice** make one region of two dice's area (with their side strips); it is split
   across the middle of its long side, each half read on its own; the region is read at the
   lowest level (share of its white) at which each of its dice reads.
4. **A face.** The pips round the region's place (spots ringed by the face's own white, or
   near a side by white within and the rounded edge's lighter shade without; a side strip's
   pips are ringed by its darker plastic) give the face's centre: every face's pattern is
   symmetric about it (found twice over: the region may leave the pips near a side out). The
   pips are cut at a level set by their own depth: halfway between
   the darkest spot of the face and its white (no higher than 60 % of the white), so a pip
   out of focus keeps the outline it has sharp. The face is read again there, at the die's
   size: nothing dark on it but its pips, its white whole (not cut by the picture's edge, a
   hand or another die) and white all round its centre, and no pip just beyond the face (a
   window centred on one row of a six would see a diagonal three).
5. **Pattern.** The pips' turn and grid spacing are found from the pips themselves (every turn
   tried): the pips must sit on the 3 x 3 grid of exactly one face's pattern (a square of four
   also fits a diamond 45 degrees round, which is no face; two faces fitting is doubt), with
   that face's colour (all red for 1 and 4, all black for the others, told apart by chroma,
   not brightness: a dull red out of focus is light but still red) and pips of one size.
6. **Outline.** The top face must be wholly in view: on every side the die's own plastic
   reaches well beyond its pips (more than 1.35 of the pips' spacing from their centre), where
   a tall tray rim seen off axis, a hand or the picture's edge would end it nearer. A die cut
   by the picture's edge is counted as `0`.
7. **The whole square.** The face is then held to the square a die of its calibrated size
   makes round its pips' centre, turned as its pips are, followed along rays all round (sides
   and corners alike, `_square_unseen`): its plastic must reach that outline on every ray
   (a wall darker or brighter than the plastic, lying over a corner or a strip, ends it
   nearer); its flat white must end about as far out on each side as on the other three (a
   pale wall over it ends the white nearer on one side; the rounded edges of one die are
   alike, a light from one side shades them only a little apart); and its flat white must not
   run on beyond the outline (a wall as white as the die joins the face with no rounded edge
   between). Anything less is `0`.
   **The side nearer the camera** (only with the camera's view calibrated, `CameraView`):
   a camera off axis sees each die's side faces turned toward it as strips beside the top
   face, as wide as the view predicts for the die's place in the tray; a wall between the
   camera and the die lies over that strip first, then over the top face. Where the strip
   predicted is wide enough to be seen (the camera not nearly overhead for this die), at the
   top face's outline on that side there must be the die's strip or the tray's floor, not
   something else (`_near_side_covered`) — even where the die's own strip is hidden.
   **The side turned from the camera** (also only with the view): there the camera sees a
   rounded edge only up to its silhouette, so the plastic may end a little shorter of the
   outline, as much as the view's angle takes from an edge of up to 3 mm (`_far_allowance`);
   no wall can lie over that side as the camera sees it.
8. **Dice with no region of their own.** A die whose white does not stand out as the
   brightest thing round it (a rim or floor as light as it) is found from its pips: groups of
   dark round spots of a pip's size, set as a face's are, that no die found accounts for,
   are read as a face of their own (steps 4-7), so such a die is read or counted `0`, never
   left out.

Only then is the face reported.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import cv2
import numpy as np

DIE_MM = 16.0
#: the face is resampled to this many pixels a side before its pips are read
FACE_PX = 48

# Pip patterns on the 3x3 grid (column, row in -1..1), each face in every turn it can show.
_PATTERNS: dict[frozenset[tuple[int, int]], int] = {}
for _face, _cells in {
    1: [((0, 0),)],
    2: [((-1, -1), (1, 1)), ((-1, 1), (1, -1))],
    3: [((-1, -1), (0, 0), (1, 1)), ((-1, 1), (0, 0), (1, -1))],
    4: [((-1, -1), (1, -1), (-1, 1), (1, 1))],
    5: [((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1))],
    6: [((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
        ((-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1))],
}.items():
    for _c in _cells:
        _PATTERNS[frozenset(_c)] = _face
RED_FACES = frozenset({1, 4})


@dataclass
class DieReading:
    """One die: where it lies (zone pixels), the face read (0: not certain), and why not."""

    face: int
    centre: tuple[float, float]
    reason: str = ""  # empty when read; else what made it uncertain
    pips: int = 0


#: where a piece of the zone's picture lies in it (x, y), the tray floor's colour and the
#: zone's whole picture (a die's side strip may reach beyond the piece)
_Place = tuple[int, int, "np.ndarray | None", "np.ndarray | None"]


@dataclass(frozen=True)
class CameraView:
    """Where the camera looks at the tray from, as `station camera calibrate --dice` fits it
    (dice_calibration.py) in pixels of the zone's picture: a pinhole camera over a flat tray
    sees a die's top face shifted from its foot away from the point straight below the camera
    (`nadir_*_px`, often outside the picture), by `strip_per_px` of its distance from it (the
    dice's height over the camera's). The side faces turned toward the camera show as strips
    that wide on the near side. `strips`: the dice the fit was made on."""

    nadir_x_px: float
    nadir_y_px: float
    strip_per_px: float
    strips: int = 0

    def shift_px(self, x: float, y: float) -> tuple[float, float]:
        """The top face's shift from its foot (picture pixels) for a die whose top face's
        centre is at (x, y): its strips show on the opposite side, toward the camera."""
        return self.strip_per_px * (x - self.nadir_x_px), self.strip_per_px * (y - self.nadir_y_px)


@dataclass
class DiceReading:
    dice: list[DieReading] = field(default_factory=list)
    #: what was looked at and taken for no die, and why (zone pixels): for the engineer at
    #: bring-up and the accuracy figures, which count why dice went unseen
    passed_over: list[tuple[tuple[float, float], str]] = field(default_factory=list)

    @property
    def faces(self) -> list[int]:
        return [d.face for d in self.dice]


class DiceReader:
    """Reads the dice tray of one camera. `mm_per_px`: table millimetres per pixel of the
    picture given to `read` (the layout's, for a crop of a full frame)."""

    def __init__(self, mm_per_px: float = 0.30, die_mm: float = DIE_MM, *, die_px: float | None = None,
                 view: CameraView | None = None) -> None:
        """`die_px`: a die's edge in pixels as measured at the tray (`station camera calibrate
        --dice`); without it, the edge follows from the scale and the dice's size. `view`:
        where the camera looks from, fitted at the same calibration (in pixels of the zone's
        picture, which `read` must then be given whole); without it, no die is held to the
        side nearer the camera (`_near_side_covered`)."""
        self.view = view
        if not 0.02 <= mm_per_px <= 2.0:
            raise ValueError(f"mm_per_px {mm_per_px} is not a plausible table scale")
        self.die_px = float(die_px) if die_px is not None else die_mm / mm_per_px
        # CARD_FACES.md: each pip at least 6 px across; our dice's pips are about 3 mm.
        if self.die_px < 30:
            raise ValueError(
                f"at {mm_per_px} mm per pixel a {die_mm:g} mm die is {self.die_px:.0f} px: its pips "
                "would get fewer than the 6 pixels CARD_FACES.md asks for"
            )

    # ---- public --------------------------------------------------------------------
    def read(self, image: np.ndarray) -> list[int]:
        """Faces of the dice in `image` (a BGR picture of the tray's zone), left to right."""
        return self.read_detailed(image).faces

    def read_detailed(self, image: np.ndarray) -> DiceReading:
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("the dice reader takes a BGR colour picture")
        s = self.die_px
        # Warm or cool light tints the white plastic: scale the channels so that the
        # brightest things in the picture (the dice, when there are any) are grey again.
        # Colourless stays colourless; a pip's red stays red.
        top = [_percentile_u8(np.ascontiguousarray(image[::3, ::3, k]), 99.5) for k in range(3)]
        if min(top) > 40 and max(top) / min(top) > 1.05:
            ramp = np.arange(256, dtype=np.float32)
            luts = [np.clip(ramp * (max(top) / t), 0, 255).astype(np.uint8) for t in top]
            image = cv2.merge([cv2.LUT(image[..., k], luts[k]) for k in range(3)])
        lo8 = cv2.min(cv2.min(image[..., 0], image[..., 1]), image[..., 2])
        hgt, wid = lo8.shape
        lo_top = _percentile_u8(np.ascontiguousarray(lo8[::3, ::3]), 99.5)
        reading = DiceReading()
        pad = int(round(s * 0.2)) + 2
        # the tray's floor, what lies round a die on the side nearer the camera when no wall
        # does (only looked at with the camera's view calibrated)
        floor = _floor_colour(image) if self.view is not None else None
        for x, y, w, h, region in self._regions(lo8, reading.passed_over):
            lo = lo8[y:y + h, x:x + w]
            if not self._holds_a_pip(region, lo, image[y:y + h, x:x + w], lo_top):
                # glare, a light patch of rim, tray or felt: no die (every face has pips)
                reading.passed_over.append(((x + w / 2, y + h / 2), "a white region with no pip"))
                continue
            # work on the region's neighbourhood only
            x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(wid, x + w + pad), min(hgt, y + h + pad)
            if x == 0 or y == 0 or x + w >= wid or y + h >= hgt:
                # Cut by the picture's edge: a die whose top face is not wholly in view (the
                # picture's edge crosses the tray, or a die thrown out of it) is there, so it
                # is counted, as `0` (CARD_FACES.md, "Dice"). The zone is drawn generously
                # round the tray, so what its edge cuts is more often a marking or light felt:
                # a die's part is white plastic (colourless, as bright as the brightest in
                # the picture) holding a sharp pip.
                if self._white_plastic(image[y:y + h, x:x + w], lo, region, lo_top):
                    ys, xs = np.nonzero(region)
                    reading.dice.append(DieReading(0, (float(xs.mean()) + x, float(ys.mean()) + y),
                                                   "cut by the picture's edge"))
                else:
                    reading.passed_over.append(((x + w / 2, y + h / 2), "at the picture's edge, not white plastic"))
                continue
            full = np.zeros((y1 - y0, x1 - x0), bool)
            full[y - y0:y - y0 + h, x - x0:x - x0 + w] = region
            found = self._read_region(image[y0:y1, x0:x1], self._filled(lo8[y0:y1, x0:x1], self.die_px), full, (x0, y0, floor, image))
            for d in found:
                d.centre = (d.centre[0] + x0, d.centre[1] + y0)
            reading.dice.extend(found)
        # A die whose white does not stand out as the brightest thing round it (a rim or a
        # floor as light as it, a white that lets the floor's colour through) makes no region
        # of its own, but its pips are there: dark round spots on light plastic, set as a
        # face's are. Each such group no die above accounts for is read as a face of its own.
        # (A region too large for a die there, read `0`, may be such a die with the floor
        # joined to it: its pips are read as a face too, and a face read replaces the `0`.)
        # (a die held `0` because its top face is not all seen is known too: its pips read
        # again as a group, with no white region to hold their face to, must not name it)
        known = [d.centre for d in reading.dice if d.face or d.reason.startswith(_UNSEEN)]
        for c, mask_box in self._pip_groups(lo8, known, lo_top):
            bx0, by0, bx1, by1, mask = mask_box
            d = self._read_face(image[by0:by1, bx0:bx1], mask, (c[0] - bx0, c[1] - by0), (bx0, by0, floor, image),
                                again=False)
            if not d.face and not d.pips:
                # no face with pips there after all
                reading.passed_over.append((c, f"a group of pips read as no face ({d.reason})"))
                continue
            d.centre = (d.centre[0] + bx0, d.centre[1] + by0)
            near = [o for o in reading.dice if np.hypot(o.centre[0] - d.centre[0], o.centre[1] - d.centre[1]) < 0.9 * s]
            if near and (not d.face or any(o.face for o in near)):
                continue
            reading.dice = [o for o in reading.dice if o not in near]
            reading.dice.append(d)
        reading.dice.sort(key=lambda d: (d.centre[0], d.centre[1]))
        return reading

    def _pip_groups(self, lo8: np.ndarray, known: list[tuple[float, float]], lo_top: float):
        """Groups of pips no die found accounts for: ((x, y) of the group's centre, (x0, y0,
        x1, y1, mask): a piece of the picture round it and, in it, the die's top face as a
        square of the die's size turned as its outline is). A pip here is a dark round spot
        of a pip's size much darker than the plastic round it (the picture with its pips
        filled); a group is pips a face's spacing apart, at most six, its spots alike in size;
        a lone spot only when it is as large as a 1's pip and red-free in no channel that a
        black spot would be (a 1 is red)."""
        s = self.die_px
        f = 2 if s >= 40 else 1
        hgt, wid = lo8.shape
        small = cv2.resize(lo8, (wid // f, hgt // f), interpolation=cv2.INTER_AREA) if f > 1 else lo8
        sf = s / f
        filled = self._filled(small, sf).astype(np.float32)
        depth = filled - small.astype(np.float32)
        spots = ((depth >= np.maximum(25.0, 0.3 * filled)) & (filled >= max(_LEAST_WHITE, 0.45 * lo_top))).astype(np.uint8)
        n, labels, stats, cents = cv2.connectedComponentsWithStats(spots, connectivity=8)
        k2 = (sf / FACE_PX) ** 2
        pips = []
        for j in range(1, n):
            x0, y0, w0, h0, a = (int(v) for v in stats[j])
            if _PIP_AREA[0] * k2 * 0.7 <= a <= _PIP_AREA[1] * k2 and max(w0, h0) <= 1.4 * min(w0, h0) + 1:
                pips.append((float(cents[j][0]) * f, float(cents[j][1]) * f, a * f * f))
        if not pips:
            return
        # group pips a face's spacing apart (single linkage)
        group = list(range(len(pips)))

        def root(i: int) -> int:
            while group[i] != i:
                group[i] = group[group[i]]
                i = group[i]
            return i
        for i in range(len(pips)):
            for j in range(i + 1, len(pips)):
                if np.hypot(pips[i][0] - pips[j][0], pips[i][1] - pips[j][1]) <= 0.48 * s:
                    group[root(i)] = root(j)
        groups: dict[int, list[tuple[float, float, float]]] = {}
        for i, p in enumerate(pips):
            groups.setdefault(root(i), []).append(p)
        # a 2's pips lie a face's diagonal apart (0.7-0.85 of the edge): two lone spots of one
        # size so far apart, each too small for a 1's pip, are one group
        lone = [k for k, m in groups.items() if len(m) == 1 and m[0][2] < np.pi * (0.2 * s / 2) ** 2]
        for a_i, a in enumerate(lone):
            for b in lone[a_i + 1:]:
                if a in groups and b in groups and len(groups[a]) == 1 and len(groups[b]) == 1:
                    (pa,), (pb,) = groups[a], groups[b]
                    if 0.6 * s <= np.hypot(pa[0] - pb[0], pa[1] - pb[1]) <= 0.9 * s and max(pa[2], pb[2]) <= 2.0 * min(pa[2], pb[2]):
                        groups[a] = [pa, pb]
                        del groups[b]
        for members in groups.values():
            xs = np.array([p[0] for p in members])
            ys = np.array([p[1] for p in members])
            cx, cy = float(xs.mean()), float(ys.mean())
            if len(members) > 6 or max(np.ptp(xs), np.ptp(ys)) > 0.8 * s:
                continue
            if any(np.hypot(cx - kx, cy - ky) < 0.9 * s for kx, ky in known):
                continue  # a die found, or the pips of its side strips seen off axis
            areas = [p[2] for p in members]
            if len(members) == 1:
                if areas[0] < np.pi * (0.2 * s / 2) ** 2:
                    continue  # a lone spot smaller than a 1's pip: not a face
            elif max(areas) > 2.2 * min(areas):
                continue
            r = int(round(0.9 * s))
            x0, y0, x1, y1 = max(0, int(cx) - r), max(0, int(cy) - r), min(wid, int(cx) + r + 1), min(hgt, int(cy) + r + 1)
            if x1 - x0 < s or y1 - y0 < s:
                continue
            ang = _outline_turn(lo8[y0:y1, x0:x1], (cx - x0, cy - y0), s)
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            box = cv2.boxPoints(((cx - x0, cy - y0), (0.9 * s, 0.9 * s), ang))
            cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 1)
            yield (cx, cy), (x0, y0, x1, y1, mask.astype(bool))

    def _regions(self, lo8: np.ndarray, passed_over: list | None = None):
        """(x, y, w, h, mask) of each region of the picture that may be the top face of a die
        or of two touching. Regions only give a die's rough place: they are found at half
        resolution when a die is large enough (at least 20 pixels there), for speed.

        The top faces are what is nearly as bright as the brightest thing within a die's
        reach. A die's top face faces the overhead light and is its plastic's own white, so
        round it everything else (its rounded edges and side strips, its shadow, the tray's
        floor however light, the rim) is darker and falls away as a moat; far from any die
        the floor or felt is its own brightest thing and makes regions far larger than a die,
        dropped or looked at again (`_raised`). Measured on the picture smoothed a little so
        that one noisy pixel does not set the level of its neighbourhood."""
        f = 2 if self.die_px >= 40 else 1
        hgt, wid = lo8.shape
        small = cv2.resize(lo8, (wid // f, hgt // f), interpolation=cv2.INTER_AREA) if f > 1 else lo8
        s = self.die_px / f
        smooth = cv2.GaussianBlur(self._filled(small, s), (0, 0), 1.0 / f)
        reach = int(round(s * _REACH)) | 1
        # The level is set by what is bright over a top face's breadth, not by a thin strip:
        # a side face turned to a low light can be brighter than the top face, but seen from
        # above it is a strip a fraction of a die wide, which the opening takes away.
        wide = int(round(s * _STRIP)) | 1
        body = cv2.morphologyEx(smooth, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (wide, wide)))
        near_max = cv2.dilate(body, cv2.getStructuringElement(cv2.MORPH_RECT, (reach, reach)))
        ratio = smooth.astype(np.float32) / np.maximum(near_max, 1).astype(np.float32)
        white = ((ratio >= _TOP_LEVEL) & (near_max >= 40)).astype(np.uint8)
        # join a face across its pips and rounded edge before looking for regions
        close = max(3, int(round(s * 0.08)) | 1)
        white = cv2.morphologyEx(white, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close, close)))
        # Fill the pips a face encloses, not the floor a light rim encloses.
        white = _fill_holes(white, max_hole=0.5 * s * s)
        for x, y, w, h, region in self._candidates(white, ratio, s, passed_over, f):
            if f > 1:
                x, y, w, h = x * f, y * f, min(w * f, wid - x * f), min(h * f, hgt - y * f)
                region = cv2.resize(region.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST).astype(bool)
            yield x, y, w, h, region

    @staticmethod
    def _filled(lo: np.ndarray, s: float) -> np.ndarray:
        """`lo` with the pips filled with the white round them (a closing by a disc wider than
        a pip and than a row of pips on a six): what is left is the plastic's own shape and
        shading. `s`: a die's edge in pixels of `lo`."""
        d = int(round(s * _PIP_FILL)) | 1
        return cv2.morphologyEx(lo, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d)))

    def _candidates(self, white: np.ndarray, ratio: np.ndarray, s: float, passed_over: list | None = None,
                    f: int = 1):
        """(x, y, w, h, mask) of each white region one die or two touching could make. A
        region larger than that is the floor or felt, with a die on it when the die's white
        is close to the floor's (an ivory die on a cream tray): its top face is then what
        stays when the level is raised, so the region is looked at again at higher levels.
        `s`: a die's edge in pixels of `white`, `f` how many zone pixels one of it is;
        regions passed over are noted in `passed_over`."""
        area_1 = s * s
        n, labels, stats, _ = cv2.connectedComponentsWithStats(white, connectivity=8)

        def note(i: int, why: str) -> None:
            if passed_over is not None:
                x, y, w, h = (int(v) for v in stats[i, :4])
                passed_over.append((((x + w / 2) * f, (y + h / 2) * f), why))
        hgt, wid = white.shape
        for i in range(1, n):
            x, y, w, h = (int(v) for v in stats[i, :4])
            if x == 0 or y == 0 or x + w >= wid or y + h >= hgt:
                # what the picture's edge cuts: a die's part as small as an eighth of it and
                # as narrow as a fifth (with a pip on it) is still a die there
                if area_1 / 8 <= stats[i, cv2.CC_STAT_AREA] <= 2 * area_1 and max(w, h) <= 2.0 * s \
                        and min(w, h) >= 0.2 * s:
                    yield x, y, w, h, labels[y:y + h, x:x + w] == i
                    continue
            if stats[i, cv2.CC_STAT_AREA] < area_1 / 3:
                continue  # a speck: glare on a chip, a crumb
            region = labels[y:y + h, x:x + w] == i
            if self._die_sized(region, s):
                yield x, y, w, h, region
            elif stats[i, cv2.CC_STAT_AREA] > area_1:
                found = 0
                for piece in self._raised(region, ratio[y:y + h, x:x + w], x, y, 0, s):
                    found += 1
                    yield piece
                if not found:
                    note(i, "a white region larger than two dice, none within it at higher levels")
            else:
                note(i, "a white region of a die's area but not its shape")

    def _raised(self, region: np.ndarray, ratio: np.ndarray, x: int, y: int, step: int, s: float):
        if step >= len(_RAISED_LEVELS):
            return
        area_1 = s * s
        top = (region & (ratio >= _RAISED_LEVELS[step])).astype(np.uint8)
        close = max(3, int(round(s * 0.08)) | 1)
        top = cv2.morphologyEx(top, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close, close)))
        top = _fill_holes(top, max_hole=0.5 * area_1) & region
        m, sub, sstats, _ = cv2.connectedComponentsWithStats(top.astype(np.uint8), connectivity=8)
        for j in range(1, m):
            if sstats[j, cv2.CC_STAT_AREA] < area_1 / 3:
                continue
            bx, by, bw, bh = (int(v) for v in sstats[j, :4])
            piece = sub[by:by + bh, bx:bx + bw] == j
            if self._die_sized(piece, s):
                yield x + bx, y + by, bw, bh, piece
            elif sstats[j, cv2.CC_STAT_AREA] > area_1:
                yield from self._raised(piece, ratio[by:by + bh, bx:bx + bw], x + bx, y + by, step + 1, s)

    def _holds_a_pip(self, region: np.ndarray, lo: np.ndarray, img: np.ndarray | None = None,
                     lo_top: float = 255.0) -> bool:
        """Does the region hold a pip: a round spot of a pip's size, darker than the region's
        white and ringed by it? Looked for at 60 % of the white (a sharp pip), then at 70 and
        80 % (out of focus a pip's centre stays lighter), its ring halfway from there to the
        white. (Sensor noise on a dark tray makes specks of a few pixels; a coloured rim caught
        at a region's edge is not ringed by white.) A die whose pips all lie near its sides,
        on the rounded edges' shade, makes a region that leaves them out: where the region is
        colourless like a die's plastic (`img`, its picture) and near the brightest in the
        picture (`lo_top`; felt and rims are darker than the dice), a pip is also looked for
        half a pip beyond it, ringed as a pip near a side is (`_ringed`)."""
        level = _percentile_u8(lo[region], 90)
        if level < _LEAST_WHITE:
            return False  # a dark tray's or felt's own brightest: no die's white, however dim the studio
        if any(self._holds_a_pip_at(region, lo, level * d, level * (1 + d) / 2) for d in _PIP_DARK):
            return True
        if img is None or level < _EDGE_PIP_WHITE * lo_top or not _colourless(img, lo, region, level):
            return False  # a coloured rim or felt, or one darker than the dice: no plastic of a die
        return any(self._holds_a_pip_at(region, lo, level * d, level * (1 + d) / 2, beyond=True) for d in _PIP_DARK)

    def _white_plastic(self, img: np.ndarray, lo: np.ndarray, region: np.ndarray, lo_top: float) -> bool:
        """Is the region a part of a die: its white colourless (a marking printed on the felt
        is the felt's colour, lighter), nearly as bright as the brightest in the picture and
        bright in itself (a marking on dark felt is dim), holding a pip as dark as a sharp
        one (at most 60 % of the white)?"""
        level = _percentile_u8(lo[region], 90)
        if level < max(_EDGE_WHITE, 0.8 * lo_top) or not _colourless(img, lo, region, level):
            return False
        return self._holds_a_pip_at(region, lo, level * _PIP_DARK[0], level * (1 + _PIP_DARK[0]) / 2)

    def _holds_a_pip_at(self, region: np.ndarray, lo: np.ndarray, dark_t: float, bright_t: float,
                        beyond: bool = False) -> bool:
        near = region
        if beyond:
            k = int(round(0.15 * self.die_px)) | 1
            near = cv2.dilate(region.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))).astype(bool)
        dark = (near & (lo < dark_t)).astype(np.uint8)
        bright = lo >= bright_t
        n, labels, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
        k2 = (self.die_px / FACE_PX) ** 2
        for j in range(1, n):
            x0, y0, w0, h0, a = (int(v) for v in stats[j])
            if not _PIP_AREA[0] * k2 <= a <= _PIP_AREA[1] * k2 or max(w0, h0) > 1.6 * min(w0, h0) + 1:
                continue
            m = 3
            wx0, wy0 = max(0, x0 - m), max(0, y0 - m)
            blob = (labels[wy0:y0 + h0 + m, wx0:x0 + w0 + m] == j).astype(np.uint8)
            ring = cv2.dilate(blob, np.ones((5, 5), np.uint8)).astype(bool) & ~cv2.dilate(blob, np.ones((3, 3), np.uint8)).astype(bool)
            part = (slice(wy0, y0 + h0 + m), slice(wx0, x0 + w0 + m))
            if ring.any() and _ringed(ring, bright[part], lo[part] >= dark_t, 0.8, (a, w0, h0), k2, near_side=beyond):
                return True
        return False

    def _die_sized(self, region: np.ndarray, s: float) -> bool:
        """Could one die, or two touching, make this white region? (Dice partly out of view
        or covered make smaller ones, and so do light strips of felt or tray; those are long
        and thin, or larger than two dice.) `s`: a die's edge in pixels of `region`."""
        if region.sum() > 3.4 * s * s:  # two dice and their side strips
            return False
        (_, _), (rw, rh), _ = _min_rect(region)
        return max(rw, rh) <= 3.0 * s and min(rw, rh) >= 0.45 * s

    # ---- a white region: one die, touching dice, or something not a die --------------
    def _read_region(self, img: np.ndarray, lo: np.ndarray, region: np.ndarray,
                     at: _Place = (0, 0, None, None)) -> list[DieReading]:
        """The dice of one white region, at the lowest of the levels (shares of the region's
        white) at which each of them reads: a light tray floor next to a die may join its top
        face at the first level and fall away at a higher one."""
        best: list[DieReading] = []
        for k, level in enumerate(_FACE_LEVELS):
            out = _one_per_place(self._read_region_at(img, lo, region, level, at), 0.5 * self.die_px)
            if k == 0 or sum(1 for d in out if d.face) > sum(1 for d in best if d.face):
                best = out
            if out and all(d.face for d in out):
                break
        return best

    def _read_region_at(self, img: np.ndarray, lo: np.ndarray, region: np.ndarray, share: float,
                        at: _Place = (0, 0, None, None)) -> list[DieReading]:
        s = self.die_px
        area_1 = s * s
        ys, xs = np.nonzero(region)
        centre = (float(xs.mean()), float(ys.mean()))
        level = _percentile_u8(lo[region], 90)
        top = _fill_holes((region & (lo >= share * level)).astype(np.uint8))
        # the seam between touching dice is only a few pixels: cut thin bridges
        k = max(3, int(round(s * 0.06)) | 1)
        top = cv2.morphologyEx(top, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        n, labels, stats, centroids = cv2.connectedComponentsWithStats(top, connectivity=4)
        faces = [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= area_1 / 3]
        if not faces:
            return [DieReading(0, centre, "no top face")]
        out: list[DieReading] = []
        for j in faces:
            a = stats[j, cv2.CC_STAT_AREA]
            c = (float(centroids[j][0]), float(centroids[j][1]))
            mask = labels == j
            count = a / (area_1 * _FACE_FILL)
            if count < 0.35:
                out.append(DieReading(0, c, "part of a die"))
            elif count <= 1.3 and max(_min_rect(mask)[1]) > 1.6 * s:
                out.extend(self._read_pair(img, mask, c, at))  # two dice, one half hidden or blurred
            elif count <= 1.3:
                out.append(self._read_face(img, mask, c, at))
            elif count <= 2.7:  # two dice, their strips of side face seen off axis
                out.extend(self._read_pair(img, mask, c, at))
            else:
                out.append(DieReading(0, c, "more than two dice in one region"))
        return out

    def _read_pair(self, img: np.ndarray, mask: np.ndarray, centre: tuple[float, float],
                   at: _Place = (0, 0, None, None)) -> list[DieReading]:
        """Two top faces that touch: split across the middle of their long side. Dice that
        touch face to face lie parallel, side by side or shifted along the face they share,
        so the pair's rectangle is two dice long and one to two wide, and each half holds one
        top face; each half must then pass as a die's face on its own."""
        s = self.die_px
        rect = _min_rect(mask)
        (cx, cy), (rw, rh), ang = rect
        long_, short = max(rw, rh), min(rw, rh)
        fill = mask.sum() / max(1.0, rw * rh)
        if not (1.7 * s <= long_ <= 2.6 * s and 0.85 * s <= short <= 1.9 * s and fill > 0.5):
            return [DieReading(0, centre, "touching dice"), DieReading(0, centre, "touching dice")]
        theta = np.deg2rad(ang if rw >= rh else ang + 90.0)
        ux, uy = np.cos(theta), np.sin(theta)
        halves = []
        yy, xx = np.nonzero(mask)
        side = (xx - cx) * ux + (yy - cy) * uy
        for sign in (-1, 1):
            half = np.zeros_like(mask)
            keep = side * sign > 0.02 * s
            half[yy[keep], xx[keep]] = True
            c = (float(cx + sign * ux * long_ / 4), float(cy + sign * uy * long_ / 4))
            halves.append(self._read_face(img, half, c, at))
        return halves

    # ---- one top face ------------------------------------------------------------------
    def _read_face(self, img: np.ndarray, mask: np.ndarray, centre: tuple[float, float],
                   at: _Place = (0, 0, None, None), again: bool = True) -> DieReading:
        """The bright part `mask` of one die gives only a rough place and turn: its boundary
        wanders with the rounded edges' shading, a side strip or the tray's floor showing as
        bright. The pips decide the rest: the face is re-centred on its pips (every face's
        pattern is symmetric about the face's centre) and then held to the die's known size.
        `again`: re-centre a second time on the pips round the first centre (a face found
        from its pips alone, `_pip_groups`, is not: beside a wall as white as the die, a pip
        the wall cuts would draw the centre to it). `at`: where `img` lies in the zone's
        picture (the camera's view is known there), the
        tray floor's colour (`_floor_colour`) and the zone's whole picture."""
        s = self.die_px
        hull = _hull(mask)
        (cx, cy), (rw, rh), ang = _min_rect(hull)
        if not (0.55 * s <= min(rw, rh) and max(rw, rh) <= 1.3 * s):
            return DieReading(0, (cx, cy), f"top face {rw:.0f}x{rh:.0f} px, a die is {s:.0f}")
        # 1. a window of 1.5 faces round the bright part, upright, the face FACE_PX wide
        n = int(round(FACE_PX * _WINDOW))
        win = self._warp(img, (cx, cy), ang, n)
        lo = np.minimum(np.minimum(win[..., 0], win[..., 1]), win[..., 2])
        inside = cv2.warpAffine(hull.astype(np.uint8), self._affine((cx, cy), ang, n), (n, n),
                                flags=cv2.INTER_NEAREST).astype(bool)
        if inside.sum() < 0.3 * FACE_PX * FACE_PX:
            return DieReading(0, (cx, cy), "top face too small")
        white = float(np.percentile(lo[inside], 90))
        # the face's own white per channel: a pip's colour is told against it, so that light,
        # white balance and the plastic's tint (ivory, cool white) cancel
        paper = np.array([np.percentile(win[..., k][inside], 90) for k in range(3)], np.float32)
        if white <= 25:
            return DieReading(0, (cx, cy), "face too dark")
        # the pips of this die only (a die touching it has its own, in the same window, its
        # nearest at least a fifth of a face beyond this one's bright part); a pip near a
        # side may lie on the rounded edge's shade, just beyond the bright part
        near = cv2.dilate(inside.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15))).astype(bool)
        # the pips' levels from the face's darkest spot clear of its rounded edges; only where
        # the bright part holds none (all pips near its sides) from a little beyond it
        levels = _pip_levels(lo, near, white)
        if levels is None:
            return DieReading(0, (cx, cy), "no spot on it as dark as a pip")
        pips = [p for p in self._pips(win, lo, paper, levels) if near[int(p[1]), int(p[0])]]
        if not pips:
            # The darkest spot a little beyond the bright part may be no pip but the floor (a
            # die with sharp edges, whose white reaches its outline, on a dark floor): cut at
            # its depth, small pips out of focus are too shallow to show. Their depth is then
            # taken from the bright part alone.
            levels = _pip_levels(lo, inside, white) or levels
            pips = [p for p in self._pips(win, lo, paper, levels) if near[int(p[1]), int(p[0])]]
        if not pips:
            return DieReading(0, (cx, cy), "no pips")
        # 2. re-centre on the pips, and read the face again there, square and of the die's size
        du = float(np.mean([p[0] for p in pips])) - n / 2
        dv = float(np.mean([p[1] for p in pips])) - n / 2
        if max(abs(du), abs(dv)) > 0.4 * FACE_PX:
            return DieReading(0, (cx, cy), "pips off the bright part's centre")
        c = np.cos(np.deg2rad(ang)), np.sin(np.deg2rad(ang))
        k = s / FACE_PX
        fx, fy = cx + k * (du * c[0] - dv * c[1]), cy + k * (du * c[1] + dv * c[0])
        win = self._warp(img, (fx, fy), ang, n)
        lo = np.minimum(np.minimum(win[..., 0], win[..., 1]), win[..., 2])
        pips = self._pips(win, lo, paper, levels)
        # Once more: the bright part may leave out the pips near a side (on a die with broad
        # rounded edges they lie on the edge's shade), and the first centre leans away from
        # them; round the new centre, the pips within a face's reach of it give the centre.
        mine = [p for p in pips if np.hypot(p[0] - n / 2, p[1] - n / 2) < 0.6 * FACE_PX]
        if mine and again:
            du = float(np.mean([p[0] for p in mine])) - n / 2
            dv = float(np.mean([p[1] for p in mine])) - n / 2
            if max(abs(du), abs(dv)) > 0.5:
                fx, fy = fx + k * (du * c[0] - dv * c[1]), fy + k * (du * c[1] + dv * c[0])
                win = self._warp(img, (fx, fy), ang, n)
                lo = np.minimum(np.minimum(win[..., 0], win[..., 1]), win[..., 2])
                pips = self._pips(win, lo, paper, levels)
        near = None
        if self.view is not None and at[3] is not None:
            # the top face's shift from its foot, turned and scaled into the window, and a
            # window wide enough for its strip and what lies beyond (from the whole picture)
            m = self._affine((fx, fy), ang, n)[:, :2]
            shift = m @ np.array(self.view.shift_px(fx + at[0], fy + at[1]))
            wide = int(round(FACE_PX * (1.0 + 2 * (_NEAR_REACH + float(np.hypot(*shift)) / FACE_PX))))
            near = (self._warp(at[3], (fx + at[0], fy + at[1]), ang, wide), shift, at[2])
        reading = self._judge(win, lo, white, levels, pips, (fx, fy), paper, near)
        if reading.face:
            # A face's pips lie within 0.46 of its width from its centre (corner pips, the
            # die's size a tenth off); a touching die's nearest pip is at least 0.66 away. A
            # pip between the two, even one only partly ringed by white (near the die's far
            # edge, out of focus), means this is not the face's centre: a window centred on a
            # six's row of three, its other row missed, sees a diagonal three there.
            # (A pip of a side strip seen off axis is foreshortened: smaller than the face's.)
            least = 0.6 * float(np.median([p[2] for p in pips if np.hypot(p[0] - n / 2, p[1] - n / 2) < 0.55 * FACE_PX] or [0.0]))
            near = [p for p in self._pips(win, lo, paper, levels, least_ringed=0.5)
                    if 0.55 * FACE_PX <= np.hypot(p[0] - n / 2, p[1] - n / 2) < _GUARD * FACE_PX and p[2] >= least]
            if near:
                return DieReading(0, (fx, fy), "a pip beside the face", reading.pips)
        return reading

    def _affine(self, centre: tuple[float, float], ang: float, n: int) -> np.ndarray:
        m = cv2.getRotationMatrix2D(centre, ang, FACE_PX / self.die_px)
        m[0, 2] += n / 2 - centre[0]
        m[1, 2] += n / 2 - centre[1]
        return m

    def _warp(self, img: np.ndarray, centre: tuple[float, float], ang: float, n: int) -> np.ndarray:
        return cv2.warpAffine(img, self._affine(centre, ang, n), (n, n), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE).astype(np.float32)

    def _pips(self, win: np.ndarray, lo: np.ndarray, white: np.ndarray, levels: tuple[float, float],
              least_ringed: float = 0.65) -> list[tuple[float, float, float, str]]:
        """Pips of the top face in the window: spots darker than `levels[0]`, of a pip's size,
        mostly ringed by the face's own white (a side strip's pips are
        ringed by the strip's darker plastic or the floor, a pip near a rounded edge or corner
        partly by the edge's shade, so the ring is held to two thirds of the way from
        `levels[0]` to `levels[1]`, on `least_ringed` of it). `white`: the face's white per
        channel, against which a pip's colour is told. (x, y, area, colour) each, window
        pixels."""
        dark = (lo < levels[0]).astype(np.uint8)
        count, labels, stats, cents = cv2.connectedComponentsWithStats(dark, connectivity=8)
        bright = lo >= (levels[0] + 2 * levels[1]) / 3
        out = []
        for j in range(1, count):
            a = int(stats[j, cv2.CC_STAT_AREA])
            x0, y0, w0, h0 = (int(v) for v in stats[j, :4])
            if a > _PIP_AREA[1] or (a >= _PIP_AREA[0] and max(w0, h0) > 1.6 * min(w0, h0) + 1):
                # Too large or not round: a seam, a strip's squashed pip, the rim's shadow, or
                # a pip near the face's side joined to a strip's pip by the shade of the
                # rounded edge between them. Cut deeper, halfway to its darkest, the pip
                # comes apart from the rest; the spots found there are judged like any.
                part = labels[y0:y0 + h0, x0:x0 + w0] == j
                deeper = (levels[0] + float(lo[y0:y0 + h0, x0:x0 + w0][part].min())) / 2
                out.extend(self._pips_apart(win, lo, white, part & (lo[y0:y0 + h0, x0:x0 + w0] < deeper),
                                            (x0, y0), lo >= levels[0], least_ringed))
                continue
            if a < _PIP_AREA[0]:
                continue
            m = 3
            wx0, wy0 = max(0, x0 - m), max(0, y0 - m)
            blob = (labels[wy0:y0 + h0 + m, wx0:x0 + w0 + m] == j).astype(np.uint8)
            ring = cv2.dilate(blob, np.ones((5, 5), np.uint8)).astype(bool) & ~cv2.dilate(blob, np.ones((3, 3), np.uint8)).astype(bool)
            part = (slice(wy0, y0 + h0 + m), slice(wx0, x0 + w0 + m))
            if not _ringed(ring, bright[part], lo[part] >= levels[0], least_ringed, (a, w0, h0)):
                continue
            out.append((float(cents[j][0]), float(cents[j][1]), float(a), _colour_of(win, lo, labels == j, white)))
        return out

    def _pips_apart(self, win, lo, white, dark, at, light, least_ringed):
        """The pips among the spots of `dark` (a part of the window at `at`), each of a pip's
        size and round, as in `_pips`. Cut out deeper, a pip's ring lies on its own soft
        edge: it is held to be `light` (not dark at the first cut) instead of white; a pip
        of a side strip this lets through lies outside every face's pattern."""
        x0, y0 = at
        count, labels, stats, cents = cv2.connectedComponentsWithStats(dark.astype(np.uint8), connectivity=8)
        out = []
        for j in range(1, count):
            a = int(stats[j, cv2.CC_STAT_AREA])
            _, _, w0, h0 = (int(v) for v in stats[j, :4])
            if not _PIP_AREA[0] <= a <= _PIP_AREA[1] or max(w0, h0) > 1.6 * min(w0, h0) + 1:
                continue
            blob = np.zeros(lo.shape, np.uint8)
            blob[y0:y0 + dark.shape[0], x0:x0 + dark.shape[1]] = labels == j
            ring = cv2.dilate(blob, np.ones((5, 5), np.uint8)).astype(bool) & ~cv2.dilate(blob, np.ones((3, 3), np.uint8)).astype(bool)
            if np.count_nonzero(ring & light) < least_ringed * max(1, ring.sum()):
                continue
            out.append((float(cents[j][0] + x0), float(cents[j][1] + y0), float(a),
                        _colour_of(win, lo, blob.astype(bool), white)))
        return out

    def _judge(self, win, lo, white, levels, pips, centre, paper=None, near=None) -> DieReading:
        """The face centred in the window: its pips on one face's pattern, nothing else dark on
        it, its white whole (a face cut by the picture's edge, a hand or another die is not
        whole), the pips of that face's colour."""
        n = win.shape[0]
        h = FACE_PX / 2
        pips = [(x - n / 2, y - n / 2, a, col) for x, y, a, col in pips if np.hypot(x - n / 2, y - n / 2) < 1.1 * h]
        if not pips:
            return DieReading(0, centre, "no pips")
        # Nothing dark on the face but its pips, and its white whole (a face cut by the
        # picture's edge, a hand or another die is not). Looked at on a disc clear of the
        # rounded edges whatever the turn: the turn is only known from the pips, below.
        yy, xx = np.mgrid[0:n, 0:n]
        inner = (xx + 0.5 - n / 2) ** 2 + (yy + 0.5 - n / 2) ** 2 <= (_CLEAR * FACE_PX) ** 2
        holes = np.zeros(lo.shape, np.uint8)
        for x, y, a, _ in pips:
            cv2.circle(holes, (int(round(x + n / 2)), int(round(y + n / 2))), int(np.ceil(np.sqrt(a / np.pi))) + 3, 1, -1)
        rest = inner & ~holes.astype(bool)
        if np.count_nonzero(lo[rest] < levels[0]) > 3:
            return DieReading(0, centre, "a dark mark on the face that is not a pip")
        if np.count_nonzero(lo[rest] >= 0.8 * white) < 0.9 * rest.sum():
            return DieReading(0, centre, "top face not whole")
        # ... and white all round its centre: a window centred off the face (on a row of
        # pips near its side, the rest of them missed) has the die's edge or the floor on one
        # side within a third of a face, where a face is flat white in every direction.
        rr = np.hypot(xx + 0.5 - n / 2, yy + 0.5 - n / 2) / FACE_PX
        sector = (np.arctan2(yy + 0.5 - n / 2, xx + 0.5 - n / 2) // (np.pi / 4)).astype(int)
        ring = (rr >= _ROUND[0]) & (rr < _ROUND[1]) & ~holes.astype(bool)
        lit = lo >= levels[1]
        for k in range(-4, 4):
            part = ring & (sector == k)
            if part.any() and np.count_nonzero(lit[part]) < 0.75 * np.count_nonzero(part):
                return DieReading(0, centre, "top face not white all round its centre")
        du = float(np.mean([p[0] for p in pips]))
        dv = float(np.mean([p[1] for p in pips]))
        if max(abs(du), abs(dv)) > 0.08 * FACE_PX:
            return DieReading(0, centre, "pips off the face's centre")
        pts = np.array([(x - du, y - dv) for x, y, *_ in pips])
        fit = _grid_fit(pts)
        if len(fit) != 1:
            why = "no face's pattern" if not fit else "the pattern of several faces"
            return DieReading(0, centre, f"{len(pips)} pips in {why}", len(pips))
        value, (turn, spacing) = fit.popitem()
        colours = {c for *_, c in pips}
        want = "red" if value in RED_FACES else "black"
        if colours != {want}:
            return DieReading(0, centre, f"{value} with {'/'.join(sorted(colours))} pips", len(pips))
        areas = [a for _, _, a, _ in pips]
        if value != 1 and max(areas) > 2.2 * min(areas):
            return DieReading(0, centre, "pips of unequal sizes", len(pips))
        outline = self._outline_cut(lo, white, turn, spacing, holes.astype(bool))
        if not outline:
            outline = _square_unseen(lo, white, turn, holes.astype(bool), (du, dv), value == 1,
                                     None if near is None else near[1])
        if not outline and near is not None:
            outline = _near_side_covered(near[0], paper, turn, (du, dv), near[1], near[2])
        if outline:
            return DieReading(0, centre, outline, len(pips))
        return DieReading(value, centre, "", len(pips))

    def _outline_cut(self, lo: np.ndarray, white: float, turn_deg: float, spacing: float, pips: np.ndarray) -> str:
        """Why the top face is not wholly in view, or "". The window is centred on the face's
        centre (its pips'), the face turned `turn_deg` with its pips `spacing` apart (the
        grid's, face pixels; 0 for a lone pip). Dice set their corner pips at most 0.3 of the
        edge from the centre, so on every side the die's own plastic (its white, its rounded
        edge however shaded, a strip of side face) reaches more than 1.35 spacings out
        (0.5 / 0.3 = 1.67 less the rounded edge's shade). A tray's rim or a hand lying over the face
        (the camera off axis, a die against the wall nearer it), or the picture's edge, ends
        it nearer. (A strip of a millimetre or so, the rounded edge and little more, is not
        told from a die's shading: the pips it could hide lie further in.) The lone pip of a
        1 gives no spacing: the die's size is used instead, more loosely."""
        ends = _plastic_ends(lo, _PLASTIC * white, turn_deg, pips)
        least = _REACH_SPACINGS * spacing if spacing > 0 else _REACH_FACE * FACE_PX
        if min(ends) < least:
            return f"top face not wholly in view (its plastic ends {min(ends) / FACE_PX:.2f} of a face from its centre)"
        return ""


#: how far (in die edges) the brightest thing round a pixel is looked for: a die's top face
#: sets the level over its whole moat
_REACH = 1.2
#: side strips seen from above are at most this wide (die edges); a top face is wider
_STRIP = 0.45
#: a top face is at least this share of the brightest thing within reach; side strips and
#: rounded edges facing away from the light are darker (about 0.7 to 0.8 of it), and so is a
#: light tray floor next to a white die
_TOP_LEVEL = 0.88
#: the disc (in die edges) that fills pips when the plastic's shape is looked for: wider than
#: the largest pip (the 1, up to 0.4 of the edge) and a six's row of pips
_PIP_FILL = 0.42
#: the levels (shares of a region's white) its top faces are looked for at, in turn
_FACE_LEVELS = (0.86, 0.92, 0.95)
#: the levels a region larger than two dice is looked at again at, in turn
_RAISED_LEVELS = (0.92, 0.95)
#: the levels (shares of the white) below which a spot may be a pip, in turn: a sharp pip is
#: nearly black or a full red; one out of focus is lighter at its centre
_PIP_DARK = (0.6, 0.7, 0.8)
#: a face's pips are at least this much darker than its white at their centre (out of focus)
_PIP_DEPTH = 0.3
#: a pip near the face's side: this share of its ring at least at the face's white, and this
#: share of it lighter than the pip (the rest on the rounded edge's shade)
_EDGE_RINGED = 0.3
_CLOSED = 0.95
#: the largest such pip (face pixels): a 2-6's pip of 0.28 of the edge (a 1's larger pip lies
#: in the face's middle, ringed by its white)
_EDGE_PIP_AREA = np.pi * (0.28 * FACE_PX / 2) ** 2
#: the reasons of a die held `0` because its top face is not all seen
_UNSEEN = ("top face not wholly in view", "cut by the picture's edge", "top face under something")
#: a white region is looked at for such pips only when it is at least this share of the
#: brightest in the picture (a die's plastic; a printed line on the felt may be brighter)
_EDGE_PIP_WHITE = 0.6
#: the rounded edges a face's darkest spot is not looked for in (face pixels across)
_EDGE_CLEAR = 9
#: no pip within this many face widths of a face's centre but outside the face (see _judge)
_GUARD = 0.64
#: the pips' grid spacing (face widths): dice set their corner pips 0.25 to 0.30 of the edge
#: from the centre. A row of three fits a diagonal three 45 degrees round at 1/sqrt(2) of its
#: spacing (0.18 to 0.21), mostly below this; the pip beside the face (_GUARD) and the white
#: all round the centre (_ROUND) catch the rest
_GRID = (0.2, 0.36)
#: the ring round a face's centre (face widths) that is white in every direction: inside the
#: flat of the face whatever its rounded edges and the die's size a tenth off
_ROUND = (0.22, 0.32)
#: radius of the disc of a face (in face widths) clear of its rounded edges at any turn
_CLEAR = 0.36
#: the window a face is read in, in face widths: room for the bright part's error of place
_WINDOW = 1.5
#: a pip's area in face pixels (FACE_PX a side): pips of 12 % to 40 % of the edge across
_PIP_AREA = (np.pi * (0.12 * FACE_PX / 2) ** 2 * 0.6, np.pi * (0.40 * FACE_PX / 2) ** 2 * 1.3)


#: a die's white is at least this grey level however dim the studio (a marking on dark felt
#: is darker)
_EDGE_WHITE = 90
#: ... and any region held to be a die's top face at least this one (a dark tray's noise or
#: compression makes pip-like spots on its own brightest, about 30)
_LEAST_WHITE = 55
#: the share of a face's white a die's plastic keeps however shaded (its rounded edge turned
#: from the light, a side strip); a tray's rim, the felt, a hand are darker
_PLASTIC = 0.5
#: on every side the plastic reaches at least this many pip spacings from the face's centre
#: (0.5 / 0.3 = 1.67 for pips set furthest out, less the rounded edge's shade; measured on
#: whole dice of three renderers no less than 1.53; 1.4 on the shaded side of a die with 2 mm
#: rounded edges and pips 0.3 of the edge out)
_REACH_SPACINGS = 1.35
#: the same for a 1, in face widths (whole dice: no less than 0.34)
_REACH_FACE = 0.3

# A die's top face seen from above is a rounded square, its rounded edge darker: the bright
# part covers about this much of the edge² square.
_FACE_FILL = 0.85


def _colourless(img: np.ndarray, lo: np.ndarray, region: np.ndarray, level: float) -> bool:
    """Is the region's white (what is within a tenth of its `level`, in `lo`) colourless, as a
    die's plastic is, not the colour of a felt, a rim or a marking? `img`: its picture (BGR)."""
    bright = region & (lo >= 0.9 * level)
    colour = img[bright].mean(axis=0) if bright.any() else np.zeros(3)
    return (colour.max() - colour.min()) <= 0.3 * max(colour.max(), 1.0)


def _ringed(ring: np.ndarray, bright: np.ndarray, light: np.ndarray, least: float,
            spot: tuple[int, int, int], k2: float = 1.0, near_side: bool = True) -> bool:
    """Is a dark spot ringed as a top face's pip is: `least` of its ring (`ring`, a mask) at
    the face's white (`bright`); or, for a pip near the face's side, on the rounded edge's
    shade, a part of its ring at the white and the rest all lighter than the pip (`light`:
    the spot is closed, not a bay of a darker area) — then it must also be a pip's disc
    (`spot`: its area and box's width and height) of a 2-6's size (`k2`: the picture's
    pixels per face pixel, squared), not a piece of a rounded edge's shade. Without
    `near_side`, only the first."""
    n = max(1, int(ring.sum()))
    white = np.count_nonzero(ring & bright) / n
    if white >= least:
        return True
    if not near_side:
        return False
    a, w, h = spot
    disc = a >= 0.7 * np.pi / 4 * w * h and max(w, h) <= 1.3 * min(w, h) + 1 and a <= _EDGE_PIP_AREA * k2
    return disc and white >= _EDGE_RINGED and np.count_nonzero(ring & light) / n >= _CLOSED


def _pip_levels(lo: np.ndarray, inside: np.ndarray, white: float) -> tuple[float, float] | None:
    """The levels (below: a pip; at least: the white round a pip) a face's pips are read at,
    from the pips' own depth: the darkest spot of the face (clear of its rounded edges, a
    little smoothed against noise) against its white. Sharp pips are nearly black (or a full
    red) and are cut at 0.6 of the white; out of focus, a pip's dark is spread over a wider
    spot and its centre stays lighter, so it is cut halfway between that centre and the white,
    which keeps its outline where it was (the half-depth contour moves little with defocus)."""
    clear = cv2.erode(inside.astype(np.uint8), cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (_EDGE_CLEAR, _EDGE_CLEAR))).astype(bool)
    if not clear.any():
        return None
    core = float(cv2.GaussianBlur(lo, (0, 0), 1.0)[clear].min())
    # as deep as a sharp pip's at most: cut at 0.6 of the white, its ring at least 0.8
    depth = min(white - core, 0.8 * white)
    if depth < _PIP_DEPTH * white:
        return None
    return white - 0.5 * depth, white - 0.25 * depth


def _plastic_ends(lo: np.ndarray, level: float, turn_deg: float, pips: np.ndarray) -> list[float]:
    """How far (window pixels from its centre) the die's plastic reaches on each of the face's
    four sides: across the middle half of each side (clear of the rounded corners), the
    outermost distance from the centre at which most of it is at least `level`, the pips
    (`pips`, a mask of the window) left out."""
    n = lo.shape[0]
    light = ((lo >= level) & ~pips).astype(np.float32)
    counted = (~pips).astype(np.float32)
    t = np.arange(0.25 * FACE_PX, 0.5 * n - 1, 0.5, dtype=np.float32)
    w = np.arange(-0.25 * FACE_PX, 0.25 * FACE_PX + 0.1, 1.0, dtype=np.float32)
    tt, ww = np.meshgrid(t, w, indexing="ij")
    a = np.deg2rad(turn_deg)
    ends = []
    for ex, ey in ((np.cos(a), np.sin(a)), (-np.sin(a), np.cos(a))):
        for sign in (1, -1):
            mx = (n / 2 + sign * (tt * ex) - ww * ey - 0.5).astype(np.float32)
            my = (n / 2 + sign * (tt * ey) + ww * ex - 0.5).astype(np.float32)
            lit = cv2.remap(light, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            seen = cv2.remap(counted, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=1)
            # a row that is mostly pips (a six's row of three) says nothing: taken as white
            frac = np.where(seen.sum(axis=1) >= 0.25 * len(w), lit.sum(axis=1) / np.maximum(seen.sum(axis=1), 1.0), 1.0)
            # the outermost white, not the first dark: a pip's shading does not end a face
            lit_rows = np.nonzero(frac >= 0.5)[0]
            ends.append(float(t[lit_rows[-1]]) if lit_rows.size else float(t[0]))
    return ends


def _one_per_place(dice: list[DieReading], apart_px: float) -> list[DieReading]:
    """One reading per die: readings closer than `apart_px` are of one die (a face read from
    two pieces of its white); they agree or the die is `0`."""
    out: list[DieReading] = []
    for d in dice:
        same = next((o for o in out if np.hypot(o.centre[0] - d.centre[0], o.centre[1] - d.centre[1]) < apart_px), None)
        if same is None:
            out.append(d)
        elif same.face != d.face:
            same.face, same.reason = 0, "two readings of one die disagree"
    return out


def _grid_fit(pts: np.ndarray) -> dict[int, tuple[float, float]]:
    """The faces whose pattern the pips (centred on the face's centre) fit, each with the
    turn (degrees, 0-90) and grid spacing (face pixels) at which it fits best: at some turn
    and a die's spacing, every pip within a fifth of the spacing of its grid point. A square of four pips also fits a grid
    turned 45° and wider by √2 as a diamond, which is no face, so the turns are all tried and
    every face any of them gives is returned: one face is a reading, none or two are doubt.
    A lone pip (the 1) gives neither: 0 and 0."""
    dist = np.hypot(pts[:, 0], pts[:, 1])
    if len(pts) == 1:
        return {1: (0.0, 0.0)} if dist[0] < 0.06 * FACE_PX else {}
    found: dict[int, tuple[float, float]] = {}
    theta = np.deg2rad(np.arange(0.0, 90.0, 1.0))[:, None]
    c, s_ = np.cos(theta), np.sin(theta)
    u = pts[None, :, 0] * c + pts[None, :, 1] * s_  # (turns, pips)
    v = -pts[None, :, 0] * s_ + pts[None, :, 1] * c
    outer = np.maximum(np.abs(u), np.abs(v))
    far = outer > 0.12 * FACE_PX
    if not far.any():
        return {}
    # the median of each turn's far pips (a turn with none has no spacing: NaN fails below)
    srt = np.sort(np.where(far, outer, np.inf), axis=1)
    k = far.sum(axis=1)
    lo_i, hi_i = np.maximum(k - 1, 0) // 2, np.maximum(k, 1) // 2
    rows = np.arange(len(k))
    g = np.where(k > 0, (srt[rows, lo_i] + srt[rows, hi_i]) / 2, np.nan)[:, None]
    ku, kv = np.clip(np.round(u / g), -1, 1), np.clip(np.round(v / g), -1, 1)
    err = np.max(np.hypot(u - ku * g, v - kv * g), axis=1)
    ok = (err <= 0.2 * g[:, 0]) & (g[:, 0] >= _GRID[0] * FACE_PX) & (g[:, 0] <= _GRID[1] * FACE_PX)
    best: dict[int, float] = {}
    for t in np.nonzero(ok)[0]:
        cells = {(int(a), int(b)) for a, b in zip(ku[t], kv[t], strict=True)}
        if len(cells) == len(pts) and frozenset(cells) in _PATTERNS:
            face = _PATTERNS[frozenset(cells)]
            if face not in best or err[t] < best[face]:
                best[face], found[face] = float(err[t]), (float(t), float(g[t, 0]))  # theta: 1 degree a step
    return found


def _colour_of(win: np.ndarray, lo: np.ndarray, core: np.ndarray, white: np.ndarray) -> str:
    """The colour of the pip `core` of the window: its darkest part (the rest mixes with the
    white round it) against the face's `white` per channel."""
    colour = win[core & (lo <= np.percentile(lo[core], 40))].mean(axis=0)
    return _pip_colour(colour / np.maximum(white, 1.0))


def _pip_colour(bgr_rel: np.ndarray) -> str:
    """`red`, `black` or `unsure`, from a pip's colour relative to its face's white (per
    channel). Told apart by chroma, not by brightness: a dull or crimson red, or one out of
    focus or compressed (its colour mixed with the white round it), is lighter than a full red
    and keeps less of it, but its red stays well above its green and blue; a black pip has no
    more red than green or blue however light blur leaves it."""
    b, g, r = (float(v) for v in bgr_rel)
    if r - max(b, g) >= 0.15 and r >= 1.35 * max(b, g):
        return "red"
    if max(b, g, r) < 0.8 and r - max(b, g) < 0.05 + 0.1 * max(b, g):
        # No more red in it than warm light and compression leave (a red pip taken for black
        # only makes its 1 or 4 doubtful, never another face). A glossy black pip mirrors the
        # light, which a cream or ivory face does not give back whole (its blue is short), so
        # black may look bluish against it.
        return "black"
    return "unsure"


def _percentile_u8(values: np.ndarray, q: float) -> float:
    """The q-th percentile of 8-bit values, from their histogram (no sort)."""
    counts = np.bincount(values.ravel(), minlength=256)
    rank = q / 100.0 * (counts.sum() - 1)
    return float(np.searchsorted(np.cumsum(counts), rank, side="right"))


def _min_rect(mask: np.ndarray) -> tuple[tuple[float, float], tuple[float, float], float]:
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(np.vstack(contours))
    # minAreaRect measures pixel centres; a region of pixels is one pixel wider
    return (cx, cy), (rw + 1.0, rh + 1.0), ang


def _hull(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(out, cv2.convexHull(np.vstack(contours)), 1)
    return out.astype(bool)


def _fill_holes(mask: np.ndarray, max_hole: float | None = None) -> np.ndarray:
    """The mask with its holes (pips, seams enclosed) filled; with `max_hole`, only holes of
    at most that many pixels."""
    h, w = mask.shape
    pad = np.zeros((h + 2, w + 2), np.uint8)
    pad[1:-1, 1:-1] = mask
    flood = pad.copy()
    ff = np.zeros((h + 4, w + 4), np.uint8)
    cv2.floodFill(flood, ff, (0, 0), 1)
    holes = (flood == 0).astype(np.uint8)
    if max_hole is not None:
        n, labels, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
        small = np.zeros(n, np.uint8)
        small[1:] = stats[1:, cv2.CC_STAT_AREA] <= max_hole
        holes = small[labels]
    return (pad | holes)[1:-1, 1:-1]


#: a die's rounded corners (face widths): the outline a face's plastic must reach is drawn with
#: corners this round, the roundest a die has, so a sharper corner only reaches further
_CORNER = 0.18
#: neighbouring rays (5 degrees apart) a shortfall must hold over
_RUN = 3
#: the face's flat white: within this share of its own level near the face's centre
_FLAT_BAND = 0.06
#: the level (share of the face's white) of its white proper
_FACE_WHITE = 0.92
#: the die's apparent size against its calibrated one, as far as its own outline may set it
#: (a calibration off by a fifth either way still reads whole dice)
_SCALE = (0.88, 1.2)
#: the plastic may end this much (face widths) short of the outline (blur, a pixel's error)
_SHORT = 0.06
#: one side's flat white may end this much nearer than the others' (light and shade on rounded edges)
_UNEVEN = 0.16
#: the flat white may run this far beyond the outline (a light side strip, blur)
_OVER = 0.1
#: a face this white is clipped by the sensor (a glare on it)
_SATURATED = 250

#: the rays the top face's outline is followed along, a quarter turn's worth repeated four times
_RAYS = 72


def _ray_reaches(lo: np.ndarray, white: float, turn_deg: float, pips: np.ndarray,
                 levels: tuple[float, ...], at: tuple[float, float] = (0.0, 0.0), enter: bool = False) -> np.ndarray:
    """For each of `_RAYS` rays from the window's centre (the first along the face's turn,
    then every 5 degrees), how far (face widths) the die's plastic reaches along it at each
    of `levels` (shares of the face's white): the first distance, from 0.25 of a face out,
    at which the ray leaves [level, 1.15] of the white (a pip, `pips`, is stepped over).
    Shape (len(levels), _RAYS)."""
    n = lo.shape[0]
    val = lo / max(white, 1.0)
    t = np.arange(0.25 * FACE_PX, 0.5 * n - 1, 0.25, dtype=np.float32)
    phi = np.deg2rad(turn_deg + np.arange(_RAYS) * (360.0 / _RAYS)).astype(np.float32)
    # each ray is the mean of three parallel lines a pixel apart (noise)
    out = np.empty((len(levels), _RAYS), np.float32)
    samples = []
    for off in (-1.0, 0.0, 1.0):
        mx = (n / 2 + at[0] + np.cos(phi)[:, None] * t[None, :] - np.sin(phi)[:, None] * off - 0.5).astype(np.float32)
        my = (n / 2 + at[1] + np.sin(phi)[:, None] * t[None, :] + np.cos(phi)[:, None] * off - 0.5).astype(np.float32)
        v = cv2.remap(val.astype(np.float32), mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        m = cv2.remap(pips.astype(np.uint8), mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        samples.append(np.where(m > 0, np.nan, v))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a sample all three lines cross a pip at
        prof = np.nanmean(np.stack(samples), axis=0)  # NaN where all three lines cross a pip
    for k, level in enumerate(levels):
        # NaN compares False: a pip (and the shade round it) is stepped over
        off_ = (prof < level) | (prof > 1.15)
        if enter:
            # from where the ray first meets the face (past the shade round a 1's large pip)
            on_ = (prof >= level) & (prof <= 1.15)
            off_ &= np.cumsum(on_, axis=1) > 0
        first = np.where(off_.any(axis=1), off_.argmax(axis=1), len(t) - 1)
        out[k] = t[first] / FACE_PX
    return out


def _flat_reaches(lo: np.ndarray, turn_deg: float, pips: np.ndarray, band: float,
                  at: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """For each of `_RAYS` rays (as `_ray_reaches`), how far (face widths) the face's flat
    white reaches: the first distance, from 0.3 of a face out, at which the ray leaves
    [1 - band, 1 + band] of its own level near the face's centre (0.25-0.32 of a face; a
    light or shadow across the die moves both alike). A rounded edge leaves it where it
    starts to turn, darker away from the light or brighter toward it, on every side alike."""
    n = lo.shape[0]
    t = np.arange(0.25 * FACE_PX, 0.5 * n - 1, 0.25, dtype=np.float32)
    phi = np.deg2rad(turn_deg + np.arange(_RAYS) * (360.0 / _RAYS)).astype(np.float32)
    samples = []
    src = lo.astype(np.float32)
    for off in (-1.0, 0.0, 1.0):
        mx = (n / 2 + at[0] + np.cos(phi)[:, None] * t[None, :] - np.sin(phi)[:, None] * off - 0.5).astype(np.float32)
        my = (n / 2 + at[1] + np.sin(phi)[:, None] * t[None, :] + np.cos(phi)[:, None] * off - 0.5).astype(np.float32)
        v = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        m = cv2.remap(pips.astype(np.uint8), mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        samples.append(np.where(m > 0, np.nan, v))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        prof = np.nanmean(np.stack(samples), axis=0)
        near = t <= 0.32 * FACE_PX
        ref = np.nanmedian(prof[:, near], axis=1)
    # a ray whose start is all pips takes the median of the rays' own levels
    ref = np.where(np.isfinite(ref), ref, np.nanmedian(ref) if np.isfinite(ref).any() else 1.0)
    rel = prof / np.maximum(ref[:, None], 1.0)
    start = t >= 0.3 * FACE_PX
    # (brighter by more than 2.5 times the band: a rounded edge turned to the light; a glare
    # across the die is gentler)
    off_ = ((rel < 1 - band) | (rel > 1 + 2.5 * band)) & start[None, :]
    first = np.where(off_.any(axis=1), off_.argmax(axis=1), len(t) - 1)
    return t[first] / FACE_PX


#: the broadest rounded edge a die may have (face widths; 3 mm on a 16 mm die)
_EDGE_RADIUS = 0.19
#: the rays (degrees either side of a side's normal) that side's allowance holds on
_FAR_FLAT_DEG = 30.0


def _far_allowance(turn_deg: float, shift: np.ndarray | None) -> np.ndarray:
    """How much shorter (face widths) the die's plastic may end on each of `_RAYS` rays (as
    `_ray_reaches`) on the side turned from the camera. The camera sees a rounded edge turned
    from it only as far as the edge's silhouette, where the surface turns out of its sight: a
    camera θ off the vertical (`shift`, the top face's shift from its foot in window pixels,
    is the die's height times tan θ) loses r·(cos θ + sin θ − 1) of an edge of radius r there,
    and the edge is shaded as it turns. Taken for the broadest edge, on each side as much as
    it faces from the camera, within `_FAR_FLAT_DEG` of its normal. Nothing on that side can
    hide the top face from such a camera but the dealer's hand over the die (the tray's wall
    beyond the die lies behind it as the camera sees it), and a millimetre there hides no
    pip. Straight above (no shift), none."""
    if shift is None:
        return np.zeros(_RAYS, np.float32)
    length = float(np.hypot(shift[0], shift[1]))
    if length <= 0:
        return np.zeros(_RAYS, np.float32)
    theta = np.arctan(length / FACE_PX)
    lost = _EDGE_RADIUS * (np.cos(theta) + np.sin(theta) - 1.0)
    # each ray's side (its normal) and how far the ray is from it: a side is allowed as much
    # as it faces from the camera, along its flat only; a corner, rounded two ways, is held to
    # the outline as before (a sharp-edged die's corner under a hand 3 mm deep was named)
    off = (np.arange(_RAYS) * (360.0 / _RAYS) + 45.0) % 90.0 - 45.0
    normal = np.deg2rad(turn_deg + np.arange(_RAYS) * (360.0 / _RAYS) - off)
    away = (np.cos(normal) * shift[0] + np.sin(normal) * shift[1]) / length
    return (lost * np.maximum(away, 0.0) * (np.abs(off) <= _FAR_FLAT_DEG)).astype(np.float32)


def _rounded_outline(phi: np.ndarray, half: float = 0.5, corner: float = _CORNER) -> np.ndarray:
    """How far (face widths) a rounded square's outline (`half` the edge, corners of radius
    `corner`) lies from its centre along each angle of `phi` (radians, from a side's normal)."""
    c, s_ = np.abs(np.cos(phi)), np.abs(np.sin(phi))
    # along the flat of a side, or out to the corner's circle
    flat = half / np.maximum(np.maximum(c, s_), 1e-9)
    k = half - corner  # the corner circle's centre at (k, k)
    b = k * (c + s_)
    disc = b * b - (2 * k * k - corner * corner)
    round_ = b + np.sqrt(np.maximum(disc, 0.0))
    x, y = flat * c, flat * s_
    return np.where((x > k) & (y > k), round_, flat)


_PHI = np.deg2rad(np.arange(_RAYS) * (360.0 / _RAYS))
_OUTLINE = None  # filled on first use


def _runs(a: np.ndarray, run: int = _RUN) -> np.ndarray:
    """The least of each `run` neighbouring rays (round the circle): what holds over a stretch
    of the outline, not at one noisy ray."""
    return np.min(np.stack([np.roll(a, -i) for i in range(run)]), axis=0)


def _square_unseen(lo: np.ndarray, white: float, turn_deg: float, pips: np.ndarray,
                   at: tuple[float, float] = (0.0, 0.0), lone: bool = False,
                   shift: np.ndarray | None = None) -> str:
    """Why the die's top face, as a whole square of the die's size round its pips' centre, is
    not all seen, or "". Followed along rays all round (sides and corners alike):

    - its plastic (at least half its white, not much brighter) must reach its outline — the
      die's size, its rounded corners allowed for — on every ray; a wall over it, darker or
      brighter than the plastic, ends it nearer;
    - its flat white must end about as far out on each side as on the other three (the
      rounded edges of one die are alike; a light or shadow may make one a little darker): a
      pale rim over it ends the white nearer on that side alone;
    - its flat white must not run on beyond its outline: a rim as white as the die, lying
      over it, joins the face with no rounded edge between.
    `at`: the face's centre (its pips') from the window's centre, window pixels. The die's apparent size is taken from its own outline where it is seen (a calibration a
    few percent off), within bounds. `shift`: the top face's shift from its foot the
    calibrated view gives (window pixels), where there is one: on the side turned from the
    camera the plastic may end shorter by `_far_allowance`."""
    global _OUTLINE
    if _OUTLINE is None:
        _OUTLINE = _rounded_outline(_PHI)
    r = _ray_reaches(lo, white, turn_deg, pips, (_PLASTIC, _FACE_WHITE), at, enter=lone)
    # each angle's second-shortest of its four quarter-turns: one side hidden makes the
    # shortest, strips of side face seen off axis lengthen at most two
    second = np.sort((r[0] / _OUTLINE).reshape(4, -1), axis=0)[1]
    seen = float(np.median(second))
    # the outline it must reach: no larger than the calibrated one (a die seen smaller, the
    # calibration a little large, is held to its own size) ...
    outline = _OUTLINE * float(np.clip(seen, _SCALE[0], 1.03))
    beyond = _runs(outline - r[0] - _far_allowance(turn_deg, shift))
    if beyond.max() > _SHORT:
        short = float(_runs(outline - r[0])[int(beyond.argmax())])
        return f"top face not wholly in view (its plastic ends {short:.2f} of a face short of its outline)"
    if white >= _SATURATED:
        return ""  # the light clips the face's white: its flat and its surroundings are not told apart
    # ... and the one it must not run on beyond: no smaller than the calibrated one
    outline = _OUTLINE * float(np.clip(seen, 0.94, 1.03))
    flat = np.minimum(_flat_reaches(lo, turn_deg, pips, _FLAT_BAND, at), outline + 0.02).reshape(4, -1)
    rel = np.stack([np.median(np.delete(flat, k, axis=0), axis=0) - flat[k] for k in range(4)]).reshape(-1)
    worst = _runs(rel).max()
    if worst > _UNEVEN:
        return f"top face not wholly in view (its white ends {worst:.2f} of a face nearer on one side)"
    over = _runs(r[1] - outline).max()
    if over > _OVER:
        return f"top face not wholly in view (its white runs {over:.2f} of a face beyond its outline)"
    return ""


def _outline_turn(lo: np.ndarray, centre: tuple[float, float], s: float) -> float:
    """The turn (degrees, 0-90) of a die's outline round `centre` (picture pixels, the die `s`
    pixels a side): the prevailing direction, a quarter turn folded, of the edges in a ring
    where its sides lie (its pips filled first)."""
    filled = DiceReader._filled(lo, s).astype(np.float32)
    gx = cv2.Sobel(filled, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(filled, cv2.CV_32F, 0, 1, ksize=3)
    yy, xx = np.mgrid[0:lo.shape[0], 0:lo.shape[1]]
    rr = np.hypot(xx - centre[0], yy - centre[1])
    ring = (rr >= 0.35 * s) & (rr <= 0.65 * s)
    mag = np.hypot(gx, gy)[ring]
    theta = np.arctan2(gy[ring], gx[ring])
    z = np.sum(mag * np.exp(4j * theta))
    return float(np.degrees(np.angle(z) / 4.0)) % 90.0


#: the least strip (face widths, ~0.8 mm) the camera's view must show on a side for that side
#: to be held to it: below it the camera is nearly overhead for this die, a wall against it
#: leans over nothing and a strip that thin is lost in the rounded edge and a pixel's error
_NEAR_LEAST = 0.05
#: the rays (degrees from a side's normal) the near side is looked at along: the side's
#: length short of its rounded corners
_NEAR_RAYS = tuple(np.arange(-35.0, 35.1, 7.0))
#: this many neighbouring rays must see something that is neither the die's strip nor the
#: floor (a wall's edge over a corner; one ray alone is noise or a pip of the strip)
_NEAR_COVERED = 3

#: a sample is the die's own plastic (its strip, in any shade from this share of the face's
#: white up, a grey against the face's white; also blended with the floor, a pixel across
#: their border, blur) or the floor, to within this much of the face's white per channel
_NEAR_TOLERANCE = 0.1
_NEAR_PLASTIC = 0.3
#: how far beyond the top face's outline and its strip (face widths) the near side is looked at
_NEAR_REACH = 0.25


def _floor_colour(image: np.ndarray) -> np.ndarray:
    """The tray floor's colour (BGR): the most common colour of the middle of the zone's
    picture (the zone is drawn round the tray, whose floor is most of its middle; the felt,
    a rim's walls seen off axis and the dice are less there)."""
    h, w = image.shape[:2]
    mid = cv2.blur(image[h // 4:h - h // 4, w // 4:w - w // 4], (5, 5))
    small = mid[::3, ::3].reshape(-1, 3)
    q = (small // 16).astype(np.int32)
    key = (q[:, 0] * 16 + q[:, 1]) * 16 + q[:, 2]
    top = np.bincount(key).argmax()
    return np.median(small[key == top], axis=0).astype(np.float32)


def _near_side_covered(win: np.ndarray, paper: np.ndarray, turn_deg: float,
                       at: tuple[float, float], shift: np.ndarray, floor_bgr: np.ndarray | None = None) -> str:
    """Why the die's top face is held hidden on the side nearer the camera, or "". `shift`:
    the top face's shift from its foot the calibrated view gives for this die (window
    pixels): on each side turned toward the camera the die's side strip shows, as wide as the
    shift across that side, between the top face's outline and the floor. A tray's wall
    between the camera and the die lies over that strip first and then over the top face: at
    the top face's outline there is then neither the strip (the die's own plastic, however
    shaded) nor the floor, but the wall. Seen from straight above (no strip), nothing is
    held here: a wall beside the die hides none of it. `win`: a window round the face, upright
    as its pips and at the face's scale (FACE_PX a face), wide enough for the strip; `at`: the
    face's centre (its pips') from the window's centre; `paper`: the face's white per
    channel. (A wall as pale as the die's plastic is not told from its strip here.)"""
    n = win.shape[0]
    rel = win.astype(np.float32) / np.maximum(paper.astype(np.float32), 1.0)[None, None, :]
    cx, cy = n / 2 + at[0], n / 2 + at[1]
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    dx, dy = xx + 0.5 - cx, yy + 0.5 - cy
    rr = np.hypot(dx, dy) / FACE_PX
    level = rel.mean(axis=2)
    tint = rel.max(axis=2) - rel.min(axis=2)
    plastic = (level >= _NEAR_PLASTIC) & (tint <= _NEAR_TOLERANCE + 0.1 * level)
    if floor_bgr is None:
        return ""
    # the floor near the die (its light and shade there): what round it is like the tray's
    # floor, else the tray's floor itself
    floor = floor_bgr / np.maximum(paper.astype(np.float32), 1.0)
    like = (rr >= 0.64) & (rr <= 0.64 + _NEAR_REACH) & ~plastic & (np.abs(rel - floor[None, None, :]).max(axis=2) <= 2.5 * _NEAR_TOLERANCE)
    if np.count_nonzero(like) >= 20:
        floor = np.median(rel[like], axis=0)
    basis = np.stack([floor, np.ones(3, np.float32)], axis=1)  # a blend of floor and grey plastic
    pinv = np.linalg.pinv(basis)
    for side in range(4):
        a = np.deg2rad(turn_deg + 90.0 * side)
        width = -(shift[0] * np.cos(a) + shift[1] * np.sin(a))  # the strip across this side, window px
        if width < _NEAR_LEAST * FACE_PX:
            continue
        bad = []
        for d in _NEAR_RAYS:
            phi = a + np.deg2rad(d)
            edge = float(_rounded_outline(np.array([np.deg2rad(d)]))[0]) * FACE_PX
            cos = np.cos(np.deg2rad(d))
            # just past the outline: a wall lower than the die may lie over the strip's outer
            # part and leave the top face whole; one over the top face lies there
            ts = edge + np.minimum(np.array([1.0, 2.0]), 0.6 * width) / cos
            samples = []
            for off in (-1.0, 0.0, 1.0):
                mx = (cx + np.cos(phi) * ts - np.sin(phi) * off - 0.5).astype(np.float32)[None, :]
                my = (cy + np.sin(phi) * ts + np.cos(phi) * off - 0.5).astype(np.float32)[None, :]
                samples.append(cv2.remap(rel, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[0])
            v = np.mean(samples, axis=0)  # (len(ts), 3)
            coef = v @ pinv.T  # (floor share, grey plastic level) of each sample
            resid = np.abs(v - coef @ basis.T).max(axis=1)
            floorish = np.abs(v - floor[None, :]).max(axis=1) <= _NEAR_TOLERANCE
            explained = ((resid <= _NEAR_TOLERANCE) & (coef[:, 1] >= _NEAR_PLASTIC)) | floorish
            # the strip (the die's plastic) or the floor at the outline
            bad.append(bool((~explained).all()))
        run = _runs(np.array(bad, np.float32), _NEAR_COVERED)[: len(bad) - _NEAR_COVERED + 1]
        if run.max() > 0:
            return (f"top face under something on the camera's side (neither its strip of {width / FACE_PX:.2f} "
                    "of a face nor the floor at its outline)")
    return ""
