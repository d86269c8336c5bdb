"""Compositing: felt and markings, cards as thin slabs with soft shadows, the dealer's hand,
lights, lens and sensor, then the truth."""

import math
from functools import lru_cache

import cv2
import numpy as np

from .scene import Hand, Placed, Round
from .styles import CARD_H_MM, CARD_W_MM
from .table import IMG_H, IMG_W, Table, proj, rng_for
from .textures import back_texture, code_squares_mm, face_texture

LIGHT_DS = 16  # the light field is computed on a grid this much coarser than the frame


def _tex_scale(table: Table):
    return round(1.3 / table.mm_per_px * 4) / 4  # texture px per mm, a little finer than the frame


# ---------------------------------------------------------------- the empty table
def _blend_mask(img, mask, colour, alpha):
    a = (mask.astype(np.float32) * (alpha / 255.0))[..., None]
    img *= 1 - a
    img += a * np.array(colour, np.float32)


def _outline_pts(zone, grow, radius, n=10):
    w, d = zone.w / 2 + grow, zone.d / 2 + grow
    r = min(max(radius + grow, 0.0), w - 1, d - 1)
    pts = []
    for cx, cy, a0 in ((w - r, -d + r, -90), (w - r, d - r, 0), (-w + r, d - r, 90), (-w + r, -d + r, 180)):
        for t in np.linspace(math.radians(a0), math.radians(a0 + 90), n if r > 0 else 1):
            pts.append(zone.to_table(cx + r * math.cos(t), cy + r * math.sin(t)))
    return np.array(pts)


def _text_patch(text, height_px, thick):
    f = cv2.FONT_HERSHEY_DUPLEX
    (tw, th), base = cv2.getTextSize(text, f, 1.0, 1)
    sc = height_px / th
    (tw, th), base = cv2.getTextSize(text, f, sc, thick)
    patch = np.zeros((th + base + 2 * thick + 4, tw + 2 * thick + 4), np.uint8)
    cv2.putText(patch, text, (thick + 2, th + thick + 2), f, sc, 255, thick, cv2.LINE_AA)
    return patch


def _draw_text_on_table(mask, table, text, centre, xdir, height_mm):
    """Felt lettering: `text` centred at `centre` (table mm), baseline along xdir."""
    ppm = 8.0
    patch = _text_patch(text, height_mm * ppm, max(2, int(height_mm * ppm * 0.12)))
    ph, pw = patch.shape
    xdir = np.asarray(xdir, float) / np.linalg.norm(xdir)
    ydir = np.array([-xdir[1], xdir[0]])
    A = np.array([[xdir[0] / ppm, ydir[0] / ppm, 0], [xdir[1] / ppm, ydir[1] / ppm, 0], [0, 0, 1.0]])
    A[:2, 2] = np.asarray(centre) - A[:2, :2] @ np.array([pw / 2, ph / 2])
    Hm = table.H @ A
    warped = cv2.warpPerspective(patch, Hm, (IMG_W, IMG_H), flags=cv2.INTER_LINEAR)
    np.maximum(mask, warped, out=mask)


@lru_cache(maxsize=2)
def table_background(t: Table):
    """Felt, zone markings and lettering; uint8 BGR (cached per table)."""
    rng = rng_for("felt", t.index)
    small = rng.standard_normal((IMG_H // 64 + 2, IMG_W // 64 + 2)).astype(np.float32)
    mott = cv2.resize(cv2.GaussianBlur(small, (0, 0), 1.2), (IMG_W, IMG_H), interpolation=cv2.INTER_CUBIC)
    fine = rng.standard_normal((IMG_H // 2, IMG_W // 2)).astype(np.float32)
    fine = cv2.resize(fine, (IMG_W, IMG_H), interpolation=cv2.INTER_LINEAR)
    base = np.array(t.felt, np.float32)
    img = base * (1 + 0.035 * mott[..., None]) + (2.2 * fine)[..., None]
    mk = t.marking
    m = t.mm_per_px
    ink = mk["ink"]
    if mk["fill"]:
        fill = np.zeros((IMG_H, IMG_W), np.uint8)
        for z in t.zones:
            q = proj(t.H, _outline_pts(z, 0, mk["radius_mm"]))
            cv2.fillPoly(fill, [np.round(q * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        _blend_mask(img, fill, ink, 0.12)
    lines = np.zeros((IMG_H, IMG_W), np.uint8)
    wpx = max(2, int(round(mk["width_mm"] / m)))
    for z in t.zones:
        if mk["kind"] in ("outline", "double"):
            q = proj(t.H, _outline_pts(z, mk["width_mm"] / 2, mk["radius_mm"]))
            cv2.polylines(lines, [np.round(q * 16).astype(np.int32)], True, 255, wpx, cv2.LINE_AA, 4)
        if mk["kind"] == "double":
            q = proj(t.H, _outline_pts(z, mk["width_mm"] + 6, mk["radius_mm"]))
            cv2.polylines(lines, [np.round(q * 16).astype(np.int32)], True, 255, max(2, int(1.5 / m)), cv2.LINE_AA, 4)
        if mk["kind"] == "corners":
            w, d, L = z.w / 2 + mk["width_mm"] / 2, z.d / 2 + mk["width_mm"] / 2, 34.0
            for sa, sb in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                pts = [z.to_table(sa * (w - L), sb * d), z.to_table(sa * w, sb * d), z.to_table(sa * w, sb * (d - L))]
                q = proj(t.H, pts)
                cv2.polylines(lines, [np.round(q * 16).astype(np.int32)], False, 255, wpx, cv2.LINE_AA, 4)
        if mk["number"] != "none":
            label = z.name[1:] if mk["number"] == "digit" else z.name
            h = mk["number_mm"]
            c = z.to_table(0, -z.d / 2 - mk["width_mm"] - h * 0.75 - 4)
            _draw_text_on_table(lines, t, label, c, -z.u, h)
    if mk["arc"] and mk["kind"] != "none":
        ea, eb = t.camera["arc_mm"]
        inset = max(z.d for z in t.zones) / 2 + 55 + (mk["number_mm"] if mk["number"] != "none" else 0)
        if min(ea, eb) - inset > 90:
            th = [math.atan2(z.centre[0] / ea, z.centre[1] / eb) for z in t.zones]
            ts = np.linspace(min(th) - 0.08, max(th) + 0.08, 120)
            pts = np.stack([(ea - inset) * np.sin(ts), (eb - inset) * np.cos(ts)], 1)
            cv2.polylines(lines, [np.round(proj(t.H, pts) * 16).astype(np.int32)], False, 255,
                          max(2, int(2.0 / m)), cv2.LINE_AA, 4)
    if mk["title"]:
        eb = t.camera["arc_mm"][1]
        d = max(z.d for z in t.zones)
        _draw_text_on_table(lines, t, "SI ZHI DAO", (0.0, max(40.0, (eb - d / 2) * 0.3)), (-1.0, 0.0), 18.0)
    _blend_mask(img, lines, ink, mk["alpha"])
    out = np.clip(img, 0, 255).astype(np.uint8)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=8)
def light_field(t: Table):
    """Illumination (spots, falloff, vignetting), coarse grid; multiply after upsampling."""
    gh, gw = IMG_H // LIGHT_DS, IMG_W // LIGHT_DS
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float64)
    px = np.stack([(xs.ravel() + 0.5) * LIGHT_DS, (ys.ravel() + 0.5) * LIGHT_DS], 1)
    tb = proj(np.linalg.inv(t.H), px)
    L = np.full(len(px), t.light["ambient"])
    for sx, sy, sg, a in t.light["spots"]:
        L += a * np.exp(-((tb[:, 0] - sx) ** 2 + (tb[:, 1] - sy) ** 2) / (2 * sg * sg))
    r2 = ((px[:, 0] - IMG_W / 2) ** 2 + (px[:, 1] - IMG_H / 2) ** 2) / ((IMG_W / 2) ** 2 + (IMG_H / 2) ** 2)
    L *= 1 - t.light["vignette"] * r2
    L /= L.max()
    return L.reshape(gh, gw).astype(np.float32)


# ---------------------------------------------------------------- cards
def _card_H(table: Table, c: Placed, ts):
    """Texture px (ts px per mm, upright) -> image px."""
    R = c.rot()
    A = np.eye(3)
    A[:2, :2] = R / ts
    A[:2, 2] = c.c - R @ np.array([CARD_W_MM / 2, CARD_H_MM / 2])
    return table.H @ A


def _composite(canvas, tex, Hm, shadow_px, blur_px, k):
    h, w = tex.shape[:2]
    q = proj(Hm, [[0, 0], [w, 0], [w, h], [0, h]])
    pad = int(abs(shadow_px[0]) + abs(shadow_px[1]) + 3 * blur_px + 3)
    x0, y0 = np.floor(q.min(0)).astype(int) - pad
    x1, y1 = np.ceil(q.max(0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, IMG_W), min(y1, IMG_H)
    if x1 <= x0 or y1 <= y0:
        return
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1.0]]) @ Hm
    warped = cv2.warpPerspective(tex, T, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    alpha = warped[..., 3].astype(np.float32) * (1 / 255.0)
    roi = canvas[y0:y1, x0:x1]
    if k > 0:
        sh = cv2.warpAffine(alpha, np.float32([[1, 0, shadow_px[0]], [0, 1, shadow_px[1]]]), (x1 - x0, y1 - y0))
        sh = cv2.GaussianBlur(sh, (0, 0), blur_px)
        roi *= (1 - k * sh)[..., None]
    a = alpha[..., None]
    roi *= 1 - a
    roi += warped[..., :3].astype(np.float32) * a


# ---------------------------------------------------------------- the hand
def _hand_masks(table: Table, hand: Hand):
    allp = proj(table.H, np.vstack([p for _, p in hand.parts]))
    x0, y0 = np.floor(allp.min(0)).astype(int) - 4
    x1, y1 = np.ceil(allp.max(0)).astype(int) + 4
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, IMG_W), min(y1, IMG_H)
    skin = np.zeros((y1 - y0, x1 - x0), np.uint8)
    sleeve = np.zeros_like(skin)
    off = np.array([x0, y0])
    for kind, p in hand.parts:
        q = np.round((proj(table.H, p) - off) * 16).astype(np.int32)
        cv2.fillConvexPoly(skin if kind == "skin" else sleeve, q, 255, cv2.LINE_AA, 4)
    creases = np.zeros_like(skin)
    for f in hand.fingers:
        q = np.round((proj(table.H, f) - off) * 16).astype(np.int32)
        cv2.polylines(creases, [q], True, 255, 2, cv2.LINE_AA, 4)
    return (x0, y0, x1, y1), skin, sleeve, creases


def _paint_hand(canvas, table: Table, hand: Hand, rng):
    (x0, y0, x1, y1), skin, sleeve, creases = _hand_masks(table, hand)
    if x1 <= x0 or y1 <= y0:
        return None
    L = table.light
    m = table.mm_per_px
    both = np.maximum(skin, sleeve)
    # shadow on the felt and the cards (the hand is well above the table)
    dx, dy = (np.array(L["shadow_dir"]) * L["hand_shadow_mm"] / m)
    bl = L["hand_shadow_blur_mm"] / m
    pad = int(abs(dx) + abs(dy) + 3 * bl)
    X0, Y0, X1, Y1 = max(x0 - pad, 0), max(y0 - pad, 0), min(x1 + pad, IMG_W), min(y1 + pad, IMG_H)
    big = np.zeros((Y1 - Y0, X1 - X0), np.float32)
    big[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0] = both.astype(np.float32) / 255.0
    sh = cv2.warpAffine(big, np.float32([[1, 0, dx], [0, 1, dy]]), (X1 - X0, Y1 - Y0))
    sh = cv2.GaussianBlur(sh, (0, 0), bl)
    canvas[Y0:Y1, X0:X1] *= (1 - L["hand_shadow_k"] * sh)[..., None]
    roi = canvas[y0:y1, x0:x1]
    h, w = skin.shape
    # skin or glove: rounded shading from the outline inwards, creases between the fingers
    dist = cv2.distanceTransform((skin > 127).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.72 + 0.33 * np.clip(dist * m / 14.0, 0, 1)
    yy = np.linspace(0, 1, h, dtype=np.float32)[:, None]
    shade = shade * (0.95 + 0.1 * yy) - 0.22 * (creases.astype(np.float32) / 255.0) * (skin > 127)
    tone = np.array(hand.skin, np.float32)
    col = tone * shade[..., None] * (1 + 0.02 * rng.standard_normal((h, w, 1)).astype(np.float32))
    if hand.glove == "black_glove":  # a faint sheen on the knuckles
        col += 30 * np.clip(dist * m / 14.0 - 0.6, 0, 1)[..., None]
    a = (skin.astype(np.float32) / 255.0)[..., None]
    roi *= 1 - a
    roi += col * a
    # sleeve over the wrist, folds along the arm
    sd = cv2.distanceTransform((sleeve > 127).astype(np.uint8), cv2.DIST_L2, 3)
    xx = np.arange(w, dtype=np.float32)[None, :]
    folds = 1 + 0.06 * np.sin(xx * 0.05 + yy * 40)
    sc = np.array(hand.sleeve, np.float32) * ((0.7 + 0.3 * np.clip(sd * m / 20.0, 0, 1)) * folds)[..., None]
    if hand.cuff is not None:
        cuff = np.zeros_like(sleeve)
        cpts = []
        for kind, p in hand.parts:
            if kind == "sleeve":
                cpts = p[:2]
        if len(cpts):
            u = (cpts[1] - cpts[0])
            n = np.array([-u[1], u[0]]) / np.linalg.norm(u)
            band = np.array([cpts[0], cpts[1], cpts[1] + n * 22, cpts[0] + n * 22])
            for sgn in (1, -1):
                band = np.array([cpts[0], cpts[1], cpts[1] + sgn * n * 22, cpts[0] + sgn * n * 22])
                q = np.round((proj(table.H, band) - (x0, y0)) * 16).astype(np.int32)
                tmp = np.zeros_like(sleeve)
                cv2.fillConvexPoly(tmp, q, 255, cv2.LINE_AA, 4)
                if (tmp.astype(np.int32) * (sleeve > 0)).sum() > (tmp.astype(np.int32)).sum() * 0.5:
                    cuff = tmp
        cm = (np.minimum(cuff, sleeve).astype(np.float32) / 255.0)[..., None]
        sc = sc * (1 - cm) + np.array(hand.cuff, np.float32) * cm
    a = (sleeve.astype(np.float32) / 255.0)[..., None]
    roi *= 1 - a
    roi += sc * a
    return (x0, y0, x1, y1), both


# ---------------------------------------------------------------- camera
def _apply_camera(img, table: Table, perturbation, rng):
    L = table.light
    lf = cv2.resize(light_field(table), (IMG_W, IMG_H), interpolation=cv2.INTER_LINEAR)
    img *= lf[..., None]
    img *= np.array(L["gains"], np.float32)
    img = cv2.GaussianBlur(img, (0, 0), L["lens_sigma_px"])
    info = {"perturbation": perturbation}
    read, shot = L["read_noise"], L["shot_gain"]
    if perturbation == "blur":
        kind = ["defocus", "motion", "gaussian"][int(rng.integers(3))]
        if kind == "defocus":
            r = float(rng.uniform(1.3, 1.9))
            n = int(math.ceil(r)) * 2 + 1
            k = np.zeros((n * 8, n * 8), np.float32)
            cv2.circle(k, (n * 4, n * 4), int(r * 8), 1.0, -1, cv2.LINE_AA)
            k = cv2.resize(k, (n, n), interpolation=cv2.INTER_AREA)
        elif kind == "motion":
            ln = float(rng.uniform(3.0, 4.6))
            ang = rng.uniform(0, math.pi)
            n = int(math.ceil(ln)) | 1
            n += 2
            k = np.zeros((n * 8, n * 8), np.float32)
            c = n * 4
            d = np.array([math.cos(ang), math.sin(ang)]) * ln * 4
            cv2.line(k, (int(c - d[0]), int(c - d[1])), (int(c + d[0]), int(c + d[1])), 1.0, 8, cv2.LINE_AA)
            k = cv2.resize(k, (n, n), interpolation=cv2.INTER_AREA)
        else:
            s = float(rng.uniform(0.9, 1.25))
            n = int(math.ceil(3 * s)) * 2 + 1
            g = cv2.getGaussianKernel(n, s)
            k = (g @ g.T).astype(np.float32)
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        info["blur"] = kind
    elif perturbation == "noise":
        read, shot = float(rng.uniform(4.0, 7.0)), float(rng.uniform(0.1, 0.2))
    elif perturbation == "dim":
        f = float(rng.uniform(0.28, 0.38))
        img *= f
        info["light_factor"] = f
    elif perturbation == "warm":
        g = np.array([rng.uniform(0.62, 0.74), rng.uniform(0.86, 0.93), rng.uniform(1.06, 1.14)], np.float32)
        img *= g
        info["wb_gains_bgr"] = [float(x) for x in g]
    # sensor noise: read noise and shot noise (variance grows with the signal), some of it chromatic
    sig = np.sqrt(read * read + shot * np.clip(img, 0, None)).astype(np.float32)
    n = rng.standard_normal((IMG_H, IMG_W), dtype=np.float32)[..., None] * 0.7
    n = n + rng.standard_normal((IMG_H, IMG_W, 3), dtype=np.float32) * 0.7
    img += sig * n
    out = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    if perturbation == "jpeg":
        qf = int(rng.integers(30, 61))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, qf])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        info["jpeg_quality"] = qf
    return out, info


# ---------------------------------------------------------------- everything
def _poly_px(table, pts):
    return [[round(float(x), 2), round(float(y), 2)] for x, y in proj(table.H, pts)]


def render_round(style: str, table: Table, rnd: Round, perturbation: str, rng):
    canvas = table_background(table).astype(np.float32)
    ts = _tex_scale(table)
    m = table.mm_per_px
    L = table.light
    shadow_px = np.array(L["shadow_dir"]) * L["card_shadow_mm"] / m
    blur_px = L["card_shadow_blur_mm"] / m
    label = np.zeros((IMG_H, IMG_W), np.int16)
    order = []
    for seat in rnd.seats.values():
        for c in seat["cards"]:
            tex = face_texture(style, c.text, ts) if c.face_up else back_texture(style, ts)
            _composite(canvas, tex, _card_H(table, c, ts), shadow_px, blur_px, L["card_shadow_k"])
            order.append(c)
            q = np.round(proj(table.H, c.corners()) * 16).astype(np.int32)
            cv2.fillConvexPoly(label, q, len(order), cv2.LINE_8, 4)
    counts_before = np.bincount(label.ravel(), minlength=len(order) + 1) if order else None
    hand_box = None
    if rnd.hand is not None:
        res = _paint_hand(canvas, table, rnd.hand, rng)
        if res is not None:
            (x0, y0, x1, y1), hm = res
            hand_box = (x0, y0, x1, y1, hm)
            label[y0:y1, x0:x1][hm > 0] = -1
    out, info = _apply_camera(canvas, table, perturbation, rng)

    counts = np.bincount(np.clip(label.ravel(), 0, None), minlength=len(order) + 1) if order else None
    full = {}
    for i, c in enumerate(order, 1):
        q = np.round(proj(table.H, c.corners()) * 16).astype(np.int32)
        x0, y0 = q.min(0) // 16 - 1
        x1, y1 = q.max(0) // 16 + 2
        tmp = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(tmp, q - np.array([x0, y0]) * 16, 1, cv2.LINE_8, 4)
        full[i] = max(int(tmp.sum()), 1)
    zones = {}
    idx = {id(c): i for i, c in enumerate(order, 1)}
    squares = code_squares_mm(style)
    for z in table.zones:
        seat = rnd.seats[z.name]
        cards = seat["cards"]
        covered = False
        if hand_box is not None:
            x0, y0, x1, y1, hm = hand_box
            zm = np.zeros((y1 - y0, x1 - x0), np.uint8)
            q = np.round((proj(table.H, z.corners_mm()) - (x0, y0)) * 16).astype(np.int32)
            cv2.fillConvexPoly(zm, q, 1, cv2.LINE_8, 4)
            covered = bool((zm[hm > 0]).any())
            for c in cards:
                i = idx[id(c)]
                covered = covered or counts[i] < counts_before[i]
        cj = []
        names = []
        for c in cards:
            i = idx[id(c)]
            d = {"card": c.card, "face_up": bool(c.face_up), "corners_px": _poly_px(table, c.corners()),
                 "visible_fraction": round(min(1.0, counts[i] / full[i]), 4), "qr_text": c.text}
            if c.face_up:
                whole = _codes_whole(c, cards, squares)
                d["codes"] = [{"corners_px": _poly_px(table, c.local_to_table(sq)), "whole": w}
                              for sq, w in zip(squares, whole, strict=True)]
                names.append(c.card if any(whole) else "XX")
            cj.append(d)
        state = seat["state"]
        if covered:
            expected, state = None, "covered"
        elif not cards:
            expected = []
        elif state == "shown":
            expected = sorted(names)
        else:
            expected = ["??"] * len(cards)
        zones[z.name] = {"corners_px": _poly_px(table, z.corners_mm()), "expected": expected,
                         "state": state, "cards": cj}
    return out, zones, info


def _codes_whole(c, cards, squares):
    """A code is whole when no card above it touches the symbol or its quiet zone (the scene
    lays cards out so that a code is either that or clearly covered when it matters)."""
    i = cards.index(c)
    st = _code_status_one(c, cards[i + 1:], squares)
    return [s == "clear" for s in st]


def _code_status_one(c, above, squares):
    from .scene import _area
    from .styles import QR_MM, QZ_MM
    out = []
    for sq in squares:
        sq = np.array(sq)
        mid = sq.mean(0)
        grow = (sq - mid) * (1 + 2 * (QZ_MM - 0.25) / QR_MM) + mid
        qz_t = c.local_to_table(grow)
        a = sum(_area(qz_t, o.corners()) for o in above)
        out.append("clear" if a < 1e-6 else "covered")
    return out
