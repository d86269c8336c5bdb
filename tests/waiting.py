"""Waiting in a test: for a condition, with a deadline, and saying what was waited for.

A test never sleeps to let something happen: it waits until what it needs is true (a line
printed, a row written, a port open, a thread done), up to a deadline generous enough for a
loaded two-core machine, and when the deadline passes it fails naming what it waited for and
what it saw instead. `what` may be a callable: it is asked only at the deadline, so the message
shows the state of the parts when the wait gave up (a log's tail, counters).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: the deadline when a test names none: long enough for a loaded two-core machine
DEFAULT_S = 30.0


class WaitTimeout(AssertionError):
    """A condition a test waited for did not come true before its deadline."""


def _say(what: str | Callable[[], str]) -> str:
    if callable(what):
        try:
            return what()
        except Exception as e:  # the message must not hide the timeout
            return f"(describing the wait failed: {type(e).__name__}: {e})"
    return what


def wait_for(predicate: Callable[[], T], timeout_s: float = DEFAULT_S,
             what: str | Callable[[], str] = "a condition", *, poll_s: float = 0.02) -> T:
    """Return `predicate()`'s first truthy value, asked every `poll_s` until `timeout_s` has
    passed; then fail with `what` (and how long was waited)."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"timed out after {timeout_s:g} s waiting for {_say(what)}")
        time.sleep(poll_s)


def retry_until(action: Callable[[], T], refused: type[BaseException] | tuple[type[BaseException], ...],
                timeout_s: float = DEFAULT_S, what: str | Callable[[], str] = "an action to be taken",
                *, poll_s: float = 0.02) -> T:
    """Do `action()` until it no longer raises `refused` (e.g. a locked gate); its result.
    At the deadline the last refusal is raised, chained to a timeout naming `what`."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return action()
        except refused as e:
            if time.monotonic() >= deadline:
                raise WaitTimeout(f"timed out after {timeout_s:g} s waiting for {_say(what)}: "
                                  f"{type(e).__name__}: {e}") from e
        time.sleep(poll_s)


def pace(seconds: float) -> None:
    """The simulated passage of a person's or a device's time: a dealer's hand between two
    cards, a pause while a drill's tables deal before the next blow. Never what a test waits
    for: a test that needs something to have happened waits for it with `wait_for`."""
    time.sleep(seconds)
