"""Crash drill: `station run` is SIGKILLed at random moments while a dealer deals from the
shoe simulator over a real pty and bettors bet through the bet API; each time it is started
again from its journal. Afterwards the station's records equal an uninterrupted replay of the
same inputs, every card the shoe sent was processed exactly once and in order, and the
settlement ledger's books are clean."""

from __future__ import annotations

import json

import pytest

from firmware_bridge.shoe.simulator import ShoeSimulator
from firmware_bridge.shoe.stream import ShoeStream
from station.core.journal import Journal
from station.core.kernel import TableKernel as TableCore
from station.core.replay import settings_from_header
from tests.core.kill_drill import Dealer, check_books, kill_drill

ROUNDS = 6


@pytest.mark.slow
def test_station_survives_sigkill_at_random_points(tmp_path):
    shoe = ShoeSimulator(seed=11, cut_at=None)
    station, _ = kill_drill(tmp_path, shoe, Dealer, rounds=ROUNDS, betting_seconds=2.0,
                            kill_gap_s=(1.5, 3.5), seed=5)

    journal = Journal(tmp_path / "data" / "journal.sqlite")
    stored = journal.stored_records()
    # 1. an uninterrupted run over the same inputs makes the same records
    core = TableCore(settings_from_header(journal.header))
    remade: list[dict] = []
    for _, inp in journal.inputs():
        core.apply(inp)
        remade.extend(core.take_outputs()[0])
    assert remade == stored
    # 2. every card the shoe sent was processed once, in order
    stream = ShoeStream()
    cards = []
    for _, inp in journal.inputs():
        if inp.kind == "shoe":
            cards += [e.card for e in stream.feed(inp.value, 0).events if e.event == "card"]
    drawn = [c for _, t, f in shoe.sent_log if t == "CARD" for c in [f[0]]]
    assert cards == drawn
    hands = [r for r in stored if r["type"] == "hand"]
    assert [h["round"] for h in hands] == list(range(1, ROUNDS + 1))
    # 3. settlement: books clean, every bet settled exactly once
    check_books(tmp_path / "data" / "ledger.sqlite", stored, core.balances, min_bets=10)
    journal.close()
    print(json.dumps({"kills": station.kills, "inputs": len(list(Journal(tmp_path / 'data' / 'journal.sqlite').inputs()))}))
