"""The scripted dealer's memory is its own: two tables' dealers never share what they saw."""

from __future__ import annotations

from station.sim.dealer import ScriptedDealer


def test_each_dealer_counts_its_own_faults():
    a = ScriptedDealer(station=None, shoe=None, scene=None)
    b = ScriptedDealer(station=None, shoe=None, scene=None)
    a._faults_this_round["card_mismatch"] = 1
    assert b._faults_this_round == {}
    assert "_faults_this_round" not in vars(ScriptedDealer)
