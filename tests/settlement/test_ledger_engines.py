"""The ledger of a studio, on both engines: keys per table, wallets shared by tables betting at
once, money bounds (nothing overflows, nothing becomes a float), refusals on record, the
format-1 file of a single table carried over."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from station.money import MAX_AMOUNT
from station.settlement.core import SettlementCore, SettlementRefused
from station.settlement.ledger import LedgerError, open_store
from tests.settlement.backends import counts, run_sql
from tests.settlement.helpers import REPO, env_with_secret
from tests.settlement.test_core import bet, hand, line, wallet

DATA = Path(__file__).resolve().parents[1] / "data"


def ledger_check(ledger, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "station", "ledger", "check", "--ledger", str(ledger), *extra],
        cwd=REPO, env=env_with_secret(), capture_output=True, text=True, timeout=60,
    )


def test_keys_are_unique_per_table_and_wallets_are_shared(ledger):
    with SettlementCore(ledger) as core:
        core.apply(wallet(1, "u1", 1000), table="PD-01")
        # the same key text on another table is another message
        core.apply(bet("R1", 1, "u1", "P1", 100), table="PD-01")
        core.apply(bet("R1", 1, "u1", "P1", 100), table="PD-02")
        assert core.balances() == {"u1": 600}
        # a repeat on one table is still a repeat
        core.apply(bet("R1", 1, "u1", "P1", 100), table="PD-02")
        assert core.balances() == {"u1": 600}
        core.apply(hand("R1", [line("u1", "P1", 100, 400)]), table="PD-01")
        # PD-02's round R1 is its own and still open
        report = core.check()
        assert report.ok, report.problems
        assert report.figures["bets_open"] == 1 and report.figures["in_play"] == 200
        # PD-01 and PD-02; not the core's default table '', whose accounts it made on opening
        assert report.figures["tables"] == 2
        core.apply({"key": "cancel:R1", "kind": "round_cancelled", "round_id": "R1",
                    "reason": "link_lost"}, table="PD-02")
        assert core.balances() == {"u1": 1200}
        assert core.applied("bet:R1:1", table="PD-02")["balance"] == 600
        assert core.applied("bet:R1:1") is None  # the default table never saw it
        # a message naming its table must be delivered for that table
        with pytest.raises(SettlementRefused) as err:
            core.apply(dict(wallet(2, "u2", 5), table="PD-03"), table="PD-01")
        assert err.value.reason == "malformed"
        core.apply(dict(wallet(3, "u3", 5), table="PD-03"))
        assert core.check(require_closed=True).ok


def test_a_wallet_shared_by_tables_betting_at_once_never_goes_below_zero(ledger):
    """Eight tables, each with its own core (its own connections), bet on one wallet at once."""
    tables = [f"T{i}" for i in range(8)]
    with SettlementCore(ledger) as setup:
        setup.apply(wallet(1, "shared", 10_000))
    accepted: dict[str, list[str]] = {t: [] for t in tables}
    refused: dict[str, list[str]] = {t: [] for t in tables}
    errors: list[BaseException] = []
    start = threading.Barrier(len(tables))

    def table(name: str) -> None:
        try:
            with SettlementCore(ledger, pool_size=1) as core:
                start.wait()
                for n in range(1, 16):
                    message = bet("R1", n, "shared", "P1", 50)  # deducts 100
                    try:
                        core.apply(message, table=name)
                        accepted[name].append(message["key"])
                    except SettlementRefused as exc:
                        assert exc.reason == "insufficient_funds", exc
                        refused[name].append(message["key"])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=table, args=(t,)) for t in tables]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not errors, errors
    total = sum(len(v) for v in accepted.values())
    assert total == 100  # exactly the wallet's 10,000: never more, and nothing deducted twice
    with SettlementCore(ledger) as core:
        assert core.balances() == {"shared": 0}
        report = core.check()
        assert report.ok, report.problems
        assert report.figures["bets_open"] == 100 and report.figures["in_play"] == 10_000
        for name in tables:
            for key in accepted[name]:
                assert core.applied(key, table=name)["deducted"] == 100
            for key in refused[name]:
                assert core.applied(key, table=name) is None


def test_amounts_beyond_the_bounds_are_refused_on_record_and_nothing_overflows(ledger):
    with SettlementCore(ledger) as core:
        outcome = core.apply_batch([wallet(1, "u1", 2**63), wallet(2, "u2", 5)])
        assert outcome.results == [] and outcome.refused.reason == "out_of_bounds"
        (refusal,) = core.refusals()
        assert refusal["key"] == "wallet:1" and refusal["reason"] == "out_of_bounds"
        # the queue behind it flows: the next delivery starts after the refused message
        core.apply(wallet(2, "u2", 5))
        for n, who in ((3, "a"), (4, "b")):
            core.apply(wallet(n, who, MAX_AMOUNT))  # the largest balances, summed exactly
        with pytest.raises(SettlementRefused) as err:
            core.apply(wallet(5, "c", MAX_AMOUNT + 1))
        assert err.value.reason == "out_of_bounds"
        with pytest.raises(SettlementRefused) as err:
            core.apply(bet("R1", 1, "a", "P1", MAX_AMOUNT + 1))
        assert err.value.reason == "out_of_bounds"
        with pytest.raises(SettlementRefused) as err:
            core.apply(dict(wallet(6, "d", 5), t=float("nan")))
        assert err.value.reason == "malformed"
        core.apply(bet("R1", 1, "a", "P1", MAX_AMOUNT // 2))
        report = core.check()
        assert report.ok, report.problems
        balances = core.balances()
        assert balances == {"u2": 5, "a": 0, "b": MAX_AMOUNT}
        assert all(type(b) is int for b in balances.values())
        assert report.figures["refused"] == 3
        assert {r["key"] for r in core.refusals()} == {"wallet:1", "wallet:5", "wallet:6"}


def test_ledger_check_never_overflows_on_books_tampered_beyond_64_bits(ledger):
    with SettlementCore(ledger) as core:
        core.apply(wallet(1, "u1", 1000))
        core.apply(wallet(2, "u2", 1000))
    big = 2**62 + 1
    # two wallets of 2^62 + 1 written behind the ledger's back: their sum passes 2^63
    run_sql(ledger, "UPDATE accounts SET balance = ? WHERE kind = 'wallet'", (big,))
    run_sql(ledger, "UPDATE postings SET amount = ? WHERE amount = 1000", (big,))
    done = ledger_check(ledger, "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"postings sum to {2 * big - 2000}, not 0" in done.stdout
    assert "integer overflow" not in done.stdout + done.stderr
    balances = subprocess.run(
        [sys.executable, "-m", "station", "ledger", "balances", "--ledger", str(ledger)],
        cwd=REPO, env=env_with_secret(), capture_output=True, text=True, timeout=60)
    assert balances.returncode == 0 and f'"u1": {big}' in balances.stdout


@pytest.mark.postgres
def test_several_settlement_processes_share_one_postgresql_ledger(request, tmp_path):
    """Two `station settlement serve` processes on one database, a station each."""
    from station.settlement.sim import MiniStation, plan_session
    from station.settlement.transport import HttpTransport
    from tests.settlement.helpers import SECRET, free_port, kill, start_service

    server = request.getfixturevalue("local_postgres")
    url = server.create_database("two_services")
    sessions = {name: plan_session(seed, 15, table=name) for seed, name in ((1, "PD-A"), (2, "PD-B"))}
    # each table's players are its own (u01..): keep them apart in the shared ledger
    for name, session in sessions.items():
        for m in session.messages:
            if "account" in m:
                m["account"] = f"{name}.{m['account']}"
            for item in m.get("settlement", ()):
                item["account"] = f"{name}.{item['account']}"
            m["table"] = name
    services = []
    try:
        for name in sessions:
            port = free_port()
            services.append((name, port, start_service(url, port)))
        stations = []
        for name, port, _ in services:
            transport = HttpTransport(f"http://127.0.0.1:{port}", SECRET, timeout=10)
            stations.append((MiniStation(tmp_path / f"{name}.db", transport), transport, name))
        results: dict[str, bool] = {}
        threads = [threading.Thread(target=lambda s=s, n=n: results.__setitem__(
            n, s.run(sessions[n].messages, drain_timeout=60))) for s, _, n in stations]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
        assert results == {"PD-A": True, "PD-B": True}
        for station, transport, _ in stations:
            station.close()
            transport.close()
    finally:
        for _, _, proc in services:
            kill(proc)
    with SettlementCore(url) as core:
        expected = {}
        for name, session in sessions.items():
            expected.update({f"{name}.{a}": b for a, b in session.balances.items()})
        assert core.balances() == expected
        report = core.check(require_closed=True)
        assert report.ok, report.problems


def test_a_single_tables_format_1_ledger_is_carried_over(tmp_path):
    path = tmp_path / "ledger.sqlite"
    shutil.copy(DATA / "ledger_v1.sqlite", path)
    with SettlementCore(path) as core:
        assert core.balances() == {"u1": 1200, "u2": 400}
        report = core.check()
        assert report.ok, report.problems
        assert report.figures["bets_settled"] == 1 and report.figures["bets_open"] == 1
        # keys applied before are still known
        assert core.applied("hand:R1")["returned"] == 400
        core.apply({"key": "cancel:R2", "kind": "round_cancelled", "round_id": "R2",
                    "reason": "link_lost"})
        assert core.balances() == {"u1": 1200, "u2": 500}
        assert core.check(require_closed=True).ok
    assert counts(path) == (13, 6, 2)


@pytest.mark.postgres
def test_a_database_that_is_not_a_ledger_is_refused(request):
    server = request.getfixturevalue("local_postgres")
    url = server.create_database("not_a_ledger")
    run_sql(url, "CREATE TABLE journal (step INTEGER)")
    with pytest.raises(LedgerError, match="not a settlement ledger"):
        open_store(url)
    done = ledger_check(url)
    assert done.returncode == 2 and "not a settlement ledger" in done.stderr


def books(core: SettlementCore) -> tuple[list, list, list]:
    """The entries (key, kind, result), the accounts in the order they were made, and the
    postings (entry key, account, amount), as rows comparable between two ledgers."""
    with core.store.transaction(read_only=True) as tx:
        entries = [tuple(r) for r in tx.execute(
            "SELECT table_id, key, kind, result FROM entries ORDER BY id")]
        accounts = [tuple(r) for r in tx.execute(
            "SELECT id, kind, table_id, name, balance FROM accounts ORDER BY id")]
        postings = [tuple(r) for r in tx.execute(
            "SELECT e.key, p.account_id, p.amount FROM postings p JOIN entries e"
            " ON e.id = p.entry_id ORDER BY p.id")]
    return entries, accounts, postings


class GeneralPath(SettlementCore):
    """The core without its fast path for runs: every message through the general path."""

    fast_runs = False


def apply_in_batches(core: SettlementCore, messages: list, batch: int,
                     table: str | None = None) -> list:
    """Every message's answer, in order: its result, or ("refused", key, reason)."""
    answers: list = []
    i = 0
    while i < len(messages):
        outcome = core.apply_batch(messages[i:i + batch], table=table)
        answers.extend(outcome.results)
        i += len(outcome.results)
        if outcome.refused is not None:
            answers.append(("refused", outcome.refused.key, outcome.refused.reason))
            i += 1
    return answers


def test_runs_of_wallet_sets_in_one_batch_give_what_one_by_one_gives(ledger, tmp_path):
    """A table opens with its players' wallets: the fast path for runs of wallet sets against
    the general path, message for message — new and known wallets, one set twice in a run, a
    set to the same balance, repeats, a key reused, bad balances and a wallet set naming
    another table in the middle, bets between runs."""
    messages = [wallet(20, "zed", 5), wallet(21, "amy", 6),  # made in message order, not name order
                wallet(1, "u1", 1000), wallet(2, "u2", 500), wallet(3, "u1", 700),
                wallet(4, "u3", 0), wallet(5, "u2", 500),
                wallet(1, "u1", 1000),  # a repeat
                wallet(6, "u4", 300),
                dict(wallet(2, "u2", 501)),  # the key reused with other content
                wallet(7, "u5", -1), wallet(8, "u5", MAX_AMOUNT + 1),
                dict(wallet(9, "u5", 10), balance=True),
                dict(wallet(10, "u6", 10), table="PD-02"),
                wallet(11, "u6", 40),
                bet("R1", 1, "u1", "P1", 100), bet("R1", 2, "u2", "P2", 50),
                wallet(12, "u1", 5000), wallet(13, "u7", 20), wallet(14, "u1", 4000)]
    with SettlementCore(ledger) as fast, GeneralPath(tmp_path / "one_by_one.db") as slow:
        in_batches = apply_in_batches(fast, messages, 500, table="PD-01")
        one_by_one = apply_in_batches(slow, messages, 1, table="PD-01")
        assert in_batches == one_by_one
        refused = {a[1]: a[2] for a in in_batches if isinstance(a, tuple)}
        assert set(refused) == {"wallet:2", "wallet:7", "wallet:8", "wallet:9", "wallet:10"}
        assert refused["wallet:2"] == "key_reused" and refused["wallet:8"] == "out_of_bounds"
        assert fast.balances() == slow.balances() == {
            "u1": 4000, "u2": 400, "u3": 0, "u4": 300, "u6": 40, "u7": 20, "zed": 5, "amy": 6}
        assert fast.check().ok and slow.check().ok
        # the books hold the same entries, accounts and postings, whichever path wrote them
        assert counts(ledger) == counts(tmp_path / "one_by_one.db")
        assert books(fast) == books(slow)


def test_runs_of_bets_in_one_batch_give_what_one_by_one_gives(ledger, tmp_path):
    """The fast path for runs of bets against the general path, message for message: repeats,
    a bet beyond the wallet, a closed round, a wallet that does not exist, in the middle."""
    from station.settlement.sim import plan_session

    session = plan_session(21, 12, accounts=4, bets_per_round=(6, 20))
    messages = list(session.messages)
    bets = [m for m in messages if m["kind"] == "bet"]
    first_hand = next(i for i, m in enumerate(messages) if m["kind"] == "hand")
    odd = [dict(bets[0]),  # a repeat
           dict(bets[1], key="bet:late:1"),  # its round is closed by then
           dict(bets[2], key="bet:nobody:1", account="nobody", round_id="X-R1"),
           dict(bets[3], key="bet:rich:1", round_id="X-R1", amount=10**9, deducted=2 * 10**9 if
                not bets[3]["spot"].endswith("PAIR") else 10**9),
           dict(bets[0], key=bets[0]["key"], amount=bets[0]["amount"] + 1)]  # key reused
    mixed = messages[:first_hand + 1] + odd + messages[first_hand + 1:]

    with SettlementCore(ledger) as fast, GeneralPath(tmp_path / "one_by_one.db") as slow:
        in_batches = apply_in_batches(fast, mixed, 500)
        one_by_one = apply_in_batches(slow, mixed, 1)
        assert in_batches == one_by_one
        refused = {a[1]: a[2] for a in in_batches if isinstance(a, tuple)}
        assert refused == {"bet:late:1": "round_closed", "bet:nobody:1": "no_wallet",
                           "bet:rich:1": "insufficient_funds", bets[0]["key"]: "key_reused"}
        assert fast.balances() == slow.balances()
        assert fast.check().ok and slow.check().ok
