"""The simulated table's virtual clock (station/sim/demo_clock.py): it stands while an actor is
mid-step, while work is in flight, and at a sleeper's wake time until the sleeper has woken; it
never runs faster than real time."""

from __future__ import annotations

import itertools
import threading
import time

from station.sim.demo_clock import ClockedFrames, VirtualClock, WallClock, make_clock
from tests.waiting import wait_for


def test_the_clock_stands_while_an_actor_is_mid_step_and_goes_on_while_it_waits() -> None:
    clock = VirtualClock().start()
    try:
        started = threading.Event()
        release = threading.Event()
        done = threading.Event()
        seen: list[float] = []

        def actor() -> None:
            clock.join()
            started.set()
            release.wait(10)  # a long step: the clock may not move under it
            seen.append(clock.now())
            clock.sleep(0.2)  # parked: the clock moves, and stops at the wake time
            seen.append(clock.now())
            clock.leave()
            done.set()

        threading.Thread(target=actor, daemon=True).start()
        started.wait(10)
        t0 = clock.now()
        # other threads' real time passes; the actor is mid-step
        assert not done.wait(0.3)
        assert clock.now() == t0, "the clock moved while an actor was mid-step"
        release.set()
        wait_for(done.is_set, 10, "the actor's sleep on the clock to end")
        assert seen[0] == t0
        # woken exactly at its wake time: the clock stood there until the sleeper woke
        assert abs(seen[1] - (t0 + 0.2)) < 1e-9, seen
    finally:
        clock.stop()


def test_work_in_flight_holds_the_clock() -> None:
    clock = VirtualClock().start()
    busy = threading.Event()
    busy.set()
    clock.hold_while(busy.is_set)
    try:
        t0 = clock.now()
        assert not threading.Event().wait(0.2)
        assert clock.now() == t0, "the clock moved while work was in flight"
        busy.clear()
        wait_for(lambda: clock.now() > t0 + 0.05, 10, "the clock to go on once the work was done")
    finally:
        clock.stop()


def test_the_clock_never_runs_faster_than_real_time() -> None:
    clock = VirtualClock().start()
    try:
        real0, t0 = time.monotonic(), clock.now()
        wait_for(lambda: clock.now() - t0 >= 0.3, 10, "0.3 s on the virtual clock")
        assert time.monotonic() - real0 >= 0.3 - 1e-3
    finally:
        clock.stop()


def test_a_stop_event_ends_a_sleep_and_a_stopped_clock_lets_sleepers_go() -> None:
    clock = VirtualClock().start()
    stop = threading.Event()
    stop.set()
    assert clock.sleep(3600, stop) is True
    out: list[bool] = []
    t = threading.Thread(target=lambda: out.append(clock.sleep(3600)), daemon=True)
    t.start()
    clock.stop()
    t.join(10)
    assert out == [False]


class _Frames:
    def __init__(self) -> None:
        self.reads = 0
        self.closed = False

    def read(self):
        self.reads += 1
        return (123.0, f"frame {self.reads}")

    def close(self) -> None:
        self.closed = True


def test_frames_come_at_the_clocks_pace_stamped_with_its_time() -> None:
    clock = VirtualClock().start()
    frames = ClockedFrames(_Frames(), clock, fps=10)
    got: list[tuple[float, str]] = []

    def camera() -> None:
        while len(got) < 4:
            out = frames.read()
            if out is not None:
                got.append(out)
        clock.leave()

    try:
        t = threading.Thread(target=camera, daemon=True)
        t.start()
        t.join(30)
        times = [ft for ft, _ in got]
        assert [round(b - a, 6) for a, b in itertools.pairwise(times)] == [0.1, 0.1, 0.1], times
        assert [f for _, f in got] == ["frame 1", "frame 2", "frame 3", "frame 4"]
        frames.close()
        assert frames.read() is None and frames.source.closed
    finally:
        clock.stop()


def test_the_demo_runs_on_the_wall_clock_unless_asked() -> None:
    import argparse

    from station.commands.demo import add_arguments

    p = argparse.ArgumentParser()
    add_arguments(p)
    assert p.parse_args([]).clock == "wall"
    assert p.parse_args(["--clock", "virtual"]).clock == "virtual"
    assert isinstance(make_clock("wall"), WallClock) and make_clock("virtual").virtual
