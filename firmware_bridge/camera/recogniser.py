"""The recogniser: camera frames in, per-zone table states out (TRACES.md observations).

How a frame is read, cheapest first:

1. The frame is shrunk to a quarter (a 1080p frame becomes 480×270). CARD_FACES.md asks that
   face up/down and one card/two cards be told at that resolution, and it makes the per-frame
   cost small.
2. Each zone is compared with the picture it had when it was last read. A zone that has not
   changed keeps its reading; nothing else is done for it (steady frames cost a resize and
   seven small differences). A zone still moving since the previous frame (a hand, a card
   being turned) is not read until it settles.
3. A changed zone is read by its zone's reader (cards here; another game's dice tray can
   bring its own, see `zone_readers`). For cards, at quarter resolution: the felt's colour is
   measured in the frame and used to undo dim or warm light; pixels are sorted into felt,
   card face (white), card back (the colours `station camera calibrate` learned for the deck
   in use, windowed so patterned backs read as backs), black (the cut card) and skin (the
   dealer's hand). Skin in a zone means the zone is covered: it keeps its last state. Each
   blob of card pixels is one card when it has the size and shape of one, else two (or more)
   overlapping cards. A blob that is neither face, nor calibrated back, nor cut card is a
   deck the camera does not know: the zone is held and `status` says so.
4. Only for blobs holding face-up cards is the full-resolution picture decoded, with
   zxing-cpp (or pyzbar) restricted to QR codes, over the blob's box: the codes are found
   where they are printed. Two codes are one card when they face opposite ways and lie where
   a card's two corners put them for a margin of 2-6 mm (CARD_FACES.md). The one-code rule:
   a card is named from one code only when its other code is covered (by a back, the cut
   card, a face-up card lying on top, the hand) or outside the picture; when both are in full
   view both must decode and agree. A text not in our notation, a disagreeing pair, a code in
   full view that does not decode beside one that does, or more names than face-up cards:
   `XX`, never a guess.
5. A zone's reported state changes only after the same reading for `stable_frames` frames.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from firmware_bridge.camera import back_count, colours
from firmware_bridge.camera.calibration import Calibration
from firmware_bridge.camera.deblur import deblurred_views
from firmware_bridge.camera.decoders import QrDecoder, QrRead, make_decoder
from firmware_bridge.camera.faces import parse_face_text
from firmware_bridge.camera.layout import (
    CARD_H_MM,
    CARD_W_MM,
    QR_MARGIN_RANGE_MM,
    QR_MODULES,
    QR_QUIET_MODULES,
    QR_WIDTH_MM,
    Layout,
)
from firmware_bridge.camera.scene import CUT, FACE_DOWN, UNREADABLE
from firmware_bridge.camera.stacking import (
    COVERED_MM,
    PAIRED_TOL_MM,
    card_margins,
    code_axes,
    codes_in_full_view,
    overlap_area,
    turned_rect,
)

SHRINK = 4  # quarter resolution for everything but QR decoding
#: zone markings on the felt (a painted outline, a seat's name) are at most this wide; cards
#: always show far more of themselves (a card dealt on another shows at least half its back)
MARKING_MM = 10.0
#: a zone is covered by the dealer's hand when skin wider than a marking fills this share of a
#: card's area in it
HAND_SKIN_SHARE = 0.02
#: a hand with less than this share of a card inside a zone, all of it within HAND_EDGE_MM of
#: the zone's edge, only reaches over the edge; the zone is read when no card lies within
#: HAND_CLEAR_MM of it
HAND_EDGE_SHARE = 0.3
HAND_EDGE_MM = 25.0
HAND_CLEAR_MM = 10.0
#: skin inside a zone with at most this share of felt round it is print on a card, not a hand
PRINT_RING_FELT = 0.05
#: ... round it meaning within this of its outline: a face's print (a court panel) may come
#: within 3 mm of the card's edge, where a still hand's outline over the felt borders felt at
#: once (a moving hand's blurred one is told by what lies beyond it: `_hand_over`)
PRINT_RING_MM = 2.5
#: ... and print lies within one face, so it covers at most this share of a card (a hand
#: flat on a seat's cards, its outline on nothing but cards, covers more)
PRINT_MAX_CARD_SHARE = 0.5

# Change detection at quarter resolution: a pixel has changed when it differs by more than
# CHANGE_LEVEL grey levels; a zone has changed when more than CHANGE_FRACTION of its pixels
# have (sensor noise and JPEG stay well below either; a card is ~25% of a zone).
CHANGE_LEVEL = 28
CHANGE_FRACTION = 0.006

#: the quarter-resolution pixels round a card's edge that a blob takes in (felt and card mixed
#: in one pixel, the card's shadow), each side
EDGE_PX = 1.5

#: a patch of the back's colours wholly inside a blob and smaller than this share of a card is
#: print on a face (a court's panel, a big pip), not a card's back
FACE_PRINT_MAX = 1 / 3
#: a face's print (codes, index, art) is darker than this share of its white
INK_LEVEL = 0.6
#: a disc of white with no print on it this wide (radius, mm) is no card face: a face's two
#: codes (26 mm with their quiet zones, in opposite corners of a 63 mm wide card) leave no
#: blank disc of more than about 16 mm; a palm or a glove's back is 40 mm or more
HAND_BLANK_MM = 24.0
#: a blob showing neither back, face nor black, of which at least this share is the felt's
#: own colour, is felt speckled with a back's colours (dim light, noise), not a card
FELT_SPECKLE_SHARE = 0.5
#: the felt's light is measured round a zone when at least this share of it is felt
LOCAL_FELT_SHARE = 0.3
#: (grey up to this many times the felt's: a spotlight, never a face's white)
LOCAL_FELT_MAX = 1.8
#: on a felt of a colour, a zone's own light is taken only where it is this much (a share)
#: lighter or darker than the table's: within it a back's tones reach over the difference
#: (colours.TONE_REACH), and the felt measured round a zone carries the cards' shadows and
#: the markings' paint
LOCAL_LIGHT_MIN = 0.1
#: one black thing over more than this many cards' area in a zone is no cut card (one card,
#: partly covered at most) but a black glove or a dark sleeve: the zone is covered
CUT_MAX_SHARE = 1.3
#: nor is black whose outline is this much longer or wider than a card's (spread fingers)
CUT_MAX_SIZE = 1.2
#: a cut card shows at least half of itself in one piece; solid black (after the opening
#: that leaves out a row's dark rim and seams) of this many cards' area is one: at quarter
#: resolution a half-shown cut card loses its edge pixels and corners, and beside a dark
#: back a band to the back's window, and measures 0.44-0.48 of a card
CUT_SOLID_SHARE = 0.4

Reading = tuple  # one zone's contents, canonical order (card zones: strings)

QR_SIDE_MM = QR_WIDTH_MM / QR_MODULES * (QR_MODULES + 2 * QR_QUIET_MODULES)  # quiet zone included
#: a piece of a showdown's blob that no card seen by a code can reach is one more card when it
#: covers this share of a card, at least CARD_PIECE_MM across (a crowded showdown: the back
#: pair pushed under the front pair, one back card seen only by a corner of it)
CARD_PIECE_SHARE = 0.08
CARD_PIECE_MM = 12.0
#: a piece this many times a card's diagonal long is two cards (the blob's edge pixels and the
#: measured scale's error make one card's piece up to about 4% longer than its diagonal)
CARD_PIECE_TWO = 1.05
#: and so is a band (no deeper than this share of a card's width, filling this share of its
#: smallest enclosing rectangle: the strip of the back pair beyond the front pair, 20-22 mm
#: deep) that no card grown by CARD_PIECE_TWO holds at any turn; a card's piece joined with a
#: 40 mm chip beside it is deeper
CARD_BAND_DEPTH = 0.4
CARD_BAND_FILL = 0.85
#: and this share of it must be a card's colours (a face's white, the back)
CARD_PIECE_COLOURED = 0.5
#: and a piece shorter than two cards must be this share print (black: a code's modules; a
#: chip printed with its value or edge spots shows 3-6%, and a back card's strip beyond the
#: front pair 2.9-4.8%: such a strip is not counted)
CARD_PIECE_PRINT = 0.05
#: the least a showdown's card shows of itself when the front pair is pushed over the back
#: pair (a share of a card's area): the codes found may count up to the blob's area over this
CROWDED_SHOWN = 0.45


def one_card_holds(points: np.ndarray, card_w: float, card_h: float) -> bool:
    """Could one card (`card_w` x `card_h`, in the points' pixels), at some turn, hold all these
    points? Their outline's extent is measured along every direction, half a degree apart."""
    hull = cv2.convexHull(points.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    short, long_ = sorted((card_w, card_h))
    for a in np.radians(np.arange(0.0, 90.0, 0.5)):
        along = hull @ np.array([math.cos(a), math.sin(a)])
        across = hull @ np.array([-math.sin(a), math.cos(a)])
        extents = sorted((float(np.ptp(along)), float(np.ptp(across))))
        if extents[0] <= short and extents[1] <= long_:
            return True
    return False


@dataclass(slots=True)
class BlobView:
    """One blob of card pixels in a zone, as the recogniser understood it (for drawing)."""

    box: tuple[int, int, int, int]  # full-resolution x0, y0, x1, y1
    contour: np.ndarray  # full-resolution points
    cards: int
    face_up: int
    cut: bool
    unknown: bool = False  # neither face, calibrated back nor cut card


# why a zone reads as not readable now (ZoneView.why): what the recogniser saw there
WHY_HAND = "skin over the zone: the dealer's hand"
WHY_DARK_HAND = "solid black larger than a card: a black glove or sleeve"
WHY_CARD_BY_HAND = "a card beside a hand at the zone's edge: the hand may hide more"
WHY_PALE_HAND = "blank white wider than a face leaves: a pale hand or a white glove"
WHY_UNKNOWN_BACK = "most of a card neither face, calibrated back nor cut card: an unknown back"


@dataclass(slots=True)
class ZoneView:
    """What the recogniser made of one zone in the last frame it read it."""

    reading: Reading | None  # None: not readable now (covered by the hand, unknown back)
    blobs: list[BlobView] = field(default_factory=list)
    qr: list[QrRead] = field(default_factory=list)
    covered: bool = False
    unknown_back: bool = False
    why: str = ""  # when reading is None, what the recogniser saw there (the WHY_* words above)
    ms: float = 0.0  # time this zone took to read


ZoneReader = Callable[[str, np.ndarray, np.ndarray, np.ndarray], ZoneView]
"""(zone name, full frame, quarter frame, light gains) -> ZoneView"""


def _merge_reads(have: list[QrRead], more: list[QrRead]) -> list[QrRead]:
    """Add reads of symbols not already read (same text within a few pixels = same symbol)."""
    out = list(have)
    for r in more:
        if not any(r.text == h.text and math.dist(r.centre, h.centre) < 20 for h in out):
            out.append(r)
    return out


def canonical(items: Sequence[str]) -> Reading:
    """Order within a zone carries no meaning (PROCEDURE.md compares as sets): identities
    first, then XX, ??, CUT, so equal contents always compare equal."""
    rank = {UNREADABLE: 1, FACE_DOWN: 2, CUT: 3}
    return tuple(sorted(items, key=lambda s: (rank.get(s, 0), s)))


class _BlobLooks:
    """The codes decoded on one blob's crop (its box and a margin), view by view: as seen,
    then the harder views (`Recogniser._harder_views`), each made and decoded once however
    many questions are asked of the blob (are these faces? which cards?). Reads are in
    full-frame coordinates and not yet filtered to the blob."""

    MARGIN_PX = 12  # a code's quiet zone reaches past a card's edge

    def __init__(self, decoder: QrDecoder, frame: np.ndarray, box: tuple[int, int, int, int]) -> None:
        h, w = frame.shape[:2]
        m = self.MARGIN_PX
        x0, y0, x1, y1 = max(0, box[0] - m), max(0, box[1] - m), min(w, box[2] + m), min(h, box[3] + m)
        self._colour = frame[y0:y1, x0:x1]
        self._crop: np.ndarray | None = None
        self.origin = (x0, y0)
        self.frame_size = (w, h)
        self._decoder = decoder
        self._views: Iterator[Callable[[], tuple[np.ndarray, float]]] | None = None
        self._decoded: list[list[QrRead]] = []

    @property
    def crop(self) -> np.ndarray:
        """The blob's box and margin in grey (made when first needed: most blobs are backs)."""
        if self._crop is None:
            self._crop = cv2.cvtColor(self._colour, cv2.COLOR_BGR2GRAY)
        return self._crop

    def _harder(self) -> Iterator[Callable[[], tuple[np.ndarray, float]]]:
        if self._views is None:
            self._views = Recogniser._harder_views(self.crop)
        return self._views

    def __iter__(self) -> Iterator[list[QrRead]]:
        """Each view's reads in turn; a view is decoded only when the loop asks for it."""
        x0, y0 = self.origin
        i = 0
        while True:
            if i == len(self._decoded):
                if i == 0:
                    view, scale = self.crop, 1.0
                elif (make_view := next(self._harder(), None)) is not None:
                    view, scale = make_view()
                else:
                    return
                self._decoded.append([r.scaled(1.0 / scale).shifted(x0, y0) for r in self._decoder.decode(view)])
            yield self._decoded[i]
            i += 1


class _ZoneGeometry:
    """Per-zone masks and boxes, computed once."""

    def __init__(self, layout: Layout, name: str) -> None:
        zone = layout.zones[name]
        x0, y0, x1, y1 = zone.bbox
        self.box = (max(0, x0 // SHRINK), max(0, y0 // SHRINK),
                    min(layout.width // SHRINK, -(-x1 // SHRINK)), min(layout.height // SHRINK, -(-y1 // SHRINK)))
        bx0, by0, bx1, by1 = self.box
        self.mask = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        pts = (np.asarray(zone.polygon, np.float32) / SHRINK - [bx0, by0]).round().astype(np.int32)
        cv2.fillPoly(self.mask, [pts], 255)
        self.area = int(np.count_nonzero(self.mask))
        # where the zone's painted outline may lie (up to MARKING_MM wide)
        band = np.zeros_like(self.mask)
        cv2.polylines(band, [pts], True, 255, max(3, int(round(MARKING_MM / layout.mm_per_px / SHRINK))))
        self.outline_band = band > 0


class Recogniser:
    """Frames → stable zone states. Not thread-safe: one recogniser per camera thread.

    `calibration` (default: the layout's) gives the felt and the deck's back; without a
    calibrated back, face-up cards are still read but a zone holding anything else is held
    and `status` says the back is not calibrated. `zone_readers` maps a zone name to a reader
    of another kind (a dice tray); every other zone is read for cards."""

    def __init__(self, layout: Layout, *, stable_frames: int = 3, decoder: str | QrDecoder = "auto",
                 calibration: Calibration | None = None,
                 zone_readers: dict[str, ZoneReader] | None = None) -> None:
        if stable_frames < 1:
            raise ValueError("stable_frames must be at least 1")
        self.layout = layout
        self.stable_frames = stable_frames
        self.decoder = make_decoder(decoder) if isinstance(decoder, str) else decoder
        cal = calibration if calibration is not None else layout.calibration
        self.calibration: Calibration = cal if isinstance(cal, Calibration) else Calibration()
        felt_bgr = self.calibration.felt.bgr if self.calibration.felt is not None else layout.felt_bgr
        self._felt_ref = np.array(felt_bgr, np.float32)
        self._felt_hsv = colours.felt_hsv(felt_bgr)
        back = self.calibration.back
        if back is not None and back.card_size != 1.0:
            # the cards measured at calibration give the table's scale; the config's is the
            # engineer's estimate (every size in millimetres below is turned into pixels by it)
            layout = dataclasses.replace(layout, mm_per_px=layout.mm_per_px / back.card_size)
            self.layout = layout
        # a back learned as hue cells is a lookup table of (hue, saturation); one learned as
        # tones in Lab (no hue, or the felt's) is matched tone by tone (colours.ToneModel)
        self._back_lut: np.ndarray | colours.ToneModel | None = None
        if back is not None:
            self._back_lut = back.tone_model(felt_bgr) if back.tones else colours.back_lut(back.cells)
        self._back_level = back.level if back is not None else 1.0
        self._white_edge = back.white_edge if back is not None else 0.0
        self._emblem = back.emblem if back is not None else 0.0
        self._geo = {n: _ZoneGeometry(layout, n) for n in layout.zones}
        self.zone_readers: dict[str, ZoneReader] = {n: self._read_card_zone for n in layout.zones}
        for name, reader in (zone_readers or {}).items():
            if name not in layout.zones:
                raise ValueError(f"no zone {name!r} in layout {layout.name!r} for its reader")
            self.zone_readers[name] = reader
        cw, ch = layout.card_px
        self._card_w, self._card_h = cw / SHRINK, ch / SHRINK
        self._card_area = self._card_w * self._card_h
        self._window = colours.window_px(self._card_w)
        # Where a card's second code lies from its first, in the first code's own axes (right,
        # down), full-resolution pixels, for the nearest and the farthest margin the sheet allows.
        mm = layout.mm_per_px
        self._pair_near = np.array([CARD_W_MM - 2 * (QR_MARGIN_RANGE_MM[1] + QR_SIDE_MM / 2),
                                    CARD_H_MM - 2 * (QR_MARGIN_RANGE_MM[1] + QR_SIDE_MM / 2)]) / mm
        self._pair_far = np.array([CARD_W_MM - 2 * (QR_MARGIN_RANGE_MM[0] + QR_SIDE_MM / 2),
                                   CARD_H_MM - 2 * (QR_MARGIN_RANGE_MM[0] + QR_SIDE_MM / 2)]) / mm
        self._pair_tol = 7.0 / mm  # print skew, a card's warp, the decoder's corners
        self._qr_side = QR_SIDE_MM / mm
        self._quiet_px = QR_WIDTH_MM / QR_MODULES * QR_QUIET_MODULES / mm
        k = max(3, int(MARKING_MM / mm / SHRINK) | 1)
        self._marking_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        k = 2 * max(1, int(round(PRINT_RING_MM / mm / SHRINK))) + 1
        self._print_ring_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        self._step_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
        # temporal state
        self._ref_gray: dict[str, np.ndarray] = {}
        self._prev_gray: dict[str, np.ndarray] = {}
        self._raw: dict[str, Reading | None] = {}
        self._candidate: dict[str, Reading | None] = {}
        self._count: dict[str, int] = {n: 0 for n in layout.zones}
        self._stable: dict[str, Reading] = {}
        self.views: dict[str, ZoneView] = {}
        self.cut_card_visible = False
        self._cut_ref_gray: np.ndarray | None = None
        self._cut_boxes: list[tuple[int, int, int, int]] = []  # cut cards in view (quarter x0, y0, x1, y1)
        self.frames = 0
        self.zones_read = 0  # how many zone readings were actually computed (cost gauge)
        self.unknown_back_zones: set[str] = set()
        self.felt_measured: tuple[int, int, int] | None = None  # felt in the last frame read

    # ---- public -------------------------------------------------------------------
    @property
    def back_calibrated(self) -> bool:
        return self.calibration.back is not None

    @property
    def status(self) -> dict[str, object]:
        """What the console shows beside the camera's figures: whether the felt and the
        deck's back were calibrated, and zones holding a back the calibration does not know."""
        unknown = sorted(self.unknown_back_zones)
        message = None
        felt_ok = self._felt_matches()
        if not felt_ok:
            message = (f"the felt measures (B,G,R) = {self.felt_measured}, not the calibrated "
                       f"{tuple(int(v) for v in self._felt_ref)}: another felt or the camera's white balance "
                       "changed (recalibrate with station camera calibrate)")
        elif not self.back_calibrated:
            message = "deck back not calibrated: face-down cards cannot be read (station camera calibrate)"
        elif unknown:
            message = (f"unknown card back in {', '.join(unknown)}: not the calibrated deck set "
                       "(recalibrate with station camera calibrate)")
        return {
            "felt_calibrated": self.calibration.felt is not None,
            "back_calibrated": self.back_calibrated,
            "unknown_back_zones": unknown,
            "felt_matches": felt_ok,
            "message": message,
        }

    def _felt_matches(self) -> bool:
        """Is the felt in the last frame read the calibrated one? (Light may dim or warm it,
        which the gains undo; another hue is another felt.)"""
        if self.felt_measured is None:
            return True
        h, s, _ = colours.felt_hsv(self.felt_measured)
        if colours.is_grey_felt(self._felt_hsv):
            # a grey felt takes the light's tint (warm light), which the gains undo; a felt of
            # a colour of its own is another felt
            return s < 2 * colours.GREY_FELT_SAT
        d = abs(h - self._felt_hsv[0])
        return min(d, 180 - d) <= 15 and s >= 0.4 * self._felt_hsv[1]

    def process(self, t: float, frame: np.ndarray) -> dict[str, list] | None:
        """Feed one frame taken at time t. Returns every zone's stable state, or None until
        every zone has had one (the first `stable_frames` frames)."""
        # Change is seen on every 4th pixel of every 4th row (a nearest-neighbour shrink, four
        # times cheaper than averaging at 4K); the felt's light is measured on the same
        # samples; a zone that is read is shrunk by averaging on its own, and the cut card is
        # looked for, averaged, only where the picture changed.
        self._check_size(frame)
        lay = self.layout
        sampled = cv2.resize(frame, (lay.width // SHRINK, lay.height // SHRINK), interpolation=cv2.INTER_NEAREST)
        gray = cv2.cvtColor(sampled, cv2.COLOR_BGR2GRAY)
        gains: np.ndarray | None = None  # measured only if some zone is read
        any_read = False
        for name, geo in self._geo.items():
            x0, y0, x1, y1 = geo.box
            g = gray[y0:y1, x0:x1]
            prev = self._prev_gray.get(name)
            self._prev_gray[name] = g.copy()
            ref = self._ref_gray.get(name)
            if ref is not None and not self._changed(ref, g, geo):
                reading = self._raw.get(name)  # unchanged since it was read
            elif prev is not None and ref is not None and self._changed(prev, g, geo):
                reading = None  # still moving: wait until it settles
            else:
                if gains is None:
                    gains = self._light_gains(sampled)
                view = self._read(name, frame, sampled, gains)
                reading = view.reading
                self._raw[name] = reading
                # A zone not readable now must be read again once it changes: keep no reference.
                if reading is None:
                    self._ref_gray.pop(name, None)
                else:
                    self._ref_gray[name] = g.copy()
                any_read = True
            self._settle(name, reading)
        # The cut card may lie outside every zone (beside the shoe): look for it where the
        # picture changed since the last look (the whole picture the first time).
        cut_ref = self._cut_ref_gray
        window: tuple[int, int, int, int] | None = (0, 0, gray.shape[1], gray.shape[0])
        if cut_ref is not None:
            moved = cv2.absdiff(cut_ref, gray) > CHANGE_LEVEL
            window = None
            if any_read or np.count_nonzero(moved) > 0.05 * self._card_area:
                pts = cv2.findNonZero(moved.astype(np.uint8))
                if pts is not None:
                    x, y, w, h = cv2.boundingRect(pts)
                    grow = int(math.hypot(self._card_w, self._card_h)) + 2  # a card reaching in
                    window = (max(0, x - grow), max(0, y - grow), min(gray.shape[1], x + w + grow),
                              min(gray.shape[0], y + h + grow))
        if window is not None:
            # a cut card seen before that the window reaches is looked at whole again
            for b in self._cut_boxes:
                if not (b[2] <= window[0] or b[0] >= window[2] or b[3] <= window[1] or b[1] >= window[3]):
                    window = (min(window[0], b[0]), min(window[1], b[1]), max(window[2], b[2]), max(window[3], b[3]))
            if gains is None:
                gains = self._light_gains(sampled)
            wx0, wy0, wx1, wy1 = window
            # the window at quarter resolution, averaged as the readers see it
            full = frame[wy0 * SHRINK : wy1 * SHRINK, wx0 * SHRINK : wx1 * SHRINK]
            part = cv2.resize(full, (wx1 - wx0, wy1 - wy0), interpolation=cv2.INTER_LINEAR)
            found = [(bx + wx0, by + wy0, bx + wx0 + bw, by + wy0 + bh)
                     for bx, by, bw, bh in self._cut_blobs(part, gains, full)]
            # cut cards seen before and wholly outside the window are still there
            kept = [b for b in self._cut_boxes if b[2] <= wx0 or b[0] >= wx1 or b[3] <= wy0 or b[1] >= wy1]
            self._cut_boxes = kept + found
            self.cut_card_visible = bool(self._cut_boxes)
            self._cut_ref_gray = gray
        self.frames += 1
        if len(self._stable) < len(self._geo):
            return None
        return {n: list(self._stable[n]) for n in self._geo}

    def read_still(self, frame: np.ndarray) -> tuple[dict[str, list | None], bool]:
        """Read one still picture on its own (no history): zone → contents (None where the
        dealer's hand covers it or an unknown back lies), and whether the cut card is in view."""
        small = self._shrink(frame)
        gains = self._light_gains(small)
        out: dict[str, list | None] = {}
        for name in self._geo:
            view = self._read(name, frame, small, gains)
            out[name] = None if view.reading is None else list(view.reading)
        self.cut_card_visible = self._cut_in_view(small, gains, frame)
        return out, self.cut_card_visible

    @property
    def stable(self) -> dict[str, list]:
        return {n: list(r) for n, r in self._stable.items()}

    # ---- temporal -----------------------------------------------------------------
    def _settle(self, name: str, reading: Reading | None) -> None:
        if reading is None:
            self._candidate[name] = None
            self._count[name] = 0
            return
        if reading == self._candidate.get(name):
            self._count[name] += 1
        else:
            self._candidate[name] = reading
            self._count[name] = 1
        if self._count[name] >= self.stable_frames:
            self._stable[name] = reading

    @staticmethod
    def _changed(a: np.ndarray, b: np.ndarray, geo: _ZoneGeometry) -> bool:
        diff = cv2.absdiff(a, b)
        n = int(np.count_nonzero(diff > CHANGE_LEVEL))
        return n > CHANGE_FRACTION * geo.area

    # ---- pixels -------------------------------------------------------------------
    def _shrink(self, frame: np.ndarray) -> np.ndarray:
        self._check_size(frame)
        lay = self.layout
        # Bilinear shrink: ten times cheaper than area averaging over the whole frame and
        # good enough to see change; zones that are read get an area-averaged view.
        return cv2.resize(frame, (lay.width // SHRINK, lay.height // SHRINK), interpolation=cv2.INTER_LINEAR)

    def _check_size(self, frame: np.ndarray) -> None:
        lay = self.layout
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
            raise ValueError("a camera frame must be a colour (BGR) picture")
        if frame.shape[0] != lay.height or frame.shape[1] != lay.width:
            raise ValueError(
                f"frame is {frame.shape[1]}x{frame.shape[0]} but layout {lay.name!r} was calibrated "
                f"for {lay.width}x{lay.height}: set the camera's resolution or recalibrate"
            )

    @staticmethod
    def _zone_patch(frame: np.ndarray, geo: _ZoneGeometry) -> np.ndarray:
        """The zone at quarter resolution, each pixel the mean of its 4×4 block (noise,
        the back's pattern and the face's print partly average out)."""
        x0, y0, x1, y1 = geo.box
        full = frame[y0 * SHRINK : y1 * SHRINK, x0 * SHRINK : x1 * SHRINK]
        return cv2.resize(full, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)

    def _light_gains(self, small: np.ndarray) -> np.ndarray:
        """Per-channel gains that bring the felt (`colours.felt_now`) back to its calibrated
        colour; the felt measured is kept for the console."""
        felt = colours.felt_now(small)
        self.felt_measured = (int(felt[0]), int(felt[1]), int(felt[2]))
        return colours.light_gains(self._felt_ref, felt)

    def _gains_near(self, small: np.ndarray, gains: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
        """The light's gains at a zone, from the felt round it: a grey felt is told from a grey
        or black back by lightness alone, and the light across a table is not even (a seat a
        fifth darker than the table's middle takes its felt for a back's dark grey; a spotlight
        makes it as light as a face). The felt is most of a zone and a card's width round it:
        grey from half to LOCAL_FELT_MAX times the felt's (a face's white is lighter); `gains`
        where it is not."""
        x0, y0, x1, y1 = box
        m = int(round(self._card_w))
        h, w = small.shape[:2]
        near = small[max(0, y0 - m) : min(h, y1 + m), max(0, x0 - m) : min(w, x1 + m)]
        _, s, v = cv2.split(cv2.cvtColor(cv2.transform(near, np.diag(gains).astype(np.float32)), cv2.COLOR_BGR2HSV))
        fv = self._felt_hsv[2]
        felt = (s < colours.GREY_FELT_MAX_SAT) & (v >= 0.5 * fv) & (v <= LOCAL_FELT_MAX * fv)
        if np.count_nonzero(felt) < LOCAL_FELT_SHARE * felt.size:
            return gains
        here = np.median(near[felt].reshape(-1, 3), axis=0).astype(np.float32)
        return colours.light_gains(self._felt_ref, here)

    def _light_near(self, small: np.ndarray, gains: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
        """The light at a zone on a felt of a colour, for a back learned as tones: `gains`
        made as much brighter or darker as the felt in and round the zone is darker or lighter
        than the table's (`_gains_near`'s felt: the zone and a card's width round it), where
        the factor is at least LOCAL_LIGHT_MIN from 1. A back learned as tones is told by its
        lightness too (one learned as hue cells by hue and saturation, which the light's level
        does not move), and the light across a table is not even: a plain back at a seat in a
        corner, its felt about 15% darker than the table's, showed only the darker of its tones
        and was taken for a face. The felt's hue tells it here, so one factor for the three
        channels: the table's colour balance is `gains`' already. `gains` where too little felt
        shows."""
        x0, y0, x1, y1 = box
        m = int(round(self._card_w))
        h, w = small.shape[:2]
        # the felt round the zone and the zone's own felt must agree: light that falls off
        # across the table moves both, a shadow or a pool of light round the zone's edge (an
        # arm's shadow, a spotlight's pool ending there) only the one round it, and the cards
        # lie in the zone (the second reader's case: cards lit as the table's held or
        # miscounted); of the two, the factor nearer 1
        grown = self._felt_factor(small[max(0, y0 - m) : min(h, y1 + m), max(0, x0 - m) : min(w, x1 + m)], gains)
        own = self._felt_factor(small[y0:y1, x0:x1], gains)
        if grown is None or own is None or (grown - 1.0) * (own - 1.0) <= 0.0:
            return gains
        factor = own if abs(own - 1.0) < abs(grown - 1.0) else grown
        return gains * np.float32(factor) if abs(factor - 1.0) >= LOCAL_LIGHT_MIN else gains

    def _felt_factor(self, region: np.ndarray, gains: np.ndarray) -> float | None:
        """How many times brighter the felt (of a colour) in `region`, after `gains`, must be
        made to be the table's; None where less than LOCAL_FELT_SHARE of it is felt."""
        near = cv2.transform(region, np.diag(gains).astype(np.float32))
        hue, sat, val = cv2.split(cv2.cvtColor(near.clip(0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV))
        fv = self._felt_hsv[2]
        felt = colours.felt_mask(hue, sat, val, self._felt_hsv) & (val >= 0.5 * fv) & (val <= LOCAL_FELT_MAX * fv)
        if np.count_nonzero(felt) < LOCAL_FELT_SHARE * felt.size:
            return None
        here = float(np.median(near[felt].reshape(-1, 3), axis=0).sum())
        return float(self._felt_ref.sum()) / max(1.0, here)

    def _enclosed(self, felt: np.ndarray, geo: _ZoneGeometry) -> np.ndarray:
        """Felt that cards enclose (smaller than half a card): a face's codes and black print
        on a grey felt. Not felt that the zone's painted outline or the edge of the zone's
        picture cuts off beside a card (a card laid into a corner of its zone)."""
        pockets = colours.fill_holes(~felt, 0.5 * self._card_area) & felt
        if not pockets.any():
            return pockets
        n, labels = cv2.connectedComponents(pockets.astype(np.uint8), connectivity=4)
        edge = geo.outline_band
        h, w = felt.shape
        cut_off = np.unique(np.concatenate([labels[edge], labels[0], labels[h - 1], labels[:, 0], labels[:, w - 1]]))
        keep = np.ones(n, bool)
        keep[0] = False
        keep[cut_off] = False
        return keep[labels]

    def _classes(self, patch: np.ndarray, gains: np.ndarray, full: np.ndarray | None = None) -> colours.Classes:
        """`patch` classified; `full`: the same place at full resolution (a back with small
        dots is told from the cut card there)."""
        corrected = cv2.transform(patch, np.diag(gains).astype(np.float32))
        dots = None
        if isinstance(self._back_lut, colours.ToneModel) and self._back_lut.dots > 0 and full is not None:
            dots = colours.dot_share(full, gains, self.layout.mm_per_px, patch.shape)
        return colours.classify(corrected, self._felt_hsv, self._back_lut, self._window, self._back_level, dots)

    def _cut_in_view(self, small: np.ndarray, gains: np.ndarray, frame: np.ndarray | None = None) -> bool:
        return bool(self._cut_blobs(small, gains, frame))

    def _cut_blobs(self, small: np.ndarray, gains: np.ndarray,
                   full: np.ndarray | None = None) -> list[tuple[int, int, int, int]]:
        """Boxes (x, y, w, h, quarter resolution) of cut cards in `small` (`full`: the same
        place at full resolution)."""
        cls = self._classes(small, gains, full)
        dark = cls.dark.astype(np.uint8) * 255
        dark = cv2.morphologyEx(dark, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
        found = []
        for i in range(1, n):
            area = stats[i, cv2.CC_STAT_AREA]
            bw, bh = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
            # the card is black all over: a solid blob of at least half a card, not a thin
            # shadow or the edge of the frame
            if area >= 0.5 * self._card_area and area >= 0.55 * bw * bh:
                found.append((int(stats[i, cv2.CC_STAT_LEFT]), int(stats[i, cv2.CC_STAT_TOP]), int(bw), int(bh)))
        return found

    # ---- one zone -----------------------------------------------------------------
    def _read(self, name: str, frame: np.ndarray, small: np.ndarray, gains: np.ndarray) -> ZoneView:
        t0 = time.perf_counter()
        self.zones_read += 1
        view = self.zone_readers[name](name, frame, small, gains)
        view.ms = (time.perf_counter() - t0) * 1000.0
        self.views[name] = view
        return view

    def _hand_over(self, skin: np.ndarray, felt: np.ndarray, inside: np.ndarray,
                   white: np.ndarray | None = None) -> np.ndarray | None:
        """The dealer's hand (skin, quarter resolution) where it lies over a zone (`inside`),
        None when no hand does.
        Not every skin-coloured thing is a hand: a zone's painted outline or name (gold or
        copper paint) is never wider than MARKING_MM, and a hand's finger is wider, so skin
        counts only where it is wider than a marking; and a picture printed on a card's face (a
        court figure's flesh and gold) lies within one card, clear of the felt and of the
        zone's edge, where a hand, larger than a card and reaching in from the dealer's side
        over cards and felt, never does. Clear of the felt: almost none within PRINT_RING_MM of
        its outline, and, given the faces' white (`white`), almost none a marking's width round
        it that the white does not part from it."""
        limit = HAND_SKIN_SHARE * self._card_area
        if np.count_nonzero(skin) <= limit:
            return None
        # (OpenCV's opening takes the world beyond the patch for skin: a hand's stub over the
        # felt at a rectangular zone's edge stays a hand; taking nothing beyond the patch for
        # skin was tried and taken out, docs/camera.md "A zone's painted outline")
        wide = cv2.morphologyEx(skin.astype(np.uint8), cv2.MORPH_OPEN, self._marking_kernel)
        if np.count_nonzero(wide) <= limit:
            return None
        n, labels, stats, _ = cv2.connectedComponentsWithStats(wide, connectivity=8)
        hand = np.zeros(skin.shape, bool)
        for i in range(1, n):
            comp = (labels == i).astype(np.uint8)
            around = cv2.dilate(comp, self._marking_kernel) > 0
            ring = (cv2.dilate(comp, self._print_ring_kernel) > 0) & (comp == 0)
            on_cards = stats[i, cv2.CC_STAT_AREA] <= PRINT_MAX_CARD_SHARE * self._card_area \
                and np.count_nonzero(ring & felt) <= PRINT_RING_FELT * np.count_nonzero(ring) \
                and not np.any(around & ~inside)
            if on_cards and white is not None:
                # ... nor within a marking's width round it where no face's white parts it
                # from the felt: a face's print keeps the face's white between it and the felt
                # past the card's edge, where a moving hand's blurred outline (a blend of skin
                # and felt, neither) leads on to the felt (the second reader's hands moving
                # 8-12 mm in a frame's exposure were read as the seat's cards with the thin
                # ring alone)
                wide_ring = around & (comp == 0)
                reach = comp > 0
                for _ in range(self._marking_kernel.shape[0] // 2):
                    reach = (cv2.dilate(reach.astype(np.uint8), self._step_kernel) > 0) & ~white
                on_cards = np.count_nonzero(reach & wide_ring & felt) <= PRINT_RING_FELT * np.count_nonzero(wide_ring)
            if not on_cards:
                hand |= comp > 0
        return hand if np.count_nonzero(hand) > limit else None

    def _hand_at_the_edge(self, hand: np.ndarray, geo: _ZoneGeometry) -> bool:
        """Is this hand (quarter-resolution mask over the zone) only reaching over the zone's
        edge: less of it inside than HAND_EDGE_SHARE of a card, all of it on the zone's
        outline side (within HAND_EDGE_MM of the zone's edge)? Such a hand (dealing to the next
        seat, passing by) hides no card of this zone: a card it covered in part would show the
        rest of itself beside it, which `_read_card_zone` looks for."""
        if np.count_nonzero(hand) >= HAND_EDGE_SHARE * self._card_area:
            return False
        depth = max(1, int(round(HAND_EDGE_MM / self.layout.mm_per_px / SHRINK)))
        inner = cv2.erode(geo.mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * depth + 1,) * 2),
                          borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
        return not np.any(hand & inner)

    def _dark_hand_over(self, solid_dark: np.ndarray) -> bool:
        """Whether a black glove (or a dark sleeve) lies over a zone: one black thing (not the
        felt, not the back's pattern) over more than CUT_MAX_SHARE cards' area, or longer or
        wider than a card by CUT_MAX_SIZE. Black on the table that is no back is the cut card,
        one card's size (a card laid over it only hides part of it); a gloved hand with its
        fingers and forearm is larger. (A black back whose pattern is lost, heavily blurred,
        is black too: two such cards touching hold the zone as covered, where before they read
        as the cut card.)"""
        n, labels, stats, _ = cv2.connectedComponentsWithStats(solid_dark.astype(np.uint8), connectivity=8)
        long_side, short_side = CUT_MAX_SIZE * self._card_h + 2, CUT_MAX_SIZE * self._card_w + 2
        for i in range(1, n):
            area = stats[i, cv2.CC_STAT_AREA]
            if area < 0.5 * self._card_area:
                continue  # less than the cut card shows of itself: a shadow, print, a code
            if area > CUT_MAX_SHARE * self._card_area:
                return True
            (_, _), (w, h), _ = cv2.minAreaRect(cv2.findNonZero((labels == i).astype(np.uint8)))
            if max(w, h) > long_side or min(w, h) > short_side:
                return True
        return False

    def _read_card_zone(self, name: str, frame: np.ndarray, small: np.ndarray, gains: np.ndarray) -> ZoneView:
        geo = self._geo[name]
        x0, y0, x1, y1 = geo.box
        grey = colours.is_grey_felt(self._felt_hsv)
        if grey:
            gains = self._gains_near(small, gains, geo.box)
        elif isinstance(self._back_lut, colours.ToneModel):
            gains = self._light_near(small, gains, geo.box)
        patch = self._zone_patch(frame, geo)
        cls = self._classes(patch, gains, frame[y0 * SHRINK : y1 * SHRINK, x0 * SHRINK : x1 * SHRINK])
        inside = geo.mask > 0
        if grey:
            # on a grey felt a face's code and black print, averaged at quarter resolution,
            # take the felt's grey: felt that a card's outline encloses is card, as any print on
            # a card is on a felt of a colour
            cls.felt &= ~self._enclosed(cls.felt, geo)
        hand = self._hand_over(cls.skin & inside, cls.felt, inside, cls.white)
        hand_near: np.ndarray | None = None
        if hand is not None:
            if not self._hand_at_the_edge(hand, geo):
                self.unknown_back_zones.discard(name)
                return ZoneView(reading=None, covered=True, why=WHY_HAND)
            # a hand only over the zone's edge: the zone is read, unless a card lies by it
            # (its rim, a pixel or two, and its shadow go with it)
            clear = max(1, int(round(HAND_CLEAR_MM / self.layout.mm_per_px / SHRINK)))
            hand_near = cv2.dilate(hand.astype(np.uint8), cv2.getStructuringElement(
                cv2.MORPH_ELLIPSE, (2 * clear + 1,) * 2)) > 0
        # black over a wide area (a code's own black modules are dark too, but narrow): the cut
        # card, which hides a code like a back does, or, larger than a card, a black glove
        solid_dark = cv2.morphologyEx(cls.dark.astype(np.uint8), cv2.MORPH_OPEN, np.ones((7, 7), np.uint8)) > 0
        if self._dark_hand_over(solid_dark & inside & ~cls.felt):  # (a dark felt is felt)
            self.unknown_back_zones.discard(name)
            return ZoneView(reading=None, covered=True, why=WHY_DARK_HAND)
        cardish = ((~cls.felt) & inside).astype(np.uint8) * 255
        if isinstance(self._back_lut, colours.ToneModel):
            # a back of the felt's hue (navy on blue felt): a card's white border, averaged with
            # the back at quarter resolution, takes the felt's hue too, a seam a pixel wide
            # between two cards that must not part them
            cardish = cv2.morphologyEx(cardish, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
            # and a pattern whose mix takes the felt's colour in places (a white lattice on a
            # navy back on blue felt) leaves holes in the card: what its outline encloses is card
            # (on a grey felt, not felt that the zone's outline cuts off beside a card)
            filled = ((cardish > 0) | self._enclosed(cardish == 0, geo)) if grey \
                else colours.fill_holes(cardish, 0.5 * self._card_area)
            cardish = (filled & inside).astype(np.uint8) * 255
        if hand is not None:
            cardish[cv2.dilate(hand.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0] = 0
        # Opening removes the zone markings (a painted outline up to MARKING_MM wide), printed
        # labels and noise; every card shows far more than that of itself.
        cardish = cv2.morphologyEx(cardish, cv2.MORPH_OPEN, self._marking_kernel)
        if hand_near is not None and np.any((cardish > 0) & hand_near):
            self.unknown_back_zones.discard(name)
            return ZoneView(reading=None, covered=True, why=WHY_CARD_BY_HAND)  # a card by the hand: it may hide more
        n, labels, stats, _ = cv2.connectedComponentsWithStats(cardish, connectivity=8)
        unexplained = ~cls.explained()
        occluder = cls.back | solid_dark

        items: list[str] = []
        blobs: list[BlobView] = []
        qr_all: list[QrRead] = []
        unknown_zone = False
        for i in range(1, n):
            area = float(stats[i, cv2.CC_STAT_AREA])
            if area < 0.2 * self._card_area:
                continue  # a crumb: chip edge, fluff, a corner poking in from the next zone
            comp = labels == i
            dark_a = float(np.count_nonzero(cls.dark & comp))
            printed = self._print_on_faces(cls.back & comp, comp)
            back_a = float(np.count_nonzero(cls.back & comp)) - printed
            white_a = float(np.count_nonzero(cls.white & comp)) + printed
            odd_a = float(np.count_nonzero(unexplained & comp))
            # the cut card shows at least half of itself in one piece: solid black, not the
            # rim and seams of a row of dark backs, where a window takes in felt and so
            # misses the back's other tones (docs/camera.md "The cut card is solid black")
            cut = np.count_nonzero(solid_dark & comp) >= CUT_SOLID_SHARE * self._card_area
            rest = area - (dark_a if cut else 0.0)
            contour = self._contour(comp)
            cards = self._count_cards(contour, rest, cut)
            carries_codes = False
            bx, by, bw, bh = (int(stats[i, k]) for k in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
            box = ((x0 + bx) * SHRINK, (y0 + by) * SHRINK, (x0 + bx + bw) * SHRINK, (y0 + by + bh) * SHRINK)
            full_contour = (contour + [x0, y0]) * SHRINK
            looks = _BlobLooks(self.decoder, frame, box)  # (decoded only when asked)
            # Print on a face (a red court, pips blurred pink) lies within the face's white and
            # the face carries our codes; another deck's back (a white lattice too) has none: a
            # blob is faces only when its codes name as many cards as it holds.
            if cards and odd_a >= 0.4 * self._card_area \
                    and self._odd_outside_faces(unexplained & comp, cls.white & comp) < 0.4 * self._card_area \
                    and self._carries_codes(looks, self._inside_blob(comp, (x0, y0)), cards) >= cards:
                odd_a, carries_codes = 0.0, True
            if cards and odd_a >= 0.4 * self._card_area:
                # Most of a card here is neither face, nor the calibrated back, nor the cut
                # card: another deck set (or none calibrated). Never read it as anything.
                unknown_zone = True
                blobs.append(BlobView(box, full_contour, cards, 0, cut, unknown=True))
                continue
            face_up = 0
            if cards:
                # white that a back shows itself (its border, its pattern) is no face
                face_white = max(0.0, white_a - self._white_edge * back_a)
                has_back = back_a >= 0.15 * self._card_area
                # (a blob whose codes name its every card is faces, however soft its white)
                has_face = face_white >= 0.12 * self._card_area or carries_codes
                if not (has_back or has_face or cut or carries_codes) and dark_a < 0.1 * self._card_area \
                        and np.count_nonzero(cls.felt & comp) >= FELT_SPECKLE_SHARE * area:
                    # Neither the back's pattern, nor a face's white, nor black, and most of
                    # it the felt's own colour: felt speckled with the back's colours (a dim
                    # corner of the picture, in noise), closed into a blob. A card is never
                    # half felt-coloured.
                    continue
                if face_white >= 0.5 * self._card_area and back_a < face_white \
                        and self._blank_radius_mm(patch, comp, cls.white) >= HAND_BLANK_MM:
                    # white with no print on it, wider than any face leaves blank: a pale hand
                    # or a white glove over the zone, which is not read now
                    self.unknown_back_zones.discard(name)
                    return ZoneView(reading=None, blobs=blobs, covered=True, why=WHY_PALE_HAND)
                if cards == 1:
                    face_up = 1 if carries_codes or (has_face and back_a < face_white) else 0
                elif not has_face and not cut and self._back_lut is not None:
                    # backs only: a row or fan of one to four, counted by their visible backs
                    cards = self._count_backs(frame, comp, (x0, y0), gains, rest, cards, geo.mask)
                else:
                    face_up = cards if not has_back else (0 if not has_face else max(1, min(cards - 1, round(face_white / (0.7 * self._card_area)))))
            blobs.append(BlobView(box, full_contour, cards, face_up, cut))
            if cut:
                items.append(CUT)
            items.extend([FACE_DOWN] * (cards - face_up))
            if face_up:
                def covered_at(x: float, y: float, half: float, _occ=occluder) -> float:
                    # share of the square (full-resolution centre, half side) that a back or
                    # the cut card covers; -1 when it lies outside this zone's picture
                    sx0, sy0 = int((x - half) / SHRINK) - x0, int((y - half) / SHRINK) - y0
                    sx1, sy1 = int((x + half) / SHRINK) - x0 + 1, int((y + half) / SHRINK) - y0 + 1
                    if sx1 <= 0 or sy1 <= 0 or sx0 >= _occ.shape[1] or sy0 >= _occ.shape[0]:
                        return -1.0
                    win = _occ[max(0, sy0) : sy1, max(0, sx0) : sx1]
                    return float(np.count_nonzero(win)) / win.size if win.size else -1.0

                inside_blob = self._inside_blob(comp, (x0, y0))
                if face_up == cards and cards >= 2 and not cut:
                    # Face-up cards only (a showdown's two pairs): each shows a whole code, so
                    # the codes count them, within what the blob's area allows.
                    # a card's blob takes in the mixed pixels round its edge (and its
                    # shadow): n cards lying apart cover up to n cards grown by EDGE_PX
                    grown = (self._card_w + 2 * EDGE_PX) * (self._card_h + 2 * EDGE_PX)
                    lo = max(2, math.ceil(rest / grown))
                    hi = max(lo, math.floor(rest / (0.6 * self._card_area)))
                    # (a crowded showdown's back pair shows less of itself than 0.6 of a card
                    # each: its cards' codes, found, may count more than that allows)
                    most = max(hi, math.floor(rest / (CROWDED_SHOWN * self._card_area)))
                    names, reads, found = self._identify(looks, hi, covered_at, inside_blob, most)
                    # cards of which no code was read show as pieces of the blob beyond the
                    # cards the codes place: each is one more card (XX), whatever the area says
                    pieces = self._pieces_beyond_codes(comp, (x0, y0), reads, cls.white | cls.back,
                                                       cls.dark, geo)
                    hi = max(hi, found + pieces)
                    face_up = min(hi, max(lo, found + pieces))
                    named = [n for n in names if n != UNREADABLE]
                    names = named + [UNREADABLE] * (face_up - len(named)) if len(named) <= face_up else [UNREADABLE] * face_up
                    blobs[-1].cards = blobs[-1].face_up = face_up
                else:
                    names, reads, _ = self._identify(looks, face_up, covered_at, inside_blob)
                items.extend(names)
                qr_all.extend(reads)
        if unknown_zone:
            self.unknown_back_zones.add(name)
            return ZoneView(reading=None, blobs=blobs, qr=qr_all, unknown_back=True, why=WHY_UNKNOWN_BACK)
        self.unknown_back_zones.discard(name)
        return ZoneView(reading=canonical(items), blobs=blobs, qr=qr_all)

    def _blank_radius_mm(self, patch: np.ndarray, comp: np.ndarray, white: np.ndarray) -> float:
        """The radius (mm) of the widest disc of white with no print on it in a blob. A face's
        codes, index and art leave no blank disc wider than about a third of the card's width
        (its two codes sit in opposite corners); a pale hand's palm or a white glove is blank
        across far more."""
        v = patch.max(axis=2)
        lit = v[white & comp]
        if not lit.size:
            return 0.0
        blank = (white & comp & (v >= INK_LEVEL * float(np.median(lit)))).astype(np.uint8)
        radius_px = float(cv2.distanceTransform(blank, cv2.DIST_L2, 3).max())
        return radius_px * SHRINK * self.layout.mm_per_px

    def _print_on_faces(self, back: np.ndarray, comp: np.ndarray) -> float:
        """Pixels of the back's colours that are print on a face (a big red heart on a deck
        with a red back): patches that lie wholly inside the blob, away from its rim, and are
        smaller than a third of a card. A face-down card's visible back always reaches its own
        edge, the blob's rim, and shows far more of itself."""
        if not back.any():
            return 0.0
        rim = comp & ~(cv2.erode(comp.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(back.astype(np.uint8), connectivity=8)
        touching = set(np.unique(labels[rim]).tolist())
        return float(sum(stats[i, cv2.CC_STAT_AREA] for i in range(1, n)
                         if i not in touching and stats[i, cv2.CC_STAT_AREA] < FACE_PRINT_MAX * self._card_area))

    def _inside_blob(self, comp: np.ndarray, origin: tuple[int, int]) -> Callable[[QrRead], bool]:
        """Does a code (full-resolution centre) lie on this blob (quarter-resolution mask,
        its zone box at `origin`)? A code's centre is well inside its card."""
        grown = cv2.dilate(comp.astype(np.uint8), np.ones((3, 3), np.uint8))
        ox, oy = origin

        def inside(r: QrRead) -> bool:
            qx, qy = int(r.centre[0] / SHRINK) - ox, int(r.centre[1] / SHRINK) - oy
            return 0 <= qy < grown.shape[0] and 0 <= qx < grown.shape[1] and bool(grown[qy, qx])

        return inside

    def _carries_codes(self, looks: _BlobLooks, inside: Callable[[QrRead], bool], cards: int) -> int:
        """How many different cards the codes of our notation on this blob name (faces carry
        them, backs never), looking harder (as `_identify` does) until `cards` are named: a
        soft picture blurs a face's codes and its print into colours of no class, and its
        codes are then the only sign that it is a face."""
        names: set[str] = set()
        for reads in looks:
            for r in reads:
                face = parse_face_text(r.text)
                if face is not None and inside(r):
                    names.add(face.card)
            if len(names) >= cards:
                break
        return len(names)

    def _odd_outside_faces(self, odd: np.ndarray, white: np.ndarray) -> float:
        """Pixels of no known class that do not lie within a face's white (quarter res)."""
        if not odd.any():
            return 0.0
        k = max(3, int(round(self._card_w / 4)) | 1)
        face = cv2.morphologyEx(white.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)) > 0
        return float(np.count_nonzero(odd & ~face))

    def _count_backs(self, frame: np.ndarray, comp: np.ndarray, origin: tuple[int, int], gains: np.ndarray,
                     area: float, estimate: int, zone_mask: np.ndarray | None = None) -> int:
        """A blob of backs bigger than one card: count its cards by their visible backs at full
        resolution (back_count); keep the area's estimate when the pieces do not fit it."""
        ys, xs = np.nonzero(comp)
        ox, oy = origin
        qx0, qy0, qx1, qy1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
        fx0, fy0 = (ox + qx0) * SHRINK, (oy + qy0) * SHRINK
        crop = frame[fy0 : (oy + qy1) * SHRINK, fx0 : (ox + qx1) * SHRINK]
        mask = cv2.resize(comp[qy0:qy1, qx0:qx1].astype(np.uint8), (crop.shape[1], crop.shape[0]),
                          interpolation=cv2.INTER_NEAREST)
        assert self._back_lut is not None
        counts = back_count.count_backs(crop, mask, gains, self._back_lut, self._card_area * SHRINK * SHRINK,
                                        self.layout.mm_per_px, self._back_level)
        # and by the cards' own edges across the row (a back whose pattern runs on from card
        # to card); each way mostly misses partings rather than adds them (a back's dot columns
        # taken for edges, or a run too many on the outline, may add one: the area rules out
        # some), so the most cards the area allows
        by_edges = back_count.count_by_edges(crop, mask, gains, self.layout.card_px, self.layout.mm_per_px)
        if by_edges is not None:
            counts.append(by_edges)
        # and by the turns of the cards' own edges on the blob's outline (a fan of backs whose
        # pattern runs on from card to card, with neither border nor a line at its edges)
        by_outline = back_count.count_by_outline(comp, self._card_w, zone_mask)
        if by_outline is not None:
            counts.append(by_outline)
        # and, in a row of backs whose pattern repeats, by where the pattern starts afresh
        # (each card's pattern begins at its own edge)
        by_phase = back_count.count_by_phase(crop, mask, gains, self.layout.card_px, self.layout.mm_per_px)
        if by_phase is not None:
            counts.append(by_phase)
        # and, for a back with an emblem in its middle, by its emblems (each card shows at
        # least half of its own)
        by_marks = back_count.count_by_marks(crop, mask, gains, self.layout.card_px, self.layout.mm_per_px,
                                             self._emblem)
        if by_marks is not None:
            counts.append(by_marks)
        fits = [n for n in counts if back_count.plausible(n, area, self._card_area)]
        if fits:
            return max(fits)
        if max(counts, default=0) >= estimate:
            # the ways part the blob as the area's estimate does (its area a little more than
            # the cards': a chip or dark debris against the row): trust them
            return estimate
        # no way parts the row (a back whose pattern runs on from card to card, no line at the
        # cards' edges): the fewest cards that can cover this area each showing at least half
        # of its back (the sheet's rule for a seat's row or fan), where the area's estimate
        # lays them side by side and reads a row of four showing half of each (2.5 cards'
        # area) as two, which cannot cover it
        return next((n for n in range(estimate, 5) if back_count.plausible(n, area, self._card_area)), estimate)

    def _pieces_beyond_codes(self, comp: np.ndarray, origin: tuple[int, int], reads: list[QrRead],
                             card_coloured: np.ndarray, printed: np.ndarray, geo: _ZoneGeometry) -> int:
        """How many pieces of a face-up blob (quarter-resolution mask, its zone box at
        `origin`) lie beyond every card a decoded code places: the card of each code where its
        margin of 2-6 mm may put it (`_card_of_code`, as `_bodies` places it), grown by
        that uncertainty and the blob's edge. A piece counts when it covers CARD_PIECE_SHARE
        of a card, is CARD_PIECE_MM across both ways (a narrower strip is a card's edge or a
        card placed a little off) and is mostly a card's colours (`card_coloured`: a face's
        white or the back; the cards' shadow on the felt, darker than the felt, is in the blob
        too, and a shadow 85 x 23 mm beside a hand of four was counted as a fifth card). A piece
        longer than a card's diagonal, or a band that no card can hold (`one_card_holds`), is two
        cards; any other must also carry print (`printed`: black; a face's
        codes and index) and lie clear of the zone's outline: a plain chip lying against the
        cards, or a neighbouring zone's card reaching in over the outline, is no card of it."""
        mm = self.layout.mm_per_px
        cw, ch = self.layout.card_px
        grow = self._lone_tol + EDGE_PX * SHRINK
        placed = np.zeros(comp.shape, np.uint8)
        ox, oy = origin
        for r in reads:
            if r.orientation is None:
                continue
            centre, right, down = self._card_of_code(r)
            body = turned_rect(centre, right, down, cw / 2 + grow, ch / 2 + grow)
            cv2.fillConvexPoly(placed, np.round(body / SHRINK - [ox, oy]).astype(np.int32), 1)
        rest = (comp & (placed == 0)).astype(np.uint8)
        across = max(1, int(round(CARD_PIECE_MM / mm / SHRINK)))
        rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, np.ones((across, across), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
        diagonal = math.hypot(self._card_w, self._card_h)
        pieces = 0
        for i in range(1, n):
            if stats[i, cv2.CC_STAT_AREA] < CARD_PIECE_SHARE * self._card_area:
                continue
            piece = labels == i
            if np.count_nonzero(piece & card_coloured) < CARD_PIECE_COLOURED * stats[i, cv2.CC_STAT_AREA]:
                continue
            ys, xs = np.nonzero(piece)
            points = np.column_stack([xs, ys])
            (_, _), (rw, rh), _ = cv2.minAreaRect(points.astype(np.float32))
            # no piece of one card reaches farther than its diagonal: a longer one is the
            # strip two cards side by side show (the back pair beyond the front pair); so is a
            # band shorter than that which no card can hold (longer than a card's side and too
            # deep to lie along its diagonal)
            band = min(rw, rh) <= CARD_BAND_DEPTH * self._card_w \
                and stats[i, cv2.CC_STAT_AREA] >= CARD_BAND_FILL * rw * rh
            if max(rw, rh) >= CARD_PIECE_TWO * diagonal or (
                    band and not one_card_holds(points, CARD_PIECE_TWO * self._card_w, CARD_PIECE_TWO * self._card_h)):
                pieces += 2
            elif np.count_nonzero(piece & printed) >= CARD_PIECE_PRINT * stats[i, cv2.CC_STAT_AREA] \
                    and not np.any(piece & (geo.outline_band > 0)):
                pieces += 1  # (the second reader's white chip against a showdown made a fifth card)
        return pieces

    @staticmethod
    def _contour(comp: np.ndarray) -> np.ndarray:
        cs, _ = cv2.findContours(comp.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        return max(cs, key=cv2.contourArea).reshape(-1, 2).astype(np.float32)

    def _count_cards(self, contour: np.ndarray, area: float, cut: bool) -> int:
        """How many cards make up a blob of `area` (quarter-res pixels, cut card excluded).

        One card: a convex blob about a card's size whose smallest enclosing rectangle is a
        card's. Overlapping cards make a blob whose hull is clearly bigger than one card."""
        a1 = self._card_area
        if cut:
            return 0 if area < 0.45 * a1 else max(1, round(area / a1))
        if area < 0.45 * a1:
            return 0
        hull_area = cv2.contourArea(cv2.convexHull(contour))
        (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
        long_side, short_side = max(rw, rh), min(rw, rh)
        single = (
            hull_area < 1.17 * a1
            and long_side < 1.12 * self._card_h + 2
            and short_side < 1.15 * self._card_w + 2
        )
        if single:
            return 1
        # Two cards of a hand overlap; a blob bigger than two full cards holds more.
        return max(2, math.floor(area / (0.95 * a1)))

    # ---- identities ---------------------------------------------------------------
    def _identify(self, looks: _BlobLooks, face_up: int,
                  covered_at: Callable[[float, float, float], float] | None = None,
                  inside: Callable[[QrRead], bool] | None = None,
                  most: int | None = None) -> tuple[list[str], list[QrRead], int]:
        """(names, reads, cards found): `face_up` names (XX where not sure), the codes read,
        and how many cards the codes showed. `inside` keeps only codes of this blob: its box
        may take in a code of a neighbouring blob's card. `most`: the most cards the blob may
        hold (default `face_up`); codes showing more name none of them."""

        def own(rs: list[QrRead]) -> list[QrRead]:
            return rs if inside is None else [r for r in rs if inside(r)]

        size = looks.frame_size
        seen = (looks.crop, looks.origin)
        views = iter(looks)
        reads = own(next(views))
        instances = self._group(reads, covered_at, size, seen)
        # Most symbols read at once. When fewer cards are named than lie face up, look
        # again harder: enlarged and sharpened (blur, JPEG), then binarised (glare, dim), then,
        # on a soft picture, with the blur undone (each view made only when needed, and once
        # for the blob: `_carries_codes` may have looked already).
        while len([n for n, _ in instances if n != UNREADABLE]) < face_up \
                and (more := next(views, None)) is not None:
            merged = _merge_reads(reads, own(more))
            if len(merged) == len(reads):
                continue  # no symbol this view: the same reads group the same way
            reads = merged
            instances = self._group(reads, covered_at, size, seen)
        names = [n for n, _ in instances]
        if len(names) > (face_up if most is None else most):
            # More cards named than face-up cards seen: something is off (a foreign QR, a
            # miscount). Never pick among them.
            return [UNREADABLE] * face_up, reads, len(names)
        return names + [UNREADABLE] * (face_up - len(names)), reads, len(names)

    @staticmethod
    def _harder_views(crop: np.ndarray) -> Iterator[Callable[[], tuple[np.ndarray, float]]]:
        """Views to decode again, each made only when asked for: enlarged and sharpened,
        then binarised, then (on a soft picture) with its blur undone."""
        big: list[np.ndarray] = []

        def enlarged() -> np.ndarray:
            if not big:
                big.append(cv2.resize(crop, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC))
            return big[0]

        def sharpened() -> tuple[np.ndarray, float]:
            soft = cv2.GaussianBlur(enlarged(), (0, 0), 2.0)
            return cv2.addWeighted(enlarged(), 2.0, soft, -1.0, 0), 2.0

        def binarised() -> tuple[np.ndarray, float]:
            return cv2.adaptiveThreshold(enlarged(), 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 31, 5), 2.0

        yield sharpened
        yield binarised
        # a picture softer than sharpening mends: the blur undone (deblur.py), when it is soft
        yield from deblurred_views(crop)

    def _pair_distance(self, a: QrRead, b: QrRead) -> float:
        """How far b lies from where a card's other code should be, seen from a: distance
        (full-res px) from b's centre to the segment of partner positions for margins 2-6 mm."""
        right, down = code_axes(a.orientation)
        d = np.array(b.centre) - np.array(a.centre)
        local = np.array([float(d @ right), float(d @ down)])
        seg = self._pair_far - self._pair_near
        u = float(np.clip((local - self._pair_near) @ seg / float(seg @ seg), 0.0, 1.0))
        return float(np.hypot(*(local - (self._pair_near + u * seg))))

    def _group(self, reads: list[QrRead], covered_at: Callable[[float, float, float], float] | None = None,
               frame_size: tuple[int, int] | None = None,
               seen: tuple[np.ndarray, tuple[int, int]] | None = None) -> list[tuple[str, tuple[float, float]]]:
        """Codes → cards. Two codes are one card when they face opposite ways and each lies
        where the other corner's code should be for some margin of 2-6 mm.

        The one-code rule (CARD_FACES.md): a card is named from a lone code only when the
        card's other code is covered (a back, the cut card, a face-up card lying on top whose
        own two codes were read) or outside the picture. If the other code's place is in full
        view, that code did not decode (or says something unreadable): the card is XX. A code
        that decoded though another face-up card may lie on its white square is not in full
        view (stacking.py): it names no card."""
        n = len(reads)
        partner = [-1] * n
        cands = []
        for i in range(n):
            for j in range(i + 1, n):
                if reads[i].orientation is None or reads[j].orientation is None:
                    continue
                turn = abs((reads[i].orientation - reads[j].orientation) % 360.0 - 180.0)
                if turn > 25.0:
                    continue
                dist = max(self._pair_distance(reads[i], reads[j]), self._pair_distance(reads[j], reads[i]))
                if dist < self._pair_tol:
                    cands.append((reads[i].text != reads[j].text, dist, i, j))
        # codes of one text first (a neighbouring card's code can lie where this card's twin
        # may, for some margin), closest fits first; two texts paired make the card XX
        for _, _, i, j in sorted(cands):
            if partner[i] < 0 and partner[j] < 0:
                partner[i], partner[j] = j, i
        whole = [(i, partner[i]) for i in range(n) if partner[i] > i]
        # the margins of the cards seen by one code, measured once for both rules below
        gray, origin = seen if seen is not None else (None, (0, 0))
        margins = {i: card_margins(gray, r, origin, QR_WIDTH_MM / self.layout.mm_per_px, self._quiet_px,
                                   self.layout.mm_per_px, QR_MARGIN_RANGE_MM)
                   for i, r in enumerate(reads) if partner[i] < 0 and r.orientation is not None}
        # a code another face-up card may lie on is not in full view (stacking.py)
        clear = codes_in_full_view(reads, partner, self.layout.card_px, self.layout.mm_per_px,
                                    QR_WIDTH_MM / self.layout.mm_per_px,
                                    self._quiet_px, QR_MARGIN_RANGE_MM, gray, origin, margins)
        # (name, centre, the text its codes carry, whether both of its codes were read)
        out: list[tuple[str, tuple[float, float], str, bool]] = []
        done: set[int] = set()
        # names of which some card showed both its codes; only those may appear twice
        paired = {reads[i].text.split("/")[0] for i in range(n) if partner[i] >= 0}
        for i in range(n):
            if i in done:
                continue
            done.add(i)
            texts = [reads[i].text]
            if partner[i] >= 0:
                done.add(partner[i])
                texts.append(reads[partner[i]].text)
            faces = [parse_face_text(t) for t in texts]
            both = partner[i] >= 0
            if any(f is None for f in faces) or len(set(texts)) > 1:
                out.append((UNREADABLE, reads[i].centre, "", both))  # foreign text or a disagreeing pair
            elif not clear[i] and (partner[i] < 0 or not clear[partner[i]]):
                out.append((UNREADABLE, reads[i].centre, texts[0], both))  # no code of it in full view
            elif partner[i] < 0 and not self._partner_hidden(reads[i], reads, whole, covered_at, frame_size,
                                                             margins.get(i, (None, None))):
                out.append((UNREADABLE, reads[i].centre, texts[0], both))
            else:
                out.append((faces[0].card, reads[i].centre, texts[0], both))  # type: ignore[union-attr]
        # The same text twice without a geometric pairing may be one card whose pairing was
        # missed or two copies of it (legal in an 8-deck shoe). Counting it once can only
        # turn a card into XX (the blob's area still counts the cards); counting it twice
        # could name a card that is not there, or count one card as two. A card named from
        # one of its codes stands for an unnamed code of the same text.
        merged: list[tuple[str, tuple[float, float], str, bool]] = []
        for entry in sorted(out, key=lambda e: e[0] == UNREADABLE):
            name, _, text, both = entry
            if text and any(text == t and not (both or b) for _, _, t, b in merged):
                continue
            if name != UNREADABLE and any(name == m for m, *_ in merged) and name not in paired:
                continue
            merged.append(entry)
        return [(name, centre) for name, centre, _, _ in merged]

    def partner_places(self, r: QrRead) -> list[np.ndarray]:
        """Where a lone code's twin can be, for margins from 2 to 6 mm (full-res centres)."""
        right, down = code_axes(r.orientation)
        return [np.array(r.centre) + right * p[0] + down * p[1]
                for p in (self._pair_near + u * (self._pair_far - self._pair_near) for u in (0.0, 0.25, 0.5, 0.75, 1.0))]

    def _partner_hidden(self, r: QrRead, reads: list[QrRead], whole: list[tuple[int, int]],
                        covered_at: Callable[[float, float, float], float] | None,
                        frame_size: tuple[int, int] | None,
                        margins: tuple[float | None, float | None] = (None, None)) -> bool:
        """Is the other code of the card seen by `r` alone covered (the one-code rule)? Its
        place follows from the card's margin: measured by the card's edges on the felt where
        they show (`margins`, top and left: `stacking.card_margins`), else any the sheet
        allows (and then a place covered for any of them is taken). Covered: (partly) outside the picture, under
        a back or the cut card, or under another face-up card that surely reaches COVERED_MM
        into its square (the symbol and its quiet zone, as for a code in full view)."""
        if r.orientation is None:
            return False
        half = 0.5 * self._qr_side
        mm = self.layout.mm_per_px
        right, down = code_axes(r.orientation)
        cw, ch = self.layout.card_px
        places, tol = self.partner_places(r), 0.0
        top, left = margins
        if top is not None and left is not None:
            places = [np.array(r.centre) + right * (cw - 2 * (left + half)) + down * (ch - 2 * (top + half))]
            tol = PAIRED_TOL_MM / mm
        strip = COVERED_MM / mm * 2 * half  # a strip COVERED_MM deep along one side
        bodies = [turned_rect(centre, b_right, b_down, cw / 2 - shrink - tol, ch / 2 - shrink - tol)
                  for centre, b_right, b_down, shrink in self._bodies(r, reads, whole)]

        def covered(p: np.ndarray) -> bool:
            px, py = float(p[0]), float(p[1])
            if frame_size is not None:
                w, h = frame_size
                if not (half <= px <= w - half and half <= py <= h - half):
                    return True  # (partly) outside the picture
            if covered_at is not None and covered_at(px, py, 0.8 * half) >= 0.1:
                return True  # under a back or the cut card
            # under another face-up card, wherever within its uncertainty and this place's it
            # lies (in a seat's pair the right card covers the left card's second code, in
            # part or whole; the front pair may lie on the back pair's lower codes)
            square = turned_rect(p, right, down, half, half)
            return any(overlap_area(square, body) >= strip for body in bodies)

        # The margin measured, the twin lies in one place. Not measured, it is taken as
        # covered where any margin's place is: holding it to every place (8 mm apart) read
        # a third fewer showdown cards on the held-out renderers (docs/camera.md, "A twin
        # under a card's edge is covered": the gap this leaves).
        return covered(places[0]) if tol else any(covered(p) for p in places)

    def _bodies(self, r: QrRead, reads: list[QrRead], whole: list[tuple[int, int]]):
        """Where the other face-up cards lie (centre, axes, uncertainty in px): each card whose
        two codes were read (to PAIRED_TOL_MM), and each other card seen by one code (its place
        known up to the code's margin of 2-6 mm: taken at 4 mm, give or take 2 mm and
        PAIRED_TOL_MM), as stacking.py places them."""
        mm = self.layout.mm_per_px
        paired = set()
        for i, j in whole:
            a, b = reads[i], reads[j]
            paired.update((i, j))
            if r is a or r is b:
                continue
            right, down = code_axes(a.orientation)
            yield (np.array(a.centre) + np.array(b.centre)) / 2, right, down, PAIRED_TOL_MM / mm
        for k, o in enumerate(reads):
            if k in paired or o is r or o.orientation is None or o.text == r.text:
                continue
            yield *self._card_of_code(o), self._lone_tol

    def _card_of_code(self, o: QrRead) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where the card of a code seen alone lies (centre, its right and down, full
        resolution): its margin taken at the middle of 2-6 mm, known to `_lone_tol`."""
        cw, ch = self.layout.card_px
        inset = (sum(QR_MARGIN_RANGE_MM) / 2) / self.layout.mm_per_px + self._qr_side / 2
        right, down = code_axes(o.orientation)
        return np.array(o.centre) + right * (cw / 2 - inset) + down * (ch / 2 - inset), right, down

    @property
    def _lone_tol(self) -> float:
        """How far (px) a card seen by one code may lie from `_card_of_code`'s place."""
        return ((QR_MARGIN_RANGE_MM[1] - QR_MARGIN_RANGE_MM[0]) / 2 + PAIRED_TOL_MM) / self.layout.mm_per_px
