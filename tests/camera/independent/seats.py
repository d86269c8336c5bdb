"""Si Zhi Dao seats: seven zones round the dealer's arc, cards dealt, shown down or folded."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from .camera import Camera
from .cards import (
    CARD_H_MM,
    CARD_THICKNESS_MM,
    CARD_W_MM,
    back_texture,
    card_qr_text,
    deck_style,
    face_texture,
    qr_square_rect_mm,
)
from .hand import Hand
from .notation import canonical
from .raster import Canvas, felt_background
from .table import FELTS_BGR, LINES_BGR, Zone, draw_zone

SEAT_NAMES = tuple(f"S{i}" for i in range(1, 8))
DEALER_TILT_MAX_DEG = 8.0


# --- the table's layout --------------------------------------------------------------------

# A horseshoe round the dealer: S2-S6 on a shallow arc across the far side of the table, S1
# and S7 at its two ends, nearer the dealer and turned towards the dealer. Seven zones of
# ZONE_MM need this shape to fit the 1.15 x 0.65 m a 4K camera sees at 0.30 mm/px; the sheet
# only asks that each zone be wholly in one camera's view.
ARC_RADIUS_MM = 3000.0
ARC_STEP_DEG = 4.3
END_DROP_MM = 265.0
END_INSET_MM = 60.0
END_TURN_DEG = 50.0
ZONE_MM = 205.0


def _horseshoe(size_mm: float) -> list[Zone]:
    """S1..S7 counter-clockwise seen from above (S1 at the right end, the dealer below)."""
    spots = {}
    for k in range(2, 7):
        psi = (4 - k) * ARC_STEP_DEG
        a = math.radians(psi)
        spots[k] = (ARC_RADIUS_MM * math.sin(a), -ARC_RADIUS_MM * math.cos(a), psi)
    x2, y2, _ = spots[2]
    x6, y6, _ = spots[6]
    spots[1] = (x2 - END_INSET_MM, y2 + END_DROP_MM, END_TURN_DEG)
    spots[7] = (x6 + END_INSET_MM, y6 + END_DROP_MM, -END_TURN_DEG)
    return [Zone(f"S{k}", spots[k][:2], spots[k][2], (size_mm, size_mm)) for k in range(1, 8)]


def _overlap_area(p, q) -> float:
    area, _ = cv2.intersectConvexConvex(np.asarray(p, np.float32), np.asarray(q, np.float32))
    return float(area)


@lru_cache(maxsize=16)
def seat_layout(view_mm: tuple[float, float], size_mm: float = ZONE_MM, border_mm: float = 8.0,
                label_mm: float = 40.0) -> tuple[tuple[Zone, ...], tuple[float, float]]:
    """The seven zones and the table point a camera of view_mm (width, height) centres on; a
    clear error when they do not fit that view."""
    zs = _horseshoe(size_mm)
    pts = np.vstack([z.corners_mm() for z in zs])
    lo, hi = pts.min(axis=0), pts.max(axis=0) + [0.0, label_mm]
    need = hi - lo + 2 * border_mm
    if need[0] > view_mm[0] or need[1] > view_mm[1]:
        raise ValueError(
            f"seven {size_mm:.0f} mm seat zones need {need[0]:.0f} x {need[1]:.0f} mm of table in view, "
            f"the camera sees {view_mm[0]:.0f} x {view_mm[1]:.0f} mm"
        )
    return tuple(zs), tuple(float(v) for v in (lo + hi) / 2)


# --- what lies in a seat -------------------------------------------------------------------

@dataclass
class PlacedCard:
    card: str | None  # None: a face-down card
    centre_mm: np.ndarray
    rotation_deg: float
    layer: int
    seat: str
    qr_text: str | None = None

    def corners_mm(self, z_mm: float = 0.0) -> np.ndarray:
        a = math.radians(self.rotation_deg)
        ux = np.array([math.cos(a), math.sin(a)])
        uy = np.array([-math.sin(a), math.cos(a)])
        w, h = CARD_W_MM / 2, CARD_H_MM / 2
        pts = [self.centre_mm + x * ux + y * uy for x, y in ((-w, -h), (w, -h), (w, h), (-w, h))]
        return np.array([[p[0], p[1], z_mm] for p in pts])

    def face_point_mm(self, x_mm: float, y_mm: float) -> np.ndarray:
        """A point given in face millimetres from the face's top-left, on the table."""
        a = math.radians(self.rotation_deg)
        ux = np.array([math.cos(a), math.sin(a)])
        uy = np.array([-math.sin(a), math.cos(a)])
        return self.centre_mm + (x_mm - CARD_W_MM / 2) * ux + (y_mm - CARD_H_MM / 2) * uy

    @property
    def z_mm(self) -> float:
        return -(self.layer + 1) * CARD_THICKNESS_MM


@dataclass
class SeatSpec:
    kind: str  # "empty" | "down" | "up"
    cards: list[str] = field(default_factory=list)  # face-up cards: front-left, front-right, back-left, back-right
    count: int = 0
    layout: str = "row"
    hand: bool = False
    row_overlap_mm: float | None = None
    pair_cover_frac: float | None = None


def parse_seat(spec) -> SeatSpec:
    """None / "empty" / [] ; {"down": n, "layout": "row"|"fan"} ; "folded" or {"folded": n} ;
    {"up": [front-left, front-right, back-left, back-right]} (optional "row_overlap_mm": how far
    the front pair lies over the back pair, "pair_cover_frac": how much of a pair's left card
    its right card covers) ; any of them with "hand": True (the dealer's hand over the seat)."""
    if spec is None or spec == "empty" or spec == [] or spec == {}:
        return SeatSpec("empty")
    if spec == "folded":
        return SeatSpec("down", count=4, layout="row")
    if not isinstance(spec, dict):
        raise ValueError(f"not a seat: {spec!r}")
    known = {"down", "layout", "folded", "up", "hand", "row_overlap_mm", "pair_cover_frac"}
    extra = set(spec) - known
    if extra:
        raise ValueError(f"unknown seat keys {sorted(extra)} in {spec!r}")
    hand = bool(spec.get("hand", False))
    if "up" in spec:
        cards = [canonical(c) for c in spec["up"]]
        if len(cards) != 4 or len(set(cards)) != 4:
            raise ValueError(f"a shown-down seat has four different cards, got {spec['up']!r}")
        return SeatSpec("up", cards=cards, hand=hand, row_overlap_mm=spec.get("row_overlap_mm"),
                        pair_cover_frac=spec.get("pair_cover_frac"))
    n = spec.get("down", spec.get("folded"))
    if n is None:
        if hand:
            return SeatSpec("empty", hand=True)
        raise ValueError(f"not a seat: {spec!r}")
    n = int(n)
    if not 1 <= n <= 4:
        raise ValueError(f"a seat holds 1 to 4 face-down cards, got {n}")
    layout = spec.get("layout", "row")
    if layout not in ("row", "fan"):
        raise ValueError(f"face-down cards lie in a row or a fan, got {layout!r}")
    return SeatSpec("down", count=n, layout=layout, hand=hand)


def _rot(v, deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    v = np.asarray(v, float)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _visible_fractions(cards: list[PlacedCard], px_per_mm: float = 1.0) -> list[float]:
    """Share of each card not covered by the cards above it (rasterised in the table plane)."""
    pts = np.vstack([c.corners_mm()[:, :2] for c in cards])
    lo = pts.min(axis=0) - 2
    size = np.ceil((pts.max(axis=0) + 2 - lo) * px_per_mm).astype(int)
    owner = np.full((size[1], size[0]), -1, np.int32)
    areas = []
    for i, c in enumerate(cards):
        poly = ((c.corners_mm()[:, :2] - lo) * px_per_mm).astype(np.int32)
        m = np.zeros(owner.shape, np.uint8)
        cv2.fillConvexPoly(m, poly, 1)
        areas.append(int(m.sum()))
        owner[m > 0] = i
    return [float((owner == i).sum()) / max(a, 1) for i, a in enumerate(areas)]


def _arrange(spec: SeatSpec, zone: Zone, rng: np.random.Generator, first_layer: int, style) -> list[PlacedCard]:
    """Cards of one seat on the table, lowest first. Placements that break the sheet's limits
    (a face-down card showing less than half its back, a card leaving its zone) are drawn again."""
    inside = zone.corners_mm(-3.0).astype(np.float32)
    for _attempt in range(200):
        placed: list[tuple[str | None, np.ndarray, float]] = []  # zone-local centre, rotation
        if spec.kind == "down":
            n = spec.count
            step = CARD_W_MM * rng.uniform(0.52, 0.66)
            fan_step_deg = rng.uniform(6.0, 12.0) if spec.layout == "fan" else 0.0
            for k in range(n):
                off = (k - (n - 1) / 2) * step
                lift = (abs(k - (n - 1) / 2) ** 2) * 4.0 if spec.layout == "fan" else 0.0
                placed.append((None, np.array([off, lift]), (k - (n - 1) / 2) * fan_step_deg + rng.normal(0, 1.2)))
        elif spec.kind == "up":
            row = spec.row_overlap_mm if spec.row_overlap_mm is not None else rng.uniform(0.0, 14.0)
            cover = spec.pair_cover_frac if spec.pair_cover_frac is not None else rng.uniform(0.08, 0.32)
            dx = CARD_W_MM * (1 - cover)
            dy = CARD_H_MM - row
            # back pair first (further from the dealer), each pair's right card over its left
            fl, fr, bl, br = spec.cards
            for card, (x, y) in ((bl, (-dx / 2, -dy / 2)), (br, (dx / 2, -dy / 2)),
                                 (fl, (-dx / 2, dy / 2)), (fr, (dx / 2, dy / 2))):
                flip = 180.0 if rng.random() < 0.5 else 0.0
                placed.append((card, np.array([x, y]) + rng.normal(0, 0.8, 2), flip + rng.normal(0, 1.0)))
        else:
            return []
        group_rot = rng.uniform(-20.0, 20.0)
        shift = rng.uniform(-12, 12, 2)
        cards = []
        for i, (card, local, rot) in enumerate(placed):
            p = _rot(local, group_rot) + shift
            centre = zone.to_table(p)[0]
            cards.append(PlacedCard(card, centre, zone.rotation_deg + group_rot + rot, first_layer + i, zone.name))
        ok = all(
            cv2.pointPolygonTest(inside, (float(x), float(y)), False) >= 0
            for c in cards for x, y in c.corners_mm()[:, :2]
        )
        if ok and spec.kind == "down":
            ok = min(_visible_fractions(cards)) >= 0.5
        if ok and spec.kind == "up" and spec.row_overlap_mm is None and spec.pair_cover_frac is None:
            # drawn layouts keep clear of cards that merely graze a code, where the truth
            # would hang on a fraction of a millimetre
            ok = not any(_grazed(c, cards, style) for c in cards)
        if ok:
            return cards
    raise ValueError(f"could not lay {spec} inside zone {zone.name}")


# --- what the camera should report ---------------------------------------------------------

CLEAR_MM = 1.0  # a code is in full view when nothing comes within this of its white square
COVER_MM = 2.0  # and covered when something reaches this far into it


def _grow(poly: np.ndarray, mm: float, centre=None) -> np.ndarray:
    """Grow (or shrink, mm < 0) a square-ish convex polygon about its centre, in table mm."""
    c = poly.mean(axis=0) if centre is None else centre
    out = []
    for p in poly:
        d = p - c
        n = np.linalg.norm(d)
        out.append(p + d / n * mm * math.sqrt(2))
    return np.array(out)


def _grazed(card: PlacedCard, cards: list[PlacedCard], style) -> bool:
    """Whether a card above comes near one of this card's codes without clearly covering it."""
    above = [o.corners_mm()[:, :2] for o in cards if o.layer > card.layer]
    for poly in code_polygons_mm(card, style):
        grown, shrunk = _grow(poly, CLEAR_MM + 1.0), _grow(poly, -COVER_MM - 1.0)
        for o in above:
            if _overlap_area(grown, o) > 0 and _overlap_area(shrunk, o) <= 0:
                return True
    return False


def code_polygons_mm(card: PlacedCard, style) -> list[np.ndarray]:
    """Each code's white square on the table (4, 2): upright one first."""
    out = []
    for x0, y0, x1, y1 in qr_square_rect_mm(style):
        out.append(np.array([card.face_point_mm(x, y) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]))
    return out


def _covered(code_px: np.ndarray, shrunk_px: np.ndarray, grown_px: np.ndarray, occluders_px, size) -> tuple[bool, bool]:
    """(in full view, ambiguous) of one code given the outlines that lie above it."""
    w, h = size
    if grown_px[:, 0].min() < 0 or grown_px[:, 1].min() < 0 or grown_px[:, 0].max() > w - 1 or grown_px[:, 1].max() > h - 1:
        inside_shrunk = not (shrunk_px[:, 0].min() < 0 or shrunk_px[:, 1].min() < 0 or shrunk_px[:, 0].max() > w - 1 or shrunk_px[:, 1].max() > h - 1)
        # partly out of the picture: not in full view; ambiguous only if merely the margin is out
        return False, inside_shrunk and code_px[:, 0].min() >= 0 and code_px[:, 1].min() >= 0 and code_px[:, 0].max() <= w - 1 and code_px[:, 1].max() <= h - 1
    clear = all(_overlap_area(grown_px, o) <= 0 for o in occluders_px)
    if clear:
        return True, False
    covered = any(_overlap_area(shrunk_px, o) > 0 for o in occluders_px)
    return False, not covered


def seat_truth(spec: SeatSpec, cards: list[PlacedCard], all_cards: list[PlacedCard], hands, camera: Camera, style):
    """The reading per the sheet, and the detail behind it."""
    detail = []
    if spec.hand:
        return None, detail
    if spec.kind == "empty":
        return [], detail
    reading = []
    for c in cards:
        if c.card is None:
            reading.append("??")
            detail.append({"card": None, "face": "down", "corners_px": camera.project(c.corners_mm(c.z_mm)).tolist()})
            continue
        occluders = [camera.project(o.corners_mm(o.z_mm)) for o in all_cards if o.layer > c.layer]
        occluders += [h.outline_px(camera) for h in hands]
        codes = []
        for poly in code_polygons_mm(c, style):
            z = np.full((4, 1), c.z_mm)
            px = camera.project(np.hstack([poly, z]))
            shr = camera.project(np.hstack([_grow(poly, -COVER_MM), z]))
            grw = camera.project(np.hstack([_grow(poly, CLEAR_MM), z]))
            in_view, ambiguous = _covered(px, shr, grw, occluders, camera.image_size)
            codes.append({"polygon_px": px.tolist(), "in_view": in_view, "ambiguous": ambiguous})
        # one code in full view names the card (ours always decode and agree); none: XX
        name = c.card if any(k["in_view"] for k in codes) else "XX"
        reading.append(name)
        detail.append({"card": c.card, "face": "up", "qr_text": c.qr_text, "named": name, "codes": codes,
                       "corners_px": camera.project(c.corners_mm(c.z_mm)).tolist()})
    return reading, detail


# --- the scene -----------------------------------------------------------------------------

def _hand_for(zone: Zone, rng) -> Hand:
    # the hand reaches into the seat from the dealer's side, fingers away from the dealer
    ux, uy = zone.axes()
    centre = np.asarray(zone.centre_mm) + uy * rng.uniform(-10, 25) + ux * rng.uniform(-20, 20)
    direction = math.degrees(math.atan2(-uy[1], -uy[0])) + rng.uniform(-15, 15)
    return Hand(rng, centre, direction, height_mm=rng.uniform(30, 70), length_mm=rng.uniform(210, 240),
                width_mm=rng.uniform(170, 195))


@dataclass
class SeatScene:
    zones: tuple[Zone, ...]
    view_centre_mm: tuple[float, float]
    specs: dict[str, SeatSpec]
    cards: list[PlacedCard]
    hands: list[Hand]
    hand_seats: list[str]
    felt_bgr: tuple[int, int, int]
    line_bgr: tuple[int, int, int]
    style_name: str


def build_seat_scene(seats: dict, deck_style_name: str, rng: np.random.Generator, view_mm,
                     table_rng: np.random.Generator) -> SeatScene:
    """rng draws what lies in the seats, table_rng the table itself (felt, lines), so the same
    seed gives the same table whatever is dealt on it."""
    style = deck_style(deck_style_name)
    unknown = set(seats) - set(SEAT_NAMES)
    if unknown:
        raise ValueError(f"unknown seats {sorted(unknown)} (seats are S1-S7)")
    zones, centre = seat_layout((round(view_mm[0], 3), round(view_mm[1], 3)))
    specs = {z.name: parse_seat(seats.get(z.name)) for z in zones}
    seen = [c for s in specs.values() for c in s.cards]
    if len(seen) != len(set(seen)):
        raise ValueError("a card shows in two seats: one deck holds each card once")
    cards, hands, hand_seats = [], [], []
    for z in zones:
        placed = _arrange(specs[z.name], z, rng, len(cards), style)
        for c in placed:
            if c.card is not None:
                c.qr_text = card_qr_text(c.card, style)
        cards += placed
        if specs[z.name].hand:
            hands.append(_hand_for(z, rng))
            hand_seats.append(z.name)
    felt = list(FELTS_BGR.values())[int(table_rng.integers(len(FELTS_BGR)))]
    line = LINES_BGR[int(table_rng.integers(len(LINES_BGR)))]
    return SeatScene(zones, centre, specs, cards, hands, hand_seats, felt, line, deck_style_name)


@lru_cache(maxsize=1)
def _card_shadow() -> np.ndarray:
    tex = np.zeros((88, 63, 4), np.float32)
    tex[2:-2, 2:-2, 3] = 0.25
    tex[..., 3] = cv2.GaussianBlur(tex[..., 3], (0, 0), 1.0)
    tex.setflags(write=False)
    return tex


def draw_seat_scene(scene: SeatScene, camera: Camera, ss: int, rng) -> np.ndarray:
    canvas = Canvas(camera, ss, felt_background(camera, ss, scene.felt_bgr, rng))
    for z in scene.zones:
        draw_zone(canvas, z, scene.line_bgr)
    for c in sorted(scene.cards, key=lambda c: c.layer):
        # a card's own soft shadow first, so the stack reads as paper on cloth
        sc = c.corners_mm(0.0)
        sc[:, :2] += 0.8
        canvas.quad(_card_shadow(), sc)
        tex = back_texture(scene.style_name) if c.card is None else face_texture(c.card, scene.style_name)
        canvas.quad(tex, c.corners_mm(c.z_mm))
    for h in scene.hands:
        h.draw(canvas)
    return canvas.result()


def scene_truth(scene: SeatScene, camera: Camera, seats=None) -> dict:
    style = deck_style(scene.style_name)
    out = {"seats": {}, "cards": {}, "zones": {}}
    for z in scene.zones:
        if seats is not None and z.name not in seats:
            continue
        mine = [c for c in scene.cards if c.seat == z.name]
        reading, detail = seat_truth(scene.specs[z.name], mine, scene.cards, scene.hands, camera, style)
        out["seats"][z.name] = reading
        out["cards"][z.name] = detail
        out["zones"][z.name] = camera.project(z.corners_mm()).tolist()
    return out


def _camera_for(view_centre, image_size, mm_per_px, rng, tilt_deg, roll_deg=0.0, distance_mm=2200.0,
                must_see=()):
    """A camera on the view centre; a random tilt (up to DEALER_TILT_MAX_DEG) is drawn again,
    smaller, until every zone in must_see is wholly in the picture; an explicit one must be so."""
    given = tilt_deg is not None
    tilt = float(tilt_deg) if given else float(rng.uniform(0.0, DEALER_TILT_MAX_DEG))
    for _ in range(40):
        cam = Camera(tuple(image_size), mm_per_px, tuple(view_centre), tilt, float(rng.uniform(0.0, 360.0)),
                     roll_deg, distance_mm)
        if all(_wholly_in(cam, z.corners_mm()) for z in must_see):
            return cam
        if not given:
            tilt *= 0.8
    raise ValueError(f"a camera tilted {tilt_deg}° does not see every seat zone wholly")


def _wholly_in(cam: Camera, pts_mm) -> bool:
    p = cam.project(pts_mm)
    w, h = cam.image_size
    return bool(p[:, 0].min() >= 0 and p[:, 1].min() >= 0 and p[:, 0].max() <= w - 1 and p[:, 1].max() <= h - 1)


def render_seat_scene(seats: dict, *, deck_style: str = "red_lattice", seed: int = 0, mm_per_px: float = 0.30,
                      image_size=(3840, 2160), tilt_deg: float | None = None, ss: int = 2,
                      distance_mm: float = 2200.0):
    """One overhead camera over the seven seats. Returns (image_bgr, truth); truth["seats"]
    maps each seat to what the camera should report ([] empty, "??" per face-down card, a
    face-up card's name or "XX", None when the dealer's hand covers it)."""
    rng, table_rng, camera_rng, noise_rng = (np.random.default_rng([seed, k]) for k in range(4))
    view_mm = (image_size[0] * mm_per_px, image_size[1] * mm_per_px)
    scene = build_seat_scene(seats, deck_style, rng, view_mm, table_rng)
    camera = _camera_for(scene.view_centre_mm, image_size, mm_per_px, camera_rng, tilt_deg, 0.0, distance_mm,
                         must_see=scene.zones)
    image = draw_seat_scene(scene, camera, ss, noise_rng)
    truth = scene_truth(scene, camera)
    truth.update(_camera_truth(camera))
    truth["deck_style"] = deck_style
    truth["hand_seats"] = scene.hand_seats
    return image, truth


def _camera_truth(camera: Camera) -> dict:
    return {"camera": {"image_size": list(camera.image_size), "mm_per_px": camera.mm_per_px,
                       "tilt_deg": camera.tilt_deg, "tilt_azimuth_deg": camera.tilt_azimuth_deg,
                       "roll_deg": camera.roll_deg, "distance_mm": camera.distance_mm,
                       "target_mm": list(camera.target_mm)}}


def render_two_camera_scene(seats: dict, *, deck_style: str = "red_lattice", seed: int = 0,
                            groups=(("S1", "S2"), ("S6", "S7")), mm_per_px: float = 0.30,
                            image_size=(1920, 1080), table_view_mm=(1152.0, 648.0), tilt_deg: float | None = None,
                            ss: int = 3):
    """The same table (laid out as for one 4K camera at 0.30 mm/px) seen by one 1080p camera
    per group of seats, each aimed at its group and turned along it. Returns a list of
    (image_bgr, truth), truth["seats_in_view"] naming the seats each camera sees wholly."""
    rng, table_rng, camera_rng, noise_rng = (np.random.default_rng([seed, k]) for k in range(4))
    scene = build_seat_scene(seats, deck_style, rng, table_view_mm, table_rng)
    by_name = {z.name: z for z in scene.zones}
    views = []
    for group in groups:
        zs = [by_name[n] for n in group]
        centre = np.mean([z.centre_mm for z in zs], axis=0)
        if len(zs) > 1:
            d = np.asarray(zs[-1].centre_mm) - np.asarray(zs[0].centre_mm)
            roll = math.degrees(math.atan2(d[1], d[0]))
            # a camera is mounted the way up that keeps the picture nearest upright
            roll = (roll + 90.0) % 180.0 - 90.0
        else:
            roll = zs[0].rotation_deg
        # the picture's x axis along the group, so that its long side takes the seats
        cam = _camera_for(centre, image_size, mm_per_px, camera_rng, tilt_deg, roll, must_see=zs)
        img = draw_seat_scene(scene, cam, ss, noise_rng)
        w, h = cam.image_size
        in_view = []
        for z in scene.zones:
            p = cam.project(z.corners_mm())
            if p[:, 0].min() >= 0 and p[:, 1].min() >= 0 and p[:, 0].max() <= w - 1 and p[:, 1].max() <= h - 1:
                in_view.append(z.name)
        missing = set(group) - set(in_view)
        if missing:
            raise ValueError(f"seats {sorted(missing)} do not fit one {w}x{h} camera at {mm_per_px} mm/px")
        truth = scene_truth(scene, cam, seats=in_view)
        truth.update(_camera_truth(cam))
        truth["seats_in_view"] = in_view
        truth["deck_style"] = deck_style
        truth["hand_seats"] = [s for s in scene.hand_seats if s in in_view]
        views.append((img, truth))
    return views
