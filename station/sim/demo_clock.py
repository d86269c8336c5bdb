"""The simulated table's clock: one time line for the station, the scripted dealer, the players
and the simulated camera of `station demo`.

`WallClock` is real time, for a person watching the demo. `VirtualClock` is the same time line
taken on a virtual clock that runs at most at real speed and never past a point where work is
still in flight:

- a thread that joined as an *actor* (the dealer, a bettor, the camera) holds the clock from the
  moment its wait ends until it waits again: the step it takes happens at one instant of the
  table's time, however long a busy machine takes over it;
- a sleeper's wake time is a point the clock stops at until that sleeper has woken;
- `hold_while(busy)` holds it while `busy()` is true (the station's inputs not yet applied).

So a frame the camera renders at t is read, recognised and applied by the station before the
clock passes t, and a loaded machine runs the demo slower, never differently: no
`camera_lost` because the recogniser was starved, no betting window closed before the bettors
who were due in it had their turn.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class WallClock:
    """Real time (monotonic seconds): the demo as a person watches it."""

    virtual = False

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float, stop: threading.Event | None = None) -> bool:
        """Wait `seconds`; True when `stop` was set first."""
        if stop is None:
            time.sleep(max(0.0, seconds))
            return False
        return stop.wait(max(0.0, seconds))

    def join(self) -> None:
        """The calling thread takes part (nothing to do on real time)."""

    def leave(self) -> None:
        """The calling thread takes no more part."""

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """The calling thread waits for something outside the clock (the table's view)."""
        yield

    def hold_while(self, busy: Callable[[], bool]) -> None:
        """Real time holds for nobody."""

    def start(self) -> WallClock:
        return self

    def stop(self) -> None:
        pass


class VirtualClock:
    """Seconds from 0 on a virtual time line (see the module doc)."""

    virtual = True

    def __init__(self, *, rate: float = 1.0, step_s: float = 0.005, max_step_s: float = 0.02) -> None:
        if rate <= 0:
            raise ValueError("the clock's rate is a positive factor of real time")
        self.rate = rate
        #: the clock moves every `step_s` of real time, by at most `max_step_s` (a starved
        #: machine's clock thread makes the demo slower, it does not let time jump)
        self.step_s, self.max_step_s = step_s, max_step_s
        self._t = 0.0
        self._cond = threading.Condition()
        self._actors: set[int] = set()
        self._running: set[int] = set()  # actors between two waits: mid-step
        self._wakes: dict[int, float] = {}  # sleeping threads and the time each wakes at
        self._holds: list[Callable[[], bool]] = []
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._advance, name="demo-clock", daemon=True)
        #: real seconds the clock stood still for work in flight (the demo's summary says so)
        self.held_s = 0.0

    def now(self) -> float:
        return self._t

    def start(self) -> VirtualClock:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop moving the clock; every sleeper is let go (a stopped demo winds down on real
        time)."""
        self._stopped.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(2)

    def join(self) -> None:
        tid = threading.get_ident()
        with self._cond:
            self._actors.add(tid)
            self._running.add(tid)

    def leave(self) -> None:
        tid = threading.get_ident()
        with self._cond:
            self._actors.discard(tid)
            self._running.discard(tid)
            self._wakes.pop(tid, None)

    def hold_while(self, busy: Callable[[], bool]) -> None:
        self._holds.append(busy)

    def sleep(self, seconds: float, stop: threading.Event | None = None) -> bool:
        """Wait until the clock has moved `seconds`; True when `stop` was set first."""
        tid = threading.get_ident()
        with self._cond:
            self._wakes[tid] = self._t + max(0.0, seconds)
            self._running.discard(tid)
            try:
                while self._t < self._wakes[tid] and not self._stopped.is_set():
                    if stop is not None and stop.is_set():
                        return True
                    # woken when the clock reaches a wake time; the timeout only notices `stop`
                    self._cond.wait(0.05)
                if self._stopped.is_set() and stop is not None:
                    return stop.wait(max(0.0, self._wakes[tid] - self._t))
                return stop is not None and stop.is_set()
            finally:
                self._wakes.pop(tid, None)
                if tid in self._actors:
                    self._running.add(tid)

    @contextmanager
    def waiting(self) -> Iterator[None]:
        tid = threading.get_ident()
        with self._cond:
            self._running.discard(tid)
        try:
            yield
        finally:
            with self._cond:
                if tid in self._actors:
                    self._running.add(tid)

    def _busy(self) -> bool:
        for busy in self._holds:
            try:
                if busy():
                    return True
            except Exception:  # noqa: BLE001 - a part that stopped holds nothing
                continue
        return False

    def _advance(self) -> None:
        last = time.monotonic()
        while not self._stopped.wait(self.step_s):
            now = time.monotonic()
            real_dt, last = min(now - last, self.max_step_s), now
            held = self._busy()
            with self._cond:
                if held or self._running:
                    self.held_s += real_dt
                    continue
                t = self._t + real_dt * self.rate
                first_wake = min(self._wakes.values(), default=None)
                if first_wake is not None and first_wake <= t:
                    # stop at the wake time until that sleeper has woken (and parked again)
                    self._t = max(self._t, first_wake)
                    self._cond.notify_all()
                else:
                    self._t = t


class ClockedFrames:
    """A frame source read on the demo's clock: a frame every 1/fps seconds of it, stamped
    with that time. The camera's thread joins the clock, so the clock stands while a frame
    is being recognised and its observation applied (with the station's inputs hold)."""

    def __init__(self, source: Any, clock: WallClock | VirtualClock, fps: float) -> None:
        self.source, self.clock = source, clock
        self.period_s = 1.0 / fps
        self._next_s: float | None = None
        self._joined = False
        self._closed = threading.Event()

    def read(self) -> Any:
        if not self._joined:
            self.clock.join()
            self._joined = True
        if self._next_s is not None and self.clock.sleep(self._next_s - self.clock.now(), self._closed):
            self.clock.leave()
            return None
        t = self.clock.now()
        self._next_s = max(t, self._next_s or t) + self.period_s
        if self._closed.is_set():
            self.clock.leave()
            return None
        got = self.source.read()
        return None if got is None else (t, got[1])

    def close(self) -> None:
        self._closed.set()
        self.source.close()


def make_clock(kind: str, *, rate: float = 1.0) -> WallClock | VirtualClock:
    """`wall` or `virtual` (the demo's --clock)."""
    if kind == "wall":
        return WallClock()
    if kind == "virtual":
        return VirtualClock(rate=rate)
    raise ValueError(f"no {kind!r} clock: wall or virtual")
