"""Tests wait for conditions, never for a length of time (docs/testing.md): a bare sleep in a
test is a wait that passes on a quiet machine and fails on a loaded one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.waiting import WaitTimeout, retry_until, wait_for

TESTS = Path(__file__).resolve().parent
#: a sleep on a virtual clock (station/sim/demo_clock.py, `clock.sleep`) is no wait on real
#: time: it is what the clock's own tests exercise
SLEEP = re.compile(r"(?<!clock\.)\b(time\.sleep|sleep)\(")


def test_no_test_sleeps_bare():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.name == "waiting.py":
            continue  # the helpers themselves
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if SLEEP.search(code) and "asyncio.sleep" not in code:
                found.append(f"{path.relative_to(TESTS.parent)}:{n}: {line.strip()}")
    assert not found, ("wait for a condition (tests/waiting.py wait_for), or, for the simulated "
                       "passage of a person's or device's time, use pace():\n" + "\n".join(found))


def test_a_wait_that_times_out_says_what_it_waited_for():
    seen = []
    with pytest.raises(WaitTimeout, match=r"timed out after 0.05 s waiting for the door to open: 3 knocks"):
        wait_for(lambda: seen.append(1), 0.05, lambda: f"the door to open: {3} knocks", poll_s=0.01)
    assert len(seen) >= 2  # asked again until the deadline
    assert wait_for(lambda: [1], 1, "a list") == [1]  # the value that ended the wait


def test_an_action_is_retried_while_refused_and_the_last_refusal_is_chained():
    tries = []

    def act():
        tries.append(1)
        if len(tries) < 3:
            raise LookupError("gate locked")
        return "card"

    assert retry_until(act, LookupError, 5, "a card", poll_s=0.001) == "card"

    def jammed():
        raise LookupError("gate locked")

    with pytest.raises(WaitTimeout, match="a card: LookupError: gate locked") as info:
        retry_until(jammed, LookupError, 0.02, "a card", poll_s=0.005)
    assert isinstance(info.value.__cause__, LookupError)
