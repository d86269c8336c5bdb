"""Table layouts: where each zone lies in the overhead camera's picture.

A layout is calibrated once per table (see docs/camera.md): the studio engineer takes a
`station camera snapshot`, reads the pixel corners of each marked zone off it and writes them
into a `config/camera_*.toml` file. Zones are polygons in the camera's full-resolution pixel
coordinates; the recogniser works only inside them.

The bridge holds no table of its own: every layout comes from a file or from its caller (a
game declares its studio layout in its own package, and the station hands it over), so a
tool run alone names its layout file.

Which zones a table needs and what lies in each (its *kind*: cards, a dice tray) is the
game's to say, not this module's: the station passes the game's declaration in
(`GameZones`, looked up by the layout's `[layout] game`), and the layout keeps each zone's
kind for the recogniser's builder (firmware_bridge/camera/build.py) to pick its reader.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

#: what a zone holds when nobody says otherwise
CARDS = "cards"
#: a dice tray's kind: the synthetic camera draws the tray and its dice there, the recogniser
#: reads it with the dice reader (build.py)
DICE = "dice"

# Card and QR geometry fixed by CARD_FACES.md (millimetres).
CARD_W_MM = 63.0
CARD_H_MM = 88.0
QR_MODULES = 21  # version 1
QR_QUIET_MODULES = 2
QR_WIDTH_MM = 22.0  # the 21 modules, quiet zone excluded
QR_MARGIN_MM = 2.0  # from the card edge to the quiet zone, on our studio deck
# CARD_FACES.md lets printers set the codes 2-6 mm in from the card's edge
QR_MARGIN_RANGE_MM = (2.0, 6.0)


class LayoutError(ValueError):
    """A layout file or dict that does not describe a usable table."""


@dataclass(frozen=True)
class GameZones:
    """What a game declares about the camera: the zones its table needs, in its order, each
    with its kind ("cards", "dice", ...). `title` names the game in messages."""

    game: str
    title: str
    kinds: dict[str, str]


#: game name -> its declaration; raises LayoutError for a name that is no game
GameZonesLookup = Callable[[str], GameZones]


@dataclass(frozen=True)
class Zone:
    name: str
    polygon: tuple[tuple[float, float], ...]  # full-resolution pixel corners, in order

    @property
    def bbox(self) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1), integer pixels, x1/y1 exclusive."""
        pts = np.asarray(self.polygon, dtype=np.float64)
        x0, y0 = np.floor(pts.min(axis=0)).astype(int)
        x1, y1 = np.ceil(pts.max(axis=0)).astype(int)
        return int(x0), int(y0), int(x1), int(y1)

    @property
    def centre(self) -> tuple[float, float]:
        pts = np.asarray(self.polygon, dtype=np.float64)
        return float(pts[:, 0].mean()), float(pts[:, 1].mean())

    def contains(self, x: float, y: float) -> bool:
        contour = np.asarray(self.polygon, dtype=np.float32).reshape(-1, 1, 2)
        return cv2.pointPolygonTest(contour, (float(x), float(y)), False) >= 0


@dataclass(frozen=True)
class Layout:
    """One table as the camera sees it."""

    name: str
    width: int
    height: int
    zones: dict[str, Zone]
    # Table millimetres per camera pixel at the layout (CARD_FACES.md: at most 0.33).
    mm_per_px: float = 0.30
    # Nominal felt colour (B, G, R) under the studio's calibrated white balance; the
    # recogniser measures the actual felt in every frame and corrects towards this.
    felt_bgr: tuple[int, int, int] = (40, 112, 34)
    #: the game of the table (`[layout] game`); empty: the layout names none
    game: str = ""
    extra: dict[str, object] = field(default_factory=dict)
    # the felt and the deck's back as `station camera calibrate` measured them
    # (calibration.Calibration); None: not calibrated
    calibration: object | None = None
    # zone -> what lies there ("cards", "dice", ...); a zone not named holds cards
    zone_kinds: dict[str, str] = field(default_factory=dict)

    def kind_of(self, zone: str) -> str:
        return self.zone_kinds.get(zone, CARDS)

    def places_without_cards(self) -> list[tuple[tuple[float, float], ...]]:
        """The polygons of the zones where no card lies (a dice tray): the calibration looks
        for the deck's lone face-down cards elsewhere."""
        return [z.polygon for n, z in self.zones.items() if self.kind_of(n) != CARDS]

    @property
    def tray_zone(self) -> str | None:
        """The zone of kind dice, where the tray lies (None: a table without one)."""
        return next((z for z in self.zones if self.kind_of(z) == DICE), None)

    @property
    def zone_names(self) -> tuple[str, ...]:
        return tuple(self.zones)

    @property
    def card_px(self) -> tuple[float, float]:
        """(width, height) of a card in camera pixels."""
        return CARD_W_MM / self.mm_per_px, CARD_H_MM / self.mm_per_px

    @property
    def card_area_px(self) -> float:
        w, h = self.card_px
        return w * h

    @property
    def module_px(self) -> float:
        return QR_WIDTH_MM / QR_MODULES / self.mm_per_px

    def scaled(self, factor: float) -> Layout:
        """The same table seen by a camera with `factor` times the resolution (the demo's
        low-resolution mode uses 0.5)."""
        zones = {
            n: Zone(n, tuple((x * factor, y * factor) for x, y in z.polygon))
            for n, z in self.zones.items()
        }
        return Layout(
            name=f"{self.name}@{factor:g}",
            width=round(self.width * factor),
            height=round(self.height * factor),
            zones=zones,
            mm_per_px=self.mm_per_px / factor,
            felt_bgr=self.felt_bgr,
            game=self.game,
            extra=dict(self.extra),
            calibration=self.calibration,
            zone_kinds=dict(self.zone_kinds),
        )

    def zone_at(self, x: float, y: float) -> str | None:
        for name, zone in self.zones.items():
            if zone.contains(x, y):
                return name
        return None


def layout_from_dict(data: dict, *, source: str = "<dict>", game_zones: GameZonesLookup | None = None,
                     one_camera_of_several: bool = False) -> Layout:
    """Build a Layout from the parsed TOML structure; every problem names `source`.

    `game_zones` (the station's lookup of a game's declaration): the layout must hold every
    zone the `[layout] game` needs, and each zone gets the kind the game gives it. Without
    it (a tool that knows no games) a zone's kind is its `kind` key, else cards."""
    if not isinstance(data, dict):
        raise LayoutError(f"{source}: expected a table, got {type(data).__name__}")
    head = data.get("layout", {})
    if not isinstance(head, dict):
        raise LayoutError(f"{source}: [layout] must be a table")
    try:
        width = int(head.get("width", 1920))
        height = int(head.get("height", 1080))
        mm_per_px = float(head.get("mm_per_px", 0.30))
    except (TypeError, ValueError) as exc:
        raise LayoutError(f"{source}: [layout] width/height/mm_per_px must be numbers ({exc})") from exc
    if width < 64 or height < 64:
        raise LayoutError(f"{source}: frame {width}x{height} is too small for a table camera")
    if not 0.02 <= mm_per_px <= 2.0:
        raise LayoutError(f"{source}: mm_per_px {mm_per_px} is not a plausible table scale")
    felt = head.get("felt_bgr", [40, 112, 34])
    if not (isinstance(felt, list) and len(felt) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in felt)):
        raise LayoutError(f"{source}: felt_bgr must be three integers 0-255 (blue, green, red)")
    # one camera of several (a rig, rig.py) sees some of the game's zones; the rig's cameras
    # together must see them all
    several = head.get("one_of_several", False)
    if not isinstance(several, bool):
        raise LayoutError(f"{source}: [layout] one_of_several must be true or false")
    one_camera_of_several = one_camera_of_several or several
    raw_zones = data.get("zones")
    if not isinstance(raw_zones, dict) or not raw_zones:
        raise LayoutError(f"{source}: no [zones.<NAME>] tables; a layout needs at least one zone")
    zones: dict[str, Zone] = {}
    kinds: dict[str, str] = {}
    for name, spec in raw_zones.items():
        if isinstance(spec, dict) and "kind" in spec:
            if not (isinstance(spec["kind"], str) and spec["kind"]):
                raise LayoutError(f"{source}: zone {name}: kind must be a name such as \"cards\" or \"dice\"")
            kinds[str(name)] = spec["kind"]
        poly = spec.get("polygon") if isinstance(spec, dict) else None
        if not isinstance(poly, list) or len(poly) < 3:
            raise LayoutError(f"{source}: zone {name}: polygon must list at least 3 [x, y] corners")
        pts: list[tuple[float, float]] = []
        for p in poly:
            if not (isinstance(p, list) and len(p) == 2 and all(isinstance(v, int | float) for v in p)):
                raise LayoutError(f"{source}: zone {name}: corner {p!r} is not [x, y]")
            x, y = float(p[0]), float(p[1])
            if not (0 <= x <= width and 0 <= y <= height):
                raise LayoutError(f"{source}: zone {name}: corner {p!r} lies outside the {width}x{height} frame")
            pts.append((x, y))
        area = abs(cv2.contourArea(np.asarray(pts, dtype=np.float32)))
        if area < 1.0:
            raise LayoutError(f"{source}: zone {name}: polygon has no area")
        zones[str(name)] = Zone(str(name), tuple(pts))
    game = head.get("game", "")
    if not isinstance(game, str):
        raise LayoutError(f"{source}: [layout] game must be a game's name")
    if game_zones is not None:
        if not game:
            raise LayoutError(f"{source}: [layout] game is missing: the layout must name the "
                              "game of its table, whose zones it holds")
        declared = game_zones(game)
        missing = [z for z in declared.kinds if z not in zones]
        extra = [z for z in zones if z not in declared.kinds]
        if one_camera_of_several and extra:
            raise LayoutError(f"{source}: zone(s) {', '.join(extra)} are not a {declared.title} table's "
                              f"(its zones are {' '.join(declared.kinds)})")
        if missing and not one_camera_of_several:
            raise LayoutError(f"{source}: a {declared.title} layout ([layout] game = \"{game}\") "
                              f"needs zones {', '.join(missing)} (missing {' '.join(missing)} of the game's "
                              f"{' '.join(declared.kinds)})")
        for z, kind in declared.kinds.items():
            if z not in zones:
                continue  # another camera's (one_camera_of_several)
            if kinds.get(z, kind) != kind:
                raise LayoutError(f"{source}: zone {z}: kind {kinds[z]!r}, but a {declared.title} table's {z} "
                                  f"holds {kind}")
            kinds[z] = kind
    from firmware_bridge.camera.calibration import calibration_from_dict

    calibration = calibration_from_dict(data["calibration"], source=source) if "calibration" in data else None
    layout = Layout(
        name=str(head.get("name", Path(source).stem)),
        width=width,
        height=height,
        zones=zones,
        mm_per_px=mm_per_px,
        felt_bgr=(int(felt[0]), int(felt[1]), int(felt[2])),
        game=game,
        calibration=calibration,
        zone_kinds={z: k for z, k in kinds.items() if k != CARDS},
    )
    if layout.module_px < 2.0:
        raise LayoutError(
            f"{source}: at {mm_per_px} mm per pixel a QR module gets {layout.module_px:.1f} px; "
            "the card faces need at least 3 (CARD_FACES.md): move the camera closer or use 4K"
        )
    return layout


def check_zones(layout: Layout, game_zones: tuple[str, ...] | list[str], game: str, *, source: str = "") -> None:
    """Refuse a layout whose zones are not exactly the game's (the game's zone tuple is the
    truth). Names the missing and the extra ones."""
    want, have = list(game_zones), set(layout.zones)
    missing = [z for z in want if z not in have]
    extra = sorted(have - set(want))
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing {', '.join(missing)}")
        if extra:
            parts.append(f"extra {', '.join(extra)}")
        where = f"{source}: " if source else ""
        raise LayoutError(
            f"{where}camera layout {layout.name!r} does not fit the table's game {game!r}: {'; '.join(parts)} "
            f"(the game's zones are {' '.join(want)})")


def load_layout(path: str | Path, game_zones: GameZonesLookup | None = None) -> Layout:
    """Load a layout TOML file. A camera config file may hold other tables too (e.g.
    [source]); only [layout] and [zones.*] are read here."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise LayoutError(f"cannot read layout {p}: {exc.strerror or exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(f"{p}: not valid TOML: {exc}") from exc
    return layout_from_dict(data, source=str(p), game_zones=game_zones)
