"""`station journal export JOURNAL OUT`: a table's journal, across a restart, written as one
trace that replays to every record the table made; anything that is not a journal is refused
with a clear message and left as it was (nothing created, nothing changed)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from station.cli import main as station_main
from station.core.inputs import read_trace
from station.core.journal import Journal
from station.core.replay import replay_records, settings_from_header
from station.live.table_station import TableStation

DATA = Path(__file__).parents[1] / "data"
TRACE = DATA / "traces" / "order_fault" / "trace.jsonl"


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _play(journal: Path, inputs: list, clock: Clock, settings) -> None:
    station = TableStation(settings, journal, clock=clock, max_idle=0.05)
    station.start()
    try:
        for inp in inputs:
            if inp.kind == "end":
                break
            clock.t = inp.t_us / 1e6
            station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)
    finally:
        station.stop()


def test_a_journal_across_a_restart_exports_to_a_trace_that_replays_its_records(tmp_path, capsys):
    header, inputs = read_trace(TRACE)
    settings = settings_from_header(header)
    journal = tmp_path / "journal.sqlite"
    clock = Clock()
    cut = len(inputs) // 2
    _play(journal, inputs[:cut], clock, settings)
    _play(journal, inputs[cut:], clock, settings)  # started again from its journal
    out = tmp_path / "exported.jsonl.gz"
    assert station_main(["journal", "export", str(journal), str(out)]) == 0
    assert '"lines"' in capsys.readouterr().out
    j = Journal(journal)
    try:
        stored = j.stored_records()
    finally:
        j.close()
    assert any(r["type"] == "hand" for r in stored)
    # the replay ends with the wallets' balances (TRACES.md §3), which a journal does not store
    replayed = replay_records(out)
    assert replayed[-1]["type"] == "balances"
    assert replayed[:-1] == stored


def test_what_is_not_a_journal_is_refused_and_left_as_it_was(tmp_path, capsys):
    missing = tmp_path / "nowhere.sqlite"
    assert station_main(["journal", "export", str(missing), str(tmp_path / "t.jsonl")]) == 2
    assert "not a station journal" in capsys.readouterr().err
    assert not missing.exists() and not (tmp_path / "t.jsonl").exists()

    other = tmp_path / "ledger.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT)")
    conn.commit()
    conn.close()
    before = hashlib.sha256(other.read_bytes()).hexdigest()
    assert station_main(["journal", "export", str(other), str(tmp_path / "t.jsonl")]) == 2
    assert "not a station journal" in capsys.readouterr().err
    assert hashlib.sha256(other.read_bytes()).hexdigest() == before

    text = tmp_path / "notes.txt"
    text.write_text("not sqlite at all\n")
    assert station_main(["journal", "export", str(text), str(tmp_path / "t.jsonl")]) == 2
    assert text.read_text() == "not sqlite at all\n"
