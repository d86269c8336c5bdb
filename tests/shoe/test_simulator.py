"""The simulated shoe as firmware: checked by speaking raw DS frames to it over its pty with
plain pyserial (not the station's driver), and through its dealer-side API."""

from __future__ import annotations

import time
from collections import Counter

import pytest
import serial

from firmware_bridge.shoe.codec import Frame, FrameDecoder, encode_frame
from firmware_bridge.shoe.driver import ShoeDriver
from firmware_bridge.shoe.simulator import (
    FaultPlan,
    ScheduledFault,
    ShoeRefused,
    ShoeSimulator,
    eight_deck_shoe,
)
from tests.waiting import wait_for

from .helpers import draw

pytestmark = pytest.mark.timeout(120)


class RawStation:
    """A bare-hands station: pyserial and the codec, nothing else."""

    def __init__(self, url: str) -> None:
        self.port = serial.serial_for_url(url, baudrate=115200, timeout=0.02)
        self.decoder = FrameDecoder("shoe")
        self.frames: list[tuple[float, Frame]] = []

    def pump(self, seconds: float) -> list[Frame]:
        """Read for `seconds`; returns the frames that arrived in that time."""
        end = time.monotonic() + seconds
        new: list[Frame] = []
        while time.monotonic() < end:
            data = self.port.read(4096)
            if data:
                for f in self.decoder.feed(data):
                    self.frames.append((time.monotonic(), f))
                    new.append(f)
        return new

    def until(self, predicate, timeout: float = 20.0) -> list[Frame]:
        end = time.monotonic() + timeout
        got: list[Frame] = []
        while time.monotonic() < end:
            got += self.pump(0.05)
            if predicate(got):
                return got
        raise AssertionError(f"timed out; got {got[-5:]}")

    def send(self, seq: int, type_: str, *fields: str) -> None:
        self.port.write(encode_frame(seq, type_, *fields))

    def close(self) -> None:
        self.port.close()


@pytest.fixture
def shoe():
    opened_at = time.monotonic()
    sim = ShoeSimulator(cards=["7H", "TD", "??", "2C", "KS"], cut_at=2, seed=1,
                        boot_id="0A0B0C0D")
    station = RawStation(sim.serve_pty())
    station.opened_at = opened_at
    yield sim, station
    station.close()
    sim.close()


def test_hello_first_then_resent_every_250ms_until_acked(shoe) -> None:
    sim, st = shoe
    frames = st.until(lambda got: sum(f.type == "HELLO" for f in got) >= 3)
    # the shoe's own count of timed resends, against the time it can have had: arrival times
    # on a busy machine bunch up in the pty, so gaps between them say nothing of the 250 ms
    since_boot_s = time.monotonic() - st.opened_at
    hellos = [f for _, f in st.frames if f.type == "HELLO"]
    assert hellos[0] == Frame(0, "HELLO", ("1", "DS8", "SH-SIM01", "2.1.0", "0A0B0C0D"))
    assert set(hellos) == {hellos[0]}  # the same frame again, not a new one
    resends = sim.stats.timed_resends
    assert 2 <= resends <= since_boot_s / 0.25 + 1, (resends, since_boot_s)
    st.send(1, "ACK", "0")
    wait_for(lambda: sim.unacked == 0, 10, "the shoe to take the ACK")
    st.pump(0.1)  # a resend already on its way before the ACK
    resends = sim.stats.timed_resends
    st.pump(0.6)
    assert sim.stats.timed_resends == resends  # no more resends
    assert frames


def test_heartbeat_after_a_second_of_silence(shoe) -> None:
    sim, st = shoe
    st.until(lambda got: any(f.type == "HELLO" for f in got))
    st.send(1, "ACK", "0")
    hb = st.until(lambda got: any(f.type == "HB" for f in got), timeout=5)
    beat = [f for f in hb if f.type == "HB"][0]
    assert beat.seq == 1 and int(beat.fields[0]) >= 900


def test_draws_follow_the_script_with_the_cut_card_unread_and_empty(shoe) -> None:
    sim, st = shoe
    st.until(lambda got: any(f.type == "HELLO" for f in got))
    st.send(1, "ACK", "0")
    with pytest.raises(ShoeRefused, match="not loaded"):
        sim.draw()
    sim.load()
    drawn = [sim.draw() for _ in range(6)]
    assert drawn == ["7H", "TD", "CUT", "??", "2C", "KS"]
    with pytest.raises(ShoeRefused, match="empty"):
        sim.draw()
    frames = st.until(lambda got: any(f.type == "EMPTY" for f in got))
    firsts = {}
    for f in frames:
        firsts.setdefault(f.seq, f)
    assert [(f.type, f.fields) for _, f in sorted(firsts.items())] == [
        ("LOAD", ()), ("CARD", ("7H",)), ("CARD", ("TD",)), ("CUT", ()), ("UNREAD", ()),
        ("CARD", ("2C",)), ("CARD", ("KS",)), ("EMPTY", ())]


def test_resend_request_is_answered_at_once_from_that_seq(shoe) -> None:
    sim, st = shoe
    st.until(lambda got: any(f.type == "HELLO" for f in got))
    st.send(1, "ACK", "0")
    sim.load()
    for _ in range(3):
        sim.draw()
    st.until(lambda got: any(f.seq == 4 for f in got))
    st.send(2, "ACK", "2")
    st.pump(0.05)
    st.send(3, "RESEND", "3")
    again = st.until(lambda got: [f.seq for f in got][:2] == [3, 4], timeout=5)
    assert again[0].fields == ("TD",) and again[1].type == "CUT"
    assert sim.stats.requested_resends == 1


def test_a_command_is_carried_out_once_and_repeats_get_the_same_reply(shoe) -> None:
    sim, st = shoe
    st.until(lambda got: any(f.type == "HELLO" for f in got))
    st.send(1, "ACK", "0")
    st.send(40, "LOCK")
    st.send(40, "LOCK")  # the station's retry: same seq
    st.send(41, "STATUS")
    replies = st.until(lambda got: sum(f.type in ("OK", "STATUS") for f in got) >= 3)
    oks = [f for f in replies if f.type == "OK"]
    assert {f.fields for f in oks} == {("40",)} and len({f.seq for f in oks}) == 2
    status = [f for f in replies if f.type == "STATUS"][0]
    assert status.fields == ("41", "LOCKED", "0", "OFF")
    assert sim.executed == {40: 1, 41: 1}
    assert sim.stats.repeated_commands == 1
    st.send(42, "LED", "AMBER")
    st.send(43, "UNLOCK")
    st.until(lambda got: sum(f.type == "OK" for f in got) >= 2)
    assert sim.led == "AMBER" and not sim.gate_locked


def test_full_buffer_locks_the_gate_and_reports_overflow() -> None:
    with ShoeSimulator(seed=2) as sim:
        sim.load()
        n = 0
        with pytest.raises(ShoeRefused, match="buffer full"):
            while True:
                sim.draw()
                n += 1
        # HELLO + LOAD + n cards + FAULT,OVERFLOW fill the 64 slots.
        assert n == 61 and sim.unacked == 64 and sim.overflow
        log = sim.events_sent()
        assert log[-1][1:] == ("FAULT", ("OVERFLOW",))


def test_reboot_starts_a_new_boot_at_seq_zero() -> None:
    with ShoeSimulator(seed=3, boot_id="11111111") as sim:
        sim.load()
        sim.draw()
        sim.reboot()
        assert sim.boot_id != "11111111"
        assert sim.next_seq == 1 and sim.unacked == 1  # only the new HELLO
        assert sim.events_sent()[-1][:2] == (0, "HELLO")


def test_jam_refuses_draws_until_cleared() -> None:
    plan = FaultPlan(scheduled=(ScheduledFault(after_draws=2, action="jam", seconds=0.3),))
    with ShoeSimulator(seed=4, faults=plan) as sim:
        sim.load()
        sim.draw()
        sim.draw()
        with pytest.raises(ShoeRefused, match="jammed"):
            sim.draw()
        wait_for(lambda: "JAM" not in sim.faults_active, 10, "the jam to clear by itself")
        sim.draw()
        kinds = [(t, f) for _, t, f in sim.events_sent() if t in ("FAULT", "CLEAR")]
        assert kinds == [("FAULT", ("JAM",)), ("CLEAR", ("JAM",))]
        with pytest.raises(ValueError):
            sim.fault("OVERFLOW")  # only the buffer itself raises that one


def test_a_shuffled_shoe_holds_eight_full_decks_and_the_cut_card() -> None:
    import random

    cards = eight_deck_shoe(random.Random(5))
    assert len(cards) == 416 and set(Counter(cards).values()) == {8}
    with ShoeSimulator(seed=5, cut_at=300, codes=True) as sim:
        # A station that acknowledges everything, so the shoe's buffer never fills.
        station = ShoeDriver(sim.serve_pty(), lambda ev: None, auto_ack=True)
        station.start()
        sim.load()
        assert sim.remaining == 417
        try:
            drawn = [draw(sim) for _ in range(417)]
        finally:
            station.stop()
        assert drawn.index("CUT") == 300
        coded = [f for _, t, f in sim.events_sent() if t == "CARD"]
        assert all(len(f) == 2 for f in coded) and len({f[1] for f in coded}) == 416


def test_bad_settings_fail_clearly() -> None:
    with pytest.raises(ValueError, match="not a card"):
        ShoeSimulator(cards=["7H", "ZZ"])
    with pytest.raises(ValueError, match="drop_rate"):
        FaultPlan(drop_rate=1.5)
    with pytest.raises(ValueError, match="unknown scheduled fault"):
        ScheduledFault(3, "explode")
    with pytest.raises(ValueError, match="boot id"):
        ShoeSimulator(boot_id="XYZ")


def test_tcp_port_speaks_the_same_protocol() -> None:
    with ShoeSimulator(seed=6, boot_id="0000ABCD") as sim:
        st = RawStation(sim.serve_tcp())
        try:
            hello = st.until(lambda got: any(f.type == "HELLO" for f in got))
            assert hello[0].fields[-1] == "0000ABCD"
            st.send(1, "ACK", "0")
            st.send(2, "STATUS")
            got = st.until(lambda got: any(f.type == "STATUS" for f in got))
            assert [f for f in got if f.type == "STATUS"][0].fields == ("2", "UNLOCKED", "0",
                                                                        "OFF")
        finally:
            st.close()
