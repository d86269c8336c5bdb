"""The settlement core on a real ledger file: postings, idempotency, refusals, the books check."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from station.settlement.core import SettlementCore, SettlementRefused
from tests.settlement.backends import counts, run_sql
from tests.settlement.helpers import REPO, env_with_secret

# P1 is 9 points suited (deng) against a plain-6 banker: the banker-6 rule keeps m = 2 only
# for an 8 or 9 that is suited or a pair (RULES.md §1.5) -> returned 2A + 2A. P4 is a pair.
CARDS = {"P1": ["7H", "2H"], "P2": ["AS", "2C"], "P3": ["KS", "QS"], "P4": ["5D", "5C"],
         "P5": ["3H", "4D"], "B": ["6S", "TC"]}


def wallet(n: int, account: str, balance: int) -> dict:
    return {"key": f"wallet:{n}", "kind": "wallet", "t": 0.0, "account": account, "balance": balance}


def bet(round_id: str, n: int, account: str, spot: str, amount: int) -> dict:
    deducted = amount if spot.endswith("PAIR") else 2 * amount
    return {"key": f"bet:{round_id}:{n}", "kind": "bet", "t": 1.0, "round_id": round_id,
            "game": "pokdeng", "account": account, "spot": spot, "amount": amount,
            "deducted": deducted}


def hand(round_id: str, settlement: list[dict], cards: dict = CARDS) -> dict:
    return {"key": f"hand:{round_id}", "kind": "hand", "t": 20.0, "round_id": round_id,
            "game": "pokdeng", "cards": cards, "validated_by": ["shoe", "camera"],
            "settlement": settlement}


def line(account: str, spot: str, amount: int, returned: int) -> dict:
    deducted = amount if spot.endswith("PAIR") else 2 * amount
    return {"account": account, "spot": spot, "amount": amount, "deducted": deducted,
            "returned": returned}


@pytest.fixture
def core(ledger):
    c = SettlementCore(ledger)
    yield c
    report = c.check()  # whatever a test did, the books must still balance
    c.close()
    assert report.ok, report.problems


def test_a_round_moves_money_by_the_rules_and_the_books_balance(core, ledger):
    core.apply(wallet(1, "u1", 1000))
    core.apply(wallet(2, "u2", 500))
    core.apply(bet("R1", 1, "u1", "P1", 100))
    core.apply(bet("R1", 2, "u2", "P4PAIR", 50))
    core.apply(bet("R1", 3, "u2", "P2", 100))
    assert core.balances() == {"u1": 800, "u2": 250}  # 2A and A deducted at acceptance
    result = core.apply(hand("R1", [line("u1", "P1", 100, 400), line("u2", "P4PAIR", 50, 600),
                                    line("u2", "P2", 100, 100)]))
    assert result["status"] == "settled" and result["bets"] == 3
    assert result["deducted"] == 450 and result["returned"] == 1100 and result["house"] == -650
    assert core.balances() == {"u1": 1200, "u2": 950}
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["bets_settled"] == 3 and report.figures["in_play"] == 0
    postings, entries, rounds = counts(ledger)
    # 2 wallet sets x 2, 3 bets x 2, the hand: u1, u2, in_play, house
    assert (postings, entries, rounds) == (14, 6, 1)
    assert report.figures["postings"] == postings and report.figures["messages"] == entries


def test_cancelled_round_refunds_every_bet_in_full(core):
    core.apply(wallet(1, "u1", 1000))
    core.apply(bet("R1", 1, "u1", "P1", 100))
    core.apply(bet("R1", 2, "u1", "P1PAIR", 300))
    assert core.balances() == {"u1": 500}
    result = core.apply({"key": "cancel:R1", "kind": "round_cancelled", "round_id": "R1",
                         "reason": "card_mismatch"})
    assert result == {"key": "cancel:R1", "kind": "round_cancelled", "round_id": "R1",
                      "status": "cancelled", "reason": "card_mismatch", "bets": 2, "refunded": 500}
    assert core.balances() == {"u1": 1000}
    report = core.check(require_closed=True)
    assert report.ok and report.figures["bets_refunded"] == 2


def test_a_repeated_key_returns_the_first_result_and_posts_nothing(core, ledger):
    core.apply(wallet(1, "u1", 1000))
    first = core.apply(bet("R1", 1, "u1", "P1", 100))
    before = counts(ledger)
    assert core.apply(bet("R1", 1, "u1", "P1", 100)) == first
    assert counts(ledger) == before
    assert core.balances() == {"u1": 800}
    settled = core.apply(hand("R1", [line("u1", "P1", 100, 400)]))
    assert core.apply(hand("R1", [line("u1", "P1", 100, 400)])) == settled
    assert core.balances() == {"u1": 1200}


def test_a_key_reused_for_other_content_is_refused(core):
    core.apply(wallet(1, "u1", 1000))
    with pytest.raises(SettlementRefused) as err:
        core.apply(wallet(1, "u1", 99999))
    assert err.value.reason == "key_reused"
    assert core.balances() == {"u1": 1000}


@pytest.mark.parametrize(
    ("settlement", "reason"),
    [
        ([line("u1", "P1", 100, 300), line("u1", "P4PAIR", 10, 120)], "returned_mismatch"),
        ([line("u1", "P1", 100, 400)], "bet_mismatch"),  # a held bet missing
        ([line("u1", "P1", 100, 400), line("u1", "P4PAIR", 10, 120), line("u1", "P2", 10, 10)],
         "bet_mismatch"),  # a bet the ledger never took
        ([line("u1", "P1", 100, 400), line("u1", "P5PAIR", 10, 0)], "bet_mismatch"),
        ([{"account": "u1", "spot": "P1"}], "malformed"),
    ],
)
def test_a_hand_that_disagrees_with_the_ledger_is_refused_and_nothing_posted(
    core, ledger, settlement, reason
):
    core.apply(wallet(1, "u1", 1000))
    core.apply(bet("R1", 1, "u1", "P1", 100))
    core.apply(bet("R1", 2, "u1", "P4PAIR", 10))
    before = counts(ledger)
    with pytest.raises(SettlementRefused) as err:
        core.apply(hand("R1", settlement))
    assert err.value.reason == reason, err.value
    assert counts(ledger) == before
    assert core.balances() == {"u1": 790}
    assert core.applied("hand:R1") is None
    assert core.check().figures["bets_open"] == 2
    # the right hand still settles afterwards
    core.apply(hand("R1", [line("u1", "P1", 100, 400), line("u1", "P4PAIR", 10, 120)]))
    assert core.balances() == {"u1": 1310}
    assert core.check(require_closed=True).ok


def test_results_that_do_not_follow_from_the_cards_are_refused(core):
    core.apply(wallet(1, "u1", 1000))
    message = hand("R1", [])
    message["results"] = {p: {"outcome": "win", "multiplier": 1, "pair": False}
                          for p in ("P1", "P2", "P3", "P4", "P5")}
    with pytest.raises(SettlementRefused) as err:
        core.apply(message)
    assert err.value.reason == "results_mismatch"


def test_balances_never_go_negative(core):
    core.apply(wallet(1, "u1", 300))
    core.apply(bet("R1", 1, "u1", "P1", 100))
    with pytest.raises(SettlementRefused) as err:
        core.apply(bet("R1", 2, "u1", "P2", 100))
    assert err.value.reason == "insufficient_funds"
    with pytest.raises(SettlementRefused) as err:
        core.apply(bet("R1", 3, "nobody", "P2", 100))
    assert err.value.reason == "no_wallet"
    with pytest.raises(SettlementRefused) as err:
        core.apply(wallet(2, "u1", -5))
    assert core.balances() == {"u1": 100}
    assert core.check().ok


def test_a_round_closes_once(core):
    core.apply(wallet(1, "u1", 1000))
    core.apply(bet("R1", 1, "u1", "P1", 100))
    core.apply(hand("R1", [line("u1", "P1", 100, 400)]))
    for late in (bet("R1", 2, "u1", "P2", 10),
                 {"key": "cancel:R1", "kind": "round_cancelled", "round_id": "R1", "reason": "x"},
                 dict(hand("R1", []), key="hand:R1:again")):
        with pytest.raises(SettlementRefused) as err:
            core.apply(late)
        assert err.value.reason == "round_closed"
    assert core.balances() == {"u1": 1200}


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ({"kind": "wallet", "account": "u1", "balance": 5}, "malformed"),
        ({"key": "x:1", "kind": "payout", "account": "u1"}, "unknown_kind"),
        ({"key": "w:1", "kind": "wallet", "account": "u1", "balance": "5"}, "malformed"),
        ({"key": "w:1", "kind": "wallet", "account": "u1", "balance": True}, "malformed"),
        (dict(bet("R1", 1, "u1", "P1", 100), deducted=100), "bad_deduction"),
        (dict(bet("R1", 1, "u1", "P1", 100), spot="P9"), "bad_bet"),
        (dict(bet("R1", 1, "u1", "P1", 100), amount=0), "bad_bet"),
        (dict(bet("R1", 1, "u1", "P1", 100), game="blackjack"), "unknown_game"),
        (hand("R1", [], cards=dict(CARDS, P1=["7H", "ZZ"])), "bad_cards"),
        (hand("R1", [], cards={k: v for k, v in CARDS.items() if k != "B"}), "bad_cards"),
        ("not a message", "malformed"),
    ],
)
def test_bad_messages_are_refused_with_a_reason(core, message, reason):
    core.apply(wallet(9, "u1", 1000))
    with pytest.raises(SettlementRefused) as err:
        core.apply(message)
    assert err.value.reason == reason
    assert core.balances() == {"u1": 1000}
    assert core.check().ok


def test_a_batch_stops_at_a_refusal_and_keeps_what_came_before(core):
    outcome = core.apply_batch([wallet(1, "u1", 300), bet("R1", 1, "u1", "P1", 100),
                                bet("R1", 2, "u1", "P1", 100), wallet(2, "u2", 50)])
    assert [r["key"] for r in outcome.results] == ["wallet:1", "bet:R1:1"]
    assert outcome.refused is not None and outcome.refused.reason == "insufficient_funds"
    assert core.balances() == {"u1": 100}


def test_the_ledger_survives_reopening(ledger):
    path = ledger
    with SettlementCore(path) as core:
        core.apply(wallet(1, "u1", 1000))
        core.apply(bet("R1", 1, "u1", "P1", 100))
    with SettlementCore(path) as core:
        assert core.balances() == {"u1": 800}
        assert core.apply(bet("R1", 1, "u1", "P1", 100))["balance"] == 800  # still idempotent
        core.apply(hand("R1", [line("u1", "P1", 100, 400)]))
        assert core.check(require_closed=True).ok


def ledger_check(path: Path | str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "station", "ledger", "check", "--ledger", str(path), *extra],
        cwd=REPO, env=env_with_secret(), capture_output=True, text=True, timeout=60,
    )


def test_ledger_check_finds_tampering(ledger, tmp_path):
    path = ledger
    with SettlementCore(path) as core:
        core.apply(wallet(1, "u1", 1000))
        core.apply(bet("R1", 1, "u1", "P1", 100))
        core.apply(bet("R2", 1, "u1", "P1", 100))
        core.apply(hand("R1", [line("u1", "P1", 100, 400)]))
    done = ledger_check(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "clean" in done.stdout
    strict = ledger_check(path, "--all-closed")  # R2 is still open
    assert strict.returncode == 1 and "bet:R2:1: neither settled nor refunded" in strict.stdout

    # someone edits a balance behind the ledger's back
    run_sql(path, "UPDATE accounts SET balance = balance + 1 WHERE name = 'u1'")
    done = ledger_check(path)
    assert done.returncode == 1
    assert "wallet account 'u1': balance 1001 but postings sum to 1000" in done.stdout

    run_sql(path, "UPDATE accounts SET balance = balance - 1 WHERE name = 'u1'")
    # the round's wallet credit posted twice: the player paid twice
    run_sql(path,
            "INSERT INTO postings (entry_id, account_id, amount, bet_id)"
            " SELECT p.entry_id, p.account_id, p.amount, p.bet_id FROM postings p"
            " JOIN entries e ON e.id = p.entry_id JOIN accounts a ON a.id = p.account_id"
            " WHERE e.key = 'hand:R1' AND a.name = 'u1'")
    done = ledger_check(path)
    assert done.returncode == 1
    assert "postings sum to 400, not 0" in done.stdout
    assert "(hand:R1): 'u1' was posted 800, the bets it closed account for 400" in done.stdout

    run_sql(path, "DELETE FROM postings WHERE id = (SELECT MAX(id) FROM postings)")
    run_sql(path, "DELETE FROM bet_closures")  # R1's bet looks open again
    run_sql(path, "DELETE FROM postings WHERE bet_id = (SELECT id FROM bets WHERE key = 'bet:R2:1')"
            " AND amount < 0")
    done = ledger_check(path)
    assert done.returncode == 1
    assert "bet bet:R1:1: neither settled nor refunded though its round was settled" in done.stdout
    assert "bet bet:R2:1: not deducted exactly once" in done.stdout

    missing = ledger_check(tmp_path / "nothing.db")
    assert missing.returncode == 2 and "no ledger file" in missing.stderr


def test_a_file_that_is_not_a_ledger_is_refused_and_left_alone(tmp_path):
    from station.settlement.ledger import LedgerError

    other = tmp_path / "journal.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE journal (step INTEGER)")
    with pytest.raises(LedgerError, match="not a settlement ledger"):
        SettlementCore(other)
    with sqlite3.connect(other) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["journal"]
    done = ledger_check(other)
    assert done.returncode == 2 and "cannot read" in done.stderr


def test_ledger_balances_command_prints_every_wallet(ledger):
    path = ledger
    with SettlementCore(path) as core:
        core.apply(wallet(1, "u1", 1000))
        core.apply(wallet(2, "u2", 5))
        core.apply(bet("R1", 1, "u1", "P1", 100))
    done = subprocess.run(
        [sys.executable, "-m", "station", "ledger", "balances", "--ledger", str(path)],
        cwd=REPO, env=env_with_secret(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"u1": 800, "u2": 5}


def _paigow_bet(n: int, account: str, spot: str, amount: int) -> dict:
    return {"key": f"bet:WZ-R1:{n}", "kind": "bet", "t": 1.0, "round_id": "WZ-R1",
            "game": "paigow", "account": account, "spot": spot, "amount": amount,
            "deducted": amount}


@pytest.mark.parametrize("batched", [False, True], ids=["one_by_one", "in_one_batch"])
def test_the_ledger_weighs_what_the_account_already_holds(core, batched):
    """Pai Gow never takes WIN and LOSE on one door from one account: the ledger derives
    that from the bets it has booked, as the table does, alone or in a run of bets."""
    core.apply(wallet(1, "u1", 1000))
    core.apply(wallet(2, "u2", 1000))
    bets = [_paigow_bet(1, "u1", "SHUN_WIN", 100), _paigow_bet(2, "u2", "SHUN_LOSE", 100),
            _paigow_bet(3, "u1", "SHUN_LOSE", 100)]
    if batched:
        outcome = core.apply_batch(bets)
        assert [r["key"] for r in outcome.results] == ["bet:WZ-R1:1", "bet:WZ-R1:2"]
        refused = outcome.refused
    else:
        core.apply(bets[0])
        core.apply(bets[1])  # another account's LOSE on that door is its own
        with pytest.raises(SettlementRefused) as err:
            core.apply(bets[2])
        refused = err.value
    assert refused is not None and refused.reason == "bad_bet"
    assert "conflict" in str(refused)
    assert core.balances() == {"u1": 900, "u2": 900}
