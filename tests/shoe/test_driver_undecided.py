"""The shoe driver acknowledges nothing while a HELLO of a boot it never saw awaits its decision
(firmware_bridge/shoe/sequencer.py, docs/shoe.md): an ACK of the old stream's seqs would make a
power-cycled shoe drop frames of its new boot that it holds under the same seqs.

The case: the station joined a running shoe mid-stream (no HELLO heard) and its table core is
slow to record the frames it got (a journal commit under load). The shoe is power-cycled; its
HELLO arrives while those frames are still being recorded. When they are recorded, the driver
must not acknowledge them: the HELLO is undecided, and once it is decided a boot, they are of a
boot the shoe no longer has. The test plays the shoe on the master end of a real pty pair."""

from __future__ import annotations

import os
import select
import threading
import time
import tty

import pytest

from firmware_bridge.shoe.codec import Frame, FrameDecoder, encode_frame
from firmware_bridge.shoe.driver import ShoeDriver
from firmware_bridge.shoe.events import ShoeEvent

from .helpers import DEADLINE, wait_until

pytestmark = pytest.mark.timeout(120)


def hello(boot: str) -> bytes:
    return encode_frame(0, "HELLO", "1", "DS8", "SH-1", "2.1.0", boot)


def card(seq: int, c: str) -> bytes:
    return encode_frame(seq, "CARD", c)


class PtyShoe:
    """The shoe's end of a pty pair: writes frames, keeps every frame the station sends."""

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self._decoder = FrameDecoder("station")
        self.heard: list[Frame] = []

    def send(self, *frames: bytes) -> None:
        for f in frames:
            os.write(self.master, f)

    def listen(self, until, what: str) -> None:
        """Read what the station sends until `until(self.heard)` holds (or fail at a deadline)."""
        deadline = time.monotonic() + DEADLINE
        while not until(self.heard):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}; heard {self.acks()}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.2))
            if ready:
                self.heard.extend(self._decoder.feed(os.read(self.master, 4096)))

    def acks(self) -> list[int]:
        return [int(f.fields[0]) for f in self.heard if f.type == "ACK"]

    def close(self) -> None:
        for fd in (self.master, self._slave):
            os.close(fd)


def test_no_ack_of_the_old_stream_while_an_unseen_boots_hello_is_undecided() -> None:
    shoe = PtyShoe()
    recording = threading.Event()  # the table core's slow journal commit, held by the test
    got: list[ShoeEvent] = []

    def on_event(ev: ShoeEvent) -> None:
        if ev.event == "card" and not recording.wait(DEADLINE):
            raise AssertionError("the test never let the table core record")
        got.append(ev)

    driver = ShoeDriver(shoe.path, on_event, auto_ack=True)
    driver.start()
    try:
        # joined mid-stream: the old boot's frames 3..5, no HELLO heard
        shoe.send(card(3, "7H"), card(4, "8H"), card(5, "9H"))
        wait_until(lambda: driver.counters["frames"] >= 3, what="frames 3..5 sorted")
        # the shoe power-cycles: the new boot's HELLO and its first card, seq 1, which has
        # nothing the station processed to be compared with
        shoe.send(hello("0000B007"), card(1, "2C"))
        wait_until(lambda: driver.counters.get("undecided", 0) >= 2, what="the HELLO undecided")
        assert driver._stream.sequencer.undecided  # noqa: SLF001 - the state under test
        recording.set()  # the journal commits 3..5: the driver would acknowledge them now
        wait_until(lambda: len(got) >= 3, what="frames 3..5 recorded")
        # the new boot, unacknowledged, resends its burst until the bursts decide it a boot
        # (two that stop short of what the station processed: sequencer.py)
        for _ in range(4):
            if not driver._stream.sequencer.undecided:  # noqa: SLF001
                break
            frames = driver.counters["frames"]
            shoe.send(hello("0000B007"), card(1, "2C"))
            wait_until(lambda n=frames: driver.counters["frames"] >= n + 2, what="a resend burst")
        assert not driver._stream.sequencer.undecided  # noqa: SLF001
        shoe.listen(lambda heard: 1 in shoe.acks(), "the ACK of the new boot's card 1")
    finally:
        driver.stop()
        shoe.close()
    assert [e.card for e in got if e.event == "card"] == ["7H", "8H", "9H", "2C"]
    # the new boot was acknowledged its own HELLO (seq 0) and card; no ACK of the old
    # stream's 3..5 was ever sent (the core held every one of them until after the HELLO)
    assert shoe.acks() == [0, 1], shoe.acks()


def test_what_was_recorded_while_undecided_is_acknowledged_once_the_hello_is_a_resend() -> None:
    # Joined at 3..5 with a slow journal; the shoe, not yet acknowledged, resends from its
    # HELLO (undecided); 3..5 are recorded meanwhile, their ACK held back; the rest of the
    # burst carries the same frames: a resend. The held ACK must go out then — with the
    # gate locked nothing new would ever carry it, and the shoe would resend for ever.
    shoe = PtyShoe()
    recording = threading.Event()
    got: list[ShoeEvent] = []

    def on_event(ev: ShoeEvent) -> None:
        if ev.event == "card" and not recording.wait(DEADLINE):
            raise AssertionError("the test never let the table core record")
        got.append(ev)

    old = [encode_frame(1, "LOAD"), card(2, "6H"), card(3, "7H"), card(4, "8H"), card(5, "9H")]
    driver = ShoeDriver(shoe.path, on_event, auto_ack=True)
    driver.start()
    try:
        shoe.send(*old[2:])
        wait_until(lambda: driver.counters["frames"] >= 3, what="frames 3..5 sorted")
        shoe.send(hello("0000B007"))
        wait_until(lambda: driver._stream.sequencer.undecided,  # noqa: SLF001
                   what="the HELLO undecided")
        recording.set()
        wait_until(lambda: driver.counters["events_delivered"] >= 3, what="3..5 recorded")
        shoe.send(*old)  # the rest of the burst: the frames the station processed
        shoe.listen(lambda heard: 5 in shoe.acks(), "the ACK of 5")
    finally:
        driver.stop()
        shoe.close()
    assert [e.card for e in got if e.event == "card"] == ["7H", "8H", "9H"]  # each once
    assert set(shoe.acks()) == {5}, shoe.acks()  # (said again for the burst's duplicates)
