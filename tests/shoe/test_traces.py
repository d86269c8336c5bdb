"""The five recorded traces decode, through the same ShoeStream the live driver uses, to the
frames they hold — the noisy one's resends, duplicates and damage suppressed."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from firmware_bridge.shoe.codec import FrameDecoder
from firmware_bridge.shoe.events import ShoeEvent
from firmware_bridge.shoe.stream import ShoeStream
from firmware_bridge.shoe.trace import read_trace_shoe_bytes

TRACES = Path(__file__).resolve().parent.parent / "data" / "traces"
NAMES = ["clean_shoe", "noisy_shoe", "order_fault", "mismatch_cancel", "degraded_no_camera"]


def replay(name: str) -> tuple[list[ShoeEvent], ShoeStream, list[int]]:
    stream = ShoeStream()
    events: list[ShoeEvent] = []
    resends: list[int] = []
    for t, key, data in read_trace_shoe_bytes(TRACES / name / "trace.jsonl"):
        if key == "shoe":
            r = stream.feed(data, t)
            events += r.events
            resends += r.resend_from
    return events, stream, resends


def naive_frames(name: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """An independent oracle: every frame that passes the codec, first copy of each seq,
    by seq (the traces hold one boot and fewer than 65535 frames)."""
    dec = FrameDecoder("shoe")
    seen: dict[int, tuple[int, str, tuple[str, ...]]] = {}
    for _, key, data in read_trace_shoe_bytes(TRACES / name / "trace.jsonl"):
        if key == "shoe":
            for f in dec.feed(data):
                seen.setdefault(f.seq, (f.seq, f.type, f.fields))
    return [seen[k] for k in sorted(seen)]


def as_frames(events: list[ShoeEvent]) -> list[tuple[int, str]]:
    return [(e.seq, e.event) for e in events]


@pytest.mark.parametrize("name", NAMES)
def test_trace_decodes_to_every_frame_it_holds_once_in_order(name: str) -> None:
    events, stream, _ = replay(name)
    oracle = naive_frames(name)
    kinds = {"HELLO": "hello", "LOAD": "load", "CARD": "card", "UNREAD": "unread",
             "CUT": "cut", "EMPTY": "empty", "FAULT": "fault", "CLEAR": "clear", "HB": "hb",
             "OK": "reply", "ERR": "reply", "STATUS": "reply"}
    assert as_frames(events) == [(q, kinds[t]) for q, t, _ in oracle]
    assert [e.seq for e in events] == list(range(len(events)))  # 0 (HELLO), 1, 2, ... no gap
    n = Counter(e.event for e in events)
    assert n["hello"] == 1 and n["load"] == 1 and n["cut"] == 1
    cards = [e.card for e in events if e.event == "card"]
    assert all(c == f[2][0] for c, f in zip(cards, [f for f in oracle if f[1] == "CARD"],
                                               strict=True))


def test_clean_shoe_has_a_full_shoe_of_393_cards_and_no_drops() -> None:
    events, stream, resends = replay("clean_shoe")
    assert Counter(e.event for e in events)["card"] == 393
    c = stream.counters
    assert c["bad_crc"] == c["malformed"] == c["duplicate"] == c["gap"] == 0
    assert resends == []


def test_noisy_shoe_gives_exactly_the_clean_style_event_sequence() -> None:
    events, stream, resends = replay("noisy_shoe")
    n = Counter(e.event for e in events)
    assert (n["hello"], n["load"], n["cut"], n["card"]) == (1, 1, 1, 393)
    c = stream.counters
    # The link really was noisy, and every kind of damage was dropped and counted.
    assert c["bad_crc"] > 0 and c["duplicate"] > 0 and c["noise_bytes"] > 0
    assert c["gap"] > 0 and resends  # a lost frame was asked for again
    # Card for card against the validated hands: each round's 12 cards, dealt P1..P5 B
    # twice after one burn card, appear in the shoe's reads in that order.
    cards = [e.card for e in events if e.event == "card"]
    expected = json.loads((TRACES / "noisy_shoe" / "expected.json").read_text())
    pos = 0
    for hand in expected["hands"]:
        order = ["P1", "P2", "P3", "P4", "P5", "B"]
        dealt = [hand["cards"][p][0] for p in order] + [hand["cards"][p][1] for p in order]
        for start in range(pos, len(cards) - 11):
            if cards[start : start + 12] == dealt:
                pos = start + 12
                break
        else:
            pytest.fail(f"{hand['round_id']}: its cards are not in the shoe's reads in order")
    assert len(expected["hands"]) >= 20
