"""Seven seats of a player-vs-player table under one 3840x2160 camera ("Seats" of the card-face
sheet): zones of at least 200 x 160 mm on the dealer's arc, S1 at the dealer's right and on
counter-clockwise, every zone read at no more than 0.33 mm per pixel."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .camera import Camera, apply_h, rect_mm, rot2
from .cards import (CARD_H_MM, CARD_W_MM, DECK_STYLES, PX_PER_MM, back_texture, face_texture, full_deck,
                    qr_text)
from .perturb import camera_pipeline
from .scene import (CHIP_BGR, FELTS_BGR, LINE_BGR, SKINS_BGR, card_to_table, draw_chip_stack, draw_hand, draw_label,
                    draw_outline, felt_layer, glare, hand_polygons, light_field, paste_flat, tint_poly)

FRAME = (3840, 2160)
SEATS = tuple(f"S{i}" for i in range(1, 8))
MAX_MM_PER_PX = 0.33
PHASES = ("dealing", "showdown")


def _poly32(p) -> np.ndarray:
    return np.asarray(p, np.float32).reshape(-1, 2)


def _overlap(a, b) -> float:
    return float(cv2.intersectConvexConvex(_poly32(a), _poly32(b))[0])


def _arc_zones(a: float, b: float, start: float, w: float, h: float, gap: float):
    """Walk the near half of an ellipse round the dealer from the dealer's right, laying a zone
    (tangent to the arc) each time the last one plus the gap is cleared."""
    out, last = [], None
    for t in np.linspace(np.pi - start, start, 900):
        x, y = a * np.cos(t), b * np.sin(t)
        ang = float(np.arctan2(-b * np.cos(t), a * np.sin(t)))
        r = rect_mm(x, y, w, h, ang)
        if last is None or _overlap(r, rect_mm(last[0], last[1], w + 2 * gap, h + 2 * gap, last[2])) <= 0:
            out.append((x, y, ang))
            last = (x, y, ang)
            if len(out) == 7:
                return out
    return None


@dataclass(frozen=True)
class SeatTable:
    cam: Camera
    zones: dict  # seat -> (cx, cy, angle) in table mm
    zone_size_mm: tuple[float, float]
    dealer_mm: tuple[float, float]
    felt_bgr: tuple
    line_bgr: tuple
    line_mm: float
    labelled: bool
    zone_mark: str  # "outline", "double" (two lines) or "panel" (a tinted panel with a thin line)


@lru_cache(maxsize=16)
def seat_table(table: int) -> SeatTable:
    """The table's camera, arc of zones, felt and printing; fixed by `table` alone."""
    for attempt in range(6):
        t = _try_seat_table(table, attempt)
        if t is not None:
            return t
    raise RuntimeError(f"seat table {table}: no camera fits the arc")


def _try_seat_table(table: int, attempt: int) -> SeatTable | None:
    rng = np.random.default_rng([table, 7071, attempt])
    w, h = float(rng.uniform(200, 206)), float(rng.uniform(160, 164))
    gap = float(rng.uniform(4, 9))
    arcs = []
    for _ in range(60):
        a, b, start = rng.uniform(440, 520), rng.uniform(240, 470), rng.uniform(-0.6, 0.0)
        z = _arc_zones(a, b, start, w, h, gap)
        if z is None:
            continue
        pts = np.concatenate([rect_mm(x, y, w, h, t) for x, y, t in z])
        ext = pts.max(0) - pts.min(0)
        fit = max(ext[0] / (FRAME[0] - 120), ext[1] / (FRAME[1] - 120))
        arcs.append((fit, z, (pts.max(0) + pts.min(0)) / 2, b))
        if fit < 0.296 and len(arcs) >= 3:
            break
    arcs.sort(key=lambda c: c[0])
    height = float(rng.uniform(1700, 2000))
    phi = rng.uniform(0, 2 * np.pi)
    off = rng.uniform(60, 180) * np.array([np.cos(phi), np.sin(phi)])
    roll = float(np.radians(rng.uniform(-2, 2)))
    want_mm_px = float(rng.uniform(0.292, 0.305))
    for fit, z, mid, b in arcs:
        zones = {s: (x - mid[0], y - mid[1], t) for s, (x, y, t) in zip(SEATS, z)}
        corners = np.concatenate([rect_mm(x, y, w, h, t) for x, y, t in zones.values()])
        for shrink in (1.0, 0.6, 0.3, 0.0):
            centre = np.array([off[0] * shrink, off[1] * shrink, -height])
            focal = np.linalg.norm(centre) / max(fit * 1.01, want_mm_px)
            for _ in range(8):
                cam = Camera.looking_at(centre, (0, 0, 0), focal, FRAME, roll)
                img = cam.project(np.column_stack([corners, np.zeros(len(corners))]))
                inside = bool((img.min(0) >= 30).all() and img[:, 0].max() <= FRAME[0] - 30
                              and img[:, 1].max() <= FRAME[1] - 30)
                if not inside:
                    break
                if cam.mm_per_px(corners).max() <= MAX_MM_PER_PX - 0.004:
                    break
                focal *= 1.01
            else:
                continue
            if inside:
                break
        if inside:
            break
    else:
        return None
    return SeatTable(cam=cam, zones=zones, zone_size_mm=(w, h), dealer_mm=(0.0, float(-mid[1] - 0.15 * b)),
                     felt_bgr=FELTS_BGR[(table * 3 + 1) % len(FELTS_BGR)], line_bgr=LINE_BGR[table % len(LINE_BGR)],
                     line_mm=float(rng.uniform(2, 4)), labelled=bool(table % 3 != 2),
                     zone_mark=("outline", "double", "panel")[table % 3])


def zone_poly(t: SeatTable, seat: str, grow_mm: float = 0.0) -> np.ndarray:
    x, y, a = t.zones[seat]
    return rect_mm(x, y, t.zone_size_mm[0] + 2 * grow_mm, t.zone_size_mm[1] + 2 * grow_mm, a)


@dataclass
class Card:
    card: str
    face_up: bool
    cx: float
    cy: float
    theta: float  # radians; 0: the card's top edge towards the dealer side of its zone
    serial: str | None = None
    margins: tuple = (4.0, 4.0, 4.0, 4.0)

    def poly(self) -> np.ndarray:
        return rect_mm(self.cx, self.cy, CARD_W_MM, CARD_H_MM, self.theta)

    def to_table(self) -> np.ndarray:
        return card_to_table(self.cx, self.cy, self.theta, PX_PER_MM, CARD_W_MM, CARD_H_MM)


def _local(t: SeatTable, seat: str, u: float, v: float, theta: float):
    x, y, a = t.zones[seat]
    p = rot2(a) @ np.array([u, v]) + np.array([x, y])
    return float(p[0]), float(p[1]), float(a + theta)


RASTER_PX_PER_MM = 2.0


def _raster(polys_mm, origin, size) -> np.ndarray:
    m = np.zeros(size, np.uint8)
    for p in polys_mm:
        q = np.round((np.asarray(p) - origin) * RASTER_PX_PER_MM * 4).astype(np.int32)
        cv2.fillPoly(m, [q], 1, cv2.LINE_8, shift=2)
    return m.astype(bool)


def visible_fractions(cards: list[Card], cover_mm: list[np.ndarray]) -> list[float]:
    """Share of each card's area that no later card (nor the hand, seen from the camera) hides."""
    if not cards:
        return []
    pts = np.concatenate([c.poly() for c in cards])
    origin = pts.min(0) - 2
    size = tuple((np.ceil((pts.max(0) - origin + 2) * RASTER_PX_PER_MM)).astype(int)[::-1])
    masks = [_raster([c.poly()], origin, size) for c in cards]
    hand = _raster(cover_mm, origin, size) if cover_mm else np.zeros(size, bool)
    out = []
    for i, m in enumerate(masks):
        above = hand.copy()
        for later in masks[i + 1:]:
            above |= later
        out.append(float((m & ~above).sum() / max(1, m.sum())))
    return out


def quiet_polys(c: Card, style: str) -> list[np.ndarray]:
    """The two codes' squares, quiet zone included, in table mm (top-left code first)."""
    _, _, quiet = face_texture(style, c.card, c.serial, c.margins)
    M = c.to_table()
    out = []
    for x0, y0, s in quiet:
        sq = np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]]) * PX_PER_MM
        out.append(apply_h(M, sq))
    return out


def _grow(poly: np.ndarray, mm: float) -> np.ndarray:
    c = poly.mean(0)
    d = poly - c
    return c + d * (1 + mm / np.linalg.norm(d, axis=1, keepdims=True))


def code_status(cards: list[Card], style: str, cam: Camera, hand_mask: np.ndarray | None) -> list[list[bool]]:
    """Per face-up card, per code: whole (no later card touches its quiet zone, the hand is not
    over it, and it lies inside the picture)."""
    out = []
    for i, c in enumerate(cards):
        if not c.face_up:
            out.append([])
            continue
        flags = []
        for q in quiet_polys(c, style):
            ok = all(_overlap(_grow(q, 0.3), later.poly()) <= 0 for later in cards[i + 1:])
            img = cam.project(np.column_stack([q, np.zeros(4)]))
            ok = ok and bool((img >= 0).all() and (img[:, 0] <= cam.width_px - 1).all() and (img[:, 1] <= cam.height_px - 1).all())
            if ok and hand_mask is not None:
                m = np.zeros(hand_mask.shape, np.uint8)
                cv2.fillConvexPoly(m, np.round(img).astype(np.int32), 1)
                ok = not bool((hand_mask & (m > 0)).any())
            flags.append(ok)
        out.append(flags)
    return out


def _serial(rng) -> str:
    return f"{int(rng.integers(1, 10))}-{int(rng.integers(0, 10000)):04d}"


def _dealt_layout(t: SeatTable, seat: str, n: int, rng, layout: str) -> list[tuple]:
    """(u, v, theta) of n face-down cards laid by the dealer, each on top of the one before."""
    for attempt in range(60):
        g = np.radians(rng.uniform(-20, 20)) * (1 - attempt / 80)
        shift = rng.uniform(-8, 8, 2)
        land = rng.random() < 0.25 and n <= 2
        span = CARD_H_MM if land else CARD_W_MM
        base = np.pi / 2 if land else 0.0
        poses = []
        if layout == "row" or n == 1:
            steps = rng.uniform(0.52, 0.52 + 0.4 / n, max(0, n - 1)) * span
            us = np.concatenate([[0], np.cumsum(steps)])
            us = us - us[-1] / 2
            for u in us:
                p = rot2(g) @ np.array([u, rng.uniform(-3, 3)]) + shift
                poses.append((p[0], p[1], g + base + np.radians(rng.uniform(-4, 4))))
        else:
            pivot = rng.uniform(110, 170)
            step = rng.uniform(34, 40) / pivot  # card centres ~ half a card apart along the arc
            for i in range(n):
                a = g + (i - (n - 1) / 2) * step
                p = rot2(g) @ np.array([0, pivot - 10]) + rot2(a) @ np.array([0, -pivot]) + shift
                poses.append((p[0], p[1], a))
        cards = [Card("AS", False, *_local(t, seat, *p)) for p in poses]
        if _fits(t, seat, cards) and min(visible_fractions(cards, [])) >= 0.5:
            return poses
    raise RuntimeError(f"no layout of {n} cards fits seat {seat}")


def _fits(t: SeatTable, seat: str, cards: list[Card]) -> bool:
    """Every card in its zone (give or take 12 mm) and clear of every other zone."""
    own = zone_poly(t, seat, 12.0)
    for c in cards:
        p = c.poly()
        if _overlap(p, own) < 0.999 * CARD_W_MM * CARD_H_MM:
            return False
        if any(_overlap(p, zone_poly(t, s)) > 0 for s in SEATS if s != seat):
            return False
    return True


def _shown_layout(t: SeatTable, seat: str, cards: list[str], style: str, rng, serials, margins):
    """Four face-up cards as two pairs, front pair towards the dealer; each card shows a whole code."""
    for attempt in range(80):
        land = rng.random() < 0.5
        L, D = (CARD_H_MM, CARD_W_MM) if land else (CARD_W_MM, CARD_H_MM)
        base = np.pi / 2 if land else 0.0
        g = np.radians(rng.uniform(-12, 12)) * (1 - attempt / 100)
        row_gap = rng.uniform(-0.28 * D, 6) if not land else rng.uniform(-0.1 * D, 8)
        if attempt > 50:
            row_gap = rng.uniform(0, 4)
        back_on_top = rng.random() < 0.5
        order = []
        for row, v in (("front", -(D + row_gap) / 2), ("back", (D + row_gap) / 2)):
            ov = rng.uniform(0.0, 0.32) * L
            right_on_top = rng.random() < 0.7
            uL, uR = -(L - ov) / 2, (L - ov) / 2
            pair = [(uL, v), (uR, v)] if right_on_top else [(uR, v), (uL, v)]
            order.append((row, pair))
        if back_on_top:
            order.reverse()
        shift = rng.uniform(-6, 6, 2)
        placed = []
        k = 0
        for _, pair in order:
            for u, v in pair:
                p = rot2(g) @ np.array([u, v]) + shift
                flip = np.pi if rng.random() < 0.5 else 0.0
                th = g + base + flip + np.radians(rng.uniform(-3, 3))
                placed.append(Card(cards[k], True, *_local(t, seat, p[0], p[1], th), serials[k], margins[k]))
                k += 1
        if not _fits(t, seat, placed):
            continue
        if all(any(f) for f in code_status(placed, style, t.cam, None)):
            return placed, ("landscape" if land else "portrait")
    raise RuntimeError(f"no shown layout fits seat {seat}")


def _margins(style: str, rng) -> tuple:
    lo, hi = DECK_STYLES[style].margin_mm
    m = rng.uniform(lo, hi, 4)
    return tuple(float(round(x * 4) / 4) for x in m)  # printers set in quarter millimetres


def _base_canvas(t: SeatTable, table: int) -> np.ndarray:
    w, h = FRAME
    canvas = felt_layer(w, h, t.felt_bgr, 5000 + table).copy()
    for s in SEATS:
        if t.zone_mark == "panel":
            tint_poly(canvas, t.cam, zone_poly(t, s), 1.18 if sum(t.felt_bgr) < 1.0 else 0.85)
            draw_outline(canvas, t.cam, zone_poly(t, s), t.line_bgr, 1.2)
        else:
            draw_outline(canvas, t.cam, zone_poly(t, s), t.line_bgr, t.line_mm)
        if t.zone_mark == "double":
            draw_outline(canvas, t.cam, zone_poly(t, s, -3.0 - t.line_mm), t.line_bgr, 1.0)
        if t.labelled:
            x, y, a = t.zones[s]
            at = rot2(a) @ np.array([0, t.zone_size_mm[1] / 2 + 14]) + [x, y]
            if all(_overlap(rect_mm(*at, 30, 16, 0), zone_poly(t, o, 4)) <= 0 for o in SEATS):
                draw_label(canvas, t.cam, s, at, t.line_bgr, 11.0)
    return canvas


def _zone_truth(t: SeatTable, s: str) -> dict:
    poly = zone_poly(t, s)
    img = t.cam.project(np.column_stack([poly, np.zeros(4)]))
    u, v = np.meshgrid(np.linspace(0, 1, 5), np.linspace(0, 1, 5))
    grid = (poly[0] + (poly[1] - poly[0]) * u.reshape(-1, 1) + (poly[3] - poly[0]) * v.reshape(-1, 1))
    return {"corners_px": img.round(2).tolist(), "corners_mm": poly.round(2).tolist(),
            "size_mm": [round(t.zone_size_mm[0], 1), round(t.zone_size_mm[1], 1)],
            "max_mm_per_px": round(float(t.cam.mm_per_px(grid).max()), 4)}


def _pot(t: SeatTable, rng) -> list[tuple]:
    """Chip stacks in the pot, inside the arc and well clear of every seat zone."""
    stacks = []
    centres = np.array([t.zones[s][:2] for s in SEATS])
    mid = centres.mean(0)
    grown = [zone_poly(t, s, 45.0).astype(np.float32) for s in SEATS]
    for _ in range(int(rng.integers(2, 7))):
        for _ in range(20):
            p = mid + rng.uniform(-220, 220, 2) * [1.0, 0.6]
            if all(cv2.pointPolygonTest(g, (float(p[0]), float(p[1])), False) < 0 for g in grown) and \
                    all(np.hypot(*(p - q[0])) > 42 for q in stacks):
                stacks.append((p, int(rng.integers(1, 9)), CHIP_BGR[int(rng.integers(len(CHIP_BGR)))]))
                break
    return stacks


def _compose(t: SeatTable, table: int, style: str, seat_cards: dict, hand, rng, perturbation: str, meta: dict):
    canvas = _base_canvas(t, table)
    w, h = FRAME
    if meta.get("phase") in PHASES and rng.random() < 0.6:
        pot = _pot(t, rng)
        for p, n, colour in pot:
            draw_chip_stack(canvas, t.cam, p, n, colour, rng)
        meta = {**meta, "pot_stacks": len(pot)}
    coverage = np.zeros((h, w), np.float32)
    for s in SEATS:
        for c in seat_cards.get(s, []):
            if c.face_up:
                tex, alpha, _ = face_texture(style, c.card, c.serial, c.margins)
            else:
                tex, alpha = back_texture(style)
            paste_flat(canvas, t.cam, tex, alpha, c.to_table(), z_mm=0.0, coverage=coverage)
    hand_mask, hand_seen_mm = None, []
    if hand is not None:
        pieces, z, colour = hand
        hand_mask = draw_hand(canvas, t.cam, pieces, z, colour, rng)
        Hz, H0inv = t.cam.homography(z), np.linalg.inv(t.cam.homography(0.0))
        hand_seen_mm = [apply_h(H0inv, apply_h(Hz, p)) for p in pieces]
    canvas *= light_field(w, h, rng)[..., None]
    if meta.get("phase") in PHASES and rng.random() < 0.4:
        if hand_mask is not None:
            coverage[hand_mask] = 0.0
        canvas += glare(coverage, rng)[..., None]
        meta = {**meta, "glare": True}
    img = camera_pipeline(canvas, perturbation, rng)
    truth = {"kind": "seats", "style": style, "table": table, "perturbation": perturbation,
             "camera": t.cam.truth(), "felt_bgr": list(t.felt_bgr), "zones": {}, **meta}
    for s in SEATS:
        z = _zone_truth(t, s)
        cards = seat_cards.get(s, [])
        status = code_status(cards, style, t.cam, hand_mask)
        vis = visible_fractions(cards, hand_seen_mm)
        ct = []
        for c, st, vf in zip(cards, status, vis):
            d = {"card": c.card, "face_up": c.face_up,
                 "corners_px": t.cam.project(np.column_stack([c.poly(), np.zeros(4)])).round(2).tolist(),
                 "visible_fraction": round(vf, 4)}
            if c.face_up:
                d["qr_text"] = qr_text(c.card, c.serial)
                d["codes_whole"] = st
                d["code_corners_px"] = [t.cam.project(np.column_stack([q, np.zeros(4)])).round(2).tolist()
                                        for q in quiet_polys(c, style)]
                d["reads_as"] = c.card if any(st) else "XX"
            ct.append(d)
        z["cards"] = ct
        z.update(seat_cards.get("_meta", {}).get(s, {}))
        truth["zones"][s] = z
    return img, truth, hand_mask


def _expected(cards: list[dict]) -> list:
    if not cards:
        return []
    if not cards[0]["face_up"]:
        return ["??"] * len(cards)
    return sorted(c["reads_as"] for c in cards)


def _finish_truth(truth: dict, covered: str | None) -> None:
    for s, z in truth["zones"].items():
        if s == covered:
            z["state"] = f"covered (hand over {z['state']})"
            z["expected"] = None
        else:
            z["expected"] = _expected(z["cards"])


def _hand_for(t: SeatTable, seat: str, rng):
    """A hand over `seat`, reaching out from the dealer, clear of every other zone as seen."""
    x, y, _ = t.zones[seat]
    toward = np.arctan2(y - t.dealer_mm[1], x - t.dealer_mm[0])
    tone = list(SKINS_BGR)[int(rng.integers(len(SKINS_BGR)))]
    z = -float(rng.uniform(30, 90))
    Hz, H0inv = t.cam.homography(z), np.linalg.inv(t.cam.homography(0.0))
    for forearm in (220, 150, 90, 40):
        for _ in range(6):
            c = np.array([x, y]) + rng.uniform(-20, 20, 2)
            pieces = hand_polygons(c, toward + rng.uniform(-0.3, 0.3), rng.uniform(0.95, 1.1),
                                   rng.uniform(0.05, 0.2), forearm)
            seen = [apply_h(H0inv, apply_h(Hz, p)) for p in pieces]
            clear = all(_overlap(p, zone_poly(t, o)) <= 0 for p in seen for o in SEATS if o != seat)
            if clear:
                return pieces, z, SKINS_BGR[tone], tone
    return None


def render_seats_frame(style: str, seed: int, perturbation: str = "sharp", table: int = 0, phase: str | None = None):
    if style not in DECK_STYLES:
        raise ValueError(f"unknown deck style {style!r}; one of {', '.join(DECK_STYLES)}")
    t = seat_table(table)
    rng = np.random.default_rng([table, seed, 31337, sorted(DECK_STYLES).index(style)])
    if phase is None:
        phase = PHASES[int(rng.random() < 0.45)]
    phase = {"deal": "dealing", "dealt": "dealing", "shown": "showdown"}.get(phase, phase)
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}; one of {', '.join(PHASES)}")
    n_players = int(rng.integers(3, 8))
    players = sorted(rng.choice(7, n_players, replace=False).tolist())
    deck = full_deck()
    rng.shuffle(deck)
    serialized = DECK_STYLES[style].serialized
    seat_cards: dict = {"_meta": {}}
    if phase == "dealing":
        dealt_total = int(rng.integers(0, 4 * n_players + 1))
        for k, p in enumerate(players):
            s = SEATS[p]
            n = dealt_total // n_players + (1 if k < dealt_total % n_players else 0)
            if n == 0:
                seat_cards["_meta"][s] = {"state": "empty", "layout": None}
                continue
            layout = "fan" if rng.random() < 0.4 and n > 1 else "row"
            poses = _dealt_layout(t, s, n, rng, layout)
            seat_cards[s] = [Card(deck.pop(), False, *_local(t, s, *p)) for p in poses]
            seat_cards["_meta"][s] = {"state": "dealt", "layout": layout}
    else:
        for p in players:
            s = SEATS[p]
            if rng.random() < 0.25:
                layout = "fan" if rng.random() < 0.4 else "row"
                poses = _dealt_layout(t, s, 4, rng, layout)
                seat_cards[s] = [Card(deck.pop(), False, *_local(t, s, *q)) for q in poses]
                seat_cards["_meta"][s] = {"state": "folded", "layout": layout}
                continue
            names = [deck.pop() for _ in range(4)]
            serials = [_serial(rng) if serialized else None for _ in names]
            margins = [_margins(style, rng) for _ in names]
            cards, layout = _shown_layout(t, s, names, style, rng, serials, margins)
            seat_cards[s] = cards
            seat_cards["_meta"][s] = {"state": "shown", "layout": layout}
    for s in SEATS:
        seat_cards["_meta"].setdefault(s, {"state": "empty", "layout": None})
    hand, covered, tone = None, None, None
    if rng.random() < 0.3:
        seat = SEATS[int(rng.integers(7))]
        got = _hand_for(t, seat, rng)
        if got is not None:
            pieces, z, colour, tone = got
            hand, covered = (pieces, z, colour), seat
    meta = {"phase": phase, "players": [SEATS[p] for p in players], "hand": None if covered is None else
            {"over": covered, "tone": tone}}
    img, truth, _ = _compose(t, table, style, seat_cards, hand, rng, perturbation, meta)
    _finish_truth(truth, covered)
    return img, truth


def render_seats_calibration(style: str, table: int = 0) -> dict:
    """The table's calibration stills: the empty table, and one face-down card of the deck in
    each seat zone."""
    if style not in DECK_STYLES:
        raise ValueError(f"unknown deck style {style!r}; one of {', '.join(DECK_STYLES)}")
    t = seat_table(table)
    out = {}
    for name in ("empty_table", "one_back_per_seat"):
        rng = np.random.default_rng([table, 4242, len(name)])
        seat_cards: dict = {"_meta": {}}
        for s in SEATS:
            if name == "one_back_per_seat":
                x, y, th = _local(t, s, *rng.uniform(-10, 10, 2), np.radians(rng.uniform(-8, 8)))
                seat_cards[s] = [Card("AS", False, x, y, th)]
                seat_cards["_meta"][s] = {"state": "dealt", "layout": "row"}
            else:
                seat_cards["_meta"][s] = {"state": "empty", "layout": None}
        img, truth, _ = _compose(t, table, style, seat_cards, None, rng, "sharp", {"phase": "calibration", "still": name})
        _finish_truth(truth, None)
        for z in truth["zones"].values():
            for c in z["cards"]:
                c["card"] = "??"  # a back says nothing of the card
        out[name] = (img, truth)
    return out
