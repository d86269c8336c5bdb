"""Several cameras' observations as the table's one (a camera rig, rig.py).

Each camera runs its own observer thread (source → its recogniser → observations of its own
zones: changes, or `{}` at least every heartbeat while it gives frames). The merger passes
each report on at its frame's time, as the table's one stream of observations (cameras are
not triggered together: two cameras' frames of one instant are two observations). A camera that has given nothing for `lost_after_s` is lost: its zones cannot be read,
so the merger passes on nothing at all (no changes, no heartbeat) until it is back, and the
table core's `camera_lost` follows as for a table with one camera that stopped
(PROCEDURE.md: no camera observation for 3 s while a round is open). What changed meanwhile
in the other cameras' zones is kept and passed on when every camera is back. `lost()` names
the lost cameras and the zones they cover (the doctor and the console show it).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

Observation = dict[str, list[str]]


class ObservationMerger:
    def __init__(self, zones_of: dict[str, tuple[str, ...]], on_observation: Callable[[float, Observation], None],
                 *, lost_after_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        if not zones_of:
            raise ValueError("a camera rig needs at least one camera")
        self.zones_of = {name: tuple(z) for name, z in zones_of.items()}
        self.on_observation = on_observation
        self.lost_after_s = lost_after_s
        self.clock = clock
        self._heard: dict[str, float] = {}  # camera → when it last reported (merger's clock)
        self._pending: Observation = {}
        self._lock = threading.Lock()
        self.withheld = 0  # observations not passed on because a camera was lost

    def lost(self) -> dict[str, tuple[str, ...]]:
        """Cameras not heard from within lost_after_s, with the zones they cover."""
        now = self.clock()
        return {name: zones for name, zones in self.zones_of.items()
                if name not in self._heard or now - self._heard[name] > self.lost_after_s}

    def update(self, camera: str, t: float, changes: Observation) -> None:
        """Camera `camera` reported `changes` (only its own zones) for its frame taken at `t`."""
        if camera not in self.zones_of:
            raise ValueError(f"no camera {camera!r} in the rig")
        foreign = set(changes) - set(self.zones_of[camera])
        if foreign:
            raise ValueError(f"camera {camera!r} reported zones {sorted(foreign)} it does not see")
        with self._lock:
            self._heard[camera] = self.clock()
            self._pending.update({z: list(v) for z, v in changes.items()})
            if self.lost():
                self.withheld += 1
                return
            out, self._pending = self._pending, {}
        self.on_observation(t, out)
