"""Journals written before the kernel split (tests/data/journals/README.md), each chained
first by `station journal migrate` (the station opens no journal without its chain): one
recovers and carries on, its bets and hands still meeting in the ledger; one whose history
touched a corrected behaviour is refused with a clear message, and a second `station journal
migrate` carries its table over."""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
from pathlib import Path

import pytest

from station.cli import main as station_main
from station.core.inputs import parse_header, read_trace
from station.core.journal import Journal, JournalError
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.live.table_station import TableStation
from station.settlement.core import SettlementCore

DATA = Path(__file__).parents[1] / "data"
OLD = DATA / "journals" / "pokdeng_before_kernel.sqlite"
CORRECTED = DATA / "journals" / "pokdeng_before_kernel_corrected.sqlite"
TRACE = DATA / "traces" / "mismatch_cancel" / "trace.jsonl"
KEY = "0123456789abcdef0123456789abcdef"


def _chained(src: Path, path: Path, monkeypatch, capsys) -> Path:
    """A copy of the journal, chained by hand with the table's key."""
    shutil.copy(src, path)
    monkeypatch.setenv("STATION_JOURNAL_KEY", KEY)
    assert station_main(["journal", "migrate", str(path)]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["archived"] is None and done["chained"] > 0
    return path


def _header(path: Path):
    conn = sqlite3.connect(path)
    try:
        return parse_header(json.loads(
            conn.execute("SELECT value FROM meta WHERE key='header'").fetchone()[0]))
    finally:
        conn.close()


def _outbox(path: Path) -> list[dict]:
    conn = sqlite3.connect(path)
    try:
        return [json.loads(b) for (b,) in conn.execute("SELECT body FROM settlement_outbox ORDER BY seq")]
    finally:
        conn.close()


def test_a_journal_from_before_the_split_recovers_and_carries_on(tmp_path, caplog, monkeypatch,
                                                                 capsys):
    path = _chained(OLD, tmp_path / "journal.sqlite", monkeypatch, capsys)
    header = Journal(path).header
    before = Journal(path).stored_records()
    stored = len(before)
    first = TableStation(settings_from_header(header), path)
    with caplog.at_level(logging.WARNING, logger="station.live"):
        # re-applies every input and checks each re-made record: raises if one differs
        assert first.recover() == 458
    assert "snapshot of input 450 is not loaded" in caplog.text
    assert first.core.state == "revealing"  # round 3, waiting for the camera at reveal
    first.journal.close()
    st = TableStation(settings_from_header(header), path)
    st.start()
    try:
        records = st.submit("supervisor", "end_shoe", "sup1")
        assert records[0]["type"] == "action_refused"  # a round is in progress
        st.submit("wallet", {"account": "late", "balance": 10})
        assert st.core.balances["late"] == 10
    finally:
        st.stop()
    after = Journal(path).stored_records()
    assert after[:stored] == before  # nothing lost or rewritten
    assert any(r["type"] == "action_refused" for r in after[stored:])


def test_the_old_outbox_and_the_new_messages_settle_together(tmp_path, monkeypatch, capsys):
    """The old journal has no id: its table keeps the key scheme its outbox already used, so
    the round open at the upgrade is settled with the bets placed before it."""
    path = _chained(OLD, tmp_path / "journal.sqlite", monkeypatch, capsys)
    journal = Journal(path)
    assert journal.journal_id is None
    kernel = TableKernel(settings_from_header(journal.header), journal_id=journal.journal_id)
    applied = 0
    last = 0
    for _, inp in journal.inputs():
        kernel.apply(inp)
        kernel.take_outputs()
        applied += 1
        last = inp.t_us
    journal.close()
    new_messages = []
    _, inputs = read_trace(TRACE)
    for inp in inputs:
        if inp.t_us <= last:
            continue
        kernel.apply(inp)
        new_messages += kernel.take_outputs()[1]
    assert any(m["kind"] == "hand" for m in new_messages)
    ledger = SettlementCore(tmp_path / "ledger.sqlite")
    try:
        for m in _outbox(path) + new_messages:
            ledger.apply(m)  # raises SettlementRefused on any disagreement
        assert ledger.check().ok
        assert {a: b for a, b in ledger.balances().items() if a in kernel.balances} == kernel.balances
    finally:
        ledger.close()


def test_a_corrected_history_is_refused_and_migrated(tmp_path, capsys, monkeypatch):
    path = tmp_path / "journal.sqlite"
    shutil.copy(CORRECTED, path)
    header = _header(path)
    with pytest.raises(JournalError, match="no hash chain.*station journal migrate"):
        TableStation(settings_from_header(header), path)
    _chained(CORRECTED, path, monkeypatch, capsys)
    st = TableStation(settings_from_header(header), path)
    with pytest.raises(JournalError, match="station journal migrate"):
        st.recover()
    st.journal.close()
    ledger = tmp_path / "ledger.sqlite"
    assert station_main(["journal", "migrate", str(path), "--ledger", str(ledger)]) == 0
    done = json.loads(capsys.readouterr().out)
    # its 5 settlement messages, and the checkpoints its chaining signed
    assert done["delivered"] == 7 and Path(done["archived"]).exists()
    assert done["balances"] == {"u1": 100200, "u2": 99950}
    # the new journal starts like any other, with the balances the old one ended with
    st = TableStation(settings_from_header(header), path)
    st.start()
    try:
        assert st.core.balances == {"u1": 100200, "u2": 99950}
        assert st.core.state == "idle"
    finally:
        st.stop()
    assert station_main(["journal", "migrate", str(path)]) == 1  # already migrated
    # what the new journal hands settlement agrees with the books the old one left
    core = SettlementCore(ledger)
    try:
        for m in _outbox(path):
            core.apply(m)
        assert core.check().ok
        assert core.balances() == {"u1": 100200, "u2": 99950}
    finally:
        core.close()
