"""The three recorded Si Zhi Dao traces replayed through the table kernel with the game's
procedure plugged in (`station replay`'s path): every record the expected outcomes name, no
fault, and no card before its showdown in any record but its owner's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from station.core.replay import replay_records
from tests.sizhidao.expected_check import check_against_expected, check_records_keep_secrets

TRACES = Path(__file__).parents[1] / "data" / "traces-sizhidao"
NAMES = ["clean_session", "tie_once", "allin_layers"]


@pytest.mark.parametrize("name", NAMES)
def test_recorded_trace_replays_to_expected(name: str) -> None:
    expected = json.loads((TRACES / name / "expected.json").read_text("utf-8"))
    records = replay_records(TRACES / name / "trace.jsonl")
    faults = [r["kind"] for r in records if r["type"] == "fault"]
    assert faults == expected["faults"]
    assert not faults or not expected["clean"]
    balances = [r for r in records if r["type"] == "balances"][-1]["accounts"]
    check_against_expected(records, balances, expected)
    assert [
        (r["account"], r["spot"], r["amount"], r["reason"])
        for r in records
        if r["type"] == "bet_rejected"
    ] == [(x["account"], x["spot"], x["amount"], x["reason"]) for x in expected["bet_rejected"]]
    assert check_records_keep_secrets(records, expected["secrets"]) > 100
