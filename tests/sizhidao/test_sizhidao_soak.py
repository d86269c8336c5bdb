"""The Si Zhi Dao soak: a simulated session through a real `TableStation` (journal, outbox,
settlement core and ledger) on a virtual clock, with crashes: the journal holds exactly the
records the table must make, every game ends once, the books balance and every pot is zero."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from station.games.sizhidao.tools.soak import SiZhiDaoSoak, SzSoakOptions, run_soak

pytestmark = pytest.mark.soak


def test_games_with_crashes_end_exactly_once_with_every_pot_at_zero(tmp_path: Path) -> None:
    rep = SiZhiDaoSoak(SzSoakOptions(games=12, seed=7, crash=0.01, cancel=0.2),
                       tmp_path / "w").run()
    assert rep.cancelled >= 1 and rep.settled >= 1
    assert rep.crashes >= 2, rep.as_dict()
    assert rep.games >= 10 and rep.settled + rep.cancelled == rep.games
    assert rep.records_match, "the journal's records differ from what the table must make"
    assert rep.exactly_once and rep.balances_match
    assert rep.ledger_ok, rep.ledger_problems
    assert rep.pots == rep.games and rep.pots_not_zero == {}
    assert rep.ok
    assert sum(n for k, n in rep.player_actions.items() if k.startswith("call")) > 0


def test_the_soak_command_entry_reports(tmp_path: Path, capsys) -> None:
    args = argparse.Namespace(rounds=4, seed=3, work=str(tmp_path / "w"), sync="normal",
                              crash=0.3, out=str(tmp_path / "out"))
    assert run_soak(args) == 0
    text = capsys.readouterr().out
    assert '"ok": true' in text
    assert (tmp_path / "out" / "sizhidao_soak.json").exists()
