"""Deck styles (printers) and the perturbation names.

Colours are BGR (OpenCV order), 0-255. Lengths are millimetres on the card (63 x 88 mm).
Every style keeps the QR quiet zone (2 modules, about 2.1 mm) free of art.
"""

PERTURBATIONS = ("sharp", "blur", "noise", "dim", "warm", "jpeg")

DECK_STYLES = {
    # classic red lattice back with a white border; plain faces, index beside the code
    "lattice_red": {
        "margin_mm": 3.0, "serialized": False, "corner_radius_mm": 3.2,
        "face_white": (246, 248, 250), "ink": (28, 26, 24), "red": (38, 30, 196),
        "four_colour": False, "index": "beside", "font": "simplex", "frame": None,
        "panel": None, "court": ((40, 40, 190), (160, 90, 30), (40, 190, 230)),
        "back": {"kind": "lattice", "base": (38, 36, 170), "line": (235, 235, 240),
                 "spacing_mm": 3.2, "line_mm": 0.45, "border_mm": 4.0},
    },
    # navy diagonal stripes with a thin white border; serialized; codes 2 mm from the edge
    "stripes_navy": {
        "margin_mm": 2.0, "serialized": True, "corner_radius_mm": 3.0,
        "face_white": (250, 250, 250), "ink": (20, 20, 20), "red": (50, 40, 210),
        "four_colour": True, "index": "corner", "font": "duplex", "frame": None,
        "panel": None, "court": ((60, 60, 200), (140, 60, 20), (30, 160, 220)),
        "back": {"kind": "stripes", "base": (90, 40, 20), "line": (160, 100, 60),
                 "spacing_mm": 2.6, "line_mm": 1.1, "angle_deg": 35.0, "border_mm": 2.5},
    },
    # near-black back (charcoal with a faint darker lattice), no border; printed frame on the face
    "noir": {
        "margin_mm": 5.0, "serialized": False, "corner_radius_mm": 3.5,
        "face_white": (240, 243, 244), "ink": (30, 30, 30), "red": (40, 30, 170),
        "four_colour": False, "index": "beside", "font": "triplex",
        "frame": {"inset_mm": 1.6, "width_mm": 0.5, "color": (60, 140, 180)},
        "panel": (200, 222, 236), "court": ((30, 30, 150), (20, 20, 20), (40, 160, 200)),
        "back": {"kind": "lattice", "base": (34, 31, 29), "line": (52, 50, 47),
                 "spacing_mm": 4.5, "line_mm": 0.6, "border_mm": 0.0},
    },
    # green back close to the green felt of table 0, dotted, no border
    "felt_green": {
        "margin_mm": 4.0, "serialized": True, "corner_radius_mm": 3.0,
        "face_white": (244, 247, 247), "ink": (25, 25, 25), "red": (45, 35, 185),
        "four_colour": False, "index": "corner", "font": "simplex", "frame": None,
        "panel": (215, 236, 215), "court": ((50, 120, 40), (40, 40, 180), (30, 180, 220)),
        "back": {"kind": "dots", "base": (64, 120, 40), "line": (84, 146, 62),
                 "spacing_mm": 3.6, "line_mm": 1.3, "border_mm": 0.0},
    },
    # bright orange/yellow sunburst, no border; codes 6 mm in, frame line, four-colour suits
    "sunburst": {
        "margin_mm": 6.0, "serialized": True, "corner_radius_mm": 4.0,
        "face_white": (247, 250, 251), "ink": (22, 22, 22), "red": (30, 40, 220),
        "four_colour": True, "index": "beside", "font": "complex",
        "frame": {"inset_mm": 2.0, "width_mm": 0.7, "color": (30, 120, 230)},
        "panel": None, "court": ((0, 140, 250), (120, 40, 150), (40, 40, 200)),
        "back": {"kind": "rays", "base": (30, 160, 250), "line": (60, 220, 255),
                 "rays": 28, "border_mm": 0.0},
    },
    # flat bright cyan with a wide white border
    "plain_cyan": {
        "margin_mm": 2.5, "serialized": False, "corner_radius_mm": 2.8,
        "face_white": (252, 252, 250), "ink": (18, 18, 18), "red": (40, 30, 205),
        "four_colour": False, "index": "corner", "font": "duplex", "frame": None,
        "panel": None, "court": ((180, 120, 30), (40, 40, 190), (50, 200, 240)),
        "back": {"kind": "plain", "base": (205, 185, 40), "border_mm": 5.0},
    },
    # purple back with a medallion logo over fine dots, white border; coloured face panels
    "royal_logo": {
        "margin_mm": 3.5, "serialized": True, "corner_radius_mm": 3.2,
        "face_white": (245, 246, 248), "ink": (35, 25, 30), "red": (60, 30, 180),
        "four_colour": False, "index": "beside", "font": "triplex", "frame": None,
        "panel": (236, 222, 238), "court": ((130, 40, 110), (40, 160, 210), (160, 80, 40)),
        "back": {"kind": "logo", "base": (110, 30, 95), "line": (150, 70, 140),
                 "accent": (90, 200, 235), "spacing_mm": 2.4, "line_mm": 0.7, "border_mm": 3.0},
    },
    # grey and white diamond check (argyle), thin border; a busy, high-contrast back
    "argyle_grey": {
        "margin_mm": 4.5, "serialized": False, "corner_radius_mm": 3.0,
        "face_white": (248, 248, 246), "ink": (24, 24, 24), "red": (45, 45, 200),
        "four_colour": False, "index": "beside", "font": "simplex",
        "frame": {"inset_mm": 1.4, "width_mm": 0.35, "color": (40, 40, 40)},
        "panel": None, "court": ((80, 80, 80), (40, 40, 190), (40, 170, 210)),
        "back": {"kind": "argyle", "base": (120, 118, 116), "line": (225, 225, 222),
                 "spacing_mm": 7.0, "line_mm": 0.5, "border_mm": 1.8},
    },
}

CARD_W_MM = 63.0
CARD_H_MM = 88.0
QR_MM = 22.0  # the 21-module symbol, about 1.05 mm per module
QZ_MM = 2.0 * QR_MM / 21.0  # two modules


def check_style(style):
    if style not in DECK_STYLES:
        raise ValueError(f"unknown deck style {style!r}; known: {', '.join(sorted(DECK_STYLES))}")
    return DECK_STYLES[style]


def check_perturbation(name):
    if name not in PERTURBATIONS:
        raise ValueError(f"unknown perturbation {name!r}; known: {', '.join(PERTURBATIONS)}")
    return name
