"""However the serial port cuts the shoe's bytes into reads, the table makes the same records.

A read may hold part of a frame, several frames, or a whole burst (SHOE_PROTOCOL.md §2: a
buffered USB adapter, a gateless shoe). The kernel takes each frame as if it had come in a
read of its own, so the cut never matters:

- every shared and test trace of the three games, its shoe bytes re-cut at random, replays to
  exactly the records of the trace as recorded;
- a LOAD joined with the cards after it in one read (the burst of a shoe replaced between
  rounds) replays to the records of the same frames in reads of their own, at each game's
  table.

A re-cut keeps every byte's order. A read is delivered at the time of its last byte, and may
start with bytes that came earlier only where those hold no frame's end (`\\n`): bytes of a
frame that has not ended act on nothing, so delivering them later changes no record, and no
frame is ever taken at another time than the one it ended at.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from firmware_bridge.shoe.codec import encode_frame
from station.core.inputs import Input, read_trace
from station.core.kernel import TableKernel
from station.core.replay import run_inputs, settings_from_header

DATA = Path(__file__).resolve().parents[1] / "data"
TRACES = sorted(DATA.rglob("trace*.jsonl"))
SEEDS = (1, 2, 3)


def _records(header, inputs: list[Input]) -> list[dict]:
    out: list[dict] = []
    run_inputs(TableKernel(settings_from_header(header)), inputs, out.append)
    return out


def _cut(data: bytes, rng: random.Random) -> list[bytes]:
    """`data` in pieces: single bytes, parts of frames, frames, several frames."""
    pieces, i = [], 0
    while i < len(data):
        n = rng.choice((1, 2, 3, 7, 16, 40, 96, 200, len(data)))
        pieces.append(data[i:i + n])
        i += n
    return pieces


def recut(inputs: list[Input], rng: random.Random) -> list[Input]:
    """The same trace with its shoe bytes in other reads (see the module's text)."""
    out: list[Input] = []
    carry = b""  # bytes holding no frame's end, still to be delivered
    i = 0
    while i < len(inputs):
        inp = inputs[i]
        if inp.kind != "shoe":
            out.append(inp)
            i += 1
            continue
        # consecutive reads at one time are one burst
        data = inp.value
        j = i + 1
        while j < len(inputs) and inputs[j].kind == "shoe" and inputs[j].t_us == inp.t_us:
            data += inputs[j].value
            j += 1
        pieces = _cut(carry + data, rng)
        carry = b""
        last = pieces.pop()
        for p in pieces:
            out.append(Input(inp.t_us, "shoe", p))
        if b"\n" not in last and rng.random() < 0.5:
            carry = last  # delivered with a later read
        else:
            out.append(Input(inp.t_us, "shoe", last))
        i = j
    if carry:
        t_us = out[-1].t_us if out and out[-1].kind != "end" else inputs[-1].t_us
        at = len(out) - 1 if out and out[-1].kind == "end" else len(out)
        out.insert(at, Input(t_us, "shoe", carry))
    return out


def test_there_are_traces_of_every_game():
    games = {json.loads(p.read_text().splitlines()[0])["game"] for p in TRACES}
    assert games == {"pokdeng", "paigow", "sizhidao"}
    assert len(TRACES) >= 60


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("path", TRACES, ids=lambda p: str(p.relative_to(DATA).parent))
def test_any_cut_of_the_shoe_bytes_makes_the_same_records(path, seed):
    header, inputs = read_trace(path)
    want = _records(header, inputs)
    rng = random.Random(f"{path.relative_to(DATA)}:{seed}")
    cut = recut(inputs, rng)
    assert b"".join(i.value for i in cut if i.kind == "shoe") == \
        b"".join(i.value for i in inputs if i.kind == "shoe")
    got = _records(header, cut)
    assert got == want
    assert not [r for r in got if r["type"] == "fault" and r["kind"] == "station_error"]


def _is_card(frame: bytes) -> bool:
    return b",CARD," in frame or b",UNREAD*" in frame


def _frame(seq: int, body_fields: list[bytes]) -> bytes:
    return encode_frame(seq, *(f.decode("latin-1") for f in body_fields))


def _parse(frame: bytes) -> tuple[int, list[bytes]]:
    body = frame[1:frame.index(b"*")]
    seq, *fields = body.split(b",")
    return int(seq), fields


def _load_moved_to_the_cards(inputs: list[Input], cards: int) -> tuple[list[Input], list[Input]]:
    """The shoe's first LOAD and the frames after it up to its `cards`-th card, held back and
    sent together at the time of that card (the burst of a buffered adapter, or of a shoe
    replaced between rounds): (a) all in one read; (b) each in a read of its own at that same
    time. The heartbeats between stay where they were (the link stays up), and the stream is
    numbered again in its new order. A clean trace: every read holds whole frames, in seq
    order."""
    lines: list[list[tuple[int, list[bytes]]] | None] = []
    for inp in inputs:
        if inp.kind == "shoe":
            frames = [f + b"\n" for f in inp.value.split(b"\n") if f]
            assert b"".join(frames) == inp.value and all(f.startswith(b"$") for f in frames)
            lines.append([_parse(f) for f in frames])
        else:
            lines.append(None)
    where = [(i, k) for i, fs in enumerate(lines) if fs for k in range(len(fs))]
    kind = [lines[i][k][1][0] for i, k in where]
    load = kind.index(b"LOAD")
    card_pos = [n for n in range(load + 1, len(where)) if kind[n] in (b"CARD", b"UNREAD")][:cards]
    assert len(card_pos) == cards, "the trace has not enough cards after its LOAD"
    held = [load] + [n for n in range(load + 1, card_pos[-1] + 1) if kind[n] != b"HB"]
    at = where[card_pos[-1]][0]
    held_set = {where[n] for n in held}
    # the frames in their new order, line by line: the held ones join the line of the last card
    order: list[tuple[int, list[tuple[int, list[bytes]]]]] = []
    for i, fs in enumerate(lines):
        if fs is None:
            continue
        kept = [f for k, f in enumerate(fs) if (i, k) not in held_set]
        if i == at:
            order.append((i, [lines[j][k] for j, k in (where[n] for n in held)]))
        if kept:
            order.append((i, kept))
    seq = -1
    renumbered: list[tuple[int, list[bytes]]] = []
    for i, fs in order:
        frames = []
        for _, fields in fs:
            seq = 0 if fields[0] == b"HELLO" else seq + 1
            frames.append(_frame(seq, fields))
        renumbered.append((i, frames))
    burst_line = next(n for n, (i, _) in enumerate(order) if i == at)

    def build(split: bool) -> list[Input]:
        out, n = [], 0
        for i, inp in enumerate(inputs):
            if lines[i] is None:
                out.append(inp)
                continue
            while n < len(renumbered) and renumbered[n][0] == i:
                frames = renumbered[n][1]
                t_us = inputs[at].t_us if n == burst_line else inp.t_us
                reads = frames if split and n == burst_line else [b"".join(frames)]
                out += [Input(t_us, "shoe", r) for r in reads]
                n += 1
        return out

    return build(False), build(True)


@pytest.mark.parametrize("path,cards,clean", [
    # LOAD, the first card and its burns (2D: two; 3H: three): nothing is off
    (DATA / "traces" / "clean_shoe" / "trace.jsonl", 3, True),
    (DATA / "traces" / "clean_shoe" / "trace.jsonl", 2, True),
    (DATA / "traces" / "degraded_no_camera" / "trace.jsonl", 4, True),
    # a Si Zhi Dao deal is watched card by card: the LOAD and the first card
    (DATA / "traces-sizhidao" / "clean_session" / "trace.jsonl", 1, True),
    # a Pai Gow shoe is loaded before the round opens: held back past open_betting, the LOAD
    # comes too late and the cards with it are early, the same faults either way
    (DATA / "traces-paigow" / "clean" / "trace.jsonl", 8, False),
    (DATA / "traces-paigow-station" / "clean" / "trace.jsonl", 3, False),
], ids=lambda v: str(v.relative_to(DATA).parent) if isinstance(v, Path) else str(v))
def test_a_load_and_the_cards_after_it_in_one_read(path, cards, clean):
    header, inputs = read_trace(path)
    joined, separate = _load_moved_to_the_cards(inputs, cards)
    burst = next(i.value for i in joined if i.kind == "shoe" and b",LOAD*" in i.value)
    frames = [f for f in burst.split(b"\n") if f]
    assert len(frames) > cards and sum(map(_is_card, frames)) == cards
    got, want = _records(header, joined), _records(header, separate)
    assert got == want
    faults = [r for r in got if r["type"] == "fault"]
    assert not [r for r in faults if r["kind"] == "station_error"]
    if clean:
        assert not faults
        assert [r for r in got if r["type"] in ("burn", "deal_open", "game_open")]
        if header.game == "pokdeng":
            assert [r for r in got if r["type"] == "burn"][0]["t"] == burst_t(joined)
    else:
        assert {r["kind"] for r in faults} >= {"early_card"}


def burst_t(inputs: list[Input]) -> float:
    return next(i.t for i in inputs if i.kind == "shoe" and b",LOAD*" in i.value)


def test_the_six_line_trace_of_a_load_and_the_first_card_in_one_read(tmp_path):
    """The read that stopped the table core (`shuffling → burning`): now a burn."""
    import subprocess
    import sys

    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join([
        '{"trace": 1, "table": "PD-01", "game": "pokdeng", "camera": false, "settings": {}}',
        '{"t": 0.0, "wallet": {"account": "u01", "balance": 1000}}',
        '{"t": 0.05, "shoe": "$0,HELLO,1,DS8,SH-0042,2.1.0,9CAD3D1A*D8DD\\r\\n"}',
        '{"t": 1.0, "dealer": "new_shoe"}',
        '{"t": 1.5, "supervisor": "confirm_shuffle", "user": "sup1"}',
        '{"t": 2.0, "shoe": "$1,LOAD*C12C\\r\\n$2,CARD,4D*AD7C\\r\\n"}',
    ]) + "\n")
    out = tmp_path / "records.jsonl"
    done = subprocess.run([sys.executable, "-m", "station", "replay", str(trace), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["type"] for r in records] == ["shoe_start", "burn", "balances"]
    assert records[1] == {"t": 2.0, "type": "burn", "shoe": 1, "first_card": "4D", "count": 4}
