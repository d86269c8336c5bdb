"""In-order processing of the shoe's stream (SHOE_PROTOCOL.md §4), through ShoeStream."""

from __future__ import annotations

from firmware_bridge.shoe.codec import encode_frame
from firmware_bridge.shoe.events import CardRead, Hello
from firmware_bridge.shoe.sequencer import ShoeSequencer, next_seq, seq_distance_back
from firmware_bridge.shoe.stream import ShoeStream


def hello(boot: str = "0000BEEF") -> bytes:
    return encode_frame(0, "HELLO", "1", "DS8", "SH-1", "2.1.0", boot)


def card(seq: int, c: str = "7H") -> bytes:
    return encode_frame(seq, "CARD", c)


def test_seq_ring_wraps_from_65535_to_1_skipping_hello_zero() -> None:
    assert next_seq(1) == 2
    assert next_seq(65534) == 65535
    assert next_seq(65535) == 1
    assert seq_distance_back(1, 65535) == 1
    assert seq_distance_back(3, 65534) == 4
    assert seq_distance_back(10, 10) == 0


def test_in_order_across_the_wrap() -> None:
    s = ShoeStream(expected=65533, boot_id="0000BEEF")
    seqs = [65533, 65534, 65535, 1, 2, 3]
    events = []
    for q in seqs:
        r = s.feed(card(q), 0.0)
        assert not r.resend_from and not r.reack
        events += r.events
    assert [e.seq for e in events] == seqs
    # 65535 arriving again after the wrap is a retransmission, not a gap.
    r = s.feed(card(65535), 0.1)
    assert r.events == [] and r.reack and r.resend_from == []


def test_duplicates_within_1024_back_are_ignored_and_reacked() -> None:
    s = ShoeStream(expected=2000)
    s.feed(card(2000), 0.0)
    for back in (1, 500, 1024):
        r = s.feed(card(2001 - back), 0.0)
        assert r.events == [] and r.reack
    # 1025 back is no longer a retransmission: it is ahead of a gap (round the ring).
    r = s.feed(card(2001 - 1025), 0.0)
    assert r.events == [] and r.resend_from == [2001]
    assert s.counters["duplicate"] == 3 and s.counters["gap"] == 1


def test_gap_asks_resend_at_most_every_100_ms_then_recovers() -> None:
    s = ShoeStream()
    s.feed(hello(), 0.0)
    s.feed(card(1), 0.0)
    assert s.feed(card(3), 1.000).resend_from == [2]
    assert s.feed(card(4), 1.050).resend_from == []  # rate-limited
    assert s.feed(card(5), 1.100).resend_from == [2]
    r = s.feed(card(2) + card(3) + card(4) + card(5), 1.2)
    assert [e.seq for e in r.events] == [2, 3, 4, 5]


def test_first_frame_without_hello_sets_expected() -> None:
    s = ShoeStream()
    r = s.feed(card(41) + card(42), 0.0)
    assert [e.seq for e in r.events] == [41, 42]


def test_hello_then_reboot_is_flagged_and_repeat_hello_is_a_retransmission() -> None:
    s = ShoeStream()
    r = s.feed(hello("AAAA0001") + card(1) + card(2), 0.0)
    assert isinstance(r.events[0], Hello) and not r.events[0].rebooted
    r = s.feed(hello("AAAA0001"), 0.3)  # resent HELLO, same boot
    assert r.events == [] and r.reack
    r = s.feed(hello("BBBB0002") + card(1, "QS"), 5.0)  # power cycle
    assert isinstance(r.events[0], Hello) and r.events[0].rebooted
    assert r.events[0].boot_id == "BBBB0002"
    assert isinstance(r.events[1], CardRead) and r.events[1].seq == 1


def test_station_restarting_from_its_journal_skips_nothing_and_repeats_nothing() -> None:
    # The journal says: last processed 57 of boot AAAA0001. The shoe resends from 50.
    s = ShoeStream(expected=58, boot_id="AAAA0001")
    stream = hello("AAAA0001") + b"".join(card(q) for q in range(50, 61))
    r = s.feed(stream, 0.0)
    assert [e.seq for e in r.events] == [58, 59, 60]
    assert r.reack


def test_station_joining_midstream_treats_a_late_hello_as_retransmission() -> None:
    # No journal, no HELLO seen: the station starts at the first frame it hears (23) and
    # acknowledges it, so the shoe drops 0..23; the HELLO of that burst still on the wire
    # must not send the station back to seq 1.
    s = ShoeStream()
    r = s.feed(card(23) + hello("AAAA0001") + b"".join(card(q) for q in range(1, 24))
               + card(24), 0.0)
    assert [e.seq for e in r.events] == [23, 24]
    assert s.sequencer.boot_id == "AAAA0001"


def _old_boot_joined(last: int) -> ShoeStream:
    """A station that joined a running shoe at seq 3 (no HELLO heard) and processed 3..last."""
    s = ShoeStream()
    r = s.feed(b"".join(card(q, f"{'23456789T'[q % 9]}H") for q in range(3, last + 1)), 0.1)
    assert [e.seq for e in r.events] == list(range(3, last + 1))
    return s


def _resend(last: int, boot: str) -> bytes:
    """The old boot's resend burst: its HELLO and every frame up to `last`, as first sent."""
    return hello(boot) + b"".join(card(q, f"{'23456789T'[q % 9]}H") for q in range(1, last + 1))


def test_a_resend_burst_applied_late_is_processed_once_whenever_it_comes() -> None:
    # The station's ACK of its join was slow (a journal commit on a loaded machine): the shoe
    # resends HELLO, 1..5 again and again, and the station applies the copies late. Late or
    # not, a resend is a resend: nothing is processed twice.
    for late_s in (0.3, 2.5, 30.0):
        s = _old_boot_joined(5)
        for k in range(3):
            r = s.feed(_resend(5, "AAAA0001"), late_s + k)
            assert [e.seq for e in r.events] == [], late_s
        assert s.sequencer.boot_id == "AAAA0001"
        assert [e.seq for e in s.feed(card(6), late_s + 5).events] == [6]


def test_a_station_restarted_on_its_journal_takes_a_resend_burst_as_a_resend() -> None:
    # Killed after journaling 3..5 but before its ACK left; started again on the journal
    # (the same bytes replayed, then the shoe's burst still unacknowledged).
    s = _old_boot_joined(5)
    s.feed(card(5, '23456789T'[5 % 9] + 'H'), 0.2)  # a first copy, still before the crash
    r = s.feed(_resend(5, "AAAA0001") + card(6), 40.0)
    assert [e.seq for e in r.events] == [6]


def test_a_hello_of_an_unseen_boot_after_the_join_is_a_boot_when_its_frames_differ() -> None:
    # The station joined the shoe's earlier boot without its HELLO and processed 3..60; the
    # shoe was power-cycled while the station was down. Its new frames take the old seqs
    # with other content: a boot (before, every frame of the new boot was a "duplicate" of
    # the old one, the shoe was never acknowledged and the link stalled).
    s = _old_boot_joined(60)
    burst = hello("CCCC0003") + card(1, "2C") + card(2, "3C") + card(3, "4C")
    assert s.feed(card(1, "2C") + burst, 26.5).events == []
    r = s.feed(burst, 26.8)
    assert isinstance(r.events[0], Hello) and r.events[0].rebooted
    assert [(e.seq, e.card) for e in r.events[1:]] == [(1, "2C"), (2, "3C"), (3, "4C")]


def test_a_boot_soon_after_the_join_loses_no_card() -> None:
    # Joined at 3, and the shoe power-cycled a second later: its HELLO, 2C..5C as seqs 1..4.
    # Before, the HELLO was taken for a resend, 1..3 for duplicates and 4 (5C) processed as
    # the old boot's next frame; the ACK of 4 then dropped 2C..4C for good.
    s = _old_boot_joined(3)
    burst = hello("DDDD0004") + b"".join(card(q, f"{q + 1}C") for q in range(1, 5))
    assert s.feed(burst, 1.1).events == []
    r = s.feed(burst, 1.4)
    assert isinstance(r.events[0], Hello) and r.events[0].rebooted
    assert [(e.seq, e.card) for e in r.events[1:]] == [(1, "2C"), (2, "3C"), (3, "4C"), (4, "5C")]


def test_a_boot_whose_bursts_stop_short_of_the_old_stream_is_a_boot() -> None:
    # Nothing to compare (the station restarted knowing only "expect 61"): the new boot's
    # bursts stop at seq 2, short of 60, twice, with nothing skipped: a boot.
    s = ShoeStream(expected=61)
    burst = hello("EEEE0005") + card(1, "2C") + card(2, "3C")
    assert s.feed(burst, 0.0).events == []
    assert s.feed(burst, 0.25).events == []
    r = s.feed(burst, 0.5)
    assert isinstance(r.events[0], Hello)
    assert [e.seq for e in r.events[1:]] == [1, 2]


def test_a_hello_after_more_frames_than_the_shoe_holds_is_a_boot_at_once() -> None:
    s = _old_boot_joined(70)
    r = s.feed(hello("FFFF0006") + card(1, "2C"), 9.0)
    assert isinstance(r.events[0], Hello) and r.events[0].rebooted
    assert [e.seq for e in r.events[1:]] == [1]


def test_a_boot_whose_burst_lost_a_frame_is_not_taken_for_the_old_stream() -> None:
    # Joined at 3 (7H); the shoe power-cycled; its burst loses seq 3 on the line, so its
    # seq 4 comes where the old stream's next would. It is not processed as the old
    # boot's: the next burst shows seq 3 with other content, and its HELLO is a boot.
    s = ShoeStream()
    s.feed(card(3, "7H"), 0.0)
    assert s.feed(hello("BBBB0001") + card(1, "2C") + card(2, "3C") + card(4, "5C"), 1.0).events == []
    burst = hello("BBBB0001") + card(1, "2C") + card(2, "3C") + card(3, "4C") + card(4, "5C")
    assert s.feed(burst, 1.25).events == []
    r = s.feed(burst, 1.5)
    assert isinstance(r.events[0], Hello) and r.events[0].rebooted
    assert [(e.seq, e.card) for e in r.events[1:]] == [(1, "2C"), (2, "3C"), (3, "4C"), (4, "5C")]


def test_resend_bursts_cut_short_by_the_line_are_never_taken_for_a_boot() -> None:
    # Joined at 3..5; the shoe's resend bursts lose their last frame, twice, and a HELLO
    # comes doubled: what could be compared matched, so the station waits for a whole one.
    s = ShoeStream()
    s.feed(card(3, "3H") + card(4, "4H") + card(5, "5H"), 0.0)
    burst = hello("AAAA0001") + card(1, "9S") + card(2, "TS") + card(3, "3H") + card(4, "4H")
    assert s.feed(hello("AAAA0001") + burst, 0.3).events == []
    assert s.feed(burst, 0.55).events == []
    r = s.feed(burst + card(5, "5H") + card(6, "6H"), 0.8)
    assert [e.seq for e in r.events] == [6] and s.sequencer.boot_id == "AAAA0001"


def test_the_old_stream_going_on_without_its_hello_decides_a_resend() -> None:
    # Joined at 3; the burst with the HELLO loses seq 3; the shoe had the ACK of 3, so it
    # goes on with 4, and resends 4 without any HELLO: the stream the station joined.
    s = ShoeStream()
    s.feed(card(3, "3H"), 0.0)
    assert s.feed(hello("AAAA0001") + card(1, "9S") + card(2, "TS") + card(4, "4H"), 0.3).events == []
    assert s.sequencer.undecided
    r = s.feed(card(4, "4H") + card(5, "5H"), 0.6)
    assert [e.seq for e in r.events] == [4, 5] and not s.sequencer.undecided


def test_a_new_boot_whose_hello_the_line_spoiled_is_not_taken_for_a_resend() -> None:
    # Joined at 10..12; the shoe power-cycled: HELLO, LOAD, 2C, 3C, nothing to compare
    # (all below 10). Its next burst loses the HELLO to a bad CRC: seqs going back to 1
    # without a HELLO must not decide "resend" (B's frames would be skipped unread).
    s = ShoeStream()
    s.feed(card(10, "TH") + card(11, "JH") + card(12, "QH"), 0.0)
    burst = encode_frame(1, "LOAD") + card(2, "2C") + card(3, "3C")
    assert s.feed(hello("BBBB0002") + burst, 0.3).events == []
    assert s.feed(burst, 0.55).events == [] and s.sequencer.undecided
    # the spoiled burst counts for nothing; two whole bursts short of 10 make a boot
    assert s.feed(hello("BBBB0002") + burst, 0.8).events == []
    assert s.feed(hello("BBBB0002") + burst, 1.05).events == []
    r = s.feed(hello("BBBB0002") + burst, 1.3)
    assert isinstance(r.events[0], Hello) and r.events[0].rebooted
    assert [e.seq for e in r.events[1:]] == [1, 2, 3]


def test_a_frame_without_content_is_no_match_with_the_old_stream() -> None:
    # Joined at the old boot's LOAD (seq 1: a tool had acknowledged its HELLO) and processed
    # cards 2..5. The shoe power-cycles: HELLO, LOAD as seq 1 — a LOAD carries no field, so
    # every boot's seq 1 looks the same and says nothing of which boot sent it. The next
    # burst loses its HELLO to the line: it must not decide "resend" on that LOAD (the new
    # boot's 2C.. would then be skipped as duplicates and acknowledged unread).
    s = ShoeStream()
    s.feed(encode_frame(1, "LOAD") + card(2, "TH") + card(3, "JH") + card(4, "QH")
           + card(5, "KH"), 0.0)
    assert s.feed(hello("BBBB0002") + encode_frame(1, "LOAD"), 0.3).events == []
    assert s.feed(encode_frame(1, "LOAD"), 0.55).events == [] and s.sequencer.undecided
    # the dealer draws from the new boot: seq 2 is 2C where the old stream had TH
    assert s.feed(card(2, "2C"), 0.7).events == [] and s.sequencer.undecided
    r = s.feed(hello("BBBB0002") + encode_frame(1, "LOAD") + card(2, "2C"), 0.95)
    assert isinstance(r.events[0], Hello) and r.events[0].rebooted
    assert [(e.seq, getattr(e, "card", None)) for e in r.events[1:]] == [(1, None), (2, "2C")]


def test_sequencer_is_pure_over_frames() -> None:
    seq = ShoeSequencer()
    assert seq.expected is None
