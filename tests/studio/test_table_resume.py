"""A studio table restarted on its journal carries on from where the journal is
(station/studio/tables.py, `resume_point`): a table stopped part-way through its session and
started again on the same journal ends with the very records a table that dealt the session
without a stop made — nothing fed twice, nothing lost — and its outbox settles to the same
balances."""

from __future__ import annotations

import json

import pytest

from station.core.journal import Journal
from station.settlement.core import SettlementCore
from station.settlement.transport import InProcessTransport
from station.studio.tables import StudioTable, balances_from_outbox
from tests.waiting import wait_for

ROUNDS = 6


def deal(folder, game: str, table: str, core: SettlementCore, *, stop_after: int | None = None,
         ) -> StudioTable:
    t = StudioTable(table, game, seed=5, rounds=ROUNDS, pace_s=0.05, bus_url="", folder=folder,
                    transport=InProcessTransport(core))
    t.start()
    if stop_after is None:
        assert t.finished.wait(120), f"{table} did not finish its session"
    else:
        wait_for(lambda: t.rounds_done >= stop_after or t.finished.is_set(), 60,
                 f"{table} to deal {stop_after} rounds", poll_s=0.01)
    assert t.drain(30)
    t.close()
    assert t.failed is None, t.failed
    return t


def records(folder, table: str) -> str:
    """The journal's records, its own id taken out (every new journal has another)."""
    journal = Journal(folder / f"{table}.journal.sqlite")
    try:
        text = json.dumps(list(journal.stored_records()))
        return text.replace(journal.journal_id, "<journal>")
    finally:
        journal.close()


@pytest.mark.parametrize("game,table", [("pokdeng", "PD-61"), ("sizhidao", "SZ-63")])
def test_a_table_restarted_on_its_journal_carries_on_from_where_it_was(tmp_path, game, table):
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    straight.mkdir()
    stopped.mkdir()
    with SettlementCore(tmp_path / "straight.sqlite") as core:
        whole = deal(straight, game, table, core)
        assert whole.resume.next_line == 0
        expected = core.balances()
    with SettlementCore(tmp_path / "stopped.sqlite") as core:
        first = deal(stopped, game, table, core, stop_after=2)
        assert 2 <= first.rounds_done < ROUNDS  # stopped part-way through its session
        again = deal(stopped, game, table, core)
        assert 0 < again.resume.next_line < len(again.session.lines) - 1
        assert again.resume.rounds_done == first.rounds_done
        assert again.rounds_done == ROUNDS
        assert core.balances() == expected
        report = core.check(require_closed=True)
        assert report.ok, report.problems
    assert records(stopped, table) == records(straight, table)
    assert balances_from_outbox(again.outbox()) == expected
