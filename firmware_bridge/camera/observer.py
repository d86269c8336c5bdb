"""The camera thread: frame source → recogniser → observations for the table core.

`on_observation(t, changes)` receives the frame time and only the zones whose stable state
changed (zone → full list, TRACES.md), or `{}` when frames are being seen and nothing
changed, at least once a second (`heartbeat`). These are exactly the `camera` lines of a
trace, so the core takes them on the same input path as the shoe's events, live and in
replay. When no frame comes there is no heartbeat either: the core's `camera_lost` timer is
what notices a dead camera.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from firmware_bridge.camera.recogniser import Recogniser
from firmware_bridge.camera.sources import FrameSource

log = logging.getLogger(__name__)

Observation = dict[str, list[str]]


class ObservationTracker:
    """Turns stable states into observations: changed zones, else a heartbeat `{}`."""

    def __init__(self, heartbeat: float = 0.5) -> None:
        self.heartbeat = heartbeat
        self._reported: dict[str, list[str]] | None = None
        self._last_emit: float | None = None

    def update(self, t: float, state: dict[str, list[str]] | None) -> Observation | None:
        if state is None:
            return None  # still settling after start-up
        if self._reported is None:
            changes = dict(state)  # the first observation names every zone
        else:
            changes = {z: v for z, v in state.items() if self._reported.get(z) != v}
        if changes:
            self._reported = {**(self._reported or {}), **{z: list(v) for z, v in changes.items()}}
            self._last_emit = t
            return changes
        if self._last_emit is None or t - self._last_emit >= self.heartbeat:
            self._last_emit = t
            return {}
        return None


class CameraObserver:
    """Runs source → recogniser in a thread and calls `on_observation(t, changes)`."""

    def __init__(
        self,
        source: FrameSource,
        recogniser: Recogniser,
        on_observation: Callable[[float, Observation], None],
        *,
        heartbeat: float = 0.5,
        idle_sleep: float = 0.01,
    ) -> None:
        if not 0 < heartbeat <= 1.0:
            raise ValueError("the camera must report at least once a second: heartbeat in (0, 1]")
        self.source = source
        self.recogniser = recogniser
        self.on_observation = on_observation
        self.tracker = ObservationTracker(heartbeat)
        self._idle_sleep = idle_sleep
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames = 0
        self.errors = 0
        self.last_error: str | None = None

    @property
    def status(self) -> dict[str, object]:
        """The recogniser's status (calibration, unknown backs) and this thread's counts."""
        rec = getattr(self.recogniser, "status", None)
        return {**(rec if isinstance(rec, dict) else {}), "frames": self.frames, "errors": self.errors,
                "last_error": self.last_error}

    def step(self) -> bool:
        """Read and handle one frame; False when the source gave none."""
        got = self.source.read()
        if got is None:
            return False
        t, frame = got
        try:
            state = self.recogniser.process(t, frame)
        except ValueError as exc:  # a frame of the wrong size or kind: say so, keep going
            self.errors += 1
            if self.last_error != str(exc):
                log.error("camera frame rejected: %s", exc)
            self.last_error = str(exc)
            return True
        self.frames += 1
        obs = self.tracker.update(t, state)
        if obs is not None:
            self.on_observation(t, obs)
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if not self.step():
                    time.sleep(self._idle_sleep)
            except Exception:  # never let the camera thread die silently
                self.errors += 1
                log.exception("camera thread error")
                time.sleep(0.1)

    def start(self) -> CameraObserver:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="camera-observer", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self.source.close()

    def __enter__(self) -> CameraObserver:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
