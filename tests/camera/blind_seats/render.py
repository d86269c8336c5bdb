"""Frames of a Si Zhi Dao table: cards in the seven seat zones, the dealer's hand, the
camera's light and noise, and the honest truth of what lies in view.

``render_seats_frame(style, seed, perturbation, table)``: ``table`` fixes the table and its
camera (see ``table.py``); ``seed`` fixes the deal (what lies where); ``style`` picks the deck;
``perturbation`` changes only the imaging of the same scene.
"""
from __future__ import annotations

import zlib

import cv2
import numpy as np

from . import styles as S
from .table import IMG_H, IMG_W, Zone, felt_image, get_table, light_gain, mm_per_px, project

PERTURBATIONS = ("sharp", "blur", "noise", "dim", "warm", "jpeg")

NEAR_PX = 3          # a code is "whole" only with this clearance, "covered" only this deep
MIN_BACK_VISIBLE = 0.55
ZONE_SLACK_MM = 3.0  # cards stay inside their zone up to this overhang


def _crc(s: str) -> int:
    return zlib.crc32(s.encode())


# --------------------------------------------------------------------------- geometry
def _card_affine(centre, angle):
    """Card mm (u right, v down the face) -> world mm."""
    c, s = np.cos(angle), np.sin(angle)
    ox, oy = S.CARD_W / 2, S.CARD_H / 2
    return np.array([[c, -s, centre[0] - c * ox + s * oy],
                     [s, c, centre[1] - s * ox - c * oy],
                     [0, 0, 1.0]])


def _apply(A, pts):
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    p = np.c_[pts, np.ones(len(pts))] @ A.T
    return p[:, :2] / p[:, 2:3]


class Card:
    __slots__ = ("card", "face_up", "centre", "angle", "seat", "A", "intended_xx")

    def __init__(self, card, face_up, centre, angle, seat, intended_xx=False):
        self.card, self.face_up, self.seat = card, face_up, seat
        self.centre, self.angle = np.asarray(centre, float), float(angle)
        self.A = _card_affine(self.centre, self.angle)
        self.intended_xx = intended_xx

    def outline_world(self, style):
        return _apply(self.A, S.card_outline_mm(style))


def _fp(q):
    return np.round(np.asarray(q) * 16).astype(np.int32)


def _raster(polys, x0, y0, w, h):
    m = np.zeros((h, w), np.uint8)
    for q in polys:
        cv2.fillPoly(m, [_fp(np.asarray(q) - [x0, y0])], 1, cv2.LINE_8, 4)
    return m


def _bbox(q, pad=0):
    q = np.asarray(q)
    x0, y0 = np.floor(q.min(0)).astype(int) - pad
    x1, y1 = np.ceil(q.max(0)).astype(int) + pad + 1
    return x0, y0, x1, y1


# --------------------------------------------------------------------------- seat layouts
def _group_in_zone(zone: Zone, local_cards):
    """local_cards: [(x, y, angle_local)] in zone frame -> world (centre, angle)."""
    za = np.arctan2(zone.ex[1], zone.ex[0])
    out = []
    for x, y, a in local_cards:
        out.append((zone.to_world([[x, y]])[0], za + a))
    return out


def _fits(zone, cards, style):
    for c in cards:
        loc = zone.to_local(c.outline_world(style))
        if np.abs(loc[:, 0]).max() > zone.w / 2 + ZONE_SLACK_MM:
            return False
        if np.abs(loc[:, 1]).max() > zone.h / 2 + ZONE_SLACK_MM:
            return False
    return True


def _face_down_layout(rng, zone, n, shrink):
    """A dealt row or fan of n cards; each next card lies on top of the one before."""
    if n == 0:
        return []
    grot = np.radians(rng.uniform(-20, 20) * shrink)
    sgn = 1 if rng.random() < 0.5 else -1
    locs = []
    if n == 1 or rng.random() < 0.6:          # row
        step = [rng.uniform(0.56, 0.86) * S.CARD_W for _ in range(n - 1)]
        xs = np.r_[0, np.cumsum(step)] * sgn
        xs -= xs.mean()
        for k in range(n):
            locs.append((xs[k], rng.uniform(-3, 3) * shrink, rng.uniform(-np.radians(5), np.radians(5))))
    else:                                      # fan about a point below the cards
        d = np.radians(rng.uniform(20, 32)) * sgn
        P = rng.uniform(75, 110)
        for k in range(n):
            phi = (k - (n - 1) / 2) * d
            locs.append((P * np.sin(phi), P - P * np.cos(phi) - 8 + rng.uniform(-2, 2), phi))
    off = rng.uniform(-8, 8, 2) * shrink
    c, s = np.cos(grot), np.sin(grot)
    out = []
    for x, y, a in locs:
        out.append((c * x - s * y + off[0], s * x + c * y + off[1], a + grot))
    flip = [np.pi if rng.random() < 0.5 else 0.0 for _ in out]
    return [(x, y, a + f) for (x, y, a), f in zip(out, flip)]


def _showdown_layout(rng, zone, shrink, sloppy):
    """Four face-up cards: back pair (away from the dealer) then front pair on top of it.
    Returns [(x, y, angle)] in draw order and the index of a card meant to be unreadable."""
    grot = np.radians(rng.uniform(-8, 8) * shrink)
    pitch = rng.uniform(70, max(71.0, min(94.0, zone.h - 88 + 2)))
    out, xx = [], None
    for row, y in ((0, pitch / 2), (1, -pitch / 2)):
        ov = rng.uniform(-3, 19)
        if sloppy and row == 0:
            ov = rng.uniform(40, 46)
            xx = 0
        xl = -(S.CARD_W - ov) / 2 + rng.uniform(-4, 4)
        xr = xl + S.CARD_W - ov
        for x in (xl, xr):     # left first, the right card lies on top of it
            out.append((x + rng.uniform(-1.5, 1.5), y + rng.uniform(-2, 2) * shrink,
                        rng.uniform(-np.radians(3), np.radians(3))))
    off = rng.uniform(-6, 6, 2) * shrink
    c, s = np.cos(grot), np.sin(grot)
    res = []
    for x, y, a in out:
        f = np.pi if rng.random() < 0.5 else 0.0
        res.append((c * x - s * y + off[0], s * x + c * y + off[1], a + grot + f))
    return res, xx


# --------------------------------------------------------------------------- truth
def _code_quads(card: Card, style, H):
    res = []
    for name, (u0, v0, u1, v1) in S.code_squares_mm(style):
        q = project(H, _apply(card.A, [[u0, v0], [u1, v0], [u1, v1], [u0, v1]]))
        qm = S.QUIET_MODULES * S.MODULE_MM
        qs = project(H, _apply(card.A, [[u0 + qm, v0 + qm], [u1 - qm, v0 + qm],
                                        [u1 - qm, v1 - qm], [u0 + qm, v1 - qm]]))
        res.append((name, q, qs))
    return res


def _code_state(q, occluders):
    """'whole', 'covered' or 'near' for the quiet-zone quad q (image px)."""
    qa = np.asarray(q)
    lo, hi = qa.min(0), qa.max(0)
    # clearly cut by the edge of the picture: not in full view
    if lo[0] < -NEAR_PX or lo[1] < -NEAR_PX or hi[0] > IMG_W - 1 + NEAR_PX or hi[1] > IMG_H - 1 + NEAR_PX:
        return "covered"
    if lo.min() < NEAR_PX or hi[0] > IMG_W - 1 - NEAR_PX or hi[1] > IMG_H - 1 - NEAR_PX:
        return "near"
    x0, y0, x1, y1 = _bbox(qa, pad=NEAR_PX + 3)
    w, h = x1 - x0, y1 - y0
    code = _raster([qa], x0, y0, w, h)
    occ = _raster(occluders, x0, y0, w, h) if occluders else np.zeros_like(code)
    k = np.ones((2 * NEAR_PX + 1, 2 * NEAR_PX + 1), np.uint8)
    ext = cv2.dilate(code, k)
    core = cv2.erode(code, k)
    if not np.any(ext & occ):
        return "whole"
    if np.any(core & occ):
        return "covered"
    return "near"


def _seat_truth(cards, style, H, later_polys):
    """Per-card truth for one seat.  later_polys[i]: image polygons lying on top of card i."""
    out = []
    for i, c in enumerate(cards):
        poly = project(H, c.outline_world(style))
        x0, y0, x1, y1 = _bbox(poly, pad=2)
        m = _raster([poly], x0, y0, x1 - x0, y1 - y0)
        occ = _raster(later_polys[i], x0, y0, x1 - x0, y1 - y0) if later_polys[i] else np.zeros_like(m)
        vis = float((m & (1 - occ)).sum()) / max(1, int(m.sum()))
        rec = {"card": c.card, "face_up": bool(c.face_up),
               "corners_px": project(H, _apply(c.A, [[0, 0], [S.CARD_W, 0], [S.CARD_W, S.CARD_H],
                                                     [0, S.CARD_H]])).round(2).tolist(),
               "angle_deg": round(float(np.degrees(c.angle)) % 360.0, 2),
               "visible_fraction": round(vis, 4), "codes": []}
        states = []
        if c.face_up:
            for name, q, qs in _code_quads(c, style, H):
                st = _code_state(q, later_polys[i])
                states.append(st)
                rec["codes"].append({"position": name, "text": S.code_text(style, c.card),
                                     "quiet_zone_corners_px": q.round(2).tolist(),
                                     "symbol_corners_px": qs.round(2).tolist(),
                                     "whole": st == "whole"})
            rec["reading"] = c.card if "whole" in states else "XX"
        else:
            rec["reading"] = "??"
        rec["_states"] = states
        out.append(rec)
    return out


def _later_polys(all_cards, style, H):
    polys = [project(H, c.outline_world(style)) for c in all_cards]
    return [polys[i + 1:] for i in range(len(all_cards))], polys


def _seat_ok(recs, cards, kind):
    for r, c in zip(recs, cards):
        if any(s == "near" for s in r["_states"]):
            return False
        if not c.face_up and r["visible_fraction"] < MIN_BACK_VISIBLE:
            return False
        if c.face_up:
            want_xx = c.intended_xx
            if want_xx != (r["reading"] == "XX"):
                return False
            if r["visible_fraction"] < 0.3:
                return False
    return True


def _place_seat(rng, zone, style, H, cards_named, kind, sloppy=False):
    """Place one seat's cards; retry until the layout keeps the sheet's rules and has no
    near-miss codes.  Returns the Card list (draw order)."""
    n = len(cards_named)
    for attempt in range(60):
        shrink = max(0.15, 1.0 - attempt / 30.0)
        xx = None
        if kind == "up":
            locs, xx = _showdown_layout(rng, zone, shrink, sloppy and attempt < 40)
        else:
            locs = _face_down_layout(rng, zone, n, shrink)
        placed = _group_in_zone(zone, locs)
        cards = [Card(cards_named[i], kind == "up", p, a, zone.name, intended_xx=(xx == i))
                 for i, (p, a) in enumerate(placed)]
        if not _fits(zone, cards, style):
            continue
        later, _ = _later_polys(cards, style, H)
        recs = _seat_truth(cards, style, H, later)
        if _seat_ok(recs, cards, kind):
            return cards
    # last resort: a plain tidy layout (always legal): the pairs' cards 3 mm apart, the rows
    # 78 mm apart (166 mm tall, inside any zone >= 161 mm + slack), so every card's far code
    # is whole and the front pair covers the back pair's near codes 10 mm deep
    za = np.arctan2(zone.ex[1], zone.ex[0])
    if kind == "up":
        locs = [(-33, 39, 0), (33, 39, 0), (-33, -39, 0), (33, -39, 0)]
    else:
        xs = (np.arange(n) - (n - 1) / 2) * 40.0
        locs = [(x, 0, 0) for x in xs]
    return [Card(cards_named[i], kind == "up", zone.to_world([[x, y]])[0], za + a, zone.name)
            for i, (x, y, a) in enumerate(locs)]


# --------------------------------------------------------------------------- the dealer's hand
SKIN = [(150, 180, 225), (125, 160, 210), (95, 130, 180), (65, 95, 140), (45, 65, 100), (170, 200, 235)]
GLOVE = [(235, 235, 232), (38, 36, 36), (205, 135, 70), (175, 95, 125)]
SLEEVE = [(25, 25, 25), (235, 235, 235), (30, 30, 130), (70, 40, 30), (120, 120, 120)]


def _capsule(a, b, r, n=10):
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    ang = np.arctan2(d[1], d[0])
    pts = [b + r * np.array([np.cos(ang + t), np.sin(ang + t)]) for t in np.linspace(-np.pi / 2, np.pi / 2, n)]
    pts += [a + r * np.array([np.cos(ang + t), np.sin(ang + t)]) for t in np.linspace(np.pi / 2, 3 * np.pi / 2, n)]
    return np.array(pts)


def _hand_polys(rng, zone, dealer):
    """World polygons of a hand reaching over ``zone`` from the dealer, and its arm."""
    c = zone.to_world([[rng.uniform(-35, 35), rng.uniform(-25, 30)]])[0]
    d0 = c - dealer
    d0 /= np.linalg.norm(d0)
    ang = np.arctan2(d0[1], d0[0]) + np.radians(rng.uniform(-25, 25))
    fwd = np.array([np.cos(ang), np.sin(ang)])
    side = np.array([-fwd[1], fwd[0]])
    pw, pl = rng.uniform(78, 92), rng.uniform(85, 100)
    t = np.linspace(0, 2 * np.pi, 28, endpoint=False)
    palm = c + np.outer(np.cos(t) * pl / 2, fwd) + np.outer(np.sin(t) * pw / 2, side)
    skin_polys = [palm]
    curl = rng.uniform(0.45, 1.0)
    for k, (off, ln) in enumerate([(-0.36, 62), (-0.12, 72), (0.12, 68), (0.35, 55)]):
        base = c + fwd * pl * 0.38 + side * off * pw
        dirn = fwd * np.cos(np.radians(off * 18)) + side * np.sin(np.radians(off * 18))
        skin_polys.append(_capsule(base, base + dirn * ln * curl, rng.uniform(8, 10)))
    th_side = 1 if rng.random() < 0.5 else -1
    tb = c + side * th_side * pw * 0.42 - fwd * pl * 0.1
    skin_polys.append(_capsule(tb, tb + (fwd * 0.6 + side * th_side * 0.8) * 55 * curl, 10.5))
    wrist = c - fwd * pl * 0.45
    # forearm runs back towards the dealer's body (beyond the top of the layout)
    elbow = dealer + (wrist - dealer) * rng.uniform(0.25, 0.45) + np.array([0.0, -60.0])
    body = elbow + np.array([rng.uniform(-200, 200), -2500.0])
    aw = rng.uniform(70, 85)
    fore = _capsule(wrist, elbow, aw / 2)
    cuff = (wrist + (elbow - wrist) * min(1.0, 180.0 / max(1.0, np.linalg.norm(elbow - wrist))))
    upper = _capsule(elbow, body, aw / 2 + 12)
    sleeve_a = _capsule(cuff, elbow, aw / 2 + 4)
    return skin_polys + [_capsule(wrist, cuff, aw / 2)], [fore, sleeve_a, upper], c


def _hand_mask(H, skin_polys, arm_polys):
    """Two layers: the bare (or gloved) hand and forearm, and the sleeve lying over it."""
    skin = np.zeros((IMG_H, IMG_W), np.uint8)
    for p in skin_polys + arm_polys[:1]:
        cv2.fillPoly(skin, [_fp(project(H, p))], 255, cv2.LINE_AA, 4)
    sleeve = np.zeros((IMG_H, IMG_W), np.uint8)
    for p in arm_polys[1:]:
        cv2.fillPoly(sleeve, [_fp(project(H, p))], 255, cv2.LINE_AA, 4)
    return skin, sleeve


def _choose_hand(rng, T, seat_idx, style, other_cards):
    """Hand over one seat, kept clear of every other seat's zone and cards."""
    H = T.H
    zone = T.zones[seat_idx]
    forbid = np.zeros((IMG_H, IMG_W), np.uint8)
    for j, z in enumerate(T.zones):
        if j == seat_idx:
            continue
        zz = Zone(z.name, z.centre, z.ex, z.ey, z.w + 30, z.h + 30)
        cv2.fillPoly(forbid, [_fp(project(H, zz.corners()))], 1, cv2.LINE_8, 4)
    for c in other_cards:
        cv2.fillPoly(forbid, [_fp(project(H, c.outline_world(style)))], 1, cv2.LINE_8, 4)
    zmask = np.zeros((IMG_H, IMG_W), np.uint8)
    cv2.fillPoly(zmask, [_fp(project(H, zone.corners()))], 1, cv2.LINE_8, 4)
    for attempt in range(8):
        skin_p, arm_p, centre = _hand_polys(rng, zone, T.dealer)
        skin, sleeve = _hand_mask(H, skin_p, arm_p)
        m = (skin > 0) | (sleeve > 0)
        if np.any(m & (forbid > 0)):
            continue
        if (m & (zmask > 0)).sum() < 0.3 * zmask.sum():
            continue
        return skin, sleeve
    return None


# --------------------------------------------------------------------------- drawing
def _draw_card(frame, tex, M, shadow_off, shadow_k):
    h, w = tex.shape[:2]
    q = cv2.perspectiveTransform(np.float32([[[0, 0]], [[w, 0]], [[w, h]], [[0, h]]]), M).reshape(-1, 2)
    pad = 16
    x0, y0, x1, y1 = _bbox(q, pad)
    X0, Y0 = max(0, x0), max(0, y0)
    X1, Y1 = min(IMG_W, x1), min(IMG_H, y1)
    if X1 <= X0 or Y1 <= Y0:
        return
    Tm = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ M
    warped = cv2.warpPerspective(tex, Tm, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32)
    a = warped[:, :, 3] / 255.0
    dx, dy = shadow_off
    sh = np.zeros_like(a)
    sh[max(0, dy):a.shape[0] + min(0, dy), max(0, dx):a.shape[1] + min(0, dx)] = \
        a[max(0, -dy):a.shape[0] - max(0, dy), max(0, -dx):a.shape[1] - max(0, dx)]
    sh = cv2.GaussianBlur(sh, (0, 0), 3.0)
    sl = (slice(Y0 - y0, Y1 - y0), slice(X0 - x0, X1 - x0))
    roi = frame[Y0:Y1, X0:X1]
    roi *= (1.0 - shadow_k * sh[sl])[:, :, None]
    roi *= (1.0 - a[sl])[:, :, None]
    roi += warped[sl][:, :, :3]


def _tex_to_img(H, card: Card):
    St = np.array([[1 / S.PPM, 0, 0], [0, 1 / S.PPM, 0], [0, 0, 1.0]])
    return H @ card.A @ St


def _draw_hand(frame, rng, skin, sleeve, skin_col, sleeve_col, shadow_off):
    ys, xs = np.nonzero((skin > 0) | (sleeve > 0))
    if len(xs) == 0:
        return
    x0, x1 = max(0, xs.min() - 40), min(IMG_W, xs.max() + 41)
    y0, y1 = max(0, ys.min() - 40), min(IMG_H, ys.max() + 41)
    sk = skin[y0:y1, x0:x1].astype(np.float32) / 255.0
    sv = sleeve[y0:y1, x0:x1].astype(np.float32) / 255.0
    sk = cv2.GaussianBlur(sk, (0, 0), 1.2)
    sv = cv2.GaussianBlur(sv, (0, 0), 1.2)
    a = np.clip(sk + sv, 0, 1)
    # soft shadow on the felt
    dx, dy = shadow_off
    M = np.float32([[1, 0, dx * 4], [0, 1, dy * 4]])
    sh = cv2.warpAffine(a, M, (a.shape[1], a.shape[0]))
    sh = cv2.GaussianBlur(sh, (0, 0), 10)
    roi = frame[y0:y1, x0:x1]
    roi *= (1 - 0.35 * sh)[:, :, None]
    # shading: rounded limbs are darker at the rim, with a broad uneven light
    a_all = np.maximum(sk, sv)
    dist = cv2.distanceTransform((a_all > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.72 + 0.28 * np.clip(dist / 25.0, 0, 1)
    hh, ww = a.shape
    low = cv2.resize(rng.normal(0, 1, (max(2, hh // 120), max(2, ww // 120))).astype(np.float32),
                     (ww, hh), interpolation=cv2.INTER_CUBIC)
    shade = (shade * (1 + 0.06 * low))[:, :, None]
    for layer, colour in ((sk, skin_col), (sv, sleeve_col)):     # sleeve over skin
        la = layer[:, :, None]
        roi *= (1 - la)
        roi += la * shade * np.float32(colour)


# --------------------------------------------------------------------------- imaging
def _imaging(frame, T, rng, perturbation):
    frame *= light_gain(T.index)[:, :, None]
    frame *= T.wb[None, None, :].astype(np.float32)
    frame = cv2.GaussianBlur(frame, (0, 0), T.lens_sigma)
    read, shot = T.read_noise, T.shot_k
    if perturbation == "blur":
        if rng.random() < 0.5:
            frame = cv2.GaussianBlur(frame, (0, 0), rng.uniform(1.2, 2.2))
        else:
            L = int(rng.integers(4, 8))
            k = np.zeros((L * 2 + 1, L * 2 + 1), np.float32)
            ang = rng.uniform(0, np.pi)
            c = L
            cv2.line(k, (int(round(c - np.cos(ang) * L / 2)), int(round(c - np.sin(ang) * L / 2))),
                     (int(round(c + np.cos(ang) * L / 2)), int(round(c + np.sin(ang) * L / 2))), 1.0, 1, cv2.LINE_AA)
            k /= k.sum()
            frame = cv2.filter2D(frame, -1, k)
    elif perturbation == "noise":
        read *= rng.uniform(3.0, 4.5)
        shot *= rng.uniform(3.0, 5.0)
    elif perturbation == "dim":
        frame *= np.float32(rng.uniform(0.28, 0.45))
        read *= rng.uniform(1.8, 2.6)
        shot *= rng.uniform(1.5, 2.5)
    elif perturbation == "warm":
        gains = np.float32([rng.uniform(0.62, 0.75), rng.uniform(0.88, 0.95), rng.uniform(1.08, 1.18)])
        frame *= gains[None, None, :]
    noise = rng.standard_normal(frame.shape, dtype=np.float32)
    sigma = np.sqrt(np.float32(read * read) + np.float32(shot) * np.maximum(frame, 0))
    frame += noise * sigma
    img = np.clip(frame + 0.5, 0, 255).astype(np.uint8)
    if perturbation == "jpeg":
        q = int(rng.integers(30, 61))
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def _shadow_params(T):
    r = np.random.default_rng([T.index, 0x5AD])
    ang = r.uniform(0, 2 * np.pi)
    L = r.uniform(2.0, 5.0)
    return (int(round(np.cos(ang) * L)), int(round(np.sin(ang) * L))), float(r.uniform(0.18, 0.35))


def _compose(T, style, cards, hand, rng):
    frame = felt_image(T.index).astype(np.float32)
    off, k = _shadow_params(T)
    for c in cards:
        tex = S.face_texture(style.name, c.card) if c.face_up else S.back_texture(style.name)
        _draw_card(frame, tex, _tex_to_img(T.H, c), off, k)
    if hand is not None:
        skin, sleeve, skin_col, sleeve_col = hand
        _draw_hand(frame, rng, skin, sleeve, skin_col, sleeve_col, off)
    return frame


def _zone_truth(T):
    z = {}
    for zone in T.zones:
        z[zone.name] = {"corners_px": project(T.H, zone.corners()).round(2).tolist(),
                        "size_mm": [round(zone.w, 1), round(zone.h, 1)],
                        "mm_per_px_max": round(float(mm_per_px(T.H, zone.corners()).max()), 4)}
    return z


def _clean(recs):
    for r in recs:
        r.pop("_states", None)
    return recs


def _check_args(style, perturbation):
    st = S.get_style(style)
    if perturbation not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {perturbation!r}; known: {PERTURBATIONS}")
    return st


# --------------------------------------------------------------------------- public API
def _build_scene(style: str, seed: int, perturbation: str, table: int):
    st = _check_args(style, perturbation)
    T = get_table(table)
    H = T.H
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int(table), 0xDEA1])
    deck = [str(c) for c in rng.permutation(S.ALL_CARDS)]
    kind = "showdown" if rng.random() < 0.5 else "dealing"
    n_players = int(rng.integers(3, 8))
    seats = sorted(rng.choice(7, n_players, replace=False).tolist())
    seat_state = {i: ("empty", 0) for i in range(7)}
    if kind == "dealing":
        leader = seats[int(rng.integers(n_players))]
        order = [s for s in seats if s > leader] + [s for s in seats if s <= leader]
        total = 4 * n_players if rng.random() < 0.35 else int(rng.integers(1, 4 * n_players + 1))
        counts = {s: 0 for s in seats}
        for k in range(total):
            counts[order[k % n_players]] += 1
        for s in seats:
            seat_state[s] = ("down", counts[s])
    else:
        shown = 0
        for s in seats:
            r = rng.random()
            if r < 0.22:
                seat_state[s] = ("down", 4)        # folded: stays face down
            elif r < 0.30:
                seat_state[s] = ("down", 4)        # not yet turned by the dealer
            else:
                seat_state[s] = ("up", 4)
                shown += 1
        if shown == 0:
            seat_state[seats[0]] = ("up", 4)
    placed = {}
    for i, zone in enumerate(T.zones):
        mode, n = seat_state[i]
        if n == 0:
            placed[i] = []
            continue
        names = [deck.pop() for _ in range(n)]
        srng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int(table), i, 0x5EA7])
        sloppy = mode == "up" and srng.random() < 0.06
        placed[i] = _place_seat(srng, zone, st, H, names, mode, sloppy)
    all_cards = [c for i in range(7) for c in placed[i]]
    # the dealer's hand over one seat, now and then
    hand, hand_seat = None, None
    hrng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int(table), 0x4A2D])
    if hrng.random() < 0.27:
        si = int(hrng.integers(7))
        others = [c for c in all_cards if c.seat != T.zones[si].name]
        res = _choose_hand(hrng, T, si, st, others)
        if res is not None:
            gloved = hrng.random() < 0.35
            skin_col = GLOVE[hrng.integers(len(GLOVE))] if gloved else SKIN[hrng.integers(len(SKIN))]
            skin_col = tuple(float(c) * hrng.uniform(0.92, 1.06) for c in skin_col)
            sleeve_col = SLEEVE[hrng.integers(len(SLEEVE))]
            hand = (res[0], res[1], skin_col, sleeve_col)
            hand_seat = T.zones[si].name
    # truth
    later, _ = _later_polys(all_cards, st, H)
    recs = _seat_truth(all_cards, st, H, later)
    zones = _zone_truth(T)
    k = 0
    for i, zone in enumerate(T.zones):
        n = len(placed[i])
        zr = recs[k:k + n]
        k += n
        mode, _ = seat_state[i]
        zones[zone.name]["state"] = ("empty" if n == 0 else
                                     "face_up" if mode == "up" else "face_down")
        zones[zone.name]["cards"] = _clean(zr)
        if zone.name == hand_seat:
            zones[zone.name]["expected"] = None
            zones[zone.name]["hand_over"] = True
        else:
            zones[zone.name]["expected"] = sorted(r["reading"] for r in zr)
            zones[zone.name]["hand_over"] = False
    truth = {"zones": zones, "kind": kind, "style": style, "seed": int(seed), "table": int(table),
             "perturbation": perturbation, "hand_seat": hand_seat,
             "image_size": [IMG_W, IMG_H], "mm_per_px_max": round(T.mm_px_max, 4),
             "mm_per_px_centre": round(T.mm_px_centre, 4)}
    return T, st, all_cards, hand, truth


def render_seats_frame(style: str, seed: int, perturbation: str = "sharp", table: int = 0):
    """One 3840x2160 BGR frame of the table and the truth of what it shows."""
    T, st, all_cards, hand, truth = _build_scene(style, seed, perturbation, table)
    prng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int(table), _crc(style), _crc(perturbation)])
    frame = _compose(T, st, all_cards, hand, prng)
    img = _imaging(frame, T, prng, perturbation)
    return img, truth


def render_seats_calibration(style: str, table: int = 0):
    st = _check_args(style, "sharp")
    T = get_table(table)
    H = T.H
    out = {}
    for name in ("empty_table", "one_back_per_seat"):
        rng = np.random.default_rng([int(table), _crc(style), _crc(name)])
        cards = []
        if name == "one_back_per_seat":
            for i, zone in enumerate(T.zones):
                za = np.arctan2(zone.ex[1], zone.ex[0])
                p = zone.to_world([rng.uniform(-5, 5, 2)])[0]
                a = za + np.radians(rng.uniform(-10, 10)) + (np.pi if rng.random() < 0.5 else 0)
                cards.append(Card("??", False, p, a, zone.name))
        later, _ = _later_polys(cards, st, H)
        recs = _seat_truth(cards, st, H, later)
        zones = _zone_truth(T)
        for i, zone in enumerate(T.zones):
            zr = [recs[i]] if cards else []
            zones[zone.name]["cards"] = _clean(zr)
            zones[zone.name]["state"] = "face_down" if zr else "empty"
            zones[zone.name]["expected"] = ["??"] * len(zr)
            zones[zone.name]["hand_over"] = False
        frame = _compose(T, st, cards, None, rng)
        img = _imaging(frame, T, rng, "sharp")
        out[name] = (img, {"zones": zones, "kind": name, "style": style, "table": int(table),
                           "perturbation": "sharp", "hand_seat": None,
                           "image_size": [IMG_W, IMG_H], "mm_per_px_max": round(T.mm_px_max, 4),
                           "mm_per_px_centre": round(T.mm_px_centre, 4)})
    return out
