"""The camera thread: only changed zones are reported, `{}` heartbeats at least once a second,
frame times carried through; bad frames are reported and skipped."""

from __future__ import annotations

import threading

import numpy as np

from firmware_bridge.camera import (
    CameraObserver,
    ObservationTracker,
    Recogniser,
    SyntheticCamera,
    TableScene,
)


class ManualClock:
    def __init__(self, step: float) -> None:
        self.t = 0.0
        self.step = step

    def __call__(self) -> float:
        self.t += self.step
        return round(self.t, 6)


def test_observations_name_only_changed_zones_with_heartbeats(layout):
    scene = TableScene(layout.zone_names, seed=8)
    cam = SyntheticCamera(scene, layout, perturbations="noise", seed=2, clock=ManualClock(0.1))
    seen: list[tuple[float, dict]] = []
    obs = CameraObserver(cam, Recogniser(layout, stable_frames=2), lambda t, c: seen.append((t, c)), heartbeat=0.5)
    for _ in range(12):
        obs.step()
    scene.deal("P1", "7H")
    for _ in range(5):
        obs.step()
    scene.deal("P1", "2S")
    scene.deal("P2", "3D")
    for _ in range(5):
        obs.step()
    scene.reveal("P1")
    for _ in range(5):
        obs.step()
    changes = [c for _, c in seen if c]
    assert changes == [
        {z: [] for z in layout.zones},
        {"P1": ["??"]},
        {"P1": ["??", "??"], "P2": ["??"]},
        {"P1": ["2S", "7H"]},
    ]
    times = [t for t, _ in seen]
    assert times == sorted(times)
    # never more than a second between two observations while frames arrive
    assert max(b - a for a, b in zip(times, times[1:], strict=False)) <= 1.0
    assert any(c == {} for _, c in seen)


def test_tracker_heartbeat_interval():
    tr = ObservationTracker(heartbeat=0.5)
    assert tr.update(0.0, None) is None
    assert tr.update(0.1, {"P1": []}) == {"P1": []}
    assert tr.update(0.3, {"P1": []}) is None
    assert tr.update(0.6, {"P1": []}) == {}
    assert tr.update(0.7, {"P1": ["??"]}) == {"P1": ["??"]}


def test_observer_thread_runs_and_stops(layout):
    scene = TableScene(layout.zone_names, seed=9)
    cam = SyntheticCamera(scene, layout, perturbations="clean", seed=1, fps=20)
    got: list[dict] = []
    first = threading.Event()

    def on_obs(t: float, changes: dict) -> None:
        got.append(changes)
        if changes == {}:
            first.set()

    observer = CameraObserver(cam, Recogniser(layout, stable_frames=2), on_obs, heartbeat=0.3)
    with observer:
        assert first.wait(60), "no heartbeat from the camera thread"
        thread = observer._thread
    # stopped: the camera thread has ended, so nothing more can arrive
    assert thread is not None and not thread.is_alive()
    assert observer._thread is None
    assert got[0] == {z: [] for z in layout.zones}


class BadSource:
    def __init__(self) -> None:
        self.n = 0

    def read(self):
        self.n += 1
        return (float(self.n), np.zeros((480, 640, 3), np.uint8)) if self.n < 3 else None

    def close(self) -> None:
        pass


def test_wrong_sized_frames_are_counted_not_fatal(layout):
    seen: list = []
    obs = CameraObserver(BadSource(), Recogniser(layout), lambda t, c: seen.append(c))
    assert obs.step() and obs.step() and not obs.step()
    assert obs.errors == 2 and "calibrated for 1920x1080" in (obs.last_error or "")
    assert seen == []  # no frame seen, no heartbeat: the core's camera_lost can fire
