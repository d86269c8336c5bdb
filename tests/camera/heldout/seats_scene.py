"""Si Zhi Dao seat frames: seven seat zones round the dealer's arc in one 3840x2160 frame,
each zone at least 200 x 160 mm at no more than 0.33 mm per pixel; cards dealt face down in a
row or a fan, shown down face up as two pairs, folded, empty, or under the dealer's hand."""

from __future__ import annotations

import cv2
import numpy as np

from . import perturb
from .camera_model import Camera
from .deck_styles import (
    CARD_H_MM,
    CARD_W_MM,
    DECK_STYLES,
    PX_PER_MM,
    RANKS,
    SUITS,
    DeckStyle,
    back_texture,
    code_quads_mm,
    face_texture,
    qr_text,
)
from .hand import GLOVE, SKIN_TONES, draw_hand, hand_mask

FRAME_PX = (3840, 2160)
SEATS = [f"S{i}" for i in range(1, 8)]
#: a card's face is drawn with x right and y down; the table's y runs the other way as the
#: camera sees it (the camera's picture y is the table's -y), so the face's y is turned over
#: on its way to the table, or every card would be seen as its mirror image
FACE_TO_TABLE = np.array([1.0, -1.0])
CARD_CORNERS = np.array([[0, 0], [CARD_W_MM, 0], [CARD_W_MM, CARD_H_MM], [0, CARD_H_MM]])


def _rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


class Table:
    """One table as its camera sees it: the camera, the felt, the seat zones (world mm)."""

    def __init__(self, style: DeckStyle, table: int):
        rng = np.random.default_rng([table, 23, sum(map(ord, style.name))])
        self.felt = style.felts[table % len(style.felts)]
        for _ in range(2000):
            zw, zh = rng.uniform(200, 206), rng.uniform(160, 164)
            # the dealer's arc: half an ellipse, wider than deep, seats spaced along it
            ax, ay = rng.uniform(420, 520), rng.uniform(160, 500)
            th = np.linspace(-np.pi * 1.5, np.pi * 0.5, 3000)
            curve = np.stack([ax * np.cos(th), ay * np.sin(th)], 1)
            arclen = np.r_[0, np.cumsum(np.linalg.norm(np.diff(curve, axis=0), axis=1))]
            step = zw + rng.uniform(4, 45)
            mid_len = arclen[np.argmin(np.abs(th + np.pi / 2))]
            self.zones = {}
            for i, seat in enumerate(SEATS):
                # seat 1 at the dealer's right (west, facing the players), counter-clockwise
                j = int(np.searchsorted(arclen, mid_len + (i - 3) * step))
                j = min(max(j, 1), len(th) - 2)
                centre = curve[j]
                tangent = curve[j + 1] - curve[j - 1]
                rot = float(np.arctan2(tangent[1], tangent[0]))
                local = np.array([[-zw / 2, -zh / 2], [zw / 2, -zh / 2], [zw / 2, zh / 2],
                                  [-zw / 2, zh / 2]])
                self.zones[seat] = {"centre": centre, "rot": rot, "size": (zw, zh),
                                    "corners": local @ _rot(rot).T + centre}
            quads = [z["corners"].astype(np.float32) for z in self.zones.values()]
            if any(cv2.intersectConvexConvex(quads[i], quads[i + 1])[0] > 0 for i in range(6)):
                continue
            pts = np.vstack([z["corners"] for z in self.zones.values()])
            mid = (pts.min(0) + pts.max(0)) / 2
            mm_px = rng.uniform(0.30, 0.33)
            off = rng.uniform(50, 350)
            oa = rng.uniform(0, 2 * np.pi)
            roll = rng.choice([0.0, np.pi]) + rng.uniform(-0.05, 0.05)
            cam = Camera.looking_at(mid + rng.uniform(-5, 5, 2), (off * np.cos(oa), off * np.sin(oa)),
                                    rng.uniform(1700, 2000), mm_px, FRAME_PX, roll)
            uv = cam.project(pts)
            if np.all(uv > 8) and np.all(uv < np.array(FRAME_PX) - 8) and \
                    max(cam.mm_per_px_at(p) for p in pts) <= 0.33:
                self.cam = cam
                break
        else:
            raise RuntimeError("no camera placement fits the seven seats")
        self.light_xy = rng.uniform(-0.5, 0.5, 2)

    def zone_to_world(self, seat, pts):
        z = self.zones[seat]
        return np.asarray(pts) @ _rot(z["rot"]).T + z["centre"]


class Card:
    def __init__(self, code, text, face_up, centre_local, angle, margin_mm):
        self.code, self.text, self.face_up = code, text, face_up
        self.centre, self.angle, self.margin = np.asarray(centre_local, float), angle, margin_mm

    def local_to_zone(self, pts_card_mm):
        """Card mm (origin top-left) -> zone mm."""
        p = (np.asarray(pts_card_mm, float) - [CARD_W_MM / 2, CARD_H_MM / 2]) * FACE_TO_TABLE
        return p @ _rot(self.angle).T + self.centre


def _visible_fractions(cards, res=1.0):
    """Share of each card's area not covered by the cards above it (raster, `res` mm)."""
    size = 400
    out = []
    for i, c in enumerate(cards):
        own = np.zeros((size, size), np.uint8)
        cv2.fillConvexPoly(own, np.round(c.local_to_zone(CARD_CORNERS) / res + size / 2).astype(np.int32), 1)
        cover = np.zeros_like(own)
        for d in cards[i + 1:]:
            cv2.fillConvexPoly(cover, np.round(d.local_to_zone(CARD_CORNERS) / res + size / 2).astype(np.int32), 1)
        out.append(float((own & (1 - cover)).sum() / max(own.sum(), 1)))
    return out


def _codes_whole(cards, i, extra_occluders=()):
    """Which of card i's two codes (quiet zone included) no later card touches."""
    c = cards[i]
    whole = []
    for quad in code_quads_mm(c.margin):
        q = c.local_to_zone(quad).astype(np.float32)
        ok = True
        for d in cards[i + 1:]:
            area, _ = cv2.intersectConvexConvex(q, d.local_to_zone(CARD_CORNERS).astype(np.float32))
            if area > 0.05:
                ok = False
        whole.append(ok)
    return whole


def _inside_zone(cards, zw, zh, tol):
    pts = np.vstack([c.local_to_zone(CARD_CORNERS) for c in cards])
    return bool(np.all(np.abs(pts[:, 0]) <= zw / 2 + tol) and np.all(np.abs(pts[:, 1]) <= zh / 2 + tol))


def _dealt(n, zsize, rng, margin):
    """n face-down cards in a row or a fan, each covering at most half of the one before."""
    zw, zh = zsize
    for _ in range(300):
        kind = str(rng.choice(["row", "fan"]))
        base = rng.uniform(-0.35, 0.35)          # +-20 deg off the zone
        cards = []
        if kind == "row":
            step = rng.uniform(33, 64)
            for k in range(n):
                u = (k - (n - 1) / 2) * step
                cards.append(Card(None, None, False, _rot(base) @ [u, rng.normal(0, 2)],
                                  base + rng.normal(0, 0.04), margin))
        else:
            # a fan: each card turned a little further and slid along, on a shallow arc
            dang = rng.uniform(0.10, 0.30)
            step = rng.uniform(30, 48)
            for k in range(n):
                j = k - (n - 1) / 2
                cards.append(Card(None, None, False, _rot(base) @ [j * step, 4 * j * j],
                                  base + j * dang, margin))
        shift = rng.uniform(-15, 15, 2)
        for c in cards:
            c.centre = c.centre + shift
        if not _inside_zone(cards, zw, zh, 6):
            continue
        if min(_visible_fractions(cards)) >= 0.52:
            return cards, kind
    raise RuntimeError("could not lay the dealt cards")


def _shown(zsize, rng, margin):
    """Four face-up cards as two pairs: the back pair first, the front pair (nearer the dealer)
    over it; in each pair the card on top covers at most a third of the other's width, and every
    card keeps at least one code whole."""
    zw, zh = zsize
    for _ in range(300):
        landscape = rng.random() < 0.5
        cw, ch = (CARD_H_MM, CARD_W_MM) if landscape else (CARD_W_MM, CARD_H_MM)
        mirror = rng.choice([-1, 1])                  # which side's card lies on top
        base = rng.uniform(-0.2, 0.2)
        row_gap = rng.uniform(2, 12) if landscape else -rng.uniform(16, 34)
        cards = []
        for row in (-1, 1):                            # -1 far (back pair), +1 near the dealer
            ov = rng.uniform(-4, cw / 3 - 1)
            v = row * (ch + row_gap) / 2
            for side in (-1, 1):
                u = mirror * side * (cw - ov) / 2
                a = base + (np.pi / 2 if landscape else 0) + rng.choice([0, np.pi]) + rng.normal(0, 0.03)
                cards.append(Card(None, None, True, _rot(base) @ [u, v], a, margin))
        shift = rng.uniform(-10, 10, 2)
        for c in cards:
            c.centre = c.centre + shift
        if not _inside_zone(cards, zw, zh, 8):
            continue
        if all(any(_codes_whole(cards, i)) for i in range(4)):
            return cards, "landscape" if landscape else "portrait"
    raise RuntimeError("could not lay the shown cards")


def _composite_card(img, Hm_world, tex, shadow_xy):
    """Warp an RGBA card texture (card mm -> texture px is PX_PER_MM) onto the frame."""
    h, w = tex.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = cv2.perspectiveTransform(corners[None], Hm_world)[0]
    H, W = img.shape[:2]
    x0, y0 = np.maximum(np.floor(dst.min(0)).astype(int) - 12, 0)
    x1, y1 = np.minimum(np.ceil(dst.max(0)).astype(int) + 12, [W, H])
    if x1 <= x0 or y1 <= y0:
        return
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    warped = cv2.warpPerspective(tex, T @ Hm_world, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT)
    a = warped[..., 3:4]
    sh = cv2.GaussianBlur(a[..., 0], (0, 0), 3)
    M = np.float32([[1, 0, shadow_xy[0]], [0, 1, shadow_xy[1]]])
    sh = cv2.warpAffine(sh, M, (x1 - x0, y1 - y0))
    roi = img[y0:y1, x0:x1]
    roi *= (1 - 0.35 * sh)[..., None]
    img[y0:y1, x0:x1] = roi * (1 - a) + warped[..., :3] * a


def _texture_homography(table: Table, seat, card: Card):
    """Texture px of the card -> image px."""
    S = np.array([[1 / PX_PER_MM, 0, 0], [0, 1 / PX_PER_MM, 0], [0, 0, 1]])
    C = np.array([[1, 0, -CARD_W_MM / 2], [0, 1, -CARD_H_MM / 2], [0, 0, 1]])
    C[:2] *= FACE_TO_TABLE[:, None]
    R = np.eye(3)
    R[:2, :2] = _rot(card.angle)
    R[:2, 2] = card.centre
    z = table.zones[seat]
    Z = np.eye(3)
    Z[:2, :2] = _rot(z["rot"])
    Z[:2, 2] = z["centre"]
    return table.cam.table_homography() @ Z @ R @ C @ S


def _felt(table: Table, rng, with_marks=True):
    W, H = FRAME_PX
    small = rng.normal(0, 1, (H // 2, W // 2)).astype(np.float32)
    small = cv2.GaussianBlur(small, (0, 0), 0.8)
    blotch = cv2.resize(rng.normal(0, 1, (H // 80, W // 80)).astype(np.float32), (W // 2, H // 2),
                        interpolation=cv2.INTER_CUBIC)
    var = cv2.resize(1 + 0.09 * small + 0.04 * blotch, (W, H), interpolation=cv2.INTER_LINEAR)
    img = np.asarray(table.felt, np.float32)[None, None, :] * var[..., None]
    if with_marks:
        mark = (0.60, 0.50, 0.22)
        for seat, z in table.zones.items():
            uv = table.cam.project(z["corners"])
            cv2.polylines(img, [np.round(uv * 16).astype(np.int32)], True, mark, 5, cv2.LINE_AA, shift=4)
            lab = table.cam.project(table.zone_to_world(seat, [[-z["size"][0] / 2 + 6, -z["size"][1] / 2 - 14]]))[0]
            cv2.putText(img, seat, tuple(np.round(lab).astype(int)), cv2.FONT_HERSHEY_SIMPLEX, 2.0, mark, 4,
                        cv2.LINE_AA)
    return img


def _deck(style, rng):
    deck = [r + s for r in RANKS for s in SUITS]
    rng.shuffle(deck)
    deck_no = int(rng.integers(1, 10))
    serials = rng.permutation(10000)[:52]
    margin = rng.uniform(*style.qr_margin_mm)
    return deck, deck_no, dict(zip(deck, serials.tolist(), strict=True)), margin


def render_seats_frame(style: str, seed: int, perturbation: str = "sharp", table: int = 0,
                       phase: str | None = None):
    """A 3840x2160 frame of the seven seats -> (BGR uint8 image, truth dict). `table` fixes
    the camera, felt and zones (as render_seats_calibration shows them); `phase` ("deal" or
    "showdown") is drawn from the seed unless given."""
    if phase not in (None, "deal", "showdown"):
        raise ValueError(f"unknown phase {phase!r}")
    st = perturb.pick(DECK_STYLES, style, "deck style")
    perturb.pick(perturb.PERTURBATIONS, perturbation, "perturbation")
    tb = Table(st, table)
    rng = np.random.default_rng([seed, 29, table, sum(map(ord, style))])
    deck, deck_no, serials, margin = _deck(st, rng)
    drawn = str(rng.choice(["deal", "showdown"]))
    phase = phase or drawn
    img = _felt(tb, rng)
    back = back_texture(st)
    shadow_xy = tb.light_xy * 8
    seats_truth = {}
    dealt_to = int(rng.integers(0, 29))          # cards out so far in the deal phase
    players = sorted(rng.choice(7, size=int(rng.integers(3, 8)), replace=False).tolist())
    n_players = len(players)
    hand_seat = SEATS[players[int(rng.integers(n_players))]] if rng.random() < 0.3 else None
    for i, seat in enumerate(SEATS):
        z = tb.zones[seat]
        cards, layout = [], None
        if i in players:
            pos = players.index(i)
            if phase == "deal":
                n = min(4, dealt_to // n_players + (1 if pos < dealt_to % n_players else 0))
                state = "dealt" if n else "empty"
                if n:
                    cards, layout = _dealt(n, z["size"], rng, margin)
            else:
                if rng.random() < 0.25:
                    state = "folded"
                    cards, layout = _dealt(4, z["size"], rng, margin)
                else:
                    state = "shown"
                    cards, layout = _shown(z["size"], rng, margin)
        else:
            state = "empty"
        for c in cards:
            c.code = deck.pop()
            if c.face_up:
                c.text = qr_text(st, c.code, deck_no, serials[c.code])
        for c in cards:
            tex = face_texture(st, c.code, c.text, c.margin) if c.face_up else back
            _composite_card(img, _texture_homography(tb, seat, c), tex, shadow_xy)
        seats_truth[seat] = {"state": state, "layout": layout, "cards": cards}

    mask = None
    if hand_seat is not None:
        z = tb.zones[hand_seat]
        ang = z["rot"] + np.pi / 2 + rng.normal(0, 0.3)   # fingers reaching from the dealer's side
        palm = z["centre"] + 25 * np.array([np.cos(ang + np.pi), np.sin(ang + np.pi)])
        mask = hand_mask(tb.cam, palm, ang, rng.uniform(60, 140), rng.uniform(1.25, 1.45))
        colour = GLOVE if rng.random() < 0.25 else SKIN_TONES[rng.integers(len(SKIN_TONES))]
        img = draw_hand(img, mask, tb.light_xy, colour, rng)

    bgr = perturb.sensor(img, rng)
    bgr = perturb.apply(perturbation, bgr, rng)
    truth = _truth(tb, st, seats_truth, hand_seat, mask, phase)
    truth.update({"style": style, "seed": seed, "perturbation": perturbation, "table": table})
    return bgr, truth


def _truth(tb: Table, st: DeckStyle, seats, hand_seat, mask, phase):
    zones = {}
    W, H = FRAME_PX
    for seat, s in seats.items():
        z = tb.zones[seat]
        cards = s["cards"]
        card_truth = []
        for i, c in enumerate(cards):
            corners = tb.cam.project(tb.zone_to_world(seat, c.local_to_zone(CARD_CORNERS)))
            entry = {"card": c.code, "face_up": c.face_up, "corners_px": corners.round(2).tolist(),
                     "visible_fraction": round(_visible_fractions(cards)[i], 3)}
            if c.face_up:
                whole = _codes_whole(cards, i)
                quads = [tb.cam.project(tb.zone_to_world(seat, c.local_to_zone(q)))
                         for q in code_quads_mm(c.margin)]
                whole = [w and bool(np.all((q >= 0) & (q < [W, H]))) for w, q in zip(whole, quads, strict=True)]
                entry.update({"qr_text": c.text, "codes_whole": whole,
                              "code_corners_px": [q.round(2).tolist() for q in quads],
                              "reads_as": c.code if any(whole) else "XX"})
            card_truth.append(entry)
        if seat == hand_seat:
            expected = None
        elif not cards:
            expected = []
        elif cards[0].face_up:
            expected = sorted(e["reads_as"] for e in card_truth)
        else:
            expected = ["??"] * len(cards)
        mm_px = max(tb.cam.mm_per_px_at(p) for p in z["corners"])
        zones[seat] = {"corners_px": tb.cam.project(z["corners"]).round(2).tolist(),
                       "size_mm": [round(v, 1) for v in z["size"]],
                       "max_mm_per_px": round(mm_px, 4), "state": s["state"] if seat != hand_seat
                       else f"covered ({s['state']})", "layout": s["layout"],
                       "expected": expected, "cards": card_truth}
    return {"kind": "seats", "phase": phase, "image_size_px": list(FRAME_PX),
            "zones": zones, "camera": tb.cam.to_json(),
            "hand_over": hand_seat}


def render_seats_calibration(style: str, table: int = 0):
    """Stills for calibrating a table's camera. CARD_FACES.md names no calibration marks: it
    says only that the station learns the deck's back at calibration. So: the empty felt with
    its seat zones, and the same table with one face-down card of the deck in every zone."""
    st = perturb.pick(DECK_STYLES, style, "deck style")
    tb = Table(st, table)
    rng = np.random.default_rng([table, 31, sum(map(ord, style))])
    stills = {}
    empty = _felt(tb, rng)
    stills["empty_table"] = empty.copy()
    back = back_texture(st)
    for seat in SEATS:
        card = Card("??", None, False, rng.uniform(-10, 10, 2), rng.normal(0, 0.1), 3.0)
        _composite_card(empty, _texture_homography(tb, seat, card), back, tb.light_xy * 8)
    stills["one_back_per_seat"] = empty
    zones = {seat: {"corners_px": tb.cam.project(z["corners"]).round(2).tolist(),
                    "size_mm": [round(v, 1) for v in z["size"]]} for seat, z in tb.zones.items()}
    out = {}
    for name, im in stills.items():
        out[name] = (perturb.sensor(im, rng), {"kind": "seats_calibration", "still": name,
                                               "style": style, "table": table, "zones": zones,
                                               "camera": tb.cam.to_json()})
    return out
