"""Waiting on a whole table that runs on a virtual clock (station/sim/demo_clock.py): the test
is one of the clock's actors, so the clock stands while the test is mid-step and goes on while
the test waits on the table."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any


def wait_view(station: Any, cond: Callable[[dict[str, Any]], Any], what: str,
              timeout: float = 60.0, clock: Any = None) -> dict[str, Any]:
    """The table's view once `cond` holds; the test (an actor on `clock`) waits on the table,
    so the table's clock goes on meanwhile."""
    end = time.monotonic() + timeout
    version = -1
    while time.monotonic() < end:
        with clock.waiting() if clock is not None else nullcontext():
            v = station.wait_view(version, 0.2)
        version = v.get("version", version)
        if cond(v):
            return v
    raise AssertionError(f"timed out waiting for {what}: {station.view}")
