"""Deck styles: printed card faces and backs as flat textures.

A card is 63 x 88 mm with rounded corners.  Textures are drawn at ``PPM`` pixels per
millimetre in the card's own frame (u across, v down the face, origin at the top-left
corner of the face).  Each face carries the card's QR code (Model 2, version 1, level M)
twice: top-left, and turned 180 degrees bottom-right.  The symbol is 22 mm wide with a
2-module white quiet zone; ``margin_mm`` is the distance from the card edge to the outer
edge of that quiet zone (the white square the code sits in).

Textures are stored premultiplied (B*a, G*a, R*a, a) as uint8, already softened a little
so that the downscale onto the 4K frame does not alias.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
import segno

PPM = 5.0                      # texture pixels per mm
CARD_W, CARD_H = 63.0, 88.0
MODULE_MM = 22.0 / 21.0        # version 1: 21 modules in 22 mm
QUIET_MODULES = 2
CODE_MM = (21 + 2 * QUIET_MODULES) * MODULE_MM   # the white square incl. quiet zone
TEX_W, TEX_H = int(round(CARD_W * PPM)), int(round(CARD_H * PPM))

RANKS = "A23456789TJQK"
SUITS = "SHDC"
ALL_CARDS = tuple(r + s for s in SUITS for r in RANKS)


@dataclass(frozen=True)
class DeckStyle:
    name: str
    description: str
    margin_mm: float            # card edge -> outer edge of the code's quiet zone
    corner_r_mm: float
    serialized: bool
    serial_prefix: int
    # face
    face_bg: tuple
    font: int
    font_thick: int
    four_colour: bool
    pip_order: str              # "rows" | "centre" | "spread"
    face_border: str            # "none" | "line" | "double" | "frame"
    border_colour: tuple
    court_colour: tuple
    ace_big: bool
    index_scale: float
    # back
    back: str                   # pattern name
    back_c1: tuple
    back_c2: tuple
    back_border_mm: float
    back_border_colour: tuple


_STYLE_LIST = [
    DeckStyle("crimson_lattice", "red back, white diagonal lattice, white border; classic "
              "two-colour face, thin frame, codes 3 mm in", 3.0, 3.2, False, 0,
              (252, 252, 252), cv2.FONT_HERSHEY_DUPLEX, 2, False, "rows", "line",
              (40, 40, 170), (30, 40, 160), True, 1.0,
              "lattice", (35, 30, 175), (235, 235, 240), 3.5, (245, 245, 245)),
    DeckStyle("navy_dots", "navy back with staggered light-blue dots, full bleed; bold "
              "jumbo index, four-colour suits, codes 5 mm in", 5.0, 3.5, False, 0,
              (250, 250, 250), cv2.FONT_HERSHEY_SIMPLEX, 3, True, "centre", "none",
              (0, 0, 0), (120, 60, 20), False, 1.25,
              "dots", (90, 35, 20), (215, 170, 120), 0.0, (0, 0, 0)),
    DeckStyle("jade_stripes", "green diagonal two-tone stripes with cream border; "
              "serialized, ivory face, double frame, codes 2 mm in", 2.0, 3.0, True, 3,
              (236, 246, 250), cv2.FONT_HERSHEY_TRIPLEX, 2, False, "spread", "double",
              (60, 120, 40), (50, 110, 30), True, 0.95,
              "stripes", (70, 120, 30), (120, 175, 80), 2.5, (205, 235, 240)),
    DeckStyle("onyx_crest", "near-black back, gold double border and central crest on a "
              "fine gold grid; serialized, gold-framed face, codes 4 mm in", 4.0, 3.8, True, 7,
              (248, 250, 252), cv2.FONT_HERSHEY_COMPLEX, 2, False, "centre", "frame",
              (40, 150, 195), (30, 120, 170), False, 1.1,
              "crest", (28, 24, 22), (60, 170, 215), 2.0, (60, 170, 215)),
    DeckStyle("teal_plain", "flat teal back with narrow white border; minimal face, "
              "italic index, codes 6 mm in", 6.0, 2.8, False, 0,
              (255, 255, 255), cv2.FONT_HERSHEY_SCRIPT_COMPLEX, 2, True, "rows", "none",
              (0, 0, 0), (130, 130, 20), True, 1.05,
              "plain", (140, 130, 20), (140, 130, 20), 2.0, (250, 250, 250)),
    DeckStyle("violet_checker", "small violet/lilac checkerboard with white border; "
              "serialized, rounded coloured frame, codes 2.5 mm in", 2.5, 3.4, True, 5,
              (246, 246, 246), cv2.FONT_HERSHEY_PLAIN, 3, False, "spread", "frame",
              (150, 60, 120), (140, 40, 110), False, 1.15,
              "checker", (130, 40, 110), (210, 160, 200), 3.0, (250, 250, 250)),
]
_STYLES = {s.name: s for s in _STYLE_LIST}
DECK_STYLES = {s.name: s.description for s in _STYLE_LIST}


def get_style(name: str) -> DeckStyle:
    try:
        return _STYLES[name]
    except KeyError:
        raise ValueError(f"unknown deck style {name!r}; known: {sorted(_STYLES)}") from None


def code_text(style: DeckStyle, card: str) -> str:
    """The text encoded in the card's QR (card, or card/serial on serialized decks)."""
    if not style.serialized:
        return card
    n = zlib.crc32(f"{style.name}:{card}".encode()) % 10000
    return f"{card}/{style.serial_prefix}-{n:04d}"


def code_squares_mm(style: DeckStyle):
    """Quiet-zone squares in card mm (u, v): [(name, (u0, v0, u1, v1)), ...]."""
    m = style.margin_mm
    return [("top_left", (m, m, m + CODE_MM, m + CODE_MM)),
            ("bottom_right", (CARD_W - m - CODE_MM, CARD_H - m - CODE_MM,
                              CARD_W - m, CARD_H - m))]


# --------------------------------------------------------------------------- drawing
def _p(x):
    return int(round(x * PPM * 16))       # mm -> fixed point (shift=4) texture px


def _circle(img, cx, cy, r, col):
    cv2.circle(img, (_p(cx), _p(cy)), max(1, _p(r)), col, -1, cv2.LINE_AA, 4)


def _poly(img, pts, col):
    arr = np.array([[_p(x), _p(y)] for x, y in pts], np.int32)
    cv2.fillPoly(img, [arr], col, cv2.LINE_AA, 4)


def draw_suit(img, suit, cx, cy, s, col, flip=False):
    """Suit symbol of height ~s mm centred at (cx, cy) in mm."""
    f = -1.0 if flip else 1.0
    Y = lambda dy: cy + f * dy * s
    if suit == "D":
        _poly(img, [(cx, Y(-0.5)), (cx + 0.36 * s, cy), (cx, Y(0.5)), (cx - 0.36 * s, cy)], col)
    elif suit == "H":
        _circle(img, cx - 0.24 * s, Y(-0.18), 0.26 * s, col)
        _circle(img, cx + 0.24 * s, Y(-0.18), 0.26 * s, col)
        _poly(img, [(cx - 0.49 * s, Y(-0.1)), (cx + 0.49 * s, Y(-0.1)), (cx, Y(0.5))], col)
    elif suit == "S":
        _circle(img, cx - 0.24 * s, Y(0.1), 0.25 * s, col)
        _circle(img, cx + 0.24 * s, Y(0.1), 0.25 * s, col)
        _poly(img, [(cx - 0.48 * s, Y(0.04)), (cx + 0.48 * s, Y(0.04)), (cx, Y(-0.5))], col)
        _poly(img, [(cx, Y(0.1)), (cx + 0.18 * s, Y(0.5)), (cx - 0.18 * s, Y(0.5))], col)
    else:  # clubs
        _circle(img, cx, Y(-0.24), 0.22 * s, col)
        _circle(img, cx - 0.25 * s, Y(0.07), 0.22 * s, col)
        _circle(img, cx + 0.25 * s, Y(0.07), 0.22 * s, col)
        _poly(img, [(cx, Y(-0.05)), (cx + 0.17 * s, Y(0.5)), (cx - 0.17 * s, Y(0.5))], col)


def _suit_colour(style, suit):
    if style.four_colour:
        return {"S": (20, 20, 20), "H": (30, 30, 200), "D": (190, 90, 20), "C": (40, 130, 30)}[suit]
    return (20, 20, 20) if suit in "SC" else (35, 30, 195)


def _text(img, txt, x, y, h_mm, col, font, thick):
    """Put text with its baseline-left at (x, y) mm, cap height ~h_mm."""
    (tw, th), _ = cv2.getTextSize(txt, font, 1.0, thick)
    scale = h_mm * PPM / max(th, 1)
    cv2.putText(img, txt, (int(x * PPM), int(y * PPM)), font, scale, col,
                max(1, int(round(thick * scale * 0.6))), cv2.LINE_AA)
    return tw * scale / PPM


def _rounded_alpha(r_mm):
    a = np.zeros((TEX_H, TEX_W), np.uint8)
    r = r_mm
    _poly(a, [(r, 0), (CARD_W - r, 0), (CARD_W - r, CARD_H), (r, CARD_H)], 255)
    _poly(a, [(0, r), (CARD_W, r), (CARD_W, CARD_H - r), (0, CARD_H - r)], 255)
    for cx, cy in [(r, r), (CARD_W - r, r), (r, CARD_H - r), (CARD_W - r, CARD_H - r)]:
        _circle(a, cx, cy, r, 255)
    return a


def _qr_patch(text):
    q = segno.make_qr(text, version=1, error="m", boost_error=False)
    assert q.version == 1 and q.error == "M", (text, q.version, q.error)
    mat = np.array([list(r) for r in q.matrix], np.uint8)
    mat = np.pad(mat, QUIET_MODULES)                       # 25 x 25 incl. quiet zone
    big = np.kron(1 - mat, np.ones((24, 24), np.uint8)) * 255
    side = int(round(CODE_MM * PPM))
    return cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA)


def _paste_code(img, text, u0, v0, rot180):
    patch = _qr_patch(text)
    if rot180:
        patch = patch[::-1, ::-1]
    x0, y0 = int(round(u0 * PPM)), int(round(v0 * PPM))
    h, w = patch.shape
    img[y0:y0 + h, x0:x0 + w] = patch[:, :, None]


def _finish(img_bgr, alpha, style):
    """Premultiply, soften slightly, return uint8 BGRA."""
    a = alpha.astype(np.float32) / 255.0
    out = np.dstack([img_bgr.astype(np.float32) * a[:, :, None], alpha.astype(np.float32)])
    # a thin darker paper edge
    edge = cv2.GaussianBlur(a, (0, 0), 1.2)
    rim = np.clip((1.0 - edge) * a * 2.0, 0, 1)[:, :, None]
    out[:, :, :3] *= (1.0 - 0.25 * rim)
    out = cv2.GaussianBlur(out, (0, 0), 0.6)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


@lru_cache(maxsize=16)
def _alpha_for(r_mm):
    return _rounded_alpha(r_mm)


def _free_mask(style):
    """Where face art may go (not on codes, not on the index corners)."""
    mask = np.ones((int(CARD_H), int(CARD_W)), bool)        # 1 mm grid
    for _, (u0, v0, u1, v1) in code_squares_mm(style):
        mask[max(0, int(v0) - 2):int(v1) + 3, max(0, int(u0) - 2):int(u1) + 3] = False
    mask[:, :4] = mask[:, -4:] = False
    mask[:4, :] = mask[-4:, :] = False
    mask[:22, 50:] = False          # index top-right
    mask[-22:, :13] = False         # index bottom-left
    return mask


def _pip_slots(style, n, size):
    """n pip centres (mm), symmetric under the card's 180-degree turn."""
    free = _free_mask(style)
    r = int(np.ceil(size * 0.55))
    ok = cv2.erode(free.astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)).astype(bool)
    cands = []
    step = size * 1.25
    us = np.arange(CARD_W / 2 - 3 * step, CARD_W / 2 + 3 * step + 0.1, step)
    vs = np.arange(CARD_H / 2 - 5 * step, CARD_H / 2 + 0.01, step)
    for v in vs:
        for u in us:
            if v >= CARD_H / 2 - 0.01 and u >= CARD_W / 2 - 0.01:
                continue
            iu, iv = int(round(u)), int(round(v))
            if 0 <= iu < CARD_W and 0 <= iv < CARD_H and ok[iv, iu]:
                cands.append((u, v))
    c = np.array([CARD_W / 2, CARD_H / 2])
    if style.pip_order == "centre":
        cands.sort(key=lambda p: np.hypot(p[0] - c[0], p[1] - c[1]))
    elif style.pip_order == "spread":
        cands.sort(key=lambda p: -np.hypot(p[0] - c[0], (p[1] - c[1]) * 0.7))
    else:
        cands.sort(key=lambda p: (-abs(p[1] - c[1]), p[0]))
    half = cands[: n // 2]
    pts = [(u, v, False) for u, v in half] + [(CARD_W - u, CARD_H - v, True) for u, v in half]
    if n % 2:
        pts.append((CARD_W / 2, CARD_H / 2, False))
    return pts


@lru_cache(maxsize=160)
def face_texture(style_name: str, card: str) -> np.ndarray:
    st = get_style(style_name)
    rank, suit = card[0], card[1]
    img = np.full((TEX_H, TEX_W, 3), st.face_bg, np.uint8)
    half = np.full_like(img, 255)
    col = _suit_colour(st, suit)
    rtxt = "10" if rank == "T" else rank
    # corner index (top-right; its turned copy lands bottom-left)
    ih = 6.0 * st.index_scale
    (tw, th), _ = cv2.getTextSize(rtxt, st.font, 1.0, st.font_thick)
    wmm = tw * (ih * PPM / th) / PPM
    x_idx = CARD_W - 3.0 - max(wmm, 5.0)
    _text(half, rtxt, x_idx, 3.5 + ih, ih, col, st.font, st.font_thick)
    draw_suit(half, suit, x_idx + max(wmm, 5.0) / 2, 3.5 + ih + 5.0, 4.5 * st.index_scale, col)
    if rank in "JQK":
        m = st.margin_mm + CODE_MM + 1.5
        _poly(half, [(9, m), (54, m), (54, CARD_H / 2), (9, CARD_H / 2)], st.court_colour)
        cc = tuple(int(0.5 * x + 127) for x in st.court_colour)
        _poly(half, [(12, CARD_H / 2 - 2), (17, m + 3), (23, CARD_H / 2 - 7), (31.5, m + 2),
                     (40, CARD_H / 2 - 7), (46, m + 3), (51, CARD_H / 2 - 2)], cc)
        _text(half, rank, 26.5, CARD_H / 2 - 2.5, 7.5, (255, 255, 255), st.font, st.font_thick)
        draw_suit(half, suit, 14, CARD_H / 2 - 5.5, 5.0, (255, 255, 255))
    elif rank == "A" and st.ace_big:
        pass                     # one large upright pip, drawn below
    else:
        n = 1 if rank == "A" else int(rtxt)
        size = 7.0 if n <= 6 else 6.0
        for u, v, fl in _pip_slots(st, n, size)[: 2 * (n // 2)]:
            if fl:
                continue
            draw_suit(half, suit, u, v, size, col)
    # whole face = art + its 180-degree turn (ink is darker than paper)
    art = np.minimum(half, half[::-1, ::-1])
    if rank not in "JQK":
        n = 1 if rank == "A" else int(rtxt)
        if n % 2:       # centre pip drawn once, upright
            centre = np.full_like(img, 255)
            size = 7.0 if n <= 6 else 6.0
            if n == 1:
                size = 14.0 if st.ace_big else 11.0
            draw_suit(centre, suit, CARD_W / 2, CARD_H / 2, size, col)
            art = np.minimum(art, centre)
    a = art.astype(np.float32) / 255.0
    img = (img.astype(np.float32) * a).astype(np.uint8)
    # border
    if st.face_border != "none":
        bc = st.border_colour
        def rect(ins, th):
            r = max(st.corner_r_mm - ins, 0.8)
            _rounded_outline(img, ins, r, th, bc)
        if st.face_border == "line":
            rect(1.6, 0.35)
        elif st.face_border == "double":
            rect(1.2, 0.45)
            rect(2.2, 0.25)
        else:
            rect(1.4, 0.9)
    # the two codes, each with its white quiet zone
    txt = code_text(st, card)
    (_, (u0, v0, _, _)), (_, (u2, v2, _, _)) = code_squares_mm(st)
    _paste_code(img, txt, u0, v0, False)
    _paste_code(img, txt, u2, v2, True)
    return _finish(img, _alpha_for(st.corner_r_mm), st)


def _rounded_outline(img, ins, r, th_mm, col):
    t = max(1, int(round(th_mm * PPM)))
    x0, y0, x1, y1 = ins, ins, CARD_W - ins, CARD_H - ins
    P = lambda x, y: (int(round(x * PPM)), int(round(y * PPM)))
    for a, b in [((x0 + r, y0), (x1 - r, y0)), ((x0 + r, y1), (x1 - r, y1)),
                 ((x0, y0 + r), (x0, y1 - r)), ((x1, y0 + r), (x1, y1 - r))]:
        cv2.line(img, P(*a), P(*b), col, t, cv2.LINE_AA)
    rr = int(round(r * PPM))
    for (cx, cy), ang in [((x0 + r, y0 + r), 180), ((x1 - r, y0 + r), 270),
                          ((x1 - r, y1 - r), 0), ((x0 + r, y1 - r), 90)]:
        cv2.ellipse(img, P(cx, cy), (rr, rr), ang, 0, 90, col, t, cv2.LINE_AA)


@lru_cache(maxsize=16)
def back_texture(style_name: str) -> np.ndarray:
    st = get_style(style_name)
    c1, c2 = st.back_c1, st.back_c2
    img = np.full((TEX_H, TEX_W, 3), c1, np.uint8)
    P = lambda x, y: (int(round(x * PPM)), int(round(y * PPM)))
    if st.back == "lattice":
        for k in np.arange(-CARD_H, CARD_W + CARD_H, 4.0):
            cv2.line(img, P(k, 0), P(k + CARD_H, CARD_H), c2, 2, cv2.LINE_AA)
            cv2.line(img, P(k, CARD_H), P(k + CARD_H, 0), c2, 2, cv2.LINE_AA)
    elif st.back == "dots":
        for j, v in enumerate(np.arange(1.5, CARD_H, 4.2)):
            for u in np.arange(1.5 + (j % 2) * 2.4, CARD_W, 4.8):
                _circle(img, u, v, 1.1, c2)
    elif st.back == "stripes":
        for k in np.arange(-CARD_H, CARD_W + CARD_H, 7.0):
            _poly(img, [(k, 0), (k + 3.5, 0), (k + 3.5 + CARD_H * 0.6, CARD_H),
                        (k + CARD_H * 0.6, CARD_H)], c2)
    elif st.back == "crest":
        for u in np.arange(0, CARD_W, 3.0):
            cv2.line(img, P(u, 0), P(u, CARD_H), tuple(int(0.35 * a + 0.65 * b) for a, b in zip(c2, c1)), 1)
        for v in np.arange(0, CARD_H, 3.0):
            cv2.line(img, P(0, v), P(CARD_W, v), tuple(int(0.35 * a + 0.65 * b) for a, b in zip(c2, c1)), 1)
        cx, cy = CARD_W / 2, CARD_H / 2
        _circle(img, cx, cy, 15, c2)
        _circle(img, cx, cy, 13, c1)
        _poly(img, [(cx, cy - 11), (cx + 8, cy), (cx, cy + 11), (cx - 8, cy)], c2)
        _circle(img, cx, cy, 3.5, c1)
        for ins, th in [(4.0, 3), (6.0, 2)]:
            cv2.rectangle(img, P(ins, ins), P(CARD_W - ins, CARD_H - ins), c2, th, cv2.LINE_AA)
    elif st.back == "checker":
        s = 3.0
        for i, v in enumerate(np.arange(0, CARD_H, s)):
            for j, u in enumerate(np.arange(0, CARD_W, s)):
                if (i + j) % 2:
                    cv2.rectangle(img, P(u, v), P(u + s, v + s), c2, -1)
    # "plain": flat colour
    if st.back_border_mm > 0:
        b = st.back_border_mm
        bb = int(round(b * PPM))
        img[:bb, :] = st.back_border_colour
        img[-bb:, :] = st.back_border_colour
        img[:, :bb] = st.back_border_colour
        img[:, -bb:] = st.back_border_colour
    return _finish(img, _alpha_for(st.corner_r_mm), st)


def card_outline_mm(style: DeckStyle, n_arc: int = 5):
    """The card's rounded outline, (N, 2) in card mm."""
    r = style.corner_r_mm
    pts = []
    for (cx, cy), a0 in [((CARD_W - r, r), -90), ((CARD_W - r, CARD_H - r), 0),
                         ((r, CARD_H - r), 90), ((r, r), 180)]:
        for k in range(n_arc + 1):
            a = np.radians(a0 + 90.0 * k / n_arc)
            pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    return np.array(pts)
