"""The shared recorded traces, settled through this core: their final balances must match.

The table core's own replay is tested elsewhere; here the messages it hands over are built
from each trace's wallet lines and its expected hands, settlements and cancellations, and sent
through the outbox and the delivery worker like a live table's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from station.settlement.core import SettlementCore
from station.settlement.sim import MiniStation
from station.settlement.transport import InProcessTransport

TRACES = Path(__file__).resolve().parents[1] / "data" / "traces"
NAMES = ("clean_shoe", "noisy_shoe", "order_fault", "mismatch_cancel", "degraded_no_camera")


def round_order(round_id: str) -> tuple[int, int]:
    shoe, rnd = re.fullmatch(r".*-S(\d+)-R(\d+)", round_id).groups()
    return int(shoe), int(rnd)


def messages_of(name: str) -> tuple[list[dict], dict[str, int]]:
    folder = TRACES / name
    expected = json.loads((folder / "expected.json").read_text())
    messages: list[dict] = []
    with (folder / "trace.jsonl").open() as lines:
        header = json.loads(next(lines))
        for line in lines:
            record = json.loads(line)
            if "wallet" in record:
                messages.append({"key": f"wallet:{len(messages) + 1}", "kind": "wallet",
                                  "t": record["t"], **record["wallet"]})
    hands = {h["round_id"]: h for h in expected["hands"]}
    closes: dict[str, tuple[str, list[dict]]] = {}
    for s in expected["settlements"]:
        closes[s["round_id"]] = ("hand", s["bets"])
    for c in expected["cancelled"]:
        closes[c["round_id"]] = ("round_cancelled", c["refunds"])
    for round_id in sorted(closes, key=round_order):
        kind, bets = closes[round_id]
        for n, b in enumerate(bets, 1):
            messages.append({"key": f"bet:{round_id}:{n}", "kind": "bet", "round_id": round_id,
                             "game": header["game"], "account": b["account"], "spot": b["spot"],
                             "amount": b["amount"], "deducted": b["deducted"]})
        if kind == "hand":
            h = hands[round_id]
            messages.append({"key": f"hand:{round_id}", "kind": "hand", "round_id": round_id,
                             "game": header["game"], "cards": h["cards"], "results": h["results"],
                             "settlement": bets})
        else:
            reason = next(c["reason"] for c in expected["cancelled"] if c["round_id"] == round_id)
            messages.append({"key": f"cancel:{round_id}", "kind": "round_cancelled",
                             "round_id": round_id, "reason": reason, "refunds": bets})
    return messages, expected["balances"]


@pytest.mark.parametrize("name", NAMES)
def test_recorded_trace_settles_to_its_expected_balances(tmp_path, name, ledger):
    messages, balances = messages_of(name)
    with SettlementCore(ledger) as core:
        station = MiniStation(tmp_path / "journal.db", InProcessTransport(core))
        errors: list[Exception] = []
        station.worker.on_error = lambda exc, key: errors.append(exc)
        assert station.run(messages, drain_timeout=60), errors
        station.close()
        assert core.balances() == balances
        report = core.check(require_closed=True)
        assert report.ok, report.problems
        if name == "mismatch_cancel":
            assert report.figures["rounds_cancelled"] == 1 and report.figures["bets_refunded"] > 0


@pytest.mark.parametrize("name", NAMES)
def test_station_replay_settles_through_this_core(tmp_path, name):
    """Acceptance: `station replay` (the table core's replay) settles into a ledger through this
    core; its balances record matches the trace's expected balances, and the books are clean."""
    import subprocess
    import sys

    from tests.settlement.helpers import REPO, env_with_secret

    ledger, out = tmp_path / "ledger.db", tmp_path / "out.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "station", "replay", str(TRACES / name / "trace.jsonl"),
         "--ledger", str(ledger), "--out", str(out)],
        cwd=REPO, env=env_with_secret(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    expected = json.loads((TRACES / name / "expected.json").read_text())
    assert records[-1]["type"] == "balances"
    assert records[-1]["accounts"] == expected["balances"]
    with SettlementCore(ledger) as core:
        assert core.balances() == expected["balances"]
        report = core.check(require_closed=True)
        assert report.ok, report.problems
        closed = report.figures["bets_settled"] + report.figures["bets_refunded"]
        assert closed == sum(len(s["bets"]) for s in expected["settlements"]) + sum(
            len(c["refunds"]) for c in expected["cancelled"])
