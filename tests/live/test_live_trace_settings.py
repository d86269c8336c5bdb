"""A live table records its traces with the settings it actually runs with: the journal's,
which stay in force when the configuration's change (a trace must replay as the table
played)."""

from __future__ import annotations

import json

from station.core.replay import replay_records
from station.live.config import parse_config
from station.live.journal_key import make_key_file
from station.runtime import start_runtime


def _config(tmp_path, betting_seconds):
    return parse_config({
        "table": {"name": "PD-07", "procedure": {"betting_seconds": betting_seconds}},
        "storage": {"dir": str(tmp_path / "var")},
        "shoe": {"url": "loop://"},
        "camera": {"enabled": False},
        "journal": {"signing_key_file": str(make_key_file(tmp_path / "keys" / "PD-07.key"))},
    }, source="test")


def test_recorded_trace_carries_the_journals_settings(tmp_path):
    rt = start_runtime(_config(tmp_path, 15), with_console=False, with_bet_api=False)
    try:
        rt.station.submit("wallet", {"account": "u1", "balance": 500})
    finally:
        rt.stop()
    # the configuration now says 20 s; the journal keeps 15 s, and so must the trace
    rt = start_runtime(_config(tmp_path, 20), with_console=False, with_bet_api=False)
    try:
        assert rt.station.settings.betting_seconds == 15
        rt.station.submit("dealer", "new_shoe")
        rt.station.submit("wallet", {"account": "u2", "balance": 700})
    finally:
        rt.stop()
    traces = sorted((tmp_path / "var" / "traces").glob("*.jsonl"))
    assert traces
    for path in traces:
        header = json.loads(path.read_text().splitlines()[0])
        assert header["settings"]["betting_seconds"] == 15, path.name
    shoe = [p for p in traces if "-S1-" in p.name]
    assert shoe and any(r["type"] == "shoe_start" for r in replay_records(shoe[0]))
