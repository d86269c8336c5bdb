"""The recogniser's reader for a dice tray zone (a zone of kind "dice"): the zone's
full-resolution picture goes to the dice reader (firmware_bridge/camera/dice.py) and the faces
it reports, left to right, are the zone's reading — `0` for a die it is not sure of, `[]` for
an empty tray (TRACES.md §1.1). A reading is a plain list of integers, as the trace's dice
zone is. firmware_bridge/camera/build.py gives it to every zone of that kind.
"""

from __future__ import annotations

import numpy as np

from firmware_bridge.camera.dice import DIE_MM, CameraView, DiceReader
from firmware_bridge.camera.layout import Layout, LayoutError
from firmware_bridge.camera.recogniser import ZoneReader, ZoneView


def zone_box(layout: Layout, zone: str) -> tuple[int, int, int, int]:
    """The part of the frame (x0, y0, x1, y1) the dice reader is given for `zone`."""
    if zone not in layout.zones:
        raise LayoutError(f"layout {layout.name!r} has no {zone} zone for the dice reader")
    x0, y0, x1, y1 = layout.zones[zone].bbox
    return max(0, x0), max(0, y0), min(layout.width, x1), min(layout.height, y1)


def dice_zone_reader(layout: Layout, zone: str, die_mm: float = DIE_MM, *, die_px: float | None = None,
                     view: CameraView | None = None) -> ZoneReader:
    """A zone reader for the recogniser's `zone_readers` hook, for `zone` of `layout`;
    `die_px`: a die's size measured at the tray (`[calibration.dice]`), else the scale's;
    `view`: where the camera looks from, fitted at the same calibration (in pixels of this
    zone's box, `zone_box`)."""
    x0, y0, x1, y1 = zone_box(layout, zone)
    try:
        reader = DiceReader(layout.mm_per_px, die_mm, die_px=die_px, view=view)
    except ValueError as exc:
        raise LayoutError(f"layout {layout.name!r}: zone {zone}: {exc}") from None

    def read(name: str, frame: np.ndarray, small: np.ndarray, gains: np.ndarray) -> ZoneView:
        faces = reader.read(frame[y0:y1, x0:x1])
        return ZoneView(reading=tuple(int(f) for f in faces))

    return read
