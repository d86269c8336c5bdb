"""The five traces recorded by an independent implementation replay to their expected
outcomes (TRACES.md; tests/data/traces/README.md says what each one checks)."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from station.core.replay import replay_records

TRACES = Path(__file__).parents[1] / "data" / "traces"
NAMES = ("clean_shoe", "noisy_shoe", "order_fault", "mismatch_cancel", "degraded_no_camera")


def outcomes(records: list[dict]) -> dict:
    of = lambda t: [r for r in records if r["type"] == t]  # noqa: E731
    out = {
        "hands": [{k: r[k] for k in ("round_id", "cards", "results", "last_round")}
                  for r in of("hand")],
        "settlements": [{"round_id": r["round_id"], "bets": r["bets"]} for r in of("settlement")],
        "cancelled": [{k: r[k] for k in ("round_id", "reason", "refunds")}
                      for r in of("round_cancelled")],
        "faults": [r["kind"] for r in of("fault")],
        "bet_rejected": [{k: r[k] for k in ("account", "spot", "amount", "reason")}
                         for r in of("bet_rejected")],
        "burns": [{k: r[k] for k in ("shoe", "first_card", "count")} for r in of("burn")],
        "shoe_ends": [{"shoe": r["shoe"], "rounds": r["rounds"]} for r in of("shoe_end")],
        "balances": of("balances")[-1]["accounts"],
    }
    out["clean"] = not out["faults"]
    return out


@pytest.mark.parametrize("name", NAMES)
def test_trace_replays_to_expected(name):
    expected = json.loads((TRACES / name / "expected.json").read_text())
    got = outcomes(replay_records(TRACES / name / "trace.jsonl"))
    for key in expected:
        assert got[key] == expected[key], f"{name}: {key} differs"


@pytest.mark.parametrize("name", NAMES)
def test_every_record_has_its_required_fields(name):
    required = {
        "shoe_start": {"shoe"}, "burn": {"shoe", "first_card", "count"},
        "round_open": {"round_id", "shoe", "round", "closes_at"},
        "bet_accepted": {"round_id", "account", "spot", "amount", "deducted"},
        "bet_rejected": {"account", "spot", "amount", "reason"},
        "betting_closed": {"round_id"}, "fault": {"round_id", "kind", "detail"},
        "resumed": {"round_id", "user"}, "action_refused": {"action", "reason"},
        "warning": {"round_id", "kind", "detail"},
        "hand": {"round_id", "shoe", "round", "cards", "results", "last_round", "validated_by"},
        "settlement": {"round_id", "bets"}, "round_cancelled": {"round_id", "reason", "refunds"},
        "shoe_end": {"shoe", "rounds", "cards_out"}, "balances": {"accounts"},
    }
    records = replay_records(TRACES / name / "trace.jsonl")
    last_t = 0.0
    for r in records:
        assert r["type"] in required, r
        assert required[r["type"]] <= r.keys(), r
        assert r["t"] >= last_t
        last_t = r["t"]
        if r["type"] == "hand":
            assert "BURN" not in r["cards"]
    assert records[-1]["type"] == "balances"
    assert sum(1 for r in records if r["type"] == "balances") == 1


def test_replay_command_writes_records_and_reads_gzip(tmp_path):
    gz = tmp_path / "order_fault.jsonl.gz"
    with open(TRACES / "order_fault" / "trace.jsonl", "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    out = tmp_path / "records.jsonl"
    subprocess.run([sys.executable, "-m", "station", "replay", str(gz), "--out", str(out)],
                   check=True, timeout=120)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    expected = json.loads((TRACES / "order_fault" / "expected.json").read_text())
    assert outcomes(records)["hands"] == expected["hands"]


def test_replay_is_deterministic():
    a = replay_records(TRACES / "noisy_shoe" / "trace.jsonl")
    b = replay_records(TRACES / "noisy_shoe" / "trace.jsonl")
    assert a == b


@pytest.mark.parametrize("name", NAMES)
def test_replay_settles_through_the_settlement_core(tmp_path, name):
    from station.settlement.core import SettlementCore
    from station.settlement.replay import replay_settled

    records, problem = replay_settled(TRACES / name / "trace.jsonl", ledger=tmp_path / "l.sqlite")
    assert problem is None
    expected = json.loads((TRACES / name / "expected.json").read_text())
    ledger = SettlementCore(tmp_path / "l.sqlite")
    try:
        books = ledger.balances()
        assert {a: books.get(a, 0) for a in expected["balances"]} == expected["balances"]
        assert ledger.check().ok
    finally:
        ledger.close()
