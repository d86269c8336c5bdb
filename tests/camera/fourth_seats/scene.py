"""What lies on the table in one round: cards per seat (in table mm) and the dealer's hand."""

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .styles import CARD_H_MM, CARD_W_MM, DECK_STYLES, QR_MM, QZ_MM
from .table import OVERHANG_MM, SEATS, Table, Zone, rng_for
from .textures import code_squares_mm

RANKS = "A23456789TJQK"
SUITS = "SHDC"
HW, HH = CARD_W_MM / 2, CARD_H_MM / 2
CARD_AREA = CARD_W_MM * CARD_H_MM


@dataclass
class Placed:
    seat: str
    card: str
    text: str
    face_up: bool
    c: np.ndarray  # centre, table mm
    ang: float  # direction of the card's own x axis (its top edge, left to right), table frame

    def rot(self):
        c, s = math.cos(self.ang), math.sin(self.ang)
        return np.array([[c, -s], [s, c]])

    def local_to_table(self, pts):
        """Card-local mm, origin at the card's top-left corner -> table mm."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2) - (HW, HH)
        return pts @ self.rot().T + self.c

    def corners(self, grow=0.0):
        g = grow
        return self.local_to_table([[-g, -g], [CARD_W_MM + g, -g], [CARD_W_MM + g, CARD_H_MM + g], [-g, CARD_H_MM + g]])


@dataclass
class Hand:
    parts: list  # list of (kind, polygon table mm): kind "skin" or "sleeve"
    fingers: list  # finger polygons (for the creases)
    skin: tuple
    sleeve: tuple
    cuff: tuple | None
    glove: str | None
    seat: str


@dataclass
class Round:
    phase: str
    seats: dict  # name -> {"state": str, "cards": [Placed, ...] bottom first}
    hand: Hand | None = None
    notes: dict = field(default_factory=dict)


def _area(p, q):
    a, _ = cv2.intersectConvexConvex(np.asarray(p, np.float32), np.asarray(q, np.float32))
    return float(a)


def _inside(poly, pts):
    poly = np.asarray(poly, np.float32)
    return all(cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0 for x, y in pts)


def _place(zone: Zone, a, b, rel):
    """A card centred at zone-local (a, b), turned `rel` radians from the zone's axes."""
    return zone.to_table(a, b), zone.angle + rel


def _face_down_layout(rng, zone, k, folded):
    """(a, b, rel) of k face-down cards: a row or a fan, each covering at most half of the
    one before (checked by the caller)."""
    kind = "row" if rng.random() < 0.55 else "fan"
    lim = math.radians(20)
    g = math.radians(rng.uniform(-12, 12))
    off = (rng.uniform(-8, 8), rng.uniform(-12, 12) - (rng.uniform(0, 18) if folded else 0))
    out = []
    if kind == "row":
        step = rng.uniform(33, 50 if k <= 3 else 42)
        sgn = rng.choice([-1, 1])
        jit = 6 if folded else 3
        for i in range(k):
            t = (i - (k - 1) / 2) * step * sgn
            a = off[0] + t * math.cos(g) + rng.uniform(-jit, jit) * 0.5
            b = off[1] + t * math.sin(g) + rng.uniform(-jit, jit)
            rel = float(np.clip(g + math.radians(rng.uniform(-jit, jit)), -lim, lim))
            out.append((a, b, rel))
    else:
        alpha = math.radians(rng.uniform(6, 12 if k <= 3 else 11))
        rf = rng.uniform(36, 56) / alpha
        piv_sgn = rng.choice([-1, 1])  # pivot on the players' side or the dealer's
        sgn = rng.choice([-1, 1])
        g = float(np.clip(g, -lim + (k - 1) * alpha / 2, lim - (k - 1) * alpha / 2)) if k > 1 else g
        for i in range(k):
            th = g + (i - (k - 1) / 2) * alpha * sgn
            a = off[0] + rf * math.sin(th)
            b = piv_sgn * rf * (1 - math.cos(th))
            rel = float(np.clip(th * piv_sgn, -lim, lim))
            out.append((a, b, rel))
        b_mean = np.mean([o[1] for o in out])
        out = [(a, b - b_mean + off[1], r) for a, b, r in out]
        kind = "fan"
    return kind, out


def _showdown_layout(rng, zone):
    """Two pairs: front (nearer the dealer, b < 0) and back; right card over the left one."""
    g = math.radians(rng.uniform(-10, 10))
    gap = rng.uniform(-4, 10) if rng.random() < 0.85 else rng.uniform(-9, -4)
    off = (rng.uniform(-8, 8), rng.uniform(-6, 6))
    rows = []
    for _row, bsgn in (("front", -1), ("back", 1)):
        cov = rng.uniform(0, 19) if rng.random() < 0.85 else rng.uniform(-6, 0)  # right card over the left
        dx = CARD_W_MM - cov
        shift = rng.uniform(-8, 8)
        pair = []
        for side in (-1, 1):
            a0 = shift + side * dx / 2
            b0 = bsgn * (HH + gap / 2)
            a = a0 * math.cos(g) - b0 * math.sin(g) + off[0]
            b = a0 * math.sin(g) + b0 * math.cos(g) + off[1]
            pair.append((a, b, g + math.radians(rng.uniform(-2.5, 2.5))))
        rows.append(pair)
    order = rows if rng.random() < 0.5 else rows[::-1]  # which pair lies on top where they meet
    return [c for pair in order for c in pair], gap


def _code_status(style, cards):
    """For every face-up card: per code, 'clear' | 'hidden' | 'ambiguous' given the cards above it."""
    squares = code_squares_mm(style)
    res = []
    for i, c in enumerate(cards):
        if not c.face_up:
            res.append(None)
            continue
        st = []
        for sq in squares:
            sq = np.array(sq)
            mid = sq.mean(0)
            grow = (sq - mid) * (1 + 2 * (QZ_MM - 0.25) / QR_MM) + mid  # symbol plus most of its quiet zone
            sym_t, qz_t = c.local_to_table(sq), c.local_to_table(grow)
            a_qz = sum(_area(qz_t, o.corners()) for o in cards[i + 1:])
            a_sym = sum(_area(sym_t, o.corners()) for o in cards[i + 1:])
            if a_qz < 1e-6:
                st.append("clear")
            elif a_sym >= 0.25 * QR_MM * QR_MM:
                st.append("hidden")
            else:
                st.append("ambiguous")
        res.append(st)
    return res


def _valid_face_down(cards):
    for i, c in enumerate(cards):
        above = sum(_area(c.corners(), o.corners()) for o in cards[i + 1:])
        if above > 0.47 * CARD_AREA:
            return False
        if i + 1 < len(cards) and _area(c.corners(), cards[i + 1].corners()) > 0.5 * CARD_AREA:
            return False
    return True


def _fits(table: Table, zone: Zone, cards, others):
    room = zone.corners_mm(OVERHANG_MM - 3)
    for c in cards:
        if not _inside(room, c.corners()):
            return False
        for z in table.zones:
            if z.name != zone.name and _area(c.corners(), z.corners_mm(3.0)) > 0:
                return False
        for o in others:
            if _area(c.corners(3.0), o.corners()) > 0:
                return False
    return True


def _deal_cards(rng, deck, style, serialized):
    out = []
    for _ in range(4):
        card = deck.pop()
        text = f"{card}/{rng.integers(1, 9)}-{rng.integers(0, 10000):04d}" if serialized else card
        out.append((card, text))
    return out


def seat_cards(rng, table, style, zone, ids, mode, others):
    """Place the cards `ids` ([(card, text)]) in `zone`; mode 'dealt' | 'folded' | 'shown' | 'single'."""
    k = len(ids)
    for attempt in range(60):
        if mode == "shown":
            lay, _ = _showdown_layout(rng, zone)
            up = True
        elif mode == "single":
            lay = [(rng.uniform(-10, 10), rng.uniform(-12, 12), math.radians(rng.uniform(-12, 12)))]
            up = False
        else:
            _, lay = _face_down_layout(rng, zone, k, mode == "folded")
            up = False
        if attempt > 40:  # shrink towards a tidy layout
            lay = [(a * 0.9, b * 0.9, r * 0.5) for a, b, r in lay]
        cards = []
        for (card, text), (a, b, rel) in zip(ids, lay, strict=True):
            flip = math.pi if rng.random() < 0.5 else 0.0
            c, ang = _place(zone, a, b, rel + flip)
            cards.append(Placed(zone.name, card, text, up, c, ang))
        if not _fits(table, zone, cards, others):
            continue
        if up:
            st = _code_status(style, cards)
            if any("clear" not in s and "ambiguous" in s for s in st):
                continue
        elif not _valid_face_down(cards):
            continue
        return cards
    raise RuntimeError(f"could not lay out {k} cards in {zone.name}")  # pragma: no cover


SKINS = {
    "light": (168, 190, 228), "fair": (150, 178, 220), "medium": (118, 156, 200), "tan": (92, 130, 180),
    "brown": (66, 96, 146), "dark": (44, 62, 98),
}
GLOVES = {"black_glove": (38, 36, 35), "white_glove": (228, 230, 232)}
SLEEVES = ((32, 30, 30), (226, 228, 230), (40, 40, 140), (70, 40, 24), (40, 70, 30), (110, 110, 112))


def _capsule(p0, p1, r, n=10):
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    a = math.atan2(d[1], d[0])
    pts = [p1 + r * np.array([math.cos(t), math.sin(t)]) for t in np.linspace(a - math.pi / 2, a + math.pi / 2, n)]
    pts += [p0 + r * np.array([math.cos(t), math.sin(t)]) for t in np.linspace(a + math.pi / 2, a + 3 * math.pi / 2, n)]
    return np.array(pts)


def _ellipse(c, ax, ay, n=40):
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([c[0] + ax * np.cos(t), c[1] + ay * np.sin(t)], 1)


def make_hand(rng, target, seat):
    """A dealer's hand reaching from the dealer (table origin) to `target` (table mm)."""
    s = rng.uniform(0.95, 1.1) * rng.uniform(1.04, 1.09)  # hand size, times magnification (it is raised)
    shoulder = np.array([rng.uniform(-220, 220), rng.uniform(-480, -360)])  # the dealer stands behind the origin
    to = np.asarray(target, float) - shoulder
    direction = math.atan2(to[1], to[0]) + math.radians(rng.uniform(-14, 14))
    reach = float(np.linalg.norm(to))
    side = rng.choice([-1, 1])  # left or right hand
    curl = rng.uniform(0.55, 1.0)
    parts_local, fingers_local = [], []
    palm = _ellipse((0, 50 * s), 41 * s, 50 * s)
    parts_local.append(("skin", palm))
    spread = rng.uniform(0.0, 6.0)
    for j, (x, ln) in enumerate(((-27, 58), (-9, 72), (9, 68), (27, 54))):
        ang = math.radians((j - 1.5) * spread)
        base = np.array([x * s * 0.95, 86 * s])
        tip = base + ln * s * curl * np.array([math.sin(ang), math.cos(ang)])
        f = _capsule(base, tip, 8.8 * s if j in (1, 2) else 8.0 * s)
        parts_local.append(("skin", f))
        fingers_local.append(f)
    ta = math.radians(rng.uniform(35, 70)) * side
    tb = np.array([34 * s * side, 38 * s])
    tt = tb + 55 * s * curl * np.array([math.sin(ta), math.cos(ta)])
    th = _capsule(tb, tt, 10.5 * s)
    parts_local.append(("skin", th))
    fingers_local.append(th)
    sw0, sw1 = rng.uniform(46, 56) * s, rng.uniform(62, 75)
    sleeve = np.array([[-sw0, 10], [sw0, 10], [sw1, -reach], [-sw1, -reach]])
    parts_local.append(("sleeve", sleeve))
    # local +y points from the wrist to the fingers; map to table
    ca, sa = math.cos(direction - math.pi / 2), math.sin(direction - math.pi / 2)
    Rm = np.array([[ca, -sa], [sa, ca]])
    wrist = np.asarray(target, float) - np.array([math.cos(direction), math.sin(direction)]) * rng.uniform(35, 70)

    def tf(p):
        p = np.asarray(p, float) * np.array([side, 1.0])  # mirror a left hand
        return p @ Rm.T + wrist

    kind = rng.choice(list(SKINS) + list(GLOVES), p=[0.13] * 6 + [0.11, 0.11])
    skin = SKINS.get(kind) or GLOVES[kind]
    skin = tuple(float(np.clip(c * rng.uniform(0.93, 1.07), 0, 255)) for c in skin)
    sleeve_c = SLEEVES[rng.integers(len(SLEEVES))]
    cuff = (236, 238, 240) if rng.random() < 0.4 else None
    return Hand([(k, tf(p)) for k, p in parts_local], [tf(f) for f in fingers_local], skin, sleeve_c, cuff,
                kind if kind in GLOVES else None, seat)


def _hand_touches(hand, zone, cards, grow):
    polys = [zone.corners_mm(grow)] + [c.corners(grow) for c in cards]
    for _, p in hand.parts:
        hull = cv2.convexHull(np.asarray(p, np.float32))
        for q in polys:
            if _area(hull.reshape(-1, 2), q) > 0:
                return True
    return False


def make_round(style: str, seed: int, table: Table, phase: str | None) -> Round:
    st = DECK_STYLES[style]
    rng = rng_for("round", style, int(seed), table.index)
    if phase is None:
        phase = "deal" if rng.random() < 0.5 else "showdown"
    deck = [r + s for r in RANKS for s in SUITS]
    rng.shuffle(deck)
    played = [z.name for z in table.zones if rng.random() < rng.uniform(0.45, 0.95)]
    modes = {}
    if phase == "deal":
        total = int(rng.integers(0, 4 * len(played) + 1)) if played else 0
        if played and rng.random() < 0.35:
            total = 4 * len(played)
        for i, name in enumerate(played):
            n = total // len(played) + (1 if i < total % len(played) else 0)
            if n:
                modes[name] = ("dealt", n)
    else:
        for name in played:
            r = rng.random()
            modes[name] = ("shown", 4) if r < 0.62 else (("folded", 4) if r < 0.82 else ("dealt", 4))
    seats = {}
    placed_all = []
    for z in table.zones:
        if z.name not in modes:
            seats[z.name] = {"state": "empty", "cards": []}
            continue
        mode, n = modes[z.name]
        ids = _deal_cards(rng, deck, style, st["serialized"])[:n]
        cards = seat_cards(rng, table, style, z, ids, mode, placed_all)
        placed_all += cards
        seats[z.name] = {"state": mode, "cards": cards}
    rnd = Round(phase, seats)
    if rng.random() < 0.3:
        zone = table.zones[int(rng.integers(7))]
        cards = seats[zone.name]["cards"]
        for _ in range(25):
            ref = np.mean([c.c for c in cards], 0) if cards else zone.centre
            target = ref + rng.uniform(-25, 25, 2)
            hand = make_hand(rng, target, zone.name)
            if not any(_hand_touches(hand, z, seats[z.name]["cards"], 14.0)
                       for z in table.zones if z.name != zone.name):
                rnd.hand = hand
                break
    return rnd


def calibration_round(style: str, table: Table, with_backs: bool) -> Round:
    st = DECK_STYLES[style]
    rng = rng_for("calibration", style, table.index)
    deck = [r + s for r in RANKS for s in SUITS]
    rng.shuffle(deck)
    seats, placed_all = {}, []
    for z in table.zones:
        if not with_backs:
            seats[z.name] = {"state": "empty", "cards": []}
            continue
        ids = _deal_cards(rng, deck, style, st["serialized"])[:1]
        cards = seat_cards(rng, table, style, z, ids, "single", placed_all)
        placed_all += cards
        seats[z.name] = {"state": "dealt", "cards": cards}
    return Round("calibration", seats)


__all__ = ["Placed", "Hand", "Round", "make_round", "calibration_round", "SEATS"]
