"""Simulated Si Zhi Dao sessions (station.games.sizhidao.sim): bots sit, bet, raise, fold,
go all-in, arrange (some late, some never), drop their connection and buy in, for many
games. No bot move is refused but for what the table may refuse a late or dropped player,
no fault, every pot paid out, the books clean, and the session's trace replays to exactly
the records the table made live."""

from __future__ import annotations

import pytest

from station.games.sizhidao.sim import SimTable
from station.settlement.replay import replay_settled

ALLOWED = {"not_in_game", "not_now", "not_your_turn"}  # a player folded or late by its time


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_simulated_session_plays_clean_to_a_clean_ledger(seed: int, tmp_path) -> None:
    sim = SimTable(seed)
    report = sim.run(games=12)
    assert report.games >= 8
    assert report.faults == []
    assert {r["reason"] for r in report.refused} <= ALLOWED, report.refused[:5]
    path = sim.script.write(tmp_path / "session.jsonl")
    records, problems = replay_settled(path, ledger=tmp_path / "ledger.sqlite")
    assert problems is None, problems
    live = [r for r in sim.records]
    assert [r for r in records if r["type"] != "balances"] == live
    settled = [r for r in records if r["type"] == "game_settled"]
    assert len(settled) == report.games
    assert all(r["pot"] == sum(r["payouts"].values()) for r in settled)


def test_sessions_include_tie_rounds_all_ins_and_automatic_arrangements(tmp_path) -> None:
    seen = {"tie": 0, "all_in": 0, "auto": 0, "timeout_fold": 0, "buy_in": 0}
    for seed in range(4, 10):
        sim = SimTable(seed)
        sim.run(games=10)
        recs = sim.records
        seen["tie"] += sum(
            1 for r in recs if r["type"] == "deal_open" and not r["deal_id"].endswith("D1")
        )
        seen["all_in"] += sum(
            1 for r in recs if r["type"] == "player_action" and r["action"] == "all_in"
        )
        seen["auto"] += sum(
            1 for r in recs if r["type"] == "showdown" for v in r["seats"].values() if v["auto"]
        )
        seen["timeout_fold"] += sum(
            1
            for r in recs
            if r["type"] == "player_action" and r["action"] == "fold" and r.get("auto")
        )
        seen["buy_in"] += sum(1 for r in recs if r["type"] == "buy_in")
    assert all(v > 0 for v in seen.values()), seen
