"""A camera rig's threads: one observer per camera (its own source and recogniser), their
observations merged into the table's one (merge.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from firmware_bridge.camera.merge import Observation, ObservationMerger
from firmware_bridge.camera.observer import CameraObserver


class RigObserver:
    """`parts`: camera name → (frame source, recogniser of that camera's zones)."""

    def __init__(self, parts: dict[str, tuple[Any, Any]], on_observation: Callable[[float, Observation], None],
                 *, heartbeat: float = 0.5, lost_after_s: float = 1.0) -> None:
        if lost_after_s <= heartbeat:
            raise ValueError(f"lost_after_s {lost_after_s} s must exceed the heartbeat {heartbeat} s: "
                             "a camera giving frames reports at least once a heartbeat")
        self.merger = ObservationMerger({n: tuple(rec.layout.zones) for n, (_, rec) in parts.items()},
                                        on_observation, lost_after_s=lost_after_s)
        self.observers = {
            name: CameraObserver(source, rec, self._forward(name), heartbeat=heartbeat)
            for name, (source, rec) in parts.items()
        }

    def _forward(self, name: str) -> Callable[[float, Observation], None]:
        def forward(t: float, changes: Observation) -> None:
            self.merger.update(name, t, changes)

        return forward

    @property
    def frames(self) -> int:
        return sum(o.frames for o in self.observers.values())

    @property
    def errors(self) -> int:
        return sum(o.errors for o in self.observers.values())

    @property
    def last_error(self) -> str | None:
        errs = [f"{n}: {o.last_error}" for n, o in self.observers.items() if o.last_error]
        return "; ".join(errs) or None

    @property
    def status(self) -> dict[str, object]:
        """Each camera's status, the lost cameras with their zones, and one `message`."""
        per = {n: o.status for n, o in self.observers.items()}
        lost = self.merger.lost()
        messages = [f"camera {n} lost: zones {', '.join(z)} not seen" for n, z in lost.items()]
        messages += [f"camera {n}: {s['message']}" for n, s in per.items() if s.get("message")]
        unknown = sorted({z for s in per.values() for z in s.get("unknown_back_zones", [])})  # type: ignore[union-attr]
        return {
            "cameras": per,
            "lost_cameras": {n: list(z) for n, z in lost.items()},
            "back_calibrated": all(s.get("back_calibrated", False) for s in per.values()),
            "felt_calibrated": all(s.get("felt_calibrated", False) for s in per.values()),
            "felt_matches": all(s.get("felt_matches", True) for s in per.values()),
            "unknown_back_zones": unknown,
            "message": "; ".join(messages) or None,
            "frames": self.frames,
            "errors": self.errors,
            "last_error": self.last_error,
        }

    def start(self) -> RigObserver:
        for o in self.observers.values():
            o.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        for o in self.observers.values():
            o.stop(timeout)
