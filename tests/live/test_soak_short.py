"""A short soak: rounds end to end through the live station with every kind of injected
trouble, crashes included; every bet settled or refunded exactly once, books clean."""

from __future__ import annotations

import pytest

from station.games.paigow.tools.soak import PaiGowSoak
from station.games.pokdeng.tools.soak import PokDengSoak
from station.sim.soak import SoakOptions, write_report

pytestmark = pytest.mark.soak


def test_short_soak(tmp_path):
    opts = SoakOptions(rounds=80, seed=4, misplace=0.08, unplug=0.05, jam=0.05, mismatch=0.05,
                       crash=0.05, sample_every=10)
    soak = PokDengSoak(opts, tmp_path / "work")
    rep = soak.run()
    assert rep.rounds_opened == 80 and rep.hands + rep.cancelled == 80
    assert rep.exactly_once and rep.ledger_ok and rep.balances_match, rep.ledger_problems
    # every injected trouble became exactly its fault, and nothing else did
    assert rep.faults.get("order", 0) == rep.injected.get("misplace", 0)
    assert rep.faults.get("link_lost", 0) == rep.injected.get("unplug", 0)
    assert rep.faults.get("device_fault", 0) == rep.injected.get("jam", 0)
    assert rep.faults.get("card_mismatch", 0) == rep.injected.get("mismatch", 0) == rep.cancelled
    assert sum(rep.injected.values()) >= 5 and rep.crashes >= 1
    files = write_report(rep, opts, tmp_path / "report", soak.latencies, "test")
    assert (tmp_path / "report" / "soak_memory.png").stat().st_size > 1000
    assert len(files) == 4


def test_short_pai_gow_soak(tmp_path):
    opts = SoakOptions(rounds=40, seed=6, misplace=0.1, unplug=0.08, jam=0.08,
                       mismatch=0.08, mistype=0.1, crash=0.08, sample_every=10)
    soak = PaiGowSoak(opts, tmp_path / "work")
    rep = soak.run()
    assert rep.rounds_opened == 40 and rep.hands + rep.cancelled == 40 and rep.shoes == 20
    assert rep.exactly_once and rep.ledger_ok and rep.balances_match, rep.ledger_problems
    assert rep.faults.get("order", 0) == rep.injected.get("misplace", 0)
    assert rep.faults.get("link_lost", 0) == rep.injected.get("unplug", 0)
    assert rep.faults.get("device_fault", 0) == rep.injected.get("jam", 0)
    assert rep.faults.get("card_mismatch", 0) == rep.injected.get("mismatch", 0) == rep.cancelled
    assert rep.faults.get("dice_mismatch", 0) == rep.injected.get("mistype", 0)
    assert set(rep.faults) <= {"order", "link_lost", "device_fault", "card_mismatch", "dice_mismatch"}
    assert sum(rep.injected.values()) >= 5 and rep.crashes >= 1
