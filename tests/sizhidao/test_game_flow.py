"""The Si Zhi Dao game (seats, antes, deals, betting, arranging, showdown, layers, buy-ins,
settlement) driven straight from the three recorded traces: every decision it makes equals
the traces' expected outcomes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sizhidao.expected_check import check_against_expected, check_records_keep_secrets
from tests.sizhidao.flow_harness import run_trace

TRACES = Path(__file__).parents[1] / "data" / "traces-sizhidao"
NAMES = ["clean_session", "tie_once", "allin_layers"]


@pytest.mark.parametrize("name", NAMES)
def test_the_game_decides_as_expected(name: str) -> None:
    expected = json.loads((TRACES / name / "expected.json").read_text("utf-8"))
    records, balances = run_trace(TRACES / name / "trace.jsonl")
    check_against_expected(records, balances, expected)
    assert check_records_keep_secrets(records, expected["secrets"]) > 100
