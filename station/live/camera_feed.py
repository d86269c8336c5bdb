"""The overhead camera feeding the table core.

`firmware_bridge.camera.CameraObserver` runs frame source → recogniser and reports the zones
whose stable reading changed (and `{}` at least once a second); here those observations go
into the station's journaled input path. Two things the station adds: the frame the camera
last saw is kept as `<frames_dir>/<round_id>.png` when a hand is validated (game recall at
the console), and the figures the console shows (frames per second, recognition latency).
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger("station.camera")


class _Watched:
    """Wraps the frame source and the recogniser to keep the last frame and the timings."""

    def __init__(self, source: Any, recogniser: Any, table: str) -> None:
        from station.metrics import CAMERA_FPS, RECOGNITION_LATENCY, REGISTRY

        self.source, self.recogniser = source, recogniser
        self.table = table
        self._fps_gauge = REGISTRY.gauge(CAMERA_FPS, "frames the recogniser read per second")
        self._latency = REGISTRY.summary(RECOGNITION_LATENCY, "recognition time per frame")
        self.last_frame = None
        self.latencies_ms: list[float] = []
        self.frame_times: list[float] = []
        self._lock = threading.Lock()

    def read(self) -> Any:
        got = self.source.read()
        if got is not None:
            self.last_frame = got[1]
        return got

    def close(self) -> None:
        self.source.close()

    def process(self, t: float, frame: Any) -> Any:
        started = time.perf_counter()
        out = self.recogniser.process(t, frame)
        now = time.perf_counter()
        with self._lock:
            self.latencies_ms.append((now - started) * 1000)
            self.frame_times.append(now)
            if len(self.latencies_ms) > 600:
                del self.latencies_ms[:300], self.frame_times[:300]
        self._latency.observe(now - started, table=self.table)
        self._fps_gauge.set(self.fps(), table=self.table)
        return out

    def fps(self) -> float:
        with self._lock:
            now = time.perf_counter()
            return sum(1 for x in self.frame_times if now - x < 5.0) / 5.0


class CameraFeed:
    def __init__(self, station: Any, source: Any, recogniser: Any, *,
                 frames_dir: str | Path | None = None, heartbeat: float = 0.5) -> None:
        from firmware_bridge.camera.observer import CameraObserver

        self.station = station
        self.watched = _Watched(source, recogniser, station.settings.table)
        self.frames_dir = Path(frames_dir) if frames_dir else None
        self.observer = CameraObserver(self.watched, self.watched, self._observe,  # type: ignore[arg-type]
                                       heartbeat=heartbeat)
        if self.frames_dir is not None:
            self.frames_dir.mkdir(parents=True, exist_ok=True)
            station.add_listener(self._on_records)

    def _observe(self, t: float, changes: dict[str, list[str]]) -> None:
        self.station.submit("camera", changes, wait=False)

    def start(self) -> CameraFeed:
        self.observer.start()
        return self

    def stop(self) -> None:
        self.observer.stop()

    @property
    def fps(self) -> float:
        return self.watched.fps()

    @property
    def latencies_ms(self) -> list[float]:
        return list(self.watched.latencies_ms)

    def _on_records(self, records: list[dict[str, Any]]) -> None:
        frame = self.watched.last_frame
        if frame is None or self.frames_dir is None:
            return
        for r in records:
            if r.get("type") == "hand":
                import cv2

                cv2.imwrite(str(self.frames_dir / f"{r['round_id']}.png"), frame)


def camera_factory_for(cfg: Any, scene: Any = None, *, perturbations: Any = None):
    """A factory the runtime calls with the station once it runs (None: no camera)."""
    if not cfg.table.camera:
        return None

    def make(station: Any) -> CameraFeed:
        from firmware_bridge.camera.layout import load_layout
        from firmware_bridge.camera.recogniser import Recogniser
        from firmware_bridge.camera.sources import open_source

        layout = load_layout(cfg.camera.layout)
        if cfg.camera.source == "synthetic":
            spec: Any = {"kind": "synthetic", "fps": cfg.camera.fps}
            if perturbations is not None:
                spec["perturbations"] = perturbations
        else:
            spec = cfg.camera.source
        source = open_source(spec, layout=layout, scene=scene)
        frames_dir = cfg.camera.frames_dir or cfg.data_dir / "frames"
        return CameraFeed(station, source, Recogniser(layout), frames_dir=frames_dir).start()

    return make
