"""The outbox and its delivery worker, with the settlement core in-process and over HTTP."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from station.settlement.core import SettlementCore
from station.settlement.outbox import DeliveryWorker, TransportError, enqueue
from station.settlement.sim import MiniStation, open_journal, plan_session
from station.settlement.transport import HttpTransport, InProcessTransport
from tests.settlement.helpers import SECRET, free_port, kill, start_service
from tests.waiting import wait_for


def outbox_rows(journal: Path) -> list[tuple[str, bool, int, str | None]]:
    with sqlite3.connect(journal) as conn:
        return conn.execute(
            "SELECT key, delivered_at IS NOT NULL, attempts, last_error FROM settlement_outbox"
            " ORDER BY seq").fetchall()


def test_enqueue_joins_the_callers_transaction(tmp_path):
    conn = open_journal(tmp_path / "journal.db")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO journal (step, t, record) VALUES (0, 0, '{}')")
    enqueue(conn, {"key": "wallet:1", "kind": "wallet", "account": "u1", "balance": 5})
    conn.execute("ROLLBACK")  # the journal entry did not happen, so neither did the message
    assert outbox_rows(tmp_path / "journal.db") == []
    conn.execute("BEGIN")
    enqueue(conn, {"key": "wallet:1", "kind": "wallet", "account": "u1", "balance": 5})
    enqueue(conn, {"key": "wallet:1", "kind": "wallet", "account": "u1", "balance": 5})
    conn.execute("COMMIT")
    assert [r[0] for r in outbox_rows(tmp_path / "journal.db")] == ["wallet:1"]
    for bad in ({"kind": "wallet"}, {"key": "", "kind": "wallet"}, {"key": "k"}, ["key"],
                {"key": "k", "kind": "bet", "amount": float("nan")}):
        with pytest.raises((ValueError, TypeError)):
            enqueue(conn, bad)


def test_a_session_delivered_in_process_ends_with_the_planned_balances(tmp_path, ledger):
    session = plan_session(seed=7, rounds=30)
    with SettlementCore(ledger) as core:
        station = MiniStation(tmp_path / "journal.db", InProcessTransport(core))
        assert station.run(session.messages, drain_timeout=60)
        station.close()
        assert core.balances() == session.balances
        report = core.check(require_closed=True)
        assert report.ok, report.problems
        assert report.figures["bets_settled"] + report.figures["bets_refunded"] == session.bets
    rows = outbox_rows(tmp_path / "journal.db")
    assert len(rows) == len(session.messages) and all(delivered for _, delivered, _, _ in rows)


def test_a_refused_message_is_recorded_alarmed_and_the_queue_behind_it_flows(tmp_path, ledger):
    journal = tmp_path / "journal.db"
    conn = open_journal(journal)
    bad_hand = {"key": "hand:R1", "kind": "hand", "round_id": "R1", "game": "pokdeng",
                "cards": {"P1": ["7H", "2H"], "P2": ["AS", "2C"], "P3": ["KS", "QS"],
                          "P4": ["5D", "5C"], "P5": ["3H", "4D"], "B": ["6S", "TC"]},
                "settlement": [{"account": "u1", "spot": "P1", "amount": 100, "deducted": 200,
                                "returned": 300}]}  # the cards give 400
    conn.execute("BEGIN")
    for message in (
        {"key": "wallet:1", "kind": "wallet", "account": "u1", "balance": 1000},
        {"key": "bet:R1:1", "kind": "bet", "round_id": "R1", "game": "pokdeng", "account": "u1",
         "spot": "P1", "amount": 100, "deducted": 200},
        bad_hand,
        # a balance that can never apply (issue 12: it used to fail on every try, for ever)
        {"key": "wallet:2", "kind": "wallet", "account": "u2", "balance": 2**63},
        {"key": "wallet:3", "kind": "wallet", "account": "u3", "balance": 50},
    ):
        enqueue(conn, message)
    conn.execute("COMMIT")
    reports: list[tuple[Exception, str | None]] = []
    with SettlementCore(ledger) as core:
        worker = DeliveryWorker(journal, InProcessTransport(core),
                                on_error=lambda exc, key: reports.append((exc, key)),
                                first_backoff=0.01, max_backoff=0.05)
        assert worker.drain(timeout=5) is True
        worker.stop()
        # the bet stays in play (its round is unresolved); the wallets behind flowed
        assert core.balances() == {"u1": 800, "u3": 50}
        report = core.check()
        assert report.ok and report.figures["refused"] == 2
        assert [(r["key"], r["reason"]) for r in core.refusals()] == [
            ("hand:R1", "returned_mismatch"), ("wallet:2", "out_of_bounds")]
    # each refusal alarmed once
    assert [(type(e).__name__, e.reason, key) for e, key in reports] == [
        ("SettlementRefused", "returned_mismatch", "hand:R1"),
        ("SettlementRefused", "out_of_bounds", "wallet:2")]
    rows = outbox_rows(journal)
    assert all(delivered for _, delivered, _, _ in rows)
    assert "returned_mismatch" in rows[2][3] and "out_of_bounds" in rows[3][3]
    assert [r["key"] for r in worker.refused()] == ["hand:R1", "wallet:2"]
    assert worker.pending() == 0


def test_the_worker_keeps_up_with_a_station_writing_the_same_file(tmp_path, ledger):
    """The table core writes through its own connection while the worker thread delivers."""
    session = plan_session(seed=11, rounds=40)
    journal = tmp_path / "journal.db"
    with SettlementCore(ledger) as core:
        worker = DeliveryWorker(journal, InProcessTransport(core), poll_interval=0.02)
        worker.start()
        conn = open_journal(journal)

        def station() -> None:
            for step, message in enumerate(session.messages):
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("INSERT INTO journal (step, t, record) VALUES (?, 0, '{}')", (step,))
                enqueue(conn, message)
                conn.execute("COMMIT")
                if step % 3 == 0:
                    worker.wake()  # not always: the worker must also find work by polling

        writer = threading.Thread(target=station)
        writer.start()
        writer.join(60)
        assert worker.drain(timeout=60)
        worker.stop()
        assert core.balances() == session.balances
        assert core.check(require_closed=True).ok


def test_nothing_is_lost_while_the_settlement_service_is_down(tmp_path, ledger):
    session = plan_session(seed=3, rounds=10)
    port = free_port()
    journal = tmp_path / "journal.db"
    transport = HttpTransport(f"http://127.0.0.1:{port}", SECRET, timeout=5)
    errors: list[Exception] = []
    station = MiniStation(journal, transport, on_error=lambda exc, key: errors.append(exc))
    station.worker.first_backoff, station.worker.max_backoff = 0.01, 0.1
    assert station.run(session.messages, drain_timeout=0.5) is False  # nobody is listening
    assert errors and isinstance(errors[-1], TransportError)
    assert not any(delivered for _, delivered, _, _ in outbox_rows(journal))
    service = start_service(ledger, port)
    try:
        assert station.worker.drain(timeout=30)
    finally:
        station.close()
        transport.close()
        kill(service)
    with SettlementCore(ledger) as core:
        assert core.balances() == session.balances
        assert core.check(require_closed=True).ok


def test_drain_from_many_threads_delivers_each_message_once(tmp_path, ledger):
    session = plan_session(seed=5, rounds=20)
    journal = tmp_path / "journal.db"
    conn = open_journal(journal)
    conn.execute("BEGIN")
    for message in session.messages:
        enqueue(conn, message)
    conn.execute("COMMIT")
    with SettlementCore(ledger) as core:
        worker = DeliveryWorker(journal, InProcessTransport(core), batch_size=7)
        worker.start()
        results: list[bool] = []
        threads = [threading.Thread(target=lambda: results.append(worker.drain(30)))
                   for _ in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        # the last batch is counted just after its rows are marked delivered
        wait_for(lambda: worker.delivered == len(session.messages), 10,
                 lambda: f"every message counted delivered ({worker.delivered} of {len(session.messages)})")
        worker.stop()
        assert results == [True] * 4
        assert worker.delivered == len(session.messages)
        assert core.balances() == session.balances
        assert core.check(require_closed=True).ok
