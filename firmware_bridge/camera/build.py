"""The one place a camera's recogniser is built: every zone of the layout gets the reader of
its kind (the kind the game declared for it, `Layout.zone_kinds`). `station camera read`,
`station camera snapshot`, the live camera feed and the accuracy suites all build it here, so a
zone is read the same way wherever its reading is shown.

    rec = build_recogniser(load_camera_config(path, game_zones))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from firmware_bridge.camera.config import CameraConfig
from firmware_bridge.camera.layout import CARDS, Layout, LayoutError
from firmware_bridge.camera.recogniser import Recogniser, ZoneReader


@dataclass(frozen=True)
class ZoneKind:
    """One kind of zone: who reads it and what its reading is (for `--help` and the docs).
    `reader(layout, zone, cam)` makes the zone's reader; None: the recogniser's card reader."""

    name: str
    reads: str
    reader: Callable[[Layout, str, CameraConfig], ZoneReader] | None = None


def _dice_reader(layout: Layout, zone: str, cam: CameraConfig) -> ZoneReader:
    from firmware_bridge.camera.dice_zone import dice_zone_reader

    cal = cam.dice_calibration
    return dice_zone_reader(layout, zone, cam.die_mm, die_px=cal.die_px if cal is not None else None,
                            view=cal.view if cal is not None else None)


ZONE_KINDS: dict[str, ZoneKind] = {
    CARDS: ZoneKind(CARDS, "the card reader (firmware_bridge/camera/recogniser.py): a list of cards, "
                           '"7H" named by its QR codes, "XX" face up but not read, "??" face down, "CUT" the cut card'),
    "dice": ZoneKind("dice", "the dice reader (firmware_bridge/camera/dice.py): the faces up, 1-6 left to right, "
                             "0 for a die not read with certainty, [] for an empty tray", _dice_reader),
}


def zone_readers(cam: CameraConfig, layout: Layout | None = None) -> dict[str, ZoneReader]:
    """The readers of the zones that hold no cards, by their kind (a kind no reader reads
    is a LayoutError naming the zone)."""
    lay = layout if layout is not None else cam.layout
    out: dict[str, ZoneReader] = {}
    for zone in lay.zones:
        kind = lay.kind_of(zone)
        if kind not in ZONE_KINDS:
            raise LayoutError(f"layout {lay.name!r}: zone {zone} is of kind {kind!r}, which no reader reads "
                              f"(kinds: {', '.join(ZONE_KINDS)})")
        make = ZONE_KINDS[kind].reader
        if make is not None:
            out[zone] = make(lay, zone, cam)
    return out


def build_recogniser(cam: CameraConfig, *, layout: Layout | None = None, decoder: str | None = None,
                     stable_frames: int | None = None, calibration: object | None = None) -> Recogniser:
    """The recogniser of the camera `cam` (its layout, tuning and calibration), each zone
    with the reader of its kind. `layout`, `decoder`, `stable_frames` and `calibration`
    override the config's (a scaled layout, the CLI's `--decoder`, a deck style's own
    calibration in the accuracy suite)."""
    lay = layout if layout is not None else cam.layout
    return Recogniser(lay, stable_frames=stable_frames if stable_frames is not None else cam.stable_frames,
                      decoder=decoder or cam.decoder, calibration=calibration,  # type: ignore[arg-type]
                      zone_readers=zone_readers(cam, lay))


def readers_help() -> str:
    """Which reader reads each zone kind, for `--help`."""
    lines = ["zone kinds (each zone's kind is the game's: a layout's [layout] game declares them):"]
    for kind in ZONE_KINDS.values():
        lines.append(f"  {kind.name:<6} {kind.reads}")
    return "\n".join(lines)
