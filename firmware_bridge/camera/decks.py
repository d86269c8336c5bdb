"""Deck styles for the synthetic camera: what different printers make of CARD_FACES.md.

The sheet fixes the codes (QR, their corners, their size) and leaves open the back (any
colours, flat or patterned), the margin of the codes to the card's edge (2–6 mm), the card
art around them and small print skew. A `DeckStyle` picks one of each, so the accuracy
suite can check that the recogniser reads any deck that follows the sheet, not one look.

Two independent card arts exist: `classic` (faces.CardArtist, OpenCV's QR encoder, square
pixels drawn at 4× and averaged) and `press` (press_art.PressArtist: segno's QR encoder,
ivory stock, a frame, pips, each code turned by its own small print skew, drawn at 3×).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from firmware_bridge.camera.layout import CARD_H_MM, CARD_W_MM


@dataclass(frozen=True)
class BackDesign:
    """A card back: a ground colour and a pattern in an ink colour, in a border."""

    kind: str  # "lattice" | "stripes" | "logo" | "flat" | "emblem" | "dots"
    ground_bgr: tuple[int, int, int]
    ink_bgr: tuple[int, int, int]
    border_mm: float = 1.5
    border_bgr: tuple[int, int, int] = (243, 244, 240)
    step_mm: float = 5.0  # pattern pitch
    line_mm: float = 0.5  # pattern line width (dots: a dot's diameter)
    #: "emblem": the medallion's share of the back (a filled oval in ink, a ring and a star
    #: of the ground inside it); "dots": the dots lie on a square grid (else staggered)
    emblem_share: float = 0.25
    square_grid: bool = True
    #: "emblem": filled with a gradient from ink_bgr in its middle to this colour at its rim
    #: (a gold medallion shaded like metal); None: flat ink
    ink2_bgr: tuple[int, int, int] | None = None


@dataclass(frozen=True)
class DeckStyle:
    name: str
    back: BackDesign
    qr_margin_mm: float = 2.0  # card edge to the code's quiet zone
    art: str = "classic"  # "classic" | "press"
    qr_skew_deg: float = 0.0  # largest print skew of a code (press art)
    felt_bgr: tuple[int, int, int] | None = None  # None: the layout's felt
    upside_down: bool = False  # some cards lie turned 180° (either way round)


SUPERSAMPLE = 4


def paint_back(design: BackDesign, mm_per_px: float) -> np.ndarray:
    """The back at the camera's scale (drawn larger and averaged down, like a photo)."""
    w = round(CARD_W_MM / mm_per_px)
    h = round(CARD_H_MM / mm_per_px)
    k = SUPERSAMPLE / mm_per_px  # big pixels per mm
    big = np.empty((h * SUPERSAMPLE, w * SUPERSAMPLE, 3), np.uint8)
    big[:] = design.ground_bgr
    bh, bw = big.shape[:2]
    step, thick = design.step_mm * k, max(1, round(design.line_mm * k))
    if design.kind == "lattice":
        for i in range(-int(bh / step) - 2, int(bw / step) + int(bh / step) + 2):
            x = i * step
            cv2.line(big, (int(x), 0), (int(x + bh), bh), design.ink_bgr, thick, cv2.LINE_AA)
            cv2.line(big, (int(x), 0), (int(x - bh), bh), design.ink_bgr, thick, cv2.LINE_AA)
    elif design.kind == "stripes":
        # broad diagonal bands: half the pitch ink, half ground
        band = max(1, round(step / 2))
        for i in range(-int(bh / step) - 2, int(bw / step) + 2):
            x = i * step
            pts = np.array([[x, 0], [x + band, 0], [x + band + bh, bh], [x + bh, bh]], np.int32)
            cv2.fillPoly(big, [pts], design.ink_bgr, cv2.LINE_AA)
    elif design.kind == "logo":
        # a fine dot grid over the ground, and a crest in the middle: ring, star, banner
        for y in np.arange(step / 2, bh, step):
            for x in np.arange(step / 2, bw, step):
                cv2.circle(big, (int(x), int(y)), thick, design.ink_bgr, -1, cv2.LINE_AA)
        cx, cy = bw / 2, bh / 2
        r = 16 * k
        cv2.circle(big, (int(cx), int(cy)), int(r), design.ink_bgr, max(1, round(2.2 * k)), cv2.LINE_AA)
        star = []
        for j in range(10):
            rr = (0.75 if j % 2 == 0 else 0.32) * r
            a = math.pi / 2 + j * math.pi / 5
            star.append([cx + rr * math.cos(a), cy - rr * math.sin(a)])
        cv2.fillPoly(big, [np.array(star, np.int32)], design.ink_bgr, cv2.LINE_AA)
        for sign in (-1, 1):
            y0 = cy + sign * 1.55 * r
            cv2.rectangle(big, (int(cx - 20 * k), int(y0 - 3 * k)), (int(cx + 20 * k), int(y0 + 3 * k)),
                          design.ink_bgr, -1, cv2.LINE_AA)
    elif design.kind == "emblem":
        # a large medallion in the middle: a filled oval of ink, a ring and a star of the
        # ground inside it (a purple back with a white or gold emblem)
        cx, cy = bw / 2, bh / 2
        ry = math.sqrt(design.emblem_share * bw * bh / math.pi * (bh / bw))
        rx = ry * bw / bh
        cv2.ellipse(big, (int(cx), int(cy)), (int(rx), int(ry)), 0, 0, 360, design.ink_bgr, -1, cv2.LINE_AA)
        if design.ink2_bgr is not None:
            yy, xx = np.mgrid[0:bh, 0:bw].astype(np.float32)
            t = np.sqrt(((xx - cx) / rx) ** 2 + ((yy - cy) / ry) ** 2)
            inside = t <= 1.0
            t = np.clip(t, 0.0, 1.0)[..., None]
            grad = (1 - t) * np.array(design.ink_bgr, np.float32) + t * np.array(design.ink2_bgr, np.float32)
            big[inside] = grad[inside].astype(np.uint8)
        ring = max(1, round(design.line_mm * 2 * k))
        cv2.ellipse(big, (int(cx), int(cy)), (int(0.8 * rx), int(0.8 * ry)), 0, 0, 360, design.ground_bgr, ring,
                    cv2.LINE_AA)
        star = []
        r = 0.55 * min(rx, ry)
        for j in range(10):
            rr = (1.0 if j % 2 == 0 else 0.42) * r
            a = math.pi / 2 + j * math.pi / 5
            star.append([cx + rr * math.cos(a), cy - rr * math.sin(a)])
        cv2.fillPoly(big, [np.array(star, np.int32)], design.ground_bgr, cv2.LINE_AA)
    elif design.kind == "dots":
        # dots on a grid (square or staggered): a dot's diameter is line_mm, their pitch step_mm
        rad = max(1, round(design.line_mm * k / 2))
        for j, y in enumerate(np.arange(step / 2, bh, step)):
            off = 0 if design.square_grid or j % 2 == 0 else step / 2
            for x in np.arange(step / 2 + off, bw, step):
                cv2.circle(big, (int(x), int(y)), rad, design.ink_bgr, -1, cv2.LINE_AA)
    elif design.kind != "flat":
        raise ValueError(f"no back pattern {design.kind!r} (lattice, stripes, logo, flat, emblem, dots)")
    if design.border_mm > 0:
        b = max(1, round(design.border_mm * k))
        cv2.rectangle(big, (0, 0), (bw - 1, bh - 1), design.border_bgr, b)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


# The styles of the accuracy suite. `studio` is the deck the station started with.
STYLES: dict[str, DeckStyle] = {
    "studio": DeckStyle(
        "studio",
        BackDesign("lattice", (150, 70, 25), (195, 125, 65)),
        qr_margin_mm=2.0, art="classic",
    ),
    "bordeaux": DeckStyle(
        "bordeaux",
        # red with a white lattice and a wide white border, like the classic casino back
        BackDesign("lattice", (38, 30, 178), (236, 236, 236), border_mm=4.0, step_mm=4.0, line_mm=0.7),
        qr_margin_mm=4.0, art="press", qr_skew_deg=1.5, upside_down=True,
    ),
    "stripes": DeckStyle(
        "stripes",
        # purple with pink bands on a blue felt
        BackDesign("stripes", (120, 30, 105), (150, 80, 230), border_mm=2.5, step_mm=6.0),
        qr_margin_mm=6.0, art="classic", felt_bgr=(112, 72, 28), upside_down=True,
    ),
    "crest": DeckStyle(
        "crest",
        # navy with a silver dot grid and a crest (logo) in the middle
        BackDesign("logo", (92, 40, 16), (215, 215, 220), border_mm=3.0, step_mm=3.5, line_mm=0.45),
        qr_margin_mm=6.0, art="press", qr_skew_deg=2.0,
    ),
    # backs with no hue, or the felt's hue: learned as tones in Lab (colours.ToneModel)
    "onyx": DeckStyle(
        "onyx",
        # black with a grey lattice (the cut card is plain black: the pattern tells them apart)
        BackDesign("lattice", (24, 24, 24), (128, 128, 128), border_mm=2.0, step_mm=5.0, line_mm=0.8),
        qr_margin_mm=3.0, art="press", qr_skew_deg=1.0,
    ),
    "slate": DeckStyle(
        "slate",
        # plain mid grey in a white border
        BackDesign("flat", (126, 128, 130), (126, 128, 130), border_mm=3.0),
        qr_margin_mm=5.0, art="classic", upside_down=True,
    ),
    "chess": DeckStyle(
        "chess",
        # black with a bold white lattice and a white border
        BackDesign("lattice", (22, 22, 22), (236, 236, 236), border_mm=3.0, step_mm=4.0, line_mm=0.8),
        qr_margin_mm=2.0, art="classic",
    ),
    "navy": DeckStyle(
        "navy",
        # navy with darker navy stripes, on the blue felt (the felt's hue)
        BackDesign("stripes", (92, 40, 16), (66, 26, 10), border_mm=2.0, step_mm=6.0),
        qr_margin_mm=4.0, art="press", qr_skew_deg=1.5, felt_bgr=(112, 72, 28),
    ),
    "forest": DeckStyle(
        "forest",
        # dark green with a darker green lattice, on the green felt (the felt's hue)
        BackDesign("lattice", (26, 64, 20), (14, 40, 12), border_mm=2.0, step_mm=5.0, line_mm=0.8),
        qr_margin_mm=3.0, art="classic", upside_down=True,
    ),
}

# purple backs with a large emblem in the middle, and black backs with dots (the variants
# the accuracy suite reads; more in tests/camera/test_camera_backs.py)
STYLES.update({
    "amethyst": DeckStyle(
        "amethyst",
        # purple with a white medallion a quarter of the back, in a white border
        BackDesign("emblem", (120, 40, 100), (240, 240, 240), border_mm=3.0, emblem_share=0.25),
        qr_margin_mm=3.0, art="press", qr_skew_deg=1.0,
    ),
    "regent": DeckStyle(
        "regent",
        # dark violet with a gold medallion two fifths of the back, no border
        BackDesign("emblem", (90, 25, 60), (40, 175, 215), border_mm=0.0, emblem_share=0.4, line_mm=0.8),
        qr_margin_mm=5.0, art="classic", upside_down=True,
    ),
    "domino": DeckStyle(
        "domino",
        # black with large white dots, dense, in a white border
        BackDesign("dots", (20, 20, 20), (235, 235, 235), border_mm=3.0, step_mm=5.0, line_mm=2.2),
        qr_margin_mm=4.0, art="press", qr_skew_deg=1.5,
    ),
    "pepper": DeckStyle(
        "pepper",
        # black with small grey dots, sparse and staggered, no border
        BackDesign("dots", (18, 18, 18), (140, 140, 140), border_mm=0.0, step_mm=6.0, line_mm=1.2,
                   square_grid=False),
        qr_margin_mm=2.5, art="classic", upside_down=True,
    ),
    "heather": DeckStyle(
        "heather",
        # a greyish violet (too grey for a hue over much of it) with a violet medallion two
        # fifths of the back, no border: learned as tones
        BackDesign("emblem", (125, 100, 118), (150, 40, 120), border_mm=0.0, emblem_share=0.4),
        qr_margin_mm=3.5, art="press", qr_skew_deg=1.0,
    ),
})

# on a grey felt (CARD_FACES.md: "felt of one plain colour"; a grey has no hue to tell it by,
# only its lightness)
STYLES.update({
    "granite": DeckStyle(
        "granite",
        # red with a white lattice in a white border, on a mid-grey felt
        BackDesign("lattice", (40, 34, 170), (232, 232, 232), border_mm=3.0, step_mm=4.5, line_mm=0.7),
        qr_margin_mm=3.0, art="press", qr_skew_deg=1.0, felt_bgr=(86, 86, 84),
    ),
    "sage": DeckStyle(
        "sage",
        # sage green with a cream lattice in a narrow cream border, on a dark grey felt
        BackDesign("lattice", (84, 128, 72), (200, 226, 232), border_mm=2.0, step_mm=5.0, line_mm=0.8),
        qr_margin_mm=5.0, art="classic", felt_bgr=(72, 70, 70), upside_down=True,
    ),
})

#: the styles on a grey felt
GREY_FELT_STYLES = ("granite", "sage")

#: purple backs with an emblem, black backs with dots
EMBLEM_DOT_STYLES = ("amethyst", "regent", "heather", "domino", "pepper")

#: the styles whose backs have no hue of their own, or the felt's (learned as tones)
TONE_STYLES = ("onyx", "slate", "chess", "navy", "forest")


def style_from(spec: str | DeckStyle | None) -> DeckStyle:
    if spec is None:
        return STYLES["studio"]
    if isinstance(spec, DeckStyle):
        return spec
    if spec not in STYLES:
        raise ValueError(f"no deck style {spec!r}; styles: {', '.join(STYLES)}")
    return STYLES[spec]
