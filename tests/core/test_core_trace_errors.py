"""A trace that cannot be read stops replay with its line number; nothing is settled."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from station.core.inputs import TraceError, read_trace
from station.core.replay import replay_records

TRACE = Path(__file__).parents[1] / "data" / "traces" / "order_fault" / "trace.jsonl"


def broken(tmp_path, line_no: int, text: str) -> Path:
    lines = TRACE.read_text().splitlines()
    t = json.loads(lines[line_no - 1])["t"]  # keep time in order: only the fault is new
    lines[line_no - 1] = text.replace("5.0", str(t))
    p = tmp_path / "broken.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "not JSON"),
        ('{"t": 5.0}', "exactly one of"),
        ('{"t": 5.0, "bet": {"account": "u1", "spot": "P1"}}', "amount"),
        ('{"t": 5.0, "camera": {"P1": ["1X"]}}', "not a card"),
        ('{"t": 5.0, "dealer": "shuffle"}', "unknown dealer action"),
        ('{"t": 5.0, "supervisor": "resume"}', "user"),
        ('{"t": 5.0, "shoe": "\\u20ac"}', "above U+00FF"),
        ('{"t": -1, "end": true}', "non-negative"),
        ('{"t": 5.0, "wallet": {"account": "u1", "balance": -5}}', "non-negative integer"),
    ],
)
def test_malformed_line_names_its_number(tmp_path, text, words):
    p = broken(tmp_path, 300, text)
    with pytest.raises(TraceError) as e:
        replay_records(p)
    assert e.value.line_no == 300 and words in str(e.value)


def test_time_going_backwards(tmp_path):
    p = broken(tmp_path, 300, '{"t": 0.5, "camera": {}}')
    with pytest.raises(TraceError, match="line 300: time goes backwards"):
        read_trace(p)


def test_header_required(tmp_path):
    p = tmp_path / "t.jsonl"
    p.write_text('{"t": 0, "end": true}\n')
    with pytest.raises(TraceError, match="line 1: the first line must be a header"):
        read_trace(p)


def test_truncated_gzip_is_an_error(tmp_path):
    import gzip

    data = gzip.compress(TRACE.read_bytes())
    p = tmp_path / "cut.jsonl.gz"
    p.write_bytes(data[: len(data) // 2])
    with pytest.raises(TraceError, match="cannot read"):
        read_trace(p)


def test_command_settles_nothing_from_a_bad_trace(tmp_path):
    p = broken(tmp_path, 500, '{"t": 500.0, "bet": []}')
    out = tmp_path / "out.jsonl"
    proc = subprocess.run([sys.executable, "-m", "station", "replay", str(p), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "line 500" in proc.stderr and "nothing was settled" in proc.stderr
    assert not out.exists()


def test_unknown_setting_in_header_is_ignored_with_a_warning(tmp_path, caplog):
    """A trace from another station may carry settings this one does not have: replay
    goes on, says so, and uses what it knows; a known setting of the wrong type is an error."""
    lines = TRACE.read_text().splitlines()
    h = json.loads(lines[0])
    h["settings"]["decks"] = 8
    lines[0] = json.dumps(h)
    p = tmp_path / "t.jsonl"
    p.write_text("\n".join(lines) + "\n")
    with caplog.at_level("WARNING"):
        records = replay_records(p)
    assert "decks" in caplog.text
    assert sum(1 for r in records if r["type"] == "hand") == 6
    h["settings"]["betting_seconds"] = "fifteen"
    lines[0] = json.dumps(h)
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="betting_seconds"):
        replay_records(p)


def test_lines_of_another_game_are_refused_with_their_line(tmp_path):
    from station.core.inputs import TraceError, read_trace

    head = '{"trace": 1, "table": "PD-01", "game": "pokdeng"}\n'
    for line, words in (('{"t": 1, "dealer": "dice", "dice": [3, 4]}',
                         "unknown dealer action 'dice' at a pokdeng table"),
                        ('{"t": 1, "player": {"account": "u1", "action": "fold"}}',
                         "takes no 'player' lines")):
        p = tmp_path / "t.jsonl"
        p.write_text(head + '{"t": 0.5, "dealer": "new_shoe"}\n' + line + "\n")
        with pytest.raises(TraceError, match=f"line 3: .*{words}"):
            read_trace(p)
    p.write_text('{"trace": 1, "table": "XX-01", "game": "baccarat"}\n')
    with pytest.raises(TraceError, match="line 1: unknown game 'baccarat'"):
        read_trace(p)
