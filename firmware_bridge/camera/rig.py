"""A table seen by several cameras (CARD_FACES.md: a layout wider than one camera needs a 4K
camera or one camera per group of zones, each zone wholly in one camera's view).

A rig file names the cameras; each camera has its own camera config file (source,
resolution, scale, calibration, the zones it sees), written and calibrated as for a table
with one camera:

    [rig]
    game = "…"                  # the table's game (optional: each camera's layout names it)
    lost_after_s = 1.0          # a camera with no frame for this long is lost

    [cameras.right]
    config = "camera_table7_right.toml"   # relative to this file

    [cameras.left]
    config = "camera_table7_left.toml"

Every zone is one camera's: two cameras naming the same zone is refused, and the cameras'
zones together must be the game's (the station checks them as it checks one camera's).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.camera.config import CameraConfig, load_camera_config, read_toml
from firmware_bridge.camera.layout import GameZonesLookup, LayoutError

#: a camera that gave no frame for this long is lost (the table's camera_lost then follows)
DEFAULT_LOST_AFTER_S = 1.0


@dataclass
class Rig:
    """The table's cameras by name, each its own camera config."""

    cameras: dict[str, CameraConfig]
    game: str | None = None
    lost_after_s: float = DEFAULT_LOST_AFTER_S
    source: str = "<rig>"
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def zone_names(self) -> tuple[str, ...]:
        return tuple(z for cam in self.cameras.values() for z in cam.layout.zones)

    def camera_of(self, zone: str) -> str:
        for name, cam in self.cameras.items():
            if zone in cam.layout.zones:
                return name
        raise KeyError(zone)

    @property
    def heartbeat(self) -> float:
        return min(cam.heartbeat for cam in self.cameras.values())


def is_rig_file(path: str | Path | None) -> bool:
    """Does this config file name several cameras (a `[cameras]` table) rather than be one?"""
    if path is None:
        return False
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return False  # the camera config loader says what is wrong with it
    return "cameras" in data


def load_rig(path: str | Path, game_zones: GameZonesLookup | None = None) -> Rig:
    """Load and check a rig file; a LayoutError names the key at fault."""
    p = Path(path)
    data = read_toml(p, "camera rig")
    unknown = set(data) - {"rig", "cameras"}
    if unknown:
        raise LayoutError(f"{p}: unknown section(s) {', '.join(sorted(unknown))} (rig, cameras)")
    head = data.get("rig", {})
    if not isinstance(head, dict):
        raise LayoutError(f"{p}: [rig] must be a table")
    bad = set(head) - {"game", "lost_after_s"}
    if bad:
        raise LayoutError(f"{p}: [rig] unknown key(s) {', '.join(sorted(bad))} (game, lost_after_s)")
    game = head.get("game")
    if game is not None and not isinstance(game, str):
        raise LayoutError(f"{p}: rig.game must be a game's name")
    lost = head.get("lost_after_s", DEFAULT_LOST_AFTER_S)
    if isinstance(lost, bool) or not isinstance(lost, int | float) or not 0.1 <= lost <= 2.0:
        raise LayoutError(f"{p}: rig.lost_after_s {lost!r}: seconds, 0.1 to 2 (the table's camera_lost "
                          "counts 3 s from the last observation)")
    cams = data.get("cameras")
    if not isinstance(cams, dict) or not cams:
        raise LayoutError(f"{p}: [cameras] must name at least one camera ([cameras.NAME] config = \"…\")")
    cameras: dict[str, CameraConfig] = {}
    files: dict[str, Path] = {}
    owner: dict[str, str] = {}
    for name, entry in cams.items():
        key = f"cameras.{name}"
        if not isinstance(entry, dict):
            raise LayoutError(f"{p}: {key} must be a table with config = \"…\"")
        bad = set(entry) - {"config"}
        if bad:
            raise LayoutError(f"{p}: {key}: unknown key(s) {', '.join(sorted(bad))} (config)")
        ref = entry.get("config")
        if not isinstance(ref, str) or not ref:
            raise LayoutError(f"{p}: {key}.config must name the camera's config file")
        file = (p.parent / ref) if not Path(ref).is_absolute() else Path(ref)
        if not file.is_file():
            raise LayoutError(f"{p}: {key}.config: no file {file}")
        try:
            cam = load_camera_config(file, game_zones, one_camera_of_several=True)
        except LayoutError as exc:
            raise LayoutError(f"{p}: {key}.config: {exc}") from exc
        if "zones" not in tomllib.loads(file.read_text(encoding="utf-8")):
            raise LayoutError(f"{p}: {key}.config: {file.name} names no zones: each camera sees its own")
        if game is not None and cam.layout.game not in (None, game):
            raise LayoutError(f"{p}: {key}.config: a layout for {cam.layout.game!r}, the rig is for {game!r}")
        for zone in cam.layout.zones:
            if zone in owner:
                raise LayoutError(f"{p}: {key}.config: zone {zone} is also cameras.{owner[zone]}'s: "
                                  "each zone is wholly in one camera's view")
            owner[zone] = name
        cameras[name] = cam
        files[name] = file
    return Rig(cameras, game, float(lost), str(p), files)
