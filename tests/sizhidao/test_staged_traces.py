"""Staged Si Zhi Dao traces (tests/sizhidao/staged_games.py) replayed: the tie round twice in
a row with an all-in layer, a player left alone, a disconnected all-in player arranged
automatically. Each replays to its expected layers, buy-ins, payouts and balances."""

from __future__ import annotations

import pytest

from station.core.replay import replay_records
from tests.sizhidao.flow_harness import run_trace
from tests.sizhidao.staged_games import SCENARIOS


def through_the_kernel(path):
    records = replay_records(path)
    assert [r["kind"] for r in records if r["type"] == "fault"] == []
    return records, [r for r in records if r["type"] == "balances"][-1]["accounts"]


RUNNERS = {"game": run_trace, "kernel": through_the_kernel}


def of(records, type_):
    return [r for r in records if r["type"] == type_]


@pytest.mark.parametrize("runner", sorted(RUNNERS))
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_staged_trace(name: str, runner: str, tmp_path) -> None:
    script, want = SCENARIOS[name]()
    records, balances = RUNNERS[runner](script.write(tmp_path / "trace.jsonl"))
    assert of(records, "action_refused") == []
    layers = {r["deal_id"]: r["layers"] for r in of(records, "layers")}
    assert layers == want["layers"]
    buy_ins = [(r["account"], r.get("amount"), r["auto"]) for r in of(records, "buy_in")]
    assert buy_ins == want["buy_ins"]
    (settled,) = of(records, "game_settled")
    assert settled["payouts"] == want["payouts"] and settled["pot"] == want["pot"]
    assert balances == want["balances"]
    if "auto" in want:
        (show,) = of(records, "showdown")
        assert {s: v["auto"] for s, v in show["seats"].items()} == want["auto"]
    if len(want["layers"]) == 1 and len(next(iter(want["layers"].values()))[0]["contestants"]) == 1:
        assert of(records, "showdown") == []
