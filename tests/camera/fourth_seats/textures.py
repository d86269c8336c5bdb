"""Card face and back textures (BGRA uint8, upright, drawn at TEX_PX_PER_MM then resized)."""

import math
from functools import lru_cache

import cv2
import numpy as np
import segno

from .styles import CARD_H_MM, CARD_W_MM, DECK_STYLES, QR_MM, QZ_MM

TEX_PX_PER_MM = 8.0
SHIFT = 4  # sub-pixel bits for cv2 drawing
_FONTS = {"simplex": cv2.FONT_HERSHEY_SIMPLEX, "duplex": cv2.FONT_HERSHEY_DUPLEX,
          "triplex": cv2.FONT_HERSHEY_TRIPLEX, "complex": cv2.FONT_HERSHEY_COMPLEX}
RANK_PRINT = {"T": "10"}


def _p(x_mm, y_mm):
    s = TEX_PX_PER_MM * (1 << SHIFT)
    return (int(round(x_mm * s)), int(round(y_mm * s)))


def _r(r_mm):
    return int(round(r_mm * TEX_PX_PER_MM * (1 << SHIFT)))


def _t(mm):
    return max(1, int(round(mm * TEX_PX_PER_MM)))


def qr_matrix(text):
    qr = segno.make_qr(text, error="m", version=1, boost_error=False)
    assert qr.version == 1 and qr.error == "M"
    return np.array([list(r) for r in qr.matrix_iter(scale=1, border=0)], dtype=np.uint8)


def _qr_patch(text, size_px):
    m = qr_matrix(text)
    big = np.kron(m, np.ones((16, 16), np.uint8))
    return cv2.resize(big.astype(np.float32), (size_px, size_px), interpolation=cv2.INTER_AREA)


def _rounded_mask(w, h, r_mm):
    mask = np.zeros((h, w), np.uint8)
    r = r_mm * TEX_PX_PER_MM
    x0, y0, x1, y1 = 0.0, 0.0, w - 1.0, h - 1.0
    s = 1 << SHIFT
    cv2.rectangle(mask, (int(r), 0), (int(w - 1 - r), h - 1), 255, -1)
    cv2.rectangle(mask, (0, int(r)), (w - 1, int(h - 1 - r)), 255, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x1 - r, y1 - r), (x0 + r, y1 - r)):
        cv2.circle(mask, (int(cx * s), int(cy * s)), int(r * s), 255, -1, cv2.LINE_AA, SHIFT)
    return mask


def _edge_shade(img, mask):
    """Darken the outermost ~0.3 mm: the slab edge of the card."""
    er = cv2.erode(mask, np.ones((5, 5), np.uint8))
    band = (mask.astype(np.float32) - er.astype(np.float32)) / 255.0
    band = cv2.GaussianBlur(band, (0, 0), 1.0)
    return img * (1.0 - 0.22 * band[..., None])


# ---------------------------------------------------------------- suit symbols
def draw_suit(img, suit, cx, cy, size, color):
    """Suit symbol centred at (cx, cy) mm, about `size` mm tall."""
    s = size / 2.0
    aa = cv2.LINE_AA
    if suit == "D":
        pts = np.array([_p(cx, cy - s), _p(cx + 0.72 * s, cy), _p(cx, cy + s), _p(cx - 0.72 * s, cy)])
        cv2.fillConvexPoly(img, pts, color, aa, SHIFT)
        return
    if suit == "H":
        r = 0.5 * s
        cv2.circle(img, _p(cx - r * 0.95, cy - 0.35 * s), _r(r), color, -1, aa, SHIFT)
        cv2.circle(img, _p(cx + r * 0.95, cy - 0.35 * s), _r(r), color, -1, aa, SHIFT)
        pts = np.array([_p(cx - 1.42 * r * 1.0, cy - 0.1 * s), _p(cx + 1.42 * r, cy - 0.1 * s), _p(cx, cy + s)])
        cv2.fillConvexPoly(img, pts, color, aa, SHIFT)
        return
    if suit == "S":
        r = 0.48 * s
        cv2.circle(img, _p(cx - r * 0.95, cy + 0.22 * s), _r(r), color, -1, aa, SHIFT)
        cv2.circle(img, _p(cx + r * 0.95, cy + 0.22 * s), _r(r), color, -1, aa, SHIFT)
        pts = np.array([_p(cx - 1.4 * r, cy + 0.05 * s), _p(cx + 1.4 * r, cy + 0.05 * s), _p(cx, cy - s)])
        cv2.fillConvexPoly(img, pts, color, aa, SHIFT)
        stem = np.array([_p(cx, cy + 0.2 * s), _p(cx + 0.3 * s, cy + s), _p(cx - 0.3 * s, cy + s)])
        cv2.fillConvexPoly(img, stem, color, aa, SHIFT)
        return
    if suit == "C":
        r = 0.36 * s
        cv2.circle(img, _p(cx, cy - 0.5 * s), _r(r), color, -1, aa, SHIFT)
        cv2.circle(img, _p(cx - 0.55 * s, cy + 0.12 * s), _r(r), color, -1, aa, SHIFT)
        cv2.circle(img, _p(cx + 0.55 * s, cy + 0.12 * s), _r(r), color, -1, aa, SHIFT)
        cv2.circle(img, _p(cx, cy), _r(r * 0.6), color, -1, aa, SHIFT)
        stem = np.array([_p(cx, cy - 0.1 * s), _p(cx + 0.3 * s, cy + s), _p(cx - 0.3 * s, cy + s)])
        cv2.fillConvexPoly(img, stem, color, aa, SHIFT)
        return
    raise ValueError(suit)


def suit_colour(st, suit):
    if st["four_colour"]:
        return {"S": st["ink"], "H": st["red"], "D": (170, 90, 20), "C": (40, 130, 30)}[suit]
    return st["red"] if suit in "HD" else st["ink"]


def _text(img, text, x_mm, y_mm, h_mm, color, font, thick_mm=None, centre=True):
    """Hershey text of cap height h_mm, anchored at its centre (or baseline-left)."""
    f = _FONTS[font]
    (tw, th), _ = cv2.getTextSize(text, f, 1.0, 1)
    scale = h_mm * TEX_PX_PER_MM / max(th, 1)
    t = max(1, int(round((thick_mm if thick_mm else h_mm * 0.13) * TEX_PX_PER_MM)))
    (tw, th), _ = cv2.getTextSize(text, f, scale, t)
    x = x_mm * TEX_PX_PER_MM - (tw / 2 if centre else 0)
    y = y_mm * TEX_PX_PER_MM + (th / 2 if centre else 0)
    cv2.putText(img, text, (int(round(x)), int(round(y))), f, scale, color, t, cv2.LINE_AA)
    return tw / TEX_PX_PER_MM


# ---------------------------------------------------------------- faces
def _layout(st):
    m = st["margin_mm"]
    qz_end = m + QR_MM + QZ_MM + 0.4  # art keeps clear of the symbol's quiet zone
    return m, qz_end


@lru_cache(maxsize=512)
def face_texture(style, text, px_per_mm):
    st = DECK_STYLES[style]
    card = text.split("/")[0]
    rank, suit = card[0], card[1]
    W, H = int(round(CARD_W_MM * TEX_PX_PER_MM)), int(round(CARD_H_MM * TEX_PX_PER_MM))
    m, qz_end = _layout(st)
    col = suit_colour(st, suit)
    font = st["font"]

    # corner layer: TL code + index in the top-right block; the card is this layer times its 180° turn
    corner = np.full((H, W, 3), 255, np.uint8)
    qpx = int(round(QR_MM * TEX_PX_PER_MM))
    q = _qr_patch(text, qpx)
    x0 = int(round(m * TEX_PX_PER_MM))
    ink = np.array(st["ink"], np.float32)
    region = corner[x0:x0 + qpx, x0:x0 + qpx].astype(np.float32)
    corner[x0:x0 + qpx, x0:x0 + qpx] = (region * (1 - q[..., None]) + ink * q[..., None]).astype(np.uint8)
    rp = RANK_PRINT.get(rank, rank)
    edge = (st["frame"]["inset_mm"] + st["frame"]["width_mm"] + 1.2) if st["frame"] else 2.6
    if st["index"] == "beside":
        ix = qz_end + 5.0
        iy = m + 4.5
    else:  # far corner (top-right)
        ix = CARD_W_MM - edge - 4.8
        iy = edge + 4.5
    _text(corner, rp, ix, iy, 6.5 if len(rp) == 1 else 5.6, col, font)
    draw_suit(corner, suit, ix, iy + 8.5, 6.0, col)
    turned = corner[::-1, ::-1]
    img = (corner.astype(np.float32) * turned.astype(np.float32) / 255.0)

    # centre band between the two quiet zones
    bx0, bx1 = (edge + 0.5), CARD_W_MM - edge - 0.5
    by0, by1 = qz_end + 0.6, CARD_H_MM - qz_end - 0.6
    if st["frame"]:
        fr = st["frame"]
        a, w = fr["inset_mm"], fr["width_mm"]
        cv2.rectangle(img, _p(a + w / 2, a + w / 2), _p(CARD_W_MM - a - w / 2, CARD_H_MM - a - w / 2),
                      fr["color"], _t(w), cv2.LINE_AA, SHIFT)
    band = img  # drawn in place
    if st["panel"] is not None:
        cv2.rectangle(band, _p(bx0, by0), _p(bx1, by1), st["panel"], -1, cv2.LINE_AA, SHIFT)
    bw, bh = bx1 - bx0, by1 - by0
    cx, cy = (bx0 + bx1) / 2, (by0 + by1) / 2
    if rank in "JQK":
        _court(band, st, rank, suit, bx0, by0, bx1, by1, col, font)
    elif rank == "A":
        draw_suit(band, suit, cx, cy, min(bh, bw) * 0.78, col)
    else:
        n = 10 if rank == "T" else int(rank)
        cols = 1 if n <= 3 else (2 if n <= 8 else 3)
        rows = int(math.ceil(n / cols))
        size = min(bh / rows, bw / cols) * 0.62
        k = 0
        for r in range(rows):
            in_row = min(cols, n - k)
            for c in range(in_row):
                px = cx + (c - (in_row - 1) / 2) * (bw / cols) * 0.8
                py = cy + (r - (rows - 1) / 2) * (bh / rows) * 0.92
                draw_suit(band, suit, px, py, size, col)
                k += 1
    img = img * (np.array(st["face_white"], np.float32) / 255.0)
    mask = _rounded_mask(W, H, st["corner_radius_mm"])
    img = _edge_shade(img, mask)
    return _finish(img, mask, px_per_mm)


def _court(img, st, rank, suit, x0, y0, x1, y1, col, font):
    c1, c2, c3 = st["court"]
    pad = 0.6
    cv2.rectangle(img, _p(x0 + pad, y0 + pad), _p(x1 - pad, y1 - pad), c3, -1, cv2.LINE_AA, SHIFT)
    cv2.rectangle(img, _p(x0 + pad, y0 + pad), _p(x1 - pad, y1 - pad), st["ink"], _t(0.35), cv2.LINE_AA, SHIFT)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hh = (y1 - y0) / 2 - pad
    for sgn in (-1, 1):  # double-headed figure
        yh = cy + sgn * hh * 0.55
        robe = np.array([_p(cx - 9, cy), _p(cx + 9, cy), _p(cx + 5, cy + sgn * hh * 0.3), _p(cx - 5, cy + sgn * hh * 0.3)])
        cv2.fillConvexPoly(img, robe, c1 if sgn < 0 else c2, cv2.LINE_AA, SHIFT)
        cv2.circle(img, _p(cx, yh), _r(hh * 0.22), (150, 185, 230), -1, cv2.LINE_AA, SHIFT)
        crown = np.array([_p(cx - 3.2, yh + sgn * hh * 0.2), _p(cx + 3.2, yh + sgn * hh * 0.2),
                          _p(cx + 3.6, yh + sgn * hh * 0.45), _p(cx, yh + sgn * hh * 0.3),
                          _p(cx - 3.6, yh + sgn * hh * 0.45)])
        cv2.fillPoly(img, [crown], (40, 200, 240) if rank == "K" else (60, 60, 200), cv2.LINE_AA, SHIFT)
        draw_suit(img, suit, cx + sgn * 12.0, cy + sgn * hh * 0.45, 4.5, col)
    cv2.line(img, _p(x0 + 2, cy), _p(x1 - 2, cy), st["ink"], _t(0.3), cv2.LINE_AA, SHIFT)
    _text(img, rank, cx - 13.5, cy - hh * 0.5, 4.5, st["ink"], font)


# ---------------------------------------------------------------- backs
@lru_cache(maxsize=32)
def back_texture(style, px_per_mm):
    st = DECK_STYLES[style]
    b = st["back"]
    W, H = int(round(CARD_W_MM * TEX_PX_PER_MM)), int(round(CARD_H_MM * TEX_PX_PER_MM))
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = b["base"]
    k = b["kind"]
    T = TEX_PX_PER_MM
    if k in ("lattice", "stripes", "argyle"):
        sp = b["spacing_mm"] * T
        lw = max(1, int(round(b["line_mm"] * T)))
        angs = {"lattice": (45.0, -45.0), "stripes": (b.get("angle_deg", 45.0),), "argyle": (60.0, -60.0)}[k]
        diag = int(math.hypot(W, H))
        for a in angs:
            ca, sa = math.cos(math.radians(a)), math.sin(math.radians(a))
            nx, ny = -sa, ca  # line normal
            n = int(diag / sp) + 2
            for i in range(-n, n + 1):
                off = i * sp
                px, py = W / 2 + nx * off, H / 2 + ny * off
                p1 = (int((px - ca * diag) * 16), int((py - sa * diag) * 16))
                p2 = (int((px + ca * diag) * 16), int((py + sa * diag) * 16))
                cv2.line(img, p1, p2, b["line"], lw, cv2.LINE_AA, 4)
        if k == "argyle":  # fill alternate diamonds lighter
            yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
            u = (xx * math.cos(math.radians(60)) + yy * math.sin(math.radians(60))) / sp
            v = (xx * math.cos(math.radians(-60)) + yy * math.sin(math.radians(-60))) / sp
            chk = ((np.floor(u) + np.floor(v)) % 2 == 0)
            alt = np.array(b["line"], np.float32) * 0.55 + np.array(b["base"], np.float32) * 0.45
            img[chk] = (img[chk].astype(np.float32) * 0.3 + alt * 0.7).astype(np.uint8)
    elif k == "dots":
        sp = b["spacing_mm"]
        for j, y in enumerate(np.arange(sp / 2, CARD_H_MM, sp)):
            for x in np.arange(sp / 2 + (sp / 2 if j % 2 else 0), CARD_W_MM, sp):
                cv2.circle(img, _p(x, y), _r(b["line_mm"] / 2), b["line"], -1, cv2.LINE_AA, SHIFT)
    elif k == "rays":
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        ang = np.arctan2(yy - H / 2, xx - W / 2)
        on = (np.floor((ang + math.pi) / (2 * math.pi) * b["rays"]) % 2) == 0
        img[on] = b["line"]
        cv2.circle(img, _p(CARD_W_MM / 2, CARD_H_MM / 2), _r(9), b["line"], -1, cv2.LINE_AA, SHIFT)
        cv2.circle(img, _p(CARD_W_MM / 2, CARD_H_MM / 2), _r(6), b["base"], -1, cv2.LINE_AA, SHIFT)
    elif k == "logo":
        sp = b["spacing_mm"]
        for y in np.arange(sp / 2, CARD_H_MM, sp):
            for x in np.arange(sp / 2, CARD_W_MM, sp):
                cv2.circle(img, _p(x, y), _r(b["line_mm"] / 2), b["line"], -1, cv2.LINE_AA, SHIFT)
        cx, cy = CARD_W_MM / 2, CARD_H_MM / 2
        cv2.ellipse(img, _p(cx, cy), (_r(17), _r(23)), 0, 0, 360, b["accent"], -1, cv2.LINE_AA, SHIFT)
        cv2.ellipse(img, _p(cx, cy), (_r(15), _r(21)), 0, 0, 360, b["base"], -1, cv2.LINE_AA, SHIFT)
        star = []
        for i in range(10):
            r = 11 if i % 2 == 0 else 4.6
            a = -math.pi / 2 + i * math.pi / 5
            star.append(_p(cx + r * math.cos(a), cy + r * math.sin(a)))
        cv2.fillPoly(img, [np.array(star)], b["accent"], cv2.LINE_AA, SHIFT)
    elif k != "plain":
        raise ValueError(k)
    bd = b.get("border_mm", 0.0)
    if bd > 0:
        out = np.full_like(img, 250)
        inner = np.zeros((H, W), np.uint8)
        cv2.rectangle(inner, _p(bd, bd), _p(CARD_W_MM - bd, CARD_H_MM - bd), 255, -1, cv2.LINE_AA, SHIFT)
        a = inner.astype(np.float32)[..., None] / 255.0
        img = (img * a + out * (1 - a)).astype(np.uint8)
    imgf = img.astype(np.float32)
    mask = _rounded_mask(W, H, st["corner_radius_mm"])
    imgf = _edge_shade(imgf, mask)
    return _finish(imgf, mask, px_per_mm)


def _finish(img_f, mask, px_per_mm):
    out = np.dstack([np.clip(img_f, 0, 255).astype(np.uint8), mask])
    if px_per_mm != TEX_PX_PER_MM:
        w = int(round(CARD_W_MM * px_per_mm))
        h = int(round(CARD_H_MM * px_per_mm))
        out = cv2.resize(out, (w, h), interpolation=cv2.INTER_AREA)
    out.setflags(write=False)
    return out


def code_squares_mm(style):
    """The two QR symbols of a face in card-local mm (origin at the card's top-left corner),
    as 4 corners each: [TL code, BR code]."""
    m = DECK_STYLES[style]["margin_mm"]
    a = [[m, m], [m + QR_MM, m], [m + QR_MM, m + QR_MM], [m, m + QR_MM]]
    b = [[CARD_W_MM - x, CARD_H_MM - y] for x, y in a]
    return [a, b]
