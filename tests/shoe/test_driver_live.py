"""The station's shoe driver against the simulated shoe over real ports (a pty pair and TCP
on 127.0.0.1), with faults on the wire: every event exactly once, in order, nothing lost."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from firmware_bridge.shoe.driver import ShoeCommandTimeout, ShoeDriver, ShoeLinkError
from firmware_bridge.shoe.events import Hello, LinkLost, LinkRestored, ReaderDied
from firmware_bridge.shoe.simulator import FaultPlan, ScheduledFault, ShoeRefused, ShoeSimulator
from firmware_bridge.shoe.stream import ShoeStream
from firmware_bridge.shoe.trace import TraceRecorder, read_trace_shoe_bytes
from tests.waiting import pace

from .helpers import Collector, draw, wait_until

pytestmark = pytest.mark.timeout(120)

LOSSY = FaultPlan(drop_rate=0.05, duplicate_rate=0.05, split_rate=0.3, junk_rate=0.05,
                  bit_error_rate=0.0005, seed=7)


def all_delivered(sim: ShoeSimulator, got: Collector) -> bool:
    return len(got.table_events()) >= len(sim.events_sent()) and sim.unacked == 0


def start(url: str, got: Collector, **kw) -> ShoeDriver:
    kw.setdefault("auto_ack", True)
    d = ShoeDriver(url, got, **kw)
    d.start()
    return d


def test_lossy_pty_link_delivers_every_event_exactly_once_in_order() -> None:
    with ShoeSimulator(seed=11, faults=LOSSY) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got)
        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            sim.load()
            for _ in range(150):
                draw(sim)
                pace(0.01)  # the dealer's hand between two cards
            wait_until(lambda: all_delivered(sim, got), what="every event")
            assert got.table_events() == sim.events_sent()
            c = driver.counters
        finally:
            driver.stop()
        # The wire really was bad, and the station recovered by itself.
        assert sim.stats.frames_lost > 0
        assert c["resends_sent"] > 0 and c["duplicate"] > 0
        assert c["events_delivered"] == len(sim.events_sent())
        assert len(got.threads) == 1  # one delivery thread, so the table core sees one order
        cards = [e for e in got.events if e.event == "card"]
        assert all(a.t <= b.t for a, b in zip(cards, cards[1:], strict=False))  # arrivals in order


def test_unplug_mid_stream_loses_nothing_and_reports_the_link() -> None:
    # The cable is out for 3.5 s while the dealer keeps drawing: the shoe keeps the frames,
    # the station notices the silence, reopens the port by path and gets everything.
    plan = FaultPlan(scheduled=(ScheduledFault(after_draws=15, action="unplug", seconds=3.5),),
                     seed=3)
    with ShoeSimulator(seed=12, faults=plan) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got)
        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            sim.load()
            for _ in range(60):
                draw(sim)
                pace(0.08)  # the dealer's hand between two cards
            wait_until(lambda: all_delivered(sim, got), what="every event after replug")
            assert got.table_events() == sim.events_sent()
            c = driver.counters
        finally:
            driver.stop()
    kinds = [e.event for e in got.events]
    assert kinds.count("link_lost") == 1 and kinds.count("link_restored") == 1
    lost, restored = kinds.index("link_lost"), kinds.index("link_restored")
    assert lost < restored
    assert isinstance(got.events[lost], LinkLost) and isinstance(got.events[restored],
                                                                LinkRestored)
    assert got.events[restored].t - got.events[lost].t > 0.3
    assert c["reconnects"] >= 1 and c["read_errors"] >= 1
    assert sim.stats.unplugs == 1


def test_unplug_on_a_tcp_bridge_loses_nothing() -> None:
    plan = FaultPlan(drop_rate=0.03, split_rate=0.2, seed=5,
                     scheduled=(ScheduledFault(after_draws=10, action="unplug", seconds=1.0),))
    with ShoeSimulator(seed=13, faults=plan) as sim:
        got = Collector()
        driver = start(sim.serve_tcp(), got)
        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            sim.load()
            for _ in range(40):
                draw(sim)
                pace(0.05)  # the dealer's hand between two cards
            wait_until(lambda: all_delivered(sim, got), what="every event")
            assert got.table_events() == sim.events_sent()
            assert driver.counters["reconnects"] >= 1
        finally:
            driver.stop()


def test_reboot_is_detected_and_the_new_boot_streams_on() -> None:
    with ShoeSimulator(seed=14) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got)
        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            first_boot = sim.boot_id
            sim.load()
            for _ in range(10):
                draw(sim)
            wait_until(lambda: all_delivered(sim, got), what="the first boot's events")
            sim.reboot()
            assert sim.boot_id != first_boot
            got.wait_for(lambda ev: sum(isinstance(e, Hello) for e in ev) == 2, what="reboot")
            sim.load()
            for _ in range(10):
                draw(sim)
            wait_until(lambda: all_delivered(sim, got), what="the second boot's events")
            assert got.table_events() == sim.events_sent()
            assert driver.counters["reboots"] == 1
            assert driver.boot_id == sim.boot_id
        finally:
            driver.stop()
    hellos = [e for e in got.events if isinstance(e, Hello)]
    assert [h.rebooted for h in hellos] == [False, True]
    assert [h.boot_id for h in hellos] == [first_boot, sim.boot_id]
    assert [e.seq for e in got.events if e.event != "hello"][-11:] == list(range(1, 12))


def test_commands_are_retried_and_each_carried_out_once() -> None:
    plan = FaultPlan(inbound_drop_rate=0.2, drop_rate=0.1, seed=21)
    with ShoeSimulator(seed=15, faults=plan) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got)
        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            sim.load()
            for _ in range(3):
                draw(sim)
            for colour in ("GREEN", "AMBER", "RED", "OFF"):
                r = driver.led(colour)
                assert r.kind == "OK" and sim.led == colour
            assert driver.lock().kind == "OK"
            assert sim.gate_locked
            with pytest.raises(ShoeRefused, match="gate is locked"):
                sim.draw()
            s = driver.status()
            assert (s.kind, s.gate, s.cards_out, s.led) == ("STATUS", "LOCKED", 3, "OFF")
            assert driver.unlock().kind == "OK"
            draw(sim)
            s = driver.status()
            assert (s.gate, s.cards_out) == ("UNLOCKED", 4)
            for _ in range(4):
                assert driver.status().kind == "STATUS"
            c = driver.counters
        finally:
            driver.stop()
    # Every command the shoe heard was carried out once, however often it was sent.
    assert sim.executed and set(sim.executed.values()) == {1}
    assert sim.stats.commands == len(sim.executed) == 12
    assert c["commands_sent"] == 12 and c["command_timeouts"] == 0
    assert sim.stats.inbound_dropped > 0


def test_a_lost_command_is_sent_again_with_its_seq_and_carried_out_once() -> None:
    # The line loses the first two sends of every command: each one gets through on its
    # second retry, is carried out once, and answered once.
    with ShoeSimulator(seed=28, faults=FaultPlan(inbound_lose_first=2)) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got)
        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            t0 = time.monotonic()
            assert driver.lock().kind == "OK"
            assert time.monotonic() - t0 >= 0.45  # two retry intervals went by
            assert driver.led("RED").kind == "OK"
            s = driver.status()
            assert (s.gate, s.led) == ("LOCKED", "RED")
            c = driver.counters
        finally:
            driver.stop()
    assert c["command_retries"] >= 6 and c["command_timeouts"] == 0
    assert sorted(sim.executed.values()) == [1, 1, 1]
    assert sim.stats.inbound_dropped == 6


def test_a_shoe_without_a_gate_says_unsupported() -> None:
    with ShoeSimulator(seed=16, has_gate=False) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got)
        try:
            r = driver.lock()
            assert (r.kind, r.reason) == ("ERR", "UNSUPPORTED")
            assert driver.led("green").kind == "OK"
            with pytest.raises(ValueError, match="LED colour"):
                driver.led("PURPLE")
        finally:
            driver.stop()


def test_a_command_nobody_answers_fails_clearly_after_five_retries() -> None:
    with ShoeSimulator(seed=17) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got)
        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            sim.unplug(30)
            t0 = time.monotonic()
            with pytest.raises(ShoeCommandTimeout, match=r"did not answer LOCK .* after 6 sends"):
                driver.lock()
            assert time.monotonic() - t0 >= 1.4
            assert driver.counters["command_timeouts"] == 1
        finally:
            driver.stop()


def test_sequence_wraps_from_65535_to_1_on_the_live_link() -> None:
    # The station restarts from its journal (expected 65530, the shoe's boot id) while the
    # shoe has been running for a long time.
    with ShoeSimulator(seed=18, boot_id="5EEDF00D", resume_seq=65530) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got, expected_seq=65530, boot_id="5EEDF00D")
        try:
            sim.load()
            for _ in range(10):
                draw(sim)
            wait_until(lambda: all_delivered(sim, got), what="events across the wrap")
        finally:
            driver.stop()
    assert [e.seq for e in got.events if e.seq is not None] == [
        65530, 65531, 65532, 65533, 65534, 65535, 1, 2, 3, 4, 5]
    assert got.table_events() == sim.events_sent()


def test_unacknowledged_backlog_locks_the_gate_until_the_station_records() -> None:
    # A station whose journal is stuck never acknowledges: after 63 frames the shoe reports
    # OVERFLOW and no card can be drawn (and lost); recording releases it.
    with ShoeSimulator(seed=19) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got, auto_ack=False)
        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            sim.load()
            drawn = 0
            with pytest.raises(ShoeRefused, match="retransmission buffer full"):
                for _ in range(100):
                    sim.draw()
                    drawn += 1
            assert drawn == 61  # HELLO, LOAD, 61 cards, FAULT,OVERFLOW = 64 frames
            got.wait_for(lambda ev: any(e.event == "fault" for e in ev), what="OVERFLOW")
            fault = [e for e in got.events if e.event == "fault"][0]
            assert fault.code == "OVERFLOW"  # type: ignore[attr-defined]
            driver.recorded_up_to(fault.seq)  # the journal caught up
            got.wait_for(lambda ev: any(e.event == "clear" for e in ev), what="CLEAR")
            driver.recorded_up_to(got.events[-1].seq)
            draw(sim)
            got.wait_for(lambda ev: ev[-1].event == "card", what="a card after the overflow")
            assert got.table_events() == sim.events_sent()
        finally:
            driver.stop()


def test_station_restart_from_its_journal_repeats_nothing_and_skips_nothing() -> None:
    with ShoeSimulator(seed=20) as sim:
        first = Collector()
        d1 = start(sim.serve_pty(), first, auto_ack=False)
        path = d1.url
        first.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
        sim.load()
        for _ in range(20):
            draw(sim)
        first.wait_for(lambda ev: len(ev) == 22, what="22 events")
        journal = first.events[:12]  # the journal committed 12 events, then the station died
        d1.recorded_up_to(journal[-1].seq)
        d1.stop()
        wait_until(lambda: sim.unacked == 10, what="the shoe to drop what was acknowledged")
        second = Collector()
        d2 = start(path, second, expected_seq=journal[-1].seq + 1, boot_id=sim.boot_id)
        try:
            for _ in range(5):
                draw(sim)
            wait_until(lambda: sim.unacked == 0 and len(second.events) == 15, what="the rest")
        finally:
            d2.stop()
    recorded = [(e.seq, e.event) for e in journal + second.events]
    assert recorded == [(q, t.lower()) for q, t, _ in sim.events_sent()]


def test_recorded_trace_replays_to_the_same_events(tmp_path: Path) -> None:
    trace = tmp_path / "shoe.jsonl"
    with ShoeSimulator(seed=22, faults=LOSSY, codes=True) as sim:
        got = Collector()
        recorder = TraceRecorder(trace, game="pokdeng")
        driver = start(sim.serve_pty(), got, recorder=recorder)
        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            sim.load()
            for _ in range(40):
                draw(sim)
                pace(0.01)  # the dealer's hand between two cards
            driver.status()
            wait_until(lambda: all_delivered(sim, got), what="every event")
        finally:
            driver.stop()
            recorder.close()
    lines = read_trace_shoe_bytes(trace)
    assert any(k == "to_shoe" and b",ACK," in d for _, k, d in lines)
    assert any(k == "to_shoe" and b",STATUS*" in d for _, k, d in lines)
    stream = ShoeStream()
    replayed = []
    for t, key, data in lines:
        if key == "shoe":
            replayed += [e for e in stream.feed(data, t).events if e.event not in ("hb", "reply")]
    live = [e for e in got.events if e.seq is not None]
    assert [(e.seq, e.event, getattr(e, "card", None), getattr(e, "code", None))
            for e in replayed] == [
        (e.seq, e.event, getattr(e, "card", None), getattr(e, "code", None)) for e in live]
    # Trace times are the live arrival times, from the first recorded chunk.
    t0 = live[0].t - replayed[0].t
    assert all(abs((a.t - t0) - b.t) < 0.05 for a, b in zip(live, replayed, strict=True))


def test_port_is_opened_exclusively_and_bad_urls_fail_clearly() -> None:
    with ShoeSimulator(seed=23) as sim:
        path = sim.serve_pty()
        got = Collector()
        driver = start(path, got)
        try:
            with pytest.raises(ShoeLinkError, match="cannot open the shoe at"):
                ShoeDriver(path, Collector()).start()
        finally:
            driver.stop()
    with pytest.raises(ShoeLinkError, match="/dev/no-such-shoe"):
        ShoeDriver("/dev/no-such-shoe", Collector()).start()
    with pytest.raises(ShoeLinkError, match="cannot open"):
        ShoeDriver("bogus://x", Collector()).start()


def test_reader_death_is_an_event_not_silence(tmp_path: Path) -> None:
    # The trace file becomes unwritable under the running driver (a full or vanished disk).
    with ShoeSimulator(seed=24) as sim:
        got = Collector()
        f = open(tmp_path / "t.jsonl", "w", encoding="utf-8")  # noqa: SIM115
        recorder = TraceRecorder(f, game="pokdeng")
        f.close()
        driver = start(sim.serve_pty(), got, recorder=recorder)
        try:
            got.wait_for(lambda ev: any(isinstance(e, ReaderDied) for e in ev),
                         what="ReaderDied")
            died = [e for e in got.events if isinstance(e, ReaderDied)][0]
            assert "closed file" in died.error
            assert driver.counters["reader_died"] == 1
        finally:
            driver.stop()


def test_events_are_delivered_on_one_thread_while_commands_run_on_others() -> None:
    with ShoeSimulator(seed=26) as sim:
        got = Collector()
        driver = start(sim.serve_pty(), got)
        errors: list[BaseException] = []

        def ask() -> None:
            try:
                for _ in range(5):
                    driver.status()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        try:
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            sim.load()
            askers = [threading.Thread(target=ask) for _ in range(3)]
            for a in askers:
                a.start()
            for _ in range(30):
                draw(sim)
                pace(0.005)  # the dealer's hand between two cards
            for a in askers:
                a.join(timeout=30)
            wait_until(lambda: all_delivered(sim, got), what="every event")
            assert not errors
            assert got.table_events() == sim.events_sent()
            assert sim.stats.commands == 15
        finally:
            driver.stop()


def test_driver_started_before_the_shoe_is_plugged_in_waits_for_it() -> None:
    with ShoeSimulator(seed=27) as sim:
        path = sim.serve_pty()
        sim.unplug(4.0)  # the path is gone until the shoe is plugged in
        got = Collector()
        with pytest.raises(ShoeLinkError):
            ShoeDriver(path, Collector()).start()
        driver = start(path, got, require_port=False)
        try:
            got.wait_for(lambda ev: any(e.event == "link_lost" for e in ev), what="link_lost")
            got.wait_for(lambda ev: any(isinstance(e, Hello) for e in ev), what="HELLO")
            assert [e.event for e in got.events][:3] == ["link_lost", "link_restored", "hello"]
            assert driver.link_up and driver.counters["open_failures"] >= 1
        finally:
            driver.stop()
