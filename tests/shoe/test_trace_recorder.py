"""Recording the shoe link in the trace format of TRACES.md."""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path

import pytest

from firmware_bridge.shoe.trace import TraceRecorder, read_trace_shoe_bytes


def test_lines_are_latin1_json_with_a_header_and_relative_times(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with TraceRecorder(path, game="pokdeng", header={"table": "PD-01"}) as rec:
        rec.shoe(b"$2,CARD,7H*39A3\r\n", at=100.0)
        rec.shoe(b"\xff\x00$", at=100.25)
        rec.to_shoe(b"$12,ACK,3*D12A\r\n", at=100.5)
        rec.shoe(b"", at=101.0)  # nothing arrived: no line
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["trace"] == 1 and header["table"] == "PD-01" and header["camera"] is False
    assert json.loads(lines[1]) == {"t": 0.0, "shoe": "$2,CARD,7H*39A3\r\n"}
    assert "\\u00ff" in lines[2]  # noise byte 0xFF as TRACES.md writes it
    assert json.loads(lines[2]) == {"t": 0.25, "shoe": "\u00ff\u0000$"}
    assert json.loads(lines[3]) == {"t": 0.5, "to_shoe": "$12,ACK,3*D12A\r\n"}
    assert len(lines) == 4
    assert read_trace_shoe_bytes(path) == [
        (0.0, "shoe", b"$2,CARD,7H*39A3\r\n"),
        (0.25, "shoe", b"\xff\x00$"),
        (0.5, "to_shoe", b"$12,ACK,3*D12A\r\n"),
    ]


def test_times_never_decrease_even_if_a_caller_is_late() -> None:
    buf = io.StringIO()
    rec = TraceRecorder(buf, game="pokdeng")
    rec.shoe(b"a", at=10.0)
    rec.to_shoe(b"b", at=10.5)
    rec.shoe(b"c", at=10.4)  # read before the write, recorded after it
    ts = [json.loads(x)["t"] for x in buf.getvalue().splitlines()[1:]]
    assert ts == [0.0, 0.5, 0.5]


def test_gzip_trace(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl.gz"
    with TraceRecorder(path, game="pokdeng") as rec:
        rec.shoe(b"$5,CUT*E90F\r\n", at=1.0)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        assert len(f.read().splitlines()) == 2
    assert read_trace_shoe_bytes(path) == [(0.0, "shoe", b"$5,CUT*E90F\r\n")]


@pytest.mark.parametrize(
    "line,message",
    [
        ("not json", "line 2: not JSON"),
        ('["shoe"]', "line 2: a trace line must be a JSON object"),
        ('{"t": 1, "shoe": 5}', "line 2: shoe line needs a string and a t"),
        ('{"shoe": "x"}', "line 2: shoe line needs a string and a t"),
        ('{"t": 1, "shoe": "\\u0100"}', "line 2: 'shoe' holds a character above U+00FF"),
    ],
)
def test_a_bad_trace_line_is_named(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"trace": 1}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(message)):
        read_trace_shoe_bytes(path)
