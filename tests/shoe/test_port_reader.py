"""The station's shoe port keeps reading through an error nobody foresaw, and says so.

A failure inside the reading (here: the core's intake raising once) used to end the reader
thread for good with nobody told but the log; the link then went quiet and stayed so. Now
the port reports the failure through `on_reader_died` and reads again; the shoe resends
what was not acknowledged, so nothing is lost. A real pty and the shoe simulator."""

from __future__ import annotations

import threading

from firmware_bridge.shoe.simulator import ShoeSimulator
from station.live.shoe_port import ShoePort
from tests.waiting import wait_for


def _until(cond, what: str, timeout_s: float = 15.0) -> None:
    wait_for(cond, timeout_s, what)


def test_the_reader_reports_a_failure_and_reads_again() -> None:
    got: list[bytes] = []
    reports: list[str] = []
    failed = threading.Event()

    def intake(data: bytes) -> None:
        if not failed.is_set():
            failed.set()
            raise RuntimeError("the intake broke once")
        got.append(data)

    with ShoeSimulator(seed=2) as shoe:
        port = ShoePort(shoe.serve_pty(), intake, on_reader_died=reports.append)
        port.start()
        try:
            _until(lambda: reports, "the failure to be reported")
            assert reports == ["RuntimeError: the intake broke once"]
            _until(lambda: b"HELLO" in b"".join(got) or b",HB," in b"".join(got),
                   "the shoe's frames to reach the intake again")
            assert port.counters["reader_died"] == 1
        finally:
            port.stop()
