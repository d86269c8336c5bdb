"""What the live shoe-link tests share: an event collector that waits with a deadline, and
the simulated dealer's draw that waits at a locked gate like a real hand would."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from firmware_bridge.shoe.events import ShoeEvent
from firmware_bridge.shoe.simulator import ShoeRefused, ShoeSimulator
from tests.waiting import retry_until, wait_for

# Generous: these run on a loaded 2-core machine.
DEADLINE = 30.0


class Collector:
    """`on_event` for a ShoeDriver: keeps every event and remembers the delivering thread."""

    def __init__(self) -> None:
        self.events: list[ShoeEvent] = []
        self.threads: set[str] = set()
        self._cond = threading.Condition()

    def __call__(self, ev: ShoeEvent) -> None:
        with self._cond:
            self.events.append(ev)
            self.threads.add(threading.current_thread().name)
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[list[ShoeEvent]], bool],
                 timeout: float = DEADLINE, what: str = "the expected events") -> None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self.events):
                left = deadline - time.monotonic()
                if left <= 0:
                    kinds = [(e.seq, e.event) for e in self.events[-10:]]
                    raise AssertionError(f"timed out waiting for {what}; last events {kinds}")
                self._cond.wait(min(left, 0.1))

    def table_events(self) -> list[tuple[int | None, str, tuple[str, ...]]]:
        """The shoe's own events (not link state) as (seq, TYPE, fields), like the
        simulator's `events_sent()`."""
        out = []
        with self._cond:
            for e in self.events:
                if e.event in ("link_lost", "link_restored", "reader_died"):
                    continue
                out.append((e.seq, e.event.upper(), frame_fields(e)))
        return out


def frame_fields(e: ShoeEvent) -> tuple[str, ...]:
    if e.event == "hello":
        return (e.proto, e.model, e.serial, e.firmware, e.boot_id)  # type: ignore[attr-defined]
    if e.event == "card":
        code = e.code  # type: ignore[attr-defined]
        return (e.card,) if code is None else (e.card, code)  # type: ignore[attr-defined]
    if e.event in ("fault", "clear"):
        return (e.code,)  # type: ignore[attr-defined]
    return ()


def draw(sim: ShoeSimulator, timeout: float = DEADLINE) -> str:
    """The dealer's hand: waits at a locked gate (e.g. a full retransmission buffer)."""
    return retry_until(sim.draw, ShoeRefused, timeout, "the shoe's gate to open for a draw")


def wait_until(predicate: Callable[[], bool], timeout: float = DEADLINE,
               what: str | Callable[[], str] = "condition") -> None:
    """`what` may be a callable: it is asked at the timeout, so the message shows the state
    of the parts when the wait gave up."""
    wait_for(predicate, timeout, what)
