"""A camera config file (`config/camera_*.toml`): the layout plus where frames come from and
how the recogniser is tuned. Every part but the layout is optional (the synthetic camera and
the default tuning); without a file, or a file without zones, the layout is the one the
caller gives (the station gives the table's game's studio layout, `Game.camera_layout`)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.camera.controls import parse_controls
from firmware_bridge.camera.dice_calibration import DiceCalibration, dice_calibration_from_dict
from firmware_bridge.camera.layout import (
    GameZonesLookup,
    Layout,
    LayoutError,
    layout_from_dict,
)


@dataclass
class CameraConfig:
    layout: Layout
    source: dict[str, object] = field(default_factory=lambda: {"kind": "synthetic"})
    stable_frames: int = 3
    decoder: str = "auto"
    heartbeat: float = 0.5
    source_given: bool = False  # the file has a [source] (else the default synthetic camera)
    die_mm: float = 16.0  # [dice] die_mm: the edge of the table's dice (a dice tray zone)
    #: [calibration.dice]: a die's size in pixels measured at the tray (dice_calibration.py)
    dice_calibration: DiceCalibration | None = None
    #: [controls]: exposure, gain, white balance, focus fixed on the camera (controls.py)
    controls: dict[str, float] = field(default_factory=dict)


def read_toml(p: Path, what: str) -> dict:
    """A config file's TOML, or a LayoutError saying why it cannot be read."""
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LayoutError(f"cannot read {what} {p}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(f"{p}: not valid TOML: {exc}") from exc


def _given_layout(default: Mapping[str, Any] | None, game_zones: GameZonesLookup | None,
                  where: str) -> Layout:
    if default is None:
        raise LayoutError(f"{where}: no layout: name a camera config file with the table's "
                          "[layout] and [zones.*]")
    name = default.get("layout", {}).get("name", "")
    return layout_from_dict(dict(default), source=f"the given layout {name!r}", game_zones=game_zones)


def load_camera_config(path: str | Path | None, game_zones: GameZonesLookup | None = None, *,
                       default: Mapping[str, Any] | None = None,
                       one_camera_of_several: bool = False) -> CameraConfig:
    """`game_zones`: the station's lookup of the games' zone declarations (layout_from_dict).
    `default`: the layout, as a layout file holds it, of a table whose file names none (or of
    no file: `path` None); without it, such a table is refused.
    `one_camera_of_several`: a camera of a rig (rig.py), which sees some of the game's zones."""
    if path is None:
        return CameraConfig(_given_layout(default, game_zones, "camera"))
    p = Path(path)
    data = read_toml(p, "camera config")
    layout = (layout_from_dict(data, source=str(p), game_zones=game_zones,
                               one_camera_of_several=one_camera_of_several) if "zones" in data
              else _given_layout(default, game_zones, str(p)))
    source_given = "source" in data
    source = data.get("source", {"kind": "synthetic"})
    if isinstance(source, str):
        source = {"spec": source}
    if not isinstance(source, dict):
        raise LayoutError(f"{p}: [source] must be a table")
    rec = data.get("recogniser", {})
    if not isinstance(rec, dict):
        raise LayoutError(f"{p}: [recogniser] must be a table")
    try:
        stable = int(rec.get("stable_frames", 3))
        heartbeat = float(rec.get("heartbeat", 0.5))
    except (TypeError, ValueError) as exc:
        raise LayoutError(f"{p}: [recogniser] stable_frames/heartbeat must be numbers") from exc
    if not 1 <= stable <= 30:
        raise LayoutError(f"{p}: stable_frames {stable} outside 1..30")
    if not 0 < heartbeat <= 1.0:
        raise LayoutError(f"{p}: heartbeat {heartbeat} s: the camera must report at least once a second")
    decoder = str(rec.get("decoder", "auto"))
    if decoder not in ("auto", "zbar", "zxing"):
        raise LayoutError(f"{p}: [recogniser] decoder {decoder!r}: choose auto, zbar or zxing")
    unknown = set(rec) - {"stable_frames", "decoder", "heartbeat"}
    if unknown:
        raise LayoutError(f"{p}: [recogniser] unknown key(s) {', '.join(sorted(unknown))} "
                          "(stable_frames, decoder, heartbeat)")
    dice = data.get("dice", {})
    if not isinstance(dice, dict):
        raise LayoutError(f"{p}: [dice] must be a table")
    unknown = set(dice) - {"die_mm"}
    if unknown:
        raise LayoutError(f"{p}: [dice] unknown key(s) {', '.join(sorted(unknown))} (die_mm)")
    die_mm = dice.get("die_mm", 16.0)
    if isinstance(die_mm, bool) or not isinstance(die_mm, int | float) or not 8.0 <= die_mm <= 30.0:
        raise LayoutError(f"{p}: [dice] die_mm {die_mm!r}: the dice's edge in millimetres, 8 to 30")
    controls = parse_controls(data.get("controls"), source=str(p))
    calibration = data.get("calibration", {})
    dice_cal = dice_calibration_from_dict(calibration.get("dice") if isinstance(calibration, dict) else None,
                                          source=str(p))
    return CameraConfig(layout, dict(source), stable, decoder, heartbeat, source_given, float(die_mm),
                        dice_cal, controls)
