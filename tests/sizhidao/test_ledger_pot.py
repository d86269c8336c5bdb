"""The pot in the settlement ledger: every ante, bet and buy-in of a Si Zhi Dao game is a
posting from the wallet into the game's pot account, the game's end pays the pot out (or
back), and `station ledger check` proves every pot ends at zero — for the recorded traces,
the staged tie rounds and all-in layers, and a game cancelled in its tie round; on both ledger
engines (SQLite and PostgreSQL, the `ledger` fixture)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from station.money import MAX_AMOUNT
from station.settlement.core import SettlementCore, SettlementRefused
from station.settlement.replay import replay_settled
from tests.settlement.backends import run_sql
from tests.sizhidao.staged_games import SCENARIOS
from tests.sizhidao.test_kernel_faults import (
    HANDS,
    calls,
    opened,
)

TRACES = Path(__file__).parents[1] / "data" / "traces-sizhidao"
ROOT = Path(__file__).parents[2]


def pots(ledger: Path | str) -> dict[str, int]:
    sql = "SELECT name, balance FROM accounts WHERE kind = 'system' AND substr(name, 1, 4) = 'pot:'"
    return {name: int(balance) for name, balance in run_sql(ledger, sql)}


def ledger_check(ledger: Path | str) -> dict:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "station",
            "ledger",
            "check",
            "--ledger",
            str(ledger),
            "--all-closed",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    return {"rc": proc.returncode, "out": proc.stdout, "err": proc.stderr}


def replayed(path: Path, ledger: Path | str) -> tuple[list[dict], Path | str]:
    records, problems = replay_settled(path, ledger=ledger)
    assert problems is None, problems
    return records, ledger


@pytest.mark.parametrize("name", ["clean_session", "tie_once", "allin_layers"])
def test_recorded_games_leave_every_pot_at_zero(name: str, ledger) -> None:
    records, ledger = replayed(TRACES / name / "trace.jsonl", ledger)
    games = [r["game_id"] for r in records if r["type"] == "game_open"]
    found = pots(ledger)
    assert len(found) == len(games) and set(found.values()) == {0}
    checked = ledger_check(ledger)
    assert checked["rc"] == 0 and json.loads(checked["out"])["ok"], checked


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_staged_games_leave_every_pot_at_zero(name: str, tmp_path, ledger) -> None:
    script, want = SCENARIOS[name]()
    records, ledger = replayed(script.write(tmp_path / "trace.jsonl"), ledger)
    assert set(pots(ledger).values()) == {0}
    with SettlementCore(ledger) as sc:
        assert {a: b for a, b in sc.balances().items() if a in want["balances"]} == want["balances"]
        assert sc.check(require_closed=True).ok


def test_a_cancelled_game_refunds_through_its_pot(tmp_path, ledger) -> None:
    s = opened()
    s.deal(HANDS, leader="S1")
    calls(s)
    s.wait(1).supervisor("cancel_round").clear().end()
    records, ledger = replayed(s.write(tmp_path / "trace.jsonl"), ledger)
    assert [r["type"] for r in records if r["type"] == "round_cancelled"] == ["round_cancelled"]
    assert set(pots(ledger).values()) == {0}


def test_the_books_refuse_a_pot_paid_out_other_than_it_holds(ledger) -> None:
    with SettlementCore(ledger) as sc:
        sc.apply({"key": "w1", "kind": "wallet", "account": "a", "balance": 1000})
        sc.apply({"key": "w2", "kind": "wallet", "account": "b", "balance": 1000})
        for i, acc in enumerate("ab"):
            sc.apply(
                {
                    "key": f"in{i}",
                    "kind": "pot_in",
                    "round_id": "SZ-01-G1",
                    "account": acc,
                    "amount": 300,
                    "what": "ante",
                }
            )
        with pytest.raises(SettlementRefused) as e:
            sc.apply(
                {"key": "out", "kind": "pot_settled", "round_id": "SZ-01-G1", "payouts": {"a": 500}}
            )
        assert e.value.args and "pot" in str(e.value)
        with pytest.raises(SettlementRefused):
            sc.apply(
                {
                    "key": "in9",
                    "kind": "pot_in",
                    "round_id": "SZ-01-G1",
                    "account": "a",
                    "amount": 5000,
                    "what": "bet",
                }
            )
        with pytest.raises(SettlementRefused):
            sc.apply(
                {
                    "key": "c",
                    "kind": "pot_cancelled",
                    "round_id": "SZ-01-G1",
                    "refunds": [{"account": "a", "amount": 600}],
                }
            )
        report = sc.check(require_closed=True)
        assert not report.ok and any("SZ-01-G1" in p for p in report.problems)
        sc.apply(
            {"key": "out2", "kind": "pot_settled", "round_id": "SZ-01-G1", "payouts": {"a": 600}}
        )
        assert sc.check(require_closed=True).ok
        assert sc.balances() == {"a": 1300, "b": 700}
    checked = ledger_check(ledger)
    assert checked["rc"] == 0, checked


def test_each_table_has_its_own_pot_and_the_amounts_are_bounded(ledger) -> None:
    """Two tables may name a game alike: each has its own pot account; a wallet shared by
    both pays into each; an amount beyond station.money's bound is refused before it posts."""
    with SettlementCore(ledger) as sc:
        sc.apply({"key": "w", "kind": "wallet", "account": "a", "balance": 1000}, table="SZ-01")
        for table in ("SZ-01", "SZ-02"):
            sc.apply({"key": "in", "kind": "pot_in", "round_id": "G1", "account": "a",
                      "amount": 200, "what": "ante"}, table=table)
        assert sc.balances() == {"a": 600}
        with pytest.raises(SettlementRefused) as e:
            sc.apply({"key": "big", "kind": "pot_in", "round_id": "G1", "account": "a",
                      "amount": MAX_AMOUNT + 1, "what": "bet"}, table="SZ-01")
        assert e.value.reason == "out_of_bounds"
        # a repeat answers as before and posts nothing
        again = sc.apply({"key": "in", "kind": "pot_in", "round_id": "G1", "account": "a",
                          "amount": 200, "what": "ante"}, table="SZ-02")
        assert again["amount"] == 200 and sc.balances() == {"a": 600}
        report = sc.check(require_closed=True)
        assert not report.ok and sum("G1" in p for p in report.problems) == 2
        sc.apply({"key": "end", "kind": "pot_settled", "round_id": "G1", "payouts": {"a": 200}},
                 table="SZ-01")
        with pytest.raises(SettlementRefused) as e:
            sc.apply({"key": "end2", "kind": "pot_in", "round_id": "G1", "account": "a",
                      "amount": 1, "what": "bet"}, table="SZ-01")
        assert e.value.reason == "round_closed"
        sc.apply({"key": "end", "kind": "pot_cancelled", "round_id": "G1",
                  "refunds": [{"account": "a", "amount": 200}]}, table="SZ-02")
        assert sc.balances() == {"a": 1000}
        assert sc.check(require_closed=True).ok
    assert set(pots(ledger).values()) == {0}
    ((n,),) = run_sql(ledger, "SELECT COUNT(*) FROM accounts WHERE kind = 'system'"
                              " AND substr(name, 1, 4) = 'pot:'")
    assert int(n) == 2


def test_a_cancelled_game_releases_the_reservations_its_table_never_took(ledger) -> None:
    """A studio table reserves each draw before its game takes it (docs/studio.md, "Pot
    games in the studio"): the outbox's copy of a draw marks it taken; one the table never
    took is paid back when the game closes, before its refunds are compared."""
    def pot_in(key: str, account: str, amount: int) -> dict:
        return {"key": key, "kind": "pot_in", "round_id": "SZ-01-G1", "account": account,
                "amount": amount, "what": "ante"}

    with SettlementCore(ledger) as sc:
        sc.apply({"key": "w1", "kind": "wallet", "account": "a", "balance": 1000})
        sc.apply({"key": "w2", "kind": "wallet", "account": "b", "balance": 1000})
        for key, account in (("in1:x1", "a"), ("in2:x2", "b"), ("in2:x3", "b")):
            outcome = sc.apply_batch([pot_in(key, account, 100)], reservation=True)
            assert outcome.refused is None and outcome.results[0]["balance"] in (900, 800)
        # the table took a's and b's second attempt; b's first is an orphan
        for key, account in (("in1:x1", "a"), ("in2:x3", "b")):
            sc.apply(pot_in(key, account, 100))
        assert sc.balances() == {"a": 900, "b": 800}
        result = sc.apply({"key": "c", "kind": "pot_cancelled", "round_id": "SZ-01-G1",
                           "refunds": [{"account": "a", "amount": 100},
                                       {"account": "b", "amount": 100}]})
        assert result["released"] == 100 and result["refunded"] == 200
        assert sc.balances() == {"a": 1000, "b": 1000}
        report = sc.check(require_closed=True)
        assert report.ok, report.problems
        assert (report.figures["pot_draws_taken"], report.figures["pot_draws_released"]) == (2, 1)
    # a reservation still held once its game closed is a fault of the books
    run_sql(ledger, "UPDATE pot_reservations SET state = 'held' WHERE key = 'in2:x2'")
    checked = ledger_check(ledger)
    assert checked["rc"] != 0 and "still held after the game was cancelled" in json.dumps(checked)
