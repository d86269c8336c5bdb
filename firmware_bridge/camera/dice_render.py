"""Dice in the tray as the overhead camera sees them: the synthetic camera's dice (CARD_FACES.md,
"Dice"), with the imperfections of a real table given as data (`DicePerturbations`).

Two 16 mm dice, white with round pips, the 1 and the 4 red and the others black, lie in a
tray on the felt at any rotation, possibly touching each other or the tray's rim. Seen a
little off axis, strips of their side faces show (pips included) beside the top face. A die
may be partly out of focus. Everything the reader must cope with is drawn here on purpose and
varied from die set to die set (pip sizes and spacing, the shade of the red and the black, the
white of the plastic, how dark the rounded edges look) and from table to table (felt, tray,
rim, light).

Drawing is done at 4x and reduced with area averaging, so edges and pips are anti-aliased as a
real sensor sees them. Nothing here is used by the reader.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field, fields, replace

import cv2
import numpy as np

SUPERSAMPLE = 4
DIE_MM = 16.0
#: a die whose top face has this much of it (mm²) under a wall is not wholly in view: its
#: truth is `0`
HIDDEN_MM2 = 1.0

#: pip positions of each face on the 3x3 grid, (column, row) in -1..1
PIP_GRID: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
RED_FACES = frozenset({1, 4})


@dataclass(frozen=True)
class DiceLook:
    """One die set's manufacture (varied within the sheet: white, round pips, 1 and 4 red)."""

    face_bgr: tuple[int, int, int] = (238, 242, 244)
    red_bgr: tuple[int, int, int] = (40, 30, 200)
    black_bgr: tuple[int, int, int] = (35, 32, 30)
    pip_frac: float = 0.18  # pip diameter / die edge
    one_frac: float = 0.34  # the big red 1
    spacing: float = 0.28  # pip centre offset from the face centre / die edge
    corner_frac: float = 0.14  # corner radius / die edge
    edge_frac: float = 0.06  # width of the rounded edge seen from above / die edge
    edge_shade: float = 0.78  # brightness of that edge relative to the face
    #: light the plastic lets through (0 opaque .. 0.3): the face takes some of the floor's
    #: colour under it, the pips (drilled into it) are shallower and lighter, the outline softer
    translucency: float = 0.0
    #: the rounded edge shaded as a gradient from the face's white down to `edge_shade`
    #: (a real rounded edge turns gradually from the light) instead of one flat band
    edge_gradient: bool = False


def random_look(rng: random.Random) -> DiceLook:
    """A die set within the sheet: plastic from a cool white to ivory and cream, opaque to a
    little translucent; pips small to big (at least 6 px at the camera's scale) in a red from
    dark and dull to bright; rounded edges shaded flat or gradually."""
    white = rng.randint(215, 250)
    cream = rng.choice((0.0, 0.0, rng.uniform(0.0, 1.0)))  # white, or ivory to cream
    red = rng.choice(("bright", "dull", "dark"))
    if red == "bright":
        red_bgr = (rng.randint(20, 70), rng.randint(15, 60), rng.randint(170, 230))
    elif red == "dull":
        red_bgr = (rng.randint(55, 90), rng.randint(50, 80), rng.randint(140, 175))
    else:
        red_bgr = (rng.randint(20, 50), rng.randint(15, 45), rng.randint(105, 140))
    pip = rng.uniform(0.13, 0.21)
    return DiceLook(
        face_bgr=(int(white - rng.randint(0, 10) - 48 * cream), int(white - rng.randint(0, 6) - 18 * cream), white),
        red_bgr=red_bgr,
        black_bgr=tuple(k + rng.randint(-6, 6) for k in [rng.randint(18, 60)] * 3),  # type: ignore[arg-type]
        pip_frac=pip,
        one_frac=rng.uniform(max(0.22, pip + 0.04), 0.40),
        spacing=rng.uniform(0.25, 0.29),
        corner_frac=rng.uniform(0.08, 0.16),
        edge_frac=rng.uniform(0.03, 0.07),
        edge_shade=rng.uniform(0.70, 0.88),
        translucency=rng.choice((0.0, 0.0, 0.0, rng.uniform(0.05, 0.2))),
        edge_gradient=rng.random() < 0.5,
    )


#: named die sets for the accuracy suite, each within the sheet (white plastic, round pips, 1
#: and 4 red) and each unlike the others in what the sheet leaves open
DICE_SETS: dict[str, DiceLook] = {
    "studio": DiceLook(),
    "ivory": DiceLook(face_bgr=(214, 232, 242), red_bgr=(38, 28, 168), black_bgr=(42, 38, 36), pip_frac=0.17,
                      one_frac=0.30, spacing=0.27, corner_frac=0.12, edge_frac=0.05, edge_shade=0.80),
    "casino": DiceLook(face_bgr=(250, 250, 250), red_bgr=(30, 20, 215), black_bgr=(20, 20, 20), pip_frac=0.16,
                       one_frac=0.26, spacing=0.26, corner_frac=0.07, edge_frac=0.03, edge_shade=0.86),
    "big_pips": DiceLook(face_bgr=(236, 240, 240), red_bgr=(55, 45, 190), black_bgr=(30, 30, 30), pip_frac=0.20,
                         one_frac=0.36, spacing=0.29, corner_frac=0.14, edge_frac=0.06, edge_shade=0.75),
    "rounded": DiceLook(face_bgr=(240, 242, 246), red_bgr=(48, 36, 196), black_bgr=(36, 34, 32), pip_frac=0.18,
                        one_frac=0.32, spacing=0.27, corner_frac=0.18, edge_frac=0.08, edge_shade=0.68),
    "pale_red": DiceLook(face_bgr=(232, 238, 244), red_bgr=(72, 62, 205), black_bgr=(58, 54, 52), pip_frac=0.18,
                         one_frac=0.30, spacing=0.28, corner_frac=0.11, edge_frac=0.05, edge_shade=0.82),
    # ivory plastic, a dull brownish red
    "ivory_dull_red": DiceLook(face_bgr=(172, 210, 232), red_bgr=(62, 60, 150), black_bgr=(48, 44, 42),
                               pip_frac=0.16, one_frac=0.30, spacing=0.27, corner_frac=0.12, edge_frac=0.06,
                               edge_shade=0.76, edge_gradient=True),
    # cream plastic, big pips, a dark red
    "cream_big_pips": DiceLook(face_bgr=(182, 220, 238), red_bgr=(40, 36, 128), black_bgr=(34, 32, 30),
                               pip_frac=0.23, one_frac=0.40, spacing=0.29, corner_frac=0.13, edge_frac=0.06,
                               edge_shade=0.74, edge_gradient=True),
    # a white that lets light through: greyer against the felt, shallow pips, soft outline
    "translucent_white": DiceLook(face_bgr=(222, 228, 230), red_bgr=(70, 60, 190), black_bgr=(52, 50, 52),
                                  pip_frac=0.17, one_frac=0.30, spacing=0.27, corner_frac=0.14, edge_frac=0.07,
                                  edge_shade=0.84, translucency=0.25, edge_gradient=True),
    # a pearly white, a dark red
    "pearl_dark_red": DiceLook(face_bgr=(234, 236, 242), red_bgr=(32, 26, 118), black_bgr=(30, 30, 32),
                               pip_frac=0.18, one_frac=0.32, spacing=0.26, corner_frac=0.12, edge_frac=0.05,
                               edge_shade=0.80, edge_gradient=True),
    # small pips (6-7 px at 0.30 mm per pixel), a bright red
    "small_pips": DiceLook(face_bgr=(240, 244, 246), red_bgr=(36, 30, 220), black_bgr=(26, 26, 26), pip_frac=0.13,
                           one_frac=0.24, spacing=0.25, corner_frac=0.10, edge_frac=0.04, edge_shade=0.82),
}


@dataclass(frozen=True)
class PlacedDie:
    """One die as it lies: centre in tray millimetres (from the tray's centre), turn, the view's
    offset of its top face against its foot (mm; (0, 0) straight from above: no side shows),
    the faces on its sides, and its own defocus (pixels, 0 sharp)."""

    face: int
    x_mm: float
    y_mm: float
    angle_deg: float
    tilt_mm: tuple[float, float] = (0.0, 0.0)
    side_faces: tuple[int, int, int, int] = (2, 3, 5, 4)  # on the edges +x, +y, -x, -y
    blur_px: float = 0.0


@dataclass(frozen=True)
class Tray:
    """The dice tray on the felt: a rounded rectangle of pad colour inside a rim."""

    width_mm: float = 120.0
    height_mm: float = 60.0
    pad_bgr: tuple[int, int, int] = (30, 90, 25)
    rim_bgr: tuple[int, int, int] = (30, 60, 110)
    rim_mm: float = 4.0
    wall_mm: float = 0.0  # the rim's height above the pad (0: drawn flat, as seen from straight above)


@dataclass(frozen=True)
class DicePerturbations:
    """How far a dice picture is from a perfect one, as data."""

    noise_sigma: float = 2.0  # sensor noise, grey levels
    blur_sigma: float = 0.0  # whole-frame defocus, pixels
    defocus_rate: float = 0.0  # chance that a die is out of focus on its own
    defocus_px: tuple[float, float] = (1.5, 3.5)  # that die's blur, pixels (range)
    tilt_mm: float = 0.0  # largest view offset of a top face against its foot: side strips
    touching_rate: float = 0.0  # chance that the two dice touch
    rim_rate: float = 0.0  # chance that a die touches the tray's rim
    brightness: float = 1.0
    warmth: float = 0.0  # 0 neutral .. 1 tungsten
    light_gradient: float = 0.0  # brightness falls by this fraction across the tray
    glare: float = 0.0  # peak grey levels of a reflected light spot
    vary_look: bool = True  # a new die set (pip sizes, colours) for each tray
    vary_felt: bool = True  # a new felt, pad and rim colour for each tray
    jpeg_quality: int = 0
    mm_per_px: tuple[float, float] = (0.30, 0.30)  # camera scale range
    cover_rate: float = 0.0  # chance that the dealer's finger covers part of a die
    wall_mm: tuple[float, float] = (0.0, 0.0)  # the tray's rim height range (0: flat)
    off_axis_mm: tuple[float, float] = (0.0, 0.0)  # the camera's foot's distance from the tray's centre (range)
    camera_mm: tuple[float, float] = (1700.0, 1900.0)  # the camera's height above the felt (range)
    #: one table's camera: its foot (mm from the tray's centre) fixed, not drawn per picture (the
    #: stills a dice calibration learns the camera's view from, and the throws read after it)
    camera_foot_mm: tuple[float, float] | None = None
    pale_rim_rate: float = 0.0  # chance that the rim is pale: from 0.75 to 1.1 of the dice's white, or its tint
    rim_turn_deg: float = 4.0  # a die against the rim is turned up to this much from square to it (its corner on it)
    rim_gap_mm: tuple[float, float] = (0.1, 0.1)  # how far from the rim's wall a die "against" it lies (range)
    light_floor_rate: float = 0.15  # chance that the tray's floor is light (grey, cream, pale green): little contrast with the dice

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> DicePerturbations:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown dice perturbation(s) {sorted(unknown)}; known: {sorted(known)}")
        return cls(**data)  # type: ignore[arg-type]

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


DICE_PRESETS: dict[str, DicePerturbations] = {
    "clean": DicePerturbations(noise_sigma=0.0, vary_look=False, vary_felt=False),
    "rotation": DicePerturbations(),
    "noise": DicePerturbations(noise_sigma=8.0),
    "blur": DicePerturbations(blur_sigma=0.8),
    "defocus": DicePerturbations(defocus_rate=0.5),
    "side_strips": DicePerturbations(tilt_mm=3.0),
    "touching": DicePerturbations(touching_rate=1.0),
    "rim": DicePerturbations(rim_rate=1.0),
    "dim": DicePerturbations(brightness=0.45, noise_sigma=3.0),
    "warm": DicePerturbations(warmth=0.8),
    "gradient": DicePerturbations(light_gradient=0.35),
    "glare": DicePerturbations(glare=70.0),
    "jpeg": DicePerturbations(jpeg_quality=60),
    "scale": DicePerturbations(mm_per_px=(0.25, 0.45)),
    "covered": DicePerturbations(cover_rate=1.0),
    "combined": DicePerturbations(
        noise_sigma=4.0, blur_sigma=0.5, defocus_rate=0.2, tilt_mm=2.0, touching_rate=0.4,
        rim_rate=0.3, brightness=0.75, warmth=0.4, light_gradient=0.2, glare=30.0,
        jpeg_quality=80, mm_per_px=(0.27, 0.40), cover_rate=0.1,
    ),
}

# Beyond what a studio table should ever show (not in the default accuracy run): pictures so
# poor that dice must come out `0`, never as another face.
DICE_STRESS_PRESETS: dict[str, DicePerturbations] = {
    "stress": DicePerturbations(
        noise_sigma=12.0, blur_sigma=1.2, defocus_rate=0.6, defocus_px=(2.0, 6.0), tilt_mm=5.0,
        touching_rate=0.5, rim_rate=0.3, brightness=0.4, warmth=0.7, light_gradient=0.4,
        glare=90.0, jpeg_quality=35, mm_per_px=(0.30, 0.52), cover_rate=0.3,
    ),
    # A tray whose rim stands 20-25 mm high, the camera 1.7-1.9 m up and 300-600 mm off axis,
    # the dice against the rim: the wall nearer the camera hides a strip of a die lying
    # against it (up to about 3 mm), whose truth is then `0`. The reader catches strips that
    # reach past a die's rounded edge into its face (docs/camera.md, "Dice sets"); a strip of
    # a millimetre or so is not told from a die's own shading, so here a die's true face
    # may still be named where the truth is `0`.
    "tall_rim": DicePerturbations(rim_rate=1.0, wall_mm=(20.0, 25.0), off_axis_mm=(300.0, 600.0)),
    # The general class of dice partly hidden by a tray's rim: walls 12-45 mm high, dark or
    # pale (down to the dice's own white, or lighter), the camera 150-900 mm off axis in any
    # direction, a die against the wall or a little off it, square to it or turned so that a
    # corner goes under it: a corner, a strip or up to half a top face hidden. Every die with
    # any of its top face under a wall is `0` in the truth.
    "hidden": DicePerturbations(rim_rate=1.0, wall_mm=(12.0, 45.0), off_axis_mm=(150.0, 900.0),
                                pale_rim_rate=0.4, rim_turn_deg=45.0, rim_gap_mm=(0.1, 3.0)),
}


def dice_perturbations_from(spec: str | dict | DicePerturbations | None) -> DicePerturbations:
    if spec is None:
        return DicePerturbations()
    if isinstance(spec, DicePerturbations):
        return spec
    if isinstance(spec, str):
        known = {**DICE_PRESETS, **DICE_STRESS_PRESETS}
        if spec not in known:
            raise ValueError(f"no dice preset {spec!r}; presets: {', '.join(known)}")
        return known[spec]
    if isinstance(spec, dict):
        base = dice_perturbations_from(str(spec["preset"])) if "preset" in spec else DicePerturbations()
        rest = {k: v for k, v in spec.items() if k != "preset"}
        return replace(base, **DicePerturbations.from_dict({**base.as_dict(), **rest}).as_dict())
    raise TypeError(f"dice perturbations must be a preset name, a dict or DicePerturbations, not {type(spec).__name__}")


SKIN_TONES = ((118, 158, 212), (96, 136, 190), (80, 115, 165), (105, 150, 205), (150, 180, 225))
FELTS = ((40, 112, 34), (110, 60, 20), (35, 35, 120), (60, 60, 60), (90, 40, 70), (20, 80, 90), (25, 25, 25))
#: light tray floors, on which a die's white stands out little (a cream floor, a light grey)
LIGHT_FLOORS = ((150, 168, 172), (165, 195, 210), (130, 160, 135), (175, 180, 180))
RIMS = ((30, 60, 110), (20, 20, 20), (40, 140, 190), (30, 30, 140), (60, 40, 30))


def _rounded_square(cx: float, cy: float, half: float, radius: float, angle: float) -> np.ndarray:
    """Polygon of a rounded square (centre, half edge, corner radius, turn in radians)."""
    pts = []
    r = min(radius, half)
    for qx, qy, a0 in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        ccx, ccy = qx * (half - r), qy * (half - r)
        for k in range(7):
            a = math.radians(a0 + 15 * k)
            pts.append((ccx + r * math.cos(a), ccy + r * math.sin(a)))
    c, s = math.cos(angle), math.sin(angle)
    return np.array([(cx + c * x - s * y, cy + s * x + c * y) for x, y in pts], np.float64)


def _fill(img: np.ndarray, poly: np.ndarray, colour: tuple[float, ...]) -> None:
    cv2.fillPoly(img, [np.round(poly).astype(np.int32)], tuple(float(v) for v in colour), cv2.LINE_AA)


class DiceArtist:
    """Draws dice onto a supersampled canvas; `scale` is canvas pixels per millimetre."""

    def __init__(self, look: DiceLook, scale: float, floor_bgr: tuple[int, int, int] | None = None) -> None:
        self.look = look
        self.k = scale
        # a translucent die takes some of the colour of the floor it lies on
        t = look.translucency
        face = np.array(look.face_bgr, np.float64)
        if t > 0 and floor_bgr is not None:
            face = face * (1 - 0.5 * t) + np.array(floor_bgr, np.float64) * 0.5 * t
        self.face = face

    def _pips(self, img: np.ndarray, face: int, origin: np.ndarray, ex: np.ndarray, ey: np.ndarray, squash: bool) -> None:
        """Pips of `face` on the parallelogram origin + u*ex + v*ey, u, v in -0.5..0.5."""
        look = self.look
        colour = look.red_bgr if face in RED_FACES else look.black_bgr
        if look.translucency > 0:
            # drilled into plastic that lets light through: a pip is shallower, lighter
            t = look.translucency
            colour = tuple(c * (1 - t) + f * t for c, f in zip(colour, self.face, strict=True))
        diameter = look.one_frac if face == 1 else look.pip_frac
        for gx, gy in PIP_GRID[face]:
            centre = origin + ex * (gx * look.spacing) + ey * (gy * look.spacing)
            # a circle of the face mapped onto the (possibly foreshortened) parallelogram
            ax, ay = ex * diameter / 2, ey * diameter / 2
            n = 24
            poly = np.array([centre + ax * math.cos(2 * math.pi * i / n) + ay * math.sin(2 * math.pi * i / n) for i in range(n)])
            if squash and min(np.linalg.norm(ax), np.linalg.norm(ay)) < 0.5:
                continue  # a side strip too thin to show its pips
            _fill(img, poly, colour)

    def draw(self, img: np.ndarray, die: PlacedDie, cx: float, cy: float) -> None:
        """Draw `die` with its top face centred at canvas (cx, cy)."""
        look, k = self.look, self.k
        edge = DIE_MM * k
        half = edge / 2
        ang = math.radians(die.angle_deg)
        ux = np.array([math.cos(ang), math.sin(ang)])
        uy = np.array([-math.sin(ang), math.cos(ang)])
        top = np.array([cx, cy])
        foot = top - np.array(die.tilt_mm) * k
        face = self.face
        # Side strips: the faces whose outward normal points against the view offset show
        # as parallelograms between the top face's edge and the foot's edge.
        offset = top - foot
        if np.linalg.norm(offset) > 1e-6:
            for i, (normal, along) in enumerate(((ux, uy), (uy, -ux), (-ux, -uy), (-uy, ux))):
                depth = -float(np.dot(normal, offset))  # how much of that side shows
                if depth <= 0.3 * k:
                    continue
                edge_mid_top = top + normal * half
                edge_mid_foot = foot + normal * half
                a = edge_mid_top + along * half
                b = edge_mid_top - along * half
                poly = np.array([a, b, b - offset, a - offset])
                shade = 0.55 + 0.25 * (1 - min(1.0, depth / (0.4 * edge)))
                _fill(img, poly, tuple(face * shade))
                mid = (edge_mid_top + edge_mid_foot) / 2
                self._pips(img, die.side_faces[i], mid, along * edge, -offset, squash=True)
        # The top face: the rounded edge (darker) and the flat face inside it.
        _fill(img, _rounded_square(cx, cy, half, look.corner_frac * edge, ang), tuple(face * look.edge_shade))
        if look.edge_gradient:
            # the rounded edge turns gradually from the light: bands from its shade up to the white
            steps = 5
            for i in range(1, steps):
                f = i / steps
                inset = f * look.edge_frac * edge
                shade = look.edge_shade + (1 - look.edge_shade) * f ** 1.5
                _fill(img, _rounded_square(cx, cy, half - inset, max(0.0, look.corner_frac * edge - inset), ang),
                      tuple(face * shade))
        inner = half - look.edge_frac * edge
        _fill(img, _rounded_square(cx, cy, inner, max(0.0, look.corner_frac * edge - look.edge_frac * edge), ang), tuple(face))
        self._pips(img, die.face, top, ux * edge, uy * edge, squash=False)


def side_faces_for(top: int, rng: random.Random) -> tuple[int, int, int, int]:
    """Four faces round a top face as on a real die: never the top or its opposite (7 - top),
    opposite sides summing to 7."""
    ring = [f for f in range(1, 7) if f not in (top, 7 - top)]
    a = rng.choice(ring)
    b = rng.choice([f for f in ring if f not in (a, 7 - a)])
    return a, b, 7 - a, 7 - b


@dataclass
class TrayPicture:
    image: np.ndarray  # BGR, the tray's zone as the camera crops it
    faces: list[int]  # the truth: top faces, left to right; 0 for a die whose top face is not wholly in view
    dice: list[PlacedDie]
    mm_per_px: float
    blurred: list[bool]  # which dice were drawn out of focus
    hidden_mm2: list[float] = field(default_factory=list)  # how much of each top face a tall rim's wall hides
    tray: Tray | None = None  # the tray drawn (its rim's colour and height)
    look: DiceLook | None = None  # the dice set drawn


def random_dice(rng: random.Random, n: int, p: DicePerturbations, tray: Tray) -> list[PlacedDie]:
    """`n` dice somewhere in the tray, apart or (as `p` says) touching each other or the rim."""
    edge = DIE_MM
    reach = edge * 0.75  # centre to a corner, rounded corners
    w2, h2 = tray.width_mm / 2 - tray.rim_mm, tray.height_mm / 2 - tray.rim_mm
    dice: list[PlacedDie] = []
    touching = n == 2 and rng.random() < p.touching_rate
    for i in range(n):
        face = rng.randint(1, 6)
        angle = rng.uniform(0, 360)
        tilt = (0.0, 0.0)
        if p.tilt_mm > 0:
            t = rng.uniform(0.3, 1.0) * p.tilt_mm
            a = rng.uniform(0, 2 * math.pi)
            tilt = (t * math.cos(a), t * math.sin(a))
        blur = rng.uniform(*p.defocus_px) if rng.random() < p.defocus_rate else 0.0
        for _ in range(200):
            if touching and i == 1:
                # flush against the first die: same turn (edge to edge), slid along it
                d0 = dice[0]
                angle = d0.angle_deg + rng.choice((0, 90, 180, 270)) + rng.uniform(-3, 3)
                a0 = math.radians(d0.angle_deg + rng.choice((0, 90, 180, 270)))
                slide = rng.uniform(-0.45, 0.45) * edge
                gap = edge + rng.uniform(0.0, 0.25)
                x = d0.x_mm + gap * math.cos(a0) - slide * math.sin(a0)
                y = d0.y_mm + gap * math.sin(a0) + slide * math.cos(a0)
            elif rng.random() < p.rim_rate:
                # against the rim: the die's flat side on the wall
                turn = rng.uniform(-p.rim_turn_deg, p.rim_turn_deg)
                angle = rng.choice((0, 90, 180, 270)) + turn
                # half the die's breadth across the wall (its corner on it when turned)
                across = edge / 2 * (abs(math.cos(math.radians(turn))) + abs(math.sin(math.radians(turn))))
                gap = rng.uniform(*p.rim_gap_mm)
                side = rng.choice(("l", "r", "t", "b"))
                if side in "lr":
                    x = (-1 if side == "l" else 1) * (w2 - across - gap)
                    y = rng.uniform(-h2 + reach, h2 - reach)
                else:
                    y = (-1 if side == "t" else 1) * (h2 - across - gap)
                    x = rng.uniform(-w2 + reach, w2 - reach)
            else:
                x = rng.uniform(-w2 + reach, w2 - reach)
                y = rng.uniform(-h2 + reach, h2 - reach)
            inside = abs(x) <= w2 - edge / 2 + 0.2 and abs(y) <= h2 - edge / 2 + 0.2
            apart = all(math.hypot(x - d.x_mm, y - d.y_mm) >= edge * (0.98 if touching else 1.5) for d in dice)
            if inside and apart:
                break
        else:
            raise RuntimeError("could not place the dice in the tray")
        dice.append(PlacedDie(face, x, y, angle, tilt, side_faces_for(face, rng), blur))
    return dice


def render_tray(
    rng: random.Random,
    faces: int | list[int] | None = None,
    perturbations: str | dict | DicePerturbations | None = None,
    *,
    zone_mm: tuple[float, float] = (144.0, 72.0),
    look: DiceLook | None = None,
) -> TrayPicture:
    """A camera crop of the tray's zone (`zone_mm`, centred on the tray) holding dice.

    `faces`: how many dice (random faces), or the faces themselves, or None for two dice.
    """
    p = dice_perturbations_from(perturbations)
    mm_per_px = rng.uniform(*p.mm_per_px)
    if p.vary_felt:
        felt = FELTS[rng.randrange(len(FELTS))]
        pad = tuple(int(np.clip(c * rng.uniform(0.7, 1.2), 0, 200)) for c in FELTS[rng.randrange(len(FELTS))])
        if rng.random() < p.light_floor_rate:
            pad = tuple(int(c * rng.uniform(0.85, 1.1)) for c in LIGHT_FLOORS[rng.randrange(len(LIGHT_FLOORS))])
        tray = Tray(pad_bgr=pad, rim_bgr=RIMS[rng.randrange(len(RIMS))], rim_mm=rng.uniform(2.5, 6.0))  # type: ignore[arg-type]
    else:
        felt, tray = (40, 112, 34), Tray()
    look = look or (random_look(rng) if p.vary_look else DiceLook())
    if p.pale_rim_rate > 0 and rng.random() < p.pale_rim_rate:
        # a rim close to the dice's white: a little darker, as white, or lighter; grey or tinted like them
        share = rng.uniform(0.75, 1.1)
        base = np.array(look.face_bgr, np.float64) if rng.random() < 0.5 else np.full(3, float(np.mean(look.face_bgr)))
        tray = replace(tray, rim_bgr=tuple(int(v) for v in np.clip(base * share, 0, 255)))  # type: ignore[arg-type]
    if faces is None:
        faces = 2
    if isinstance(faces, int):
        dice = random_dice(rng, faces, p, tray)
    else:
        placed = random_dice(rng, len(faces), p, tray)
        dice = [replace(d, face=f, side_faces=side_faces_for(f, rng)) for d, f in zip(placed, faces, strict=True)]

    k = SUPERSAMPLE / mm_per_px  # canvas pixels per mm
    w_px, h_px = round(zone_mm[0] / mm_per_px), round(zone_mm[1] / mm_per_px)
    canvas = np.empty((h_px * SUPERSAMPLE, w_px * SUPERSAMPLE, 3), np.float64)
    canvas[:] = felt
    cx0, cy0 = canvas.shape[1] / 2, canvas.shape[0] / 2
    # the near walls of a tall rim, over the dice: a die whose top face they hide is not
    # wholly in view, and its truth is `0` (CARD_FACES.md, "Dice")
    over = np.zeros(canvas.shape[:2], np.uint8)
    view: _OffAxisView | None = None
    if p.wall_mm[1] > 0:
        tray = replace(tray, wall_mm=rng.uniform(*p.wall_mm))
        view = _OffAxisView.toward(rng, p, tray, dice)
        dice = [view.as_seen(d) for d in dice]

    def rect(wmm: float, hmm: float) -> np.ndarray:
        return np.array([[cx0 - wmm * k / 2, cy0 - hmm * k / 2], [cx0 + wmm * k / 2, cy0 - hmm * k / 2],
                         [cx0 + wmm * k / 2, cy0 + hmm * k / 2], [cx0 - wmm * k / 2, cy0 + hmm * k / 2]])

    near_walls: list[tuple[np.ndarray, np.ndarray]] = []
    if view is None:
        _fill(canvas, rect(tray.width_mm, tray.height_mm), tray.rim_bgr)
        _fill(canvas, rect(tray.width_mm - 2 * tray.rim_mm, tray.height_mm - 2 * tray.rim_mm), tray.pad_bgr)
    else:
        _fill(canvas, rect(tray.width_mm - 2 * tray.rim_mm, tray.height_mm - 2 * tray.rim_mm), tray.pad_bgr)
        for hull, top, near in view.walls(tray, k, (cx0, cy0)):
            if near:
                near_walls.append((hull, top))  # drawn over the dice
            else:
                _draw_wall(canvas, hull, top, tray.rim_bgr)
    artist = DiceArtist(look, k, tray.pad_bgr)
    layers: list[tuple[np.ndarray, PlacedDie]] = []
    for d in dice:
        if d.blur_px > 0:
            # an out-of-focus die is drawn on its own layer and blurred before it is laid down
            layer = canvas.copy()
            artist.draw(layer, d, cx0 + d.x_mm * k, cy0 + d.y_mm * k)
            layers.append((layer, d))
        else:
            artist.draw(canvas, d, cx0 + d.x_mm * k, cy0 + d.y_mm * k)
    for hull, top in near_walls:
        _draw_wall(canvas, hull, top, tray.rim_bgr)
        cv2.fillPoly(over, [np.round(hull).astype(np.int32)], 1)
    if dice and rng.random() < p.cover_rate:
        # a fingertip over part of one die, reaching in from the dealer's side
        d = dice[rng.randrange(len(dice))]
        fx = cx0 + (d.x_mm + rng.uniform(-0.6, 0.6) * DIE_MM) * k
        fy = cy0 + (d.y_mm + rng.uniform(0.0, 0.6) * DIE_MM) * k
        tone = SKIN_TONES[rng.randrange(len(SKIN_TONES))]
        axes = (int(rng.uniform(6, 9) * k), int(rng.uniform(14, 22) * k))
        # (A die the finger lies over keeps its face as its truth, as before the tall rim: the
        # reader does not yet tell every such die, a 1 above all, from a whole one; the
        # `covered` preset scores it `zero` when it is `0`.)
        cv2.ellipse(canvas, (int(fx), int(fy)), axes, rng.uniform(-30, 30), 0, 360, tone, -1, cv2.LINE_AA)
        cv2.rectangle(canvas, (int(fx - axes[0]), int(fy)), (int(fx + axes[0]), canvas.shape[0]), tone, -1)
    hidden = [_top_face_hidden(d, look, k, (cx0, cy0), over) for d in dice]
    img = cv2.resize(canvas, (w_px, h_px), interpolation=cv2.INTER_AREA)
    for layer, d in layers:
        small = cv2.resize(layer, (w_px, h_px), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), d.blur_px)
        mask = np.zeros((h_px, w_px), np.float64)
        cv2.circle(mask, (round(w_px / 2 + d.x_mm / mm_per_px), round(h_px / 2 + d.y_mm / mm_per_px)),
                   round(DIE_MM * 0.95 / mm_per_px), 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, d.blur_px))[:, :, None]
        img = img * (1 - mask) + small * mask
    img = _camera_effects(img, p, rng)
    order = sorted(range(len(dice)), key=lambda i: (dice[i].x_mm, dice[i].y_mm))
    return TrayPicture(img, [0 if hidden[i] >= HIDDEN_MM2 else dice[i].face for i in order], [dice[i] for i in order], mm_per_px,
                       [dice[i].blur_px > 0 for i in order], [hidden[i] for i in order], tray, look)


@dataclass(frozen=True)
class _OffAxisView:
    """A camera `height_mm` above the felt whose foot is at `foot_mm` (tray millimetres from
    the tray's centre), looking straight down: what stands up off the felt is seen pushed away
    from the foot, the more the higher it is. A tall rim's wall nearer the camera hides the
    strip of floor behind it, and of a die lying against it."""

    foot_mm: tuple[float, float]
    height_mm: float

    @classmethod
    def toward(cls, rng: random.Random, p: DicePerturbations, tray: Tray, dice: list[PlacedDie]) -> _OffAxisView:
        """A camera off axis: most often beyond the wall the first die lies nearest (that
        die then lies against the wall nearer the camera), else anywhere round the tray."""
        if p.camera_foot_mm is not None:
            return cls((float(p.camera_foot_mm[0]), float(p.camera_foot_mm[1])), rng.uniform(*p.camera_mm))
        reach = rng.uniform(*p.off_axis_mm)
        a = rng.uniform(0, 2 * math.pi)
        if dice and rng.random() < 0.75:
            d = dice[0]
            gaps = {0.0: tray.width_mm / 2 - d.x_mm, math.pi: tray.width_mm / 2 + d.x_mm,
                    math.pi / 2: tray.height_mm / 2 - d.y_mm, -math.pi / 2: tray.height_mm / 2 + d.y_mm}
            a = min(gaps, key=gaps.__getitem__) + rng.uniform(-0.5, 0.5)
        return cls((reach * math.cos(a), reach * math.sin(a)), rng.uniform(*p.camera_mm))

    def seen(self, x: float, y: float, z: float) -> tuple[float, float]:
        """Where the point (x, y) at `z` mm above the felt is seen on the felt's plane."""
        m = self.height_mm / (self.height_mm - z)
        fx, fy = self.foot_mm
        return fx + (x - fx) * m, fy + (y - fy) * m

    def as_seen(self, d: PlacedDie) -> PlacedDie:
        """The die lying with its foot at (x_mm, y_mm): its top face seen pushed away from
        the camera's foot, the side facing the camera showing between."""
        tx, ty = self.seen(d.x_mm, d.y_mm, DIE_MM)
        return replace(d, x_mm=tx, y_mm=ty, tilt_mm=(tx - d.x_mm, ty - d.y_mm))

    def walls(self, tray: Tray, k: float, centre: tuple[float, float]):
        """(outline, top, near) of each of the rim's four walls in canvas pixels: the outline
        of the box it is as seen, its top face, and whether the camera looks over it into the
        tray (then it hides what lies just behind it and is drawn over the dice)."""
        w, h, r, z = tray.width_mm / 2, tray.height_mm / 2, tray.rim_mm, tray.wall_mm
        fx, fy = self.foot_mm
        boxes = (((-w, -w + r), (-h, h), fx < -w + r), ((w - r, w), (-h, h), fx > w - r),
                 ((-w + r, w - r), (-h, -h + r), fy < -h + r), ((-w + r, w - r), (h - r, h), fy > h - r))
        for (x0, x1), (y0, y1), near in boxes:
            def px(x: float, y: float, zz: float) -> tuple[float, float]:
                sx, sy = self.seen(x, y, zz)
                return centre[0] + sx * k, centre[1] + sy * k
            corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
            top = np.array([px(x, y, z) for x, y in corners])
            hull = cv2.convexHull(np.array([px(x, y, zz) for x, y in corners for zz in (0.0, z)], np.float32))
            yield hull.reshape(-1, 2).astype(np.float64), top, near


def _draw_wall(canvas: np.ndarray, hull: np.ndarray, top: np.ndarray, rim_bgr: tuple[int, int, int]) -> None:
    """A wall of the rim as a box seen from above: its upright faces in the rim's colour in
    shade, its top face lit."""
    _fill(canvas, hull, tuple(0.7 * c for c in rim_bgr))
    _fill(canvas, top, rim_bgr)


def _top_face_hidden(d: PlacedDie, look: DiceLook, k: float, centre: tuple[float, float], over: np.ndarray) -> float:
    """How much of the die's top face (mm²) the mask `over` (canvas pixels) covers."""
    face = np.zeros(over.shape, np.uint8)
    poly = _rounded_square(centre[0] + d.x_mm * k, centre[1] + d.y_mm * k, DIE_MM * k / 2,
                           look.corner_frac * DIE_MM * k, math.radians(d.angle_deg))
    cv2.fillPoly(face, [np.round(poly).astype(np.int32)], 1)
    return int(np.count_nonzero(face & over)) / (k * k)


def _camera_effects(img: np.ndarray, p: DicePerturbations, rng: random.Random) -> np.ndarray:
    h, w = img.shape[:2]
    if p.glare > 0:
        gx, gy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.2, 0.5) * w
        yy, xx = np.mgrid[0:h, 0:w]
        img = img + (p.glare * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r)))[:, :, None]
    if p.light_gradient > 0:
        a = rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0:h, 0:w]
        t = ((xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a)) / max(w, h) + 0.5
        img = img * (1 - p.light_gradient * np.clip(t, 0, 1))[:, :, None]
    if p.brightness != 1.0 or p.warmth:
        wm = p.warmth
        img = img * np.array([p.brightness * (1 - 0.30 * wm), p.brightness * (1 - 0.06 * wm), p.brightness * (1 + 0.12 * wm)])
    if p.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), p.blur_sigma)
    if p.noise_sigma > 0:
        img = img + np.random.default_rng(rng.randrange(1 << 30)).normal(0.0, p.noise_sigma, img.shape)
    out = np.clip(np.round(img), 0, 255).astype(np.uint8)
    if p.jpeg_quality:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(p.jpeg_quality)])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def draw_dice(region: np.ndarray, dice: list[PlacedDie] | tuple[PlacedDie, ...], look: DiceLook,
              mm_per_px: float, centre_px: tuple[float, float]) -> np.ndarray:
    """`region` (BGR, uint8: a piece of a whole table's frame) with `dice` drawn on it, their
    millimetre places counted from `centre_px` (the tray's centre in the region's pixels).
    Drawn at 4x and reduced with area averaging like `render_tray`; an out-of-focus die is
    blurred on its own. Returns a new picture of the region's size."""
    h_px, w_px = region.shape[:2]
    k = SUPERSAMPLE / mm_per_px
    canvas = cv2.resize(region, (w_px * SUPERSAMPLE, h_px * SUPERSAMPLE),
                        interpolation=cv2.INTER_NEAREST).astype(np.float64)
    cx0, cy0 = centre_px[0] * SUPERSAMPLE, centre_px[1] * SUPERSAMPLE
    artist = DiceArtist(look, k)
    layers: list[tuple[np.ndarray, PlacedDie]] = []
    for d in dice:
        if d.blur_px > 0:
            layer = canvas.copy()
            artist.draw(layer, d, cx0 + d.x_mm * k, cy0 + d.y_mm * k)
            layers.append((layer, d))
        else:
            artist.draw(canvas, d, cx0 + d.x_mm * k, cy0 + d.y_mm * k)
    img = cv2.resize(canvas, (w_px, h_px), interpolation=cv2.INTER_AREA)
    for layer, d in layers:
        small = cv2.GaussianBlur(cv2.resize(layer, (w_px, h_px), interpolation=cv2.INTER_AREA), (0, 0), d.blur_px)
        mask = np.zeros((h_px, w_px), np.float64)
        cv2.circle(mask, (round(centre_px[0] + d.x_mm / mm_per_px), round(centre_px[1] + d.y_mm / mm_per_px)),
                   round(DIE_MM * 0.95 / mm_per_px), 1.0, -1)
        mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, d.blur_px))[:, :, None]
        img = img * (1 - mask) + small * mask
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


def place_dice(rng: random.Random, faces: list[int] | tuple[int, ...], p: DicePerturbations,
               tray: Tray) -> list[PlacedDie]:
    """Dice with these top faces thrown into `tray` (placed as `p` says: apart, touching
    each other or the rim, seen off axis, out of focus)."""
    placed = random_dice(rng, len(faces), p, tray)
    return [replace(d, face=f, side_faces=side_faces_for(f, rng)) for d, f in zip(placed, faces, strict=True)]
