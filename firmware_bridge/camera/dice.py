"""The dice reader: the faces up of the dice in the `DICE` zone (CARD_FACES.md, "Dice").

Input: the zone's picture (BGR, cropped from a real frame) and the camera's scale. Output:
one entry per die seen, left to right: its face 1–6, or `0` for a die that is there but not
read with certainty; `[]` for an empty tray. A wrong face is the worst failure, so every step
that could make one is a check that turns the die into `0` instead:

1. **White things.** Dice are white plastic: bright and without colour. The felt, the tray and
   its rim are not (a white tray would hide white dice from anyone). Bright, colourless
   regions of at least a third of a die's area are candidates; anything smaller is a speck.
2. **Top faces.** Under the studio's overhead light the top face is the brightest part of a
   die; its rounded edges and, seen off axis, the strips of its side faces are darker. Each
   candidate keeps only what is nearly as bright as its own brightest part, so side strips
   (and their pips) fall away. Touching dice meet at their darker edges, so their top faces
   come apart; two faces that still touch make one region of twice a die's area, which is
   split along its middle only if it is a clean 2:1 rectangle, else both dice are `0`.
3. **A die's face.** Each top face must be a square of the die's size (from the scale and the
   16 mm edge, within the tolerance of a slightly off-axis camera), filled like a square, and
   wholly inside the picture. It is turned upright and scaled to a fixed size.
4. **Pips.** Dark or red round spots on the face, each of a pip's size, none touching the face's
   edge. Every pip must be in focus: the edge of a sharp pip is a step, a blurred one a ramp
   as wide as the pip. A speck between noise and a pip, or a ramp too wide, is doubt: `0`.
5. **Pattern.** The pips must sit on the 3 × 3 grid of a die face in exactly one face's
   pattern (2 and 3 on a diagonal, 6 in two rows of three, any of the four turns), and have
   that face's colour: all red for 1 and 4, all black for the others.

Only then is the face reported. The geometry scales with the camera: the reader is built
for the zone's millimetres per pixel and the dice's edge.
"""

from __future__ import annotations

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


@dataclass
class DiceReading:
    dice: list[DieReading] = field(default_factory=list)

    @property
    def faces(self) -> list[int]:
        return [d.face for d in self.dice]


class DiceReader:
    """Reads the dice tray of one camera. `mm_per_px`: table millimetres per pixel of the
    picture given to `read` (the layout's, for a crop of a full frame)."""

    def __init__(self, mm_per_px: float = 0.30, die_mm: float = DIE_MM) -> None:
        if not 0.02 <= mm_per_px <= 2.0:
            raise ValueError(f"mm_per_px {mm_per_px} is not a plausible table scale")
        self.die_px = die_mm / mm_per_px
        # CARD_FACES.md: each pip at least 6 px across; our dice's pips are about 3 mm.
        if self.die_px < 30:
            raise ValueError(
                f"at {mm_per_px} mm per pixel a {die_mm:g} mm die is {self.die_px:.0f} px: its pips "
                "would get fewer than the 6 pixels CARD_FACES.md asks for"
            )

    # ---- public --------------------------------------------------------------------
    def read(self, image: np.ndarray) -> list[int]:
        """Faces of the dice in `image` (a BGR picture of the DICE zone), left to right."""
        return self.read_detailed(image).faces

    def read_detailed(self, image: np.ndarray) -> DiceReading:
        if image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("the dice reader takes a BGR colour picture")
        s = self.die_px
        # Warm or cool light tints the white plastic: scale the channels so that the
        # brightest things in the picture (the dice, when there are any) are grey again.
        # Colourless stays colourless; a pip's red stays red.
        top = np.percentile(image.reshape(-1, 3)[::7], 99.5, axis=0).astype(np.float32)
        if float(top.min()) > 40 and float(top.max()) / float(top.min()) > 1.05:
            gains = (float(top.max()) / np.maximum(top, 1.0)).astype(np.float32)
            image = (image.astype(np.float32) * gains).clip(0, 255).astype(np.uint8)
        b, g, r = cv2.split(image)
        lo8 = cv2.min(cv2.min(b, g), r)
        hi8 = cv2.max(cv2.max(b, g), r)
        # White: bright against its surroundings (a top-hat: what is left when everything
        # a square wider than a die's diagonal cannot fit into is taken away, so a broad
        # glare, a light tray pad or the felt's own shade stays out), and colourless.
        # The background is smooth, so it is measured at half resolution (4x fewer pixels
        # for the wide opening) and brought back to full size.
        hgt, wid = lo8.shape
        small = cv2.resize(lo8, (max(1, wid // 2), max(1, hgt // 2)), interpolation=cv2.INTER_AREA)
        background = cv2.morphologyEx(small, cv2.MORPH_OPEN, self._wide_kernel(0.5))
        background = cv2.resize(background, (wid, hgt), interpolation=cv2.INTER_LINEAR)
        tophat = cv2.subtract(lo8, background)
        peak = _percentile_u8(tophat, 99.7)
        threshold = max(20.0, 0.45 * peak)
        chroma = hi8.astype(np.int16) - lo8
        white = ((tophat > threshold) & (chroma < 0.32 * hi8 + 6.0)).astype(np.uint8)
        # join a face across its pips and rounded edge before looking for regions
        raw = white.astype(bool)
        close = max(3, int(round(s * 0.12)) | 1)
        white = cv2.morphologyEx(white, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close, close)))
        # Fill the pips and seams a face encloses, not what a tray's light rim encloses (the
        # whole tray floor: a die lying there must stay a region of its own).
        white = _fill_holes(white, max_hole=0.5 * s * s)
        reading = DiceReading()
        area_1 = s * s
        pad = int(round(s * 0.2)) + 2
        for x, y, w, h, region in self._candidates(white, lo8):
            lo = lo8[y:y + h, x:x + w]
            dark = region & ~raw[y:y + h, x:x + w] & (lo < 0.6 * _percentile_u8(lo[region], 90))
            if np.count_nonzero(dark) < 0.015 * area_1:
                continue  # no dark spot in it: glare, a light patch of rim or tray, no die (every face has pips)
            # work on the region's neighbourhood only
            x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(wid, x + w + pad), min(hgt, y + h + pad)
            if x == 0 or y == 0 or x + w >= wid or y + h >= hgt:
                # Cut by the zone's edge: the zone is drawn generously round the tray, so
                # this is light felt beyond the tray's rim, or a die thrown out of the tray,
                # not a die in it.
                continue
            full = np.zeros((y1 - y0, x1 - x0), bool)
            full[y - y0:y - y0 + h, x - x0:x - x0 + w] = region
            found = self._read_region(image[y0:y1, x0:x1], lo8[y0:y1, x0:x1], full)
            for d in found:
                d.centre = (d.centre[0] + x0, d.centre[1] + y0)
            reading.dice.extend(found)
        reading.dice.sort(key=lambda d: (d.centre[0], d.centre[1]))
        return reading

    def _candidates(self, white: np.ndarray, lo8: np.ndarray):
        """(x, y, w, h, mask) of each white region one die or two touching could make. A
        larger region is a light rim, pad or felt line with whatever touches it: of it only
        what is nearly as bright as its brightest part is kept (the dice's top faces face
        the studio's overhead light; a rim or a tray's floor is duller) and looked at again."""
        s = self.die_px
        area_1 = s * s
        n, labels, stats, _ = cv2.connectedComponentsWithStats(white, connectivity=8)
        for i in range(1, n):
            if stats[i, cv2.CC_STAT_AREA] < area_1 / 3:
                continue  # a speck: glare on a chip, a crumb
            x, y, w, h = (int(v) for v in stats[i, :4])
            region = labels[y:y + h, x:x + w] == i
            if self._die_sized(region):
                yield x, y, w, h, region
                continue
            lo = lo8[y:y + h, x:x + w]
            bright = region & (lo >= 0.9 * _percentile_u8(lo[region], 99.5))
            k = max(3, int(round(s * 0.12)) | 1)
            bright = cv2.morphologyEx(bright.astype(np.uint8), cv2.MORPH_CLOSE,
                                      cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
            bright = _fill_holes(bright, max_hole=0.5 * area_1) & region
            m, sub, sstats, _ = cv2.connectedComponentsWithStats(bright.astype(np.uint8), connectivity=8)
            for j in range(1, m):
                if sstats[j, cv2.CC_STAT_AREA] < area_1 / 3:
                    continue
                bx, by, bw, bh = (int(v) for v in sstats[j, :4])
                piece = sub[by:by + bh, bx:bx + bw] == j
                if self._die_sized(piece):
                    yield x + bx, y + by, bw, bh, piece

    def _die_sized(self, region: np.ndarray) -> bool:
        """Could one die, or two touching, make this white region? (Dice partly out of view
        or covered make smaller ones, and so do light strips of felt or tray; those are long
        and thin, or larger than two dice.)"""
        s = self.die_px
        if region.sum() > 3.4 * s * s:  # two dice and their side strips
            return False
        (_, _), (rw, rh), _ = _min_rect(region)
        return max(rw, rh) <= 3.0 * s and min(rw, rh) >= 0.45 * s

    def _wide_kernel(self, scale: float) -> np.ndarray:
        """A square wider than a die's diagonal, at `scale` of the picture's resolution."""
        k = int(np.ceil(self.die_px * 1.5 * scale)) | 1
        return cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))

    # ---- a white region: one die, touching dice, or something not a die --------------
    def _read_region(self, img: np.ndarray, lo: np.ndarray, region: np.ndarray) -> list[DieReading]:
        s = self.die_px
        area_1 = s * s
        ys, xs = np.nonzero(region)
        centre = (float(xs.mean()), float(ys.mean()))
        level = _percentile_u8(lo[region], 90)
        top = _fill_holes((region & (lo >= 0.86 * level)).astype(np.uint8))
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
            if count < 0.7:
                out.append(DieReading(0, c, "part of a die"))
            elif count <= 1.3 and max(_min_rect(mask)[1]) > 1.6 * s:
                out.extend(self._read_pair(img, mask, c))  # two dice, one half hidden or blurred
            elif count <= 1.3:
                out.append(self._read_face(img, mask, c))
            elif count <= 2.35:
                out.extend(self._read_pair(img, mask, c))
            else:
                out.append(DieReading(0, c, "more than two dice in one region"))
        return out

    def _read_pair(self, img: np.ndarray, mask: np.ndarray, centre: tuple[float, float]) -> list[DieReading]:
        """Two top faces that touch: split across the middle of their long side. Dice that
        touch face to face lie parallel, side by side or shifted along the face they share,
        so the pair's rectangle is two dice long and one to two wide, and each half holds one
        top face; each half must then pass as a die's face on its own."""
        s = self.die_px
        rect = _min_rect(mask)
        (cx, cy), (rw, rh), ang = rect
        long_, short = max(rw, rh), min(rw, rh)
        fill = mask.sum() / max(1.0, rw * rh)
        if not (1.7 * s <= long_ <= 2.3 * s and 0.85 * s <= short <= 1.9 * s and fill > 0.5):
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
            halves.append(self._read_face(img, half, c))
        return halves

    # ---- one top face ------------------------------------------------------------------
    def _read_face(self, img: np.ndarray, mask: np.ndarray, centre: tuple[float, float]) -> DieReading:
        s = self.die_px
        ys, xs = np.nonzero(mask)
        # A top face is convex: its hull puts back what a pip close to its edge, or the
        # opening above, may have bitten out of it (a pip lost there could make a 5 a 3).
        hull = _hull(mask)
        (cx, cy), (rw, rh), ang = _min_rect(hull)
        # The edge away from the light shades like the rounded band, so one side of the bright
        # part may come out short: the longer side is the face's size, the pips' own centre
        # (every face's pattern is symmetric about it) puts the face back in place.
        edge = max(rw, rh)
        if not (0.78 * s <= min(rw, rh) and 0.85 * s <= edge <= 1.15 * s):
            return DieReading(0, (cx, cy), f"top face {rw:.0f}x{rh:.0f} px, a die is {s:.0f}")
        if edge / min(rw, rh) > 1.25:
            return DieReading(0, (cx, cy), "top face not square")
        if hull.sum() / (rw * rh) < 0.8 or len(xs) / (rw * rh) < 0.68:
            return DieReading(0, (cx, cy), "top face not filled like a square")
        # upright and scaled: the face's square onto FACE_PX x FACE_PX
        scale = FACE_PX / edge
        m = cv2.getRotationMatrix2D((cx, cy), ang, scale)
        m[0, 2] += FACE_PX / 2 - cx
        m[1, 2] += FACE_PX / 2 - cy
        face = cv2.warpAffine(img, m, (FACE_PX, FACE_PX), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        inside = cv2.warpAffine(hull.astype(np.uint8), m, (FACE_PX, FACE_PX), flags=cv2.INTER_NEAREST)
        return self._read_pips(face, inside.astype(bool), (cx, cy))

    def _read_pips(self, face: np.ndarray, inside: np.ndarray, centre: tuple[float, float]) -> DieReading:
        n = FACE_PX
        fb, fg, fr = cv2.split(face)
        lo = cv2.min(cv2.min(fb, fg), fr)
        # the top face less a rim of a pixel: resampling blurs its edge
        inner = cv2.erode(inside.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        if inner.sum() < 0.5 * n * n:
            return DieReading(0, centre, "top face too small")
        white = float(np.percentile(lo[inner], 80))
        if white <= 20:
            return DieReading(0, centre, "face too dark")
        white_bgr = np.percentile(face[inner], 80, axis=0).astype(np.float32)
        dark = np.clip(1.0 - lo / white, 0.0, 1.0)
        dark[~inner] = 0.0
        # pips: half as dark as the face is bright, at least
        pip_mask = (dark > 0.45).astype(np.uint8)
        count, labels, stats, cents = cv2.connectedComponentsWithStats(pip_mask, connectivity=8)
        pip_area = np.pi * (0.185 * n / 2) ** 2  # a typical pip
        pips = []
        ring = inner & ~cv2.erode(inner.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        for j in range(1, count):
            a = stats[j, cv2.CC_STAT_AREA]
            x0, y0, w0, h0 = (int(v) for v in stats[j, :4])
            blob = labels[y0:y0 + h0, x0:x0 + w0] == j
            tangent = False
            on_ring = int(np.count_nonzero(blob & ring[y0:y0 + h0, x0:x0 + w0]))
            if on_ring:
                # At the face's edge: a line one or two pixels thick is the darker rounded
                # edge. A whole round pip may just touch the edge where the shaded band
                # narrowed the face (a few pixels of it on the edge); a pip the edge cuts
                # (a side strip's, or one half hidden) is flat along a chord of it.
                thick = cv2.distanceTransform(np.pad(blob, 1).astype(np.uint8), cv2.DIST_L2, 3).max()
                if thick <= 1.5:
                    continue
                diameter = 2.0 * np.sqrt(a / np.pi)
                tangent = (max(w0, h0) <= 1.3 * min(w0, h0) + 1 and 0.6 <= a / (w0 * h0) <= 0.9
                           and on_ring <= 0.35 * diameter and a >= 0.5 * pip_area)
                if not tangent:
                    return DieReading(0, centre, "a pip at the face's edge")
            if a < 0.08 * pip_area:
                continue  # sensor noise
            if a < 0.35 * pip_area:
                return DieReading(0, centre, "a speck between noise and a pip")
            if a > 6.0 * pip_area:
                return DieReading(0, centre, "a dark patch larger than any pip")
            # the pip's neighbourhood: its box and a pip's radius round it
            m = 6
            wx0, wy0, wx1, wy1 = max(0, x0 - m), max(0, y0 - m), min(n, x0 + w0 + m), min(n, y0 + h0 + m)
            pm_w = labels[wy0:wy1, wx0:wx1] == j
            dark_w = dark[wy0:wy1, wx0:wx1]
            ring_w = ring[wy0:wy1, wx0:wx1]
            core = float(dark_w[pm_w].max())
            if not tangent and (_blob_at(pm_w, dark_w, 0.5 * core) & ring_w).any():
                return DieReading(0, centre, "a pip at the face's edge")
            if max(w0, h0) > 1.6 * min(w0, h0) + 1:
                return DieReading(0, centre, "a pip that is not round")
            # in focus: the pip's edge is a step, not a ramp (its 25 % and 75 % contours close)
            blob25 = _blob_at(pm_w, dark_w, 0.25 * core)
            if blob25[0].any() or blob25[-1].any() or blob25[:, 0].any() or blob25[:, -1].any():
                return DieReading(0, centre, "pip out of focus (its edge ramps wide)")
            a25 = float(blob25.sum())
            a75 = float(((dark_w >= 0.75 * core) & pm_w).sum())
            r25, r75 = np.sqrt(a25 / np.pi), np.sqrt(a75 / np.pi)
            if core < 0.5 or (r25 - r75) > 0.5 * max(r25, 1.0):
                return DieReading(0, centre, "pip out of focus")
            pm = labels == j
            colour = face[pm & (dark >= 0.6 * core)].mean(axis=0) / np.maximum(white_bgr, 1.0)
            pips.append(((cents[j][0] - n / 2) / (n / 2), (cents[j][1] - n / 2) / (n / 2), a, _pip_colour(colour)))
        if not pips:
            return DieReading(0, centre, "no pips")
        if len(pips) >= 2:
            # the pattern is symmetric about the face's centre: its mean is the centre
            du = float(np.mean([p[0] for p in pips]))
            dv = float(np.mean([p[1] for p in pips]))
            if max(abs(du), abs(dv)) > 0.25:
                return DieReading(0, centre, "pips off the face's centre")
            pips = [(u - du, v - dv, a, c) for u, v, a, c in pips]
        # the grid: pip offsets from the centre, in half faces
        offs = [abs(v) for u, v_, *_ in pips for v in (u, v_) if abs(v) > 0.25]
        g = float(np.mean(offs)) if offs else 0.56
        if not 0.38 <= g <= 0.75:
            return DieReading(0, centre, "pips off the grid")
        cells = set()
        for u, v, _, _ in pips:
            cell = []
            for t in (u, v):
                k = int(np.round(t / g)) if abs(t) > 0.5 * g else 0
                if abs(k) > 1 or abs(t - k * g) > 0.2:
                    return DieReading(0, centre, "pip off the grid")
                cell.append(k)
            if tuple(cell) in cells:
                return DieReading(0, centre, "two pips on one grid point")
            cells.add(tuple(cell))
        value = _PATTERNS.get(frozenset(cells))
        if value is None:
            return DieReading(0, centre, f"{len(pips)} pips in no face's pattern", len(pips))
        colours = {c for *_, c in pips}
        want = "red" if value in RED_FACES else "black"
        if colours != {want}:
            return DieReading(0, centre, f"{value} with {'/'.join(sorted(colours))} pips", len(pips))
        areas = [a for _, _, a, _ in pips]
        if value != 1 and max(areas) > 2.2 * min(areas):
            return DieReading(0, centre, "pips of unequal sizes", len(pips))
        return DieReading(value, centre, "", len(pips))


# A die's top face seen from above is a rounded square, its rounded edge darker: the bright
# part covers about this much of the edge² square.
_FACE_FILL = 0.85


def _blob_at(pm: np.ndarray, dark: np.ndarray, level: float) -> np.ndarray:
    """The pixels at darkness `level` or more connected to the pip `pm` (level below the
    pip's own: its blob grows outwards, as far as the pip's edge ramps)."""
    above = (dark >= level).astype(np.uint8)
    y, x = np.unravel_index(int(np.argmax(np.where(pm, dark, -1.0))), dark.shape)
    flood = np.zeros((above.shape[0] + 2, above.shape[1] + 2), np.uint8)
    cv2.floodFill(above, flood, (int(x), int(y)), 2, loDiff=0, upDiff=0,
                  flags=8 | (1 << 8) | cv2.FLOODFILL_MASK_ONLY | cv2.FLOODFILL_FIXED_RANGE)
    return flood[1:-1, 1:-1].astype(bool)


def _pip_colour(bgr_rel: np.ndarray) -> str:
    """`red`, `black` or `unsure`, from a pip's colour relative to its face's white."""
    b, g, r = (float(v) for v in bgr_rel)
    if r > 0.42 and r > 1.6 * max(b, g) and r - max(b, g) > 0.3:
        return "red"
    if max(b, g, r) < 0.55 and max(b, g, r) - min(b, g, r) < 0.2:
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
