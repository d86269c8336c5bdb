"""`station journal export JOURNAL OUT`: a table's journal, across a restart, written as one
trace that replays to every record the table made; anything that is not a journal is refused
with a clear message and left as it was (nothing created, nothing changed)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from station.cli import main as station_main
from station.core.inputs import Input, TraceHeader, read_trace
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


def _play(journal: Path, inputs: list, clock: Clock, settings, *, then=None) -> None:
    """Feed `inputs` to a live station on `journal`; `then(station)` runs before it stops."""
    station = TableStation(settings, journal, clock=clock, max_idle=0.05)
    station.start()
    try:
        for inp in inputs:
            if inp.kind == "end":
                break
            clock.t = inp.t_us / 1e6
            station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)
        if then is not None:
            then(station)
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


def test_a_running_station_is_exported_to_its_last_tick_and_nothing_of_it_is_overwritten(
        tmp_path, capsys):
    """Exported while the station runs (the journal in WAL, written meanwhile): the trace ends
    where the journal does, its clock ticks included, so what the timers made after the last
    other input replays too. The journal's own files and any existing file are refused."""
    header, inputs = read_trace(TRACE)
    settings = settings_from_header(header)
    journal = tmp_path / "journal.sqlite"
    clock = Clock()
    opened = next(i for i, inp in enumerate(inputs) if inp.kind == "dealer"
                  and inp.value == "open_betting")
    out = tmp_path / "live.jsonl"
    codes: dict[str, int] = {}

    def export_while_running(station: TableStation) -> None:
        # betting is open; time runs on to its close with nothing but the clock
        clock.t += settings.betting_seconds + 1
        station.submit("tick", None)
        for name in ("journal.sqlite", "journal.sqlite-wal", "journal.sqlite-shm"):
            codes[name] = station_main(["journal", "export", str(journal),
                                        str(tmp_path / name)])
        codes["live"] = station_main(["journal", "export", str(journal), str(out)])
        codes["again"] = station_main(["journal", "export", str(journal), str(out)])

    _play(journal, inputs[:opened + 1], clock, settings, then=export_while_running)
    assert codes == {"journal.sqlite": 2, "journal.sqlite-wal": 2, "journal.sqlite-shm": 2,
                     "live": 0, "again": 2}, codes
    assert "exists or belongs to the journal" in capsys.readouterr().err
    j = Journal(journal)
    try:
        stored = j.stored_records()
    finally:
        j.close()
    assert stored[-1]["type"] == "betting_closed"  # made by the clock alone
    replayed = replay_records(out)
    assert replayed[:-1] == stored and replayed[-1]["type"] == "balances"


def test_clock_ticks_are_left_out_and_a_studio_tables_reservation_answers_kept(tmp_path) -> None:
    """A tick is the journal's own (the trace's times imply it); a studio table's reservation
    answers came from outside the table and decide its bets, so its trace carries them
    (docs/studio.md) and a reader of the trace reads them back."""
    journal = tmp_path / "journal.sqlite"
    j = Journal(journal, TraceHeader("PD-01", "pokdeng", False, {}, "studio table"))
    answer = {"key": "bet:x-R1:1:1", "attempt": "1", "answer": "reserved", "balance": 300}
    try:
        for inp in (Input(1_000_000, "wallet", {"account": "u1", "balance": 500}),
                    Input(1_500_000, "tick", True),
                    Input(2_000_000, "reservation_answer", answer),
                    Input(3_000_000, "tick", True)):
            j.append(inp, [], [])
    finally:
        j.close()
    out = tmp_path / "studio.jsonl"
    assert station_main(["journal", "export", str(journal), str(out)]) == 0
    _, lines = read_trace(out)
    assert [inp.kind for inp in lines] == ["wallet", "reservation_answer", "end"]
    assert lines[1].value == answer
    assert lines[-1].t_us == 3_000_000  # the clock still runs to the journal's last input


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

    # a journal's two tables with nothing sensible in them: refused, not repaired
    for name, header in (("half.sqlite", None), ("bad_header.sqlite", "{}")):
        half = tmp_path / name
        conn = sqlite3.connect(half)
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("CREATE TABLE inputs (seq INTEGER PRIMARY KEY, t_us INTEGER, line TEXT)")
        if header is not None:
            conn.execute("INSERT INTO meta VALUES ('header', ?)", (header,))
        conn.commit()
        conn.close()
        before = hashlib.sha256(half.read_bytes()).hexdigest()
        assert station_main(["journal", "export", str(half), str(tmp_path / f"{name}.jsonl")]) == 2
        assert hashlib.sha256(half.read_bytes()).hexdigest() == before
        assert not (tmp_path / f"{name}-wal").exists()
    err = capsys.readouterr().err
    assert "no table header" in err and "header cannot be read" in err


def test_a_journal_whose_path_has_uri_characters_is_exported(tmp_path) -> None:
    header, inputs = read_trace(TRACE)
    journal = tmp_path / "pd01?x#1%.sqlite"
    _play(journal, inputs[:20], Clock(), settings_from_header(header))
    assert station_main(["journal", "export", str(journal), str(tmp_path / "t.jsonl")]) == 0
