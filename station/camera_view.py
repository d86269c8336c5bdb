"""The overhead camera's latest picture and readings, for the console to show.

The camera feed (`station.live.camera_feed`) puts here, a few times a second, the latest frame
as a small JPEG — already masked: every zone whose cards the table has not revealed is
pixelated, so no face-down or not-yet-revealed identity can be read off the picture — with
the layout's zones (normalised to 0..1 of the frame) and the recogniser's current reading of
each zone. The console reads it (`LATEST.get(table)`) and shows only what the viewer may see:
a zone's identities only once the table's public view has revealed them (the console's model
does that filtering). It stands beside the data path, like `station.metrics`: the live side
writes without importing the console.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class CameraPicture:
    jpeg: bytes
    width: int  # of the JPEG, pixels
    height: int
    #: zone -> polygon corners as fractions of the frame's width and height
    zones: dict[str, tuple[tuple[float, float], ...]]
    #: zone -> the recogniser's current reading (RULES.md notation, ?? XX CUT); secret until
    #: the console filters it by the public view
    readings: dict[str, tuple[str, ...]]
    taken_at: float = field(default_factory=time.monotonic)  # monotonic seconds
    #: what the recogniser says is wrong with its picture (a deck back not calibrated, an
    #: unknown back in a zone, a felt unlike the calibrated one), or None
    warning: str | None = None
    #: the fixed controls the camera config asked for and what the camera reports it applied
    #: (firmware_bridge/camera/controls.py): {"exposure": {"asked": .., "reported": .., ...}}
    controls: dict[str, dict[str, object]] = field(default_factory=dict)

    def age_s(self) -> float:
        return max(0.0, time.monotonic() - self.taken_at)


class LatestPictures:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_table: dict[str, CameraPicture] = {}

    def put(self, table: str, picture: CameraPicture) -> None:
        with self._lock:
            self._by_table[table] = picture

    def get(self, table: str) -> CameraPicture | None:
        with self._lock:
            return self._by_table.get(table)

    def clear(self, table: str) -> None:
        with self._lock:
            self._by_table.pop(table, None)


LATEST = LatestPictures()
