"""The overhead camera feeding the table core: frames → recogniser → zone observations.

One thread reads the frame source, runs the recogniser and sends the station only the zones
whose stable reading changed, plus an empty observation at least once a second (the camera's
heartbeat: the core raises `camera_lost` after 3 s of silence during a round). When a hand is
validated the frame the camera last saw is kept as `<frames_dir>/<round_id>.png`, for game
recall at the console.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("station.camera")

HEARTBEAT = 0.9


class CameraFeed:
    def __init__(self, station: Any, source: Any, recogniser: Any, *,
                 frames_dir: str | Path | None = None) -> None:
        self.station = station
        self.source = source
        self.recogniser = recogniser
        self.frames_dir = Path(frames_dir) if frames_dir else None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera-feed", daemon=True)
        self._reported: dict[str, list[str]] = {}
        self._last_sent = 0.0
        self._last_frame = None
        self.frames = 0
        self.latencies_ms: list[float] = []
        self.error: str | None = None
        if self.frames_dir is not None:
            self.frames_dir.mkdir(parents=True, exist_ok=True)
            station.add_listener(self._on_records)

    def start(self) -> CameraFeed:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        try:
            self.source.close()
        except Exception:  # noqa: BLE001
            pass

    @property
    def fps(self) -> float:
        return self._fps

    _fps = 0.0

    def _run(self) -> None:
        window: list[float] = []
        try:
            while not self._stop.is_set():
                got = self.source.read()
                now = time.monotonic()
                if got is None:  # a dropped frame: nothing seen, nothing said
                    if now - self._last_sent > HEARTBEAT * 3:
                        time.sleep(0.05)
                    continue
                t, frame = got
                started = time.perf_counter()
                stable = self.recogniser.process(t, frame)
                self.latencies_ms.append((time.perf_counter() - started) * 1000)
                if len(self.latencies_ms) > 2000:
                    del self.latencies_ms[:1000]
                self._last_frame = frame
                self.frames += 1
                window = [x for x in window if now - x < 2.0] + [now]
                self._fps = len(window) / 2.0
                if stable is None:
                    continue
                changes = {z: cs for z, cs in stable.items() if self._reported.get(z) != cs}
                if changes or now - self._last_sent >= HEARTBEAT:
                    self._reported.update(changes)
                    self._last_sent = now
                    self.station.submit("camera", changes, wait=False)
        except Exception as e:  # the camera thread never dies silently: the core will see
            self.error = f"{type(e).__name__}: {e}"  # camera_lost, and the log says why
            log.exception("camera feed stopped")

    def _on_records(self, records: list[dict[str, Any]]) -> None:
        frame = self._last_frame
        if frame is None or self.frames_dir is None:
            return
        for r in records:
            if r.get("type") == "hand":
                import cv2

                cv2.imwrite(str(self.frames_dir / f"{r['round_id']}.png"), frame)


def camera_factory_for(cfg: Any, scene: Any = None, *, perturbations: Any = None,
                       scale: float = 1.0):
    """A factory the runtime calls with the station once it runs (None: no camera)."""
    if not cfg.table.camera:
        return None

    def make(station: Any) -> CameraFeed:
        from firmware_bridge.camera.layout import load_layout
        from firmware_bridge.camera.recogniser import Recogniser

        layout = load_layout(cfg.camera.layout)
        if scale != 1.0:
            layout = layout.scaled(scale)
        if cfg.camera.source == "synthetic":
            from firmware_bridge.camera.scene import TableScene
            from firmware_bridge.camera.synthetic import SyntheticCamera

            source = SyntheticCamera(scene or TableScene(), layout, perturbations,
                                     fps=cfg.camera.fps)
        else:
            from firmware_bridge.camera import sources

            source = sources.open_source(cfg.camera.source)
        frames_dir = cfg.camera.frames_dir or cfg.data_dir / "frames"
        return CameraFeed(station, source, Recogniser(layout), frames_dir=frames_dir).start()

    return make
