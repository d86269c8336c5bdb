"""The betting platform's HTTP API, over a real uvicorn server, on a real journaled bet book."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import httpx
import pytest

from station.settlement.bet_api import make_bet_app
from station.settlement.core import SettlementCore
from station.settlement.outbox import DeliveryWorker
from station.settlement.sim import BetBook
from station.settlement.transport import InProcessTransport
from tests.settlement.helpers import serve_in_thread

KEY = "k-platform-one-7c1d"
AUTH = {"Authorization": f"Bearer {KEY}"}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def table(tmp_path: Path):
    clock = Clock()
    book = BetBook(tmp_path / "journal.db", clock=clock, limit=5000)
    book.set_wallet("u1", 1000)
    book.set_wallet("u2", 100_000)
    with serve_in_thread(make_bet_app(book.place_bets, {KEY: "platform-one"})) as url:
        with httpx.Client(base_url=url, headers=AUTH, timeout=10) as client:
            yield client, book, clock, tmp_path / "journal.db"


def journal_size(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0]


def test_without_a_known_key_nothing_is_placed(table):
    client, book, _, journal = table
    book.open_round("PD-01-S1-R1", closes_at=115.0)
    before = journal_size(journal)
    bet = {"account": "u1", "spot": "P1", "amount": 100}
    for headers in ({"Authorization": ""}, {"Authorization": "Bearer wrong"},
                    {"Authorization": f"Basic {KEY}"}):
        answer = client.post("/v1/bets", json=bet, headers=headers)
        assert answer.status_code == 401 and answer.json()["error"] == "unauthorized"
    assert journal_size(journal) == before and book.balances["u1"] == 1000


def test_bets_are_decided_by_the_table_with_trace_reasons(table):
    client, book, clock, _ = table
    answer = client.post("/v1/bets", json={"account": "u1", "spot": "P1", "amount": 100})
    assert answer.status_code == 409 and answer.json()["reason"] == "no_round"
    book.open_round("PD-01-S1-R1", closes_at=115.0)
    answer = client.post("/v1/bets", json={"account": "u1", "spot": "P3", "amount": 100})
    assert answer.status_code == 200
    record = answer.json()
    assert record["type"] == "bet_accepted" and record["deducted"] == 200
    assert record["round_id"] == "PD-01-S1-R1"
    cases = [({"account": "u1", "spot": "P9", "amount": 100}, "bad_spot"),
             ({"account": "u1", "spot": "P1", "amount": 0}, "bad_amount"),
             ({"account": "u2", "spot": "P1", "amount": 6000}, "limit"),
             ({"account": "u1", "spot": "P1", "amount": 500}, "insufficient_funds"),
             ({"account": "nobody", "spot": "P1", "amount": 10}, "insufficient_funds")]
    for bet, reason in cases:
        answer = client.post("/v1/bets", json=bet)
        assert answer.status_code == 409, bet
        assert answer.json()["type"] == "bet_rejected"
        assert answer.json()["error"] == "bet_rejected" and answer.json()["reason"] == reason
    clock.now = 115.0  # at closes_at betting is over
    answer = client.post("/v1/bets", json={"account": "u2", "spot": "P1", "amount": 10})
    assert answer.status_code == 409 and answer.json()["reason"] == "betting_closed"
    assert book.balances == {"u1": 800, "u2": 100_000}


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        (b"{not json", 400, "bad_json"),
        (b'{"account": "u1", "spot": "P1", "amount": "100"}', 422, "bad_bet"),
        (b'{"account": "u1", "spot": "P1", "amount": 100.0}', 422, "bad_bet"),
        (b'{"account": "u1", "spot": "P1", "amount": true}', 422, "bad_bet"),
        (b'{"account": "u1", "amount": 100}', 422, "bad_bet"),
        (b'{"account": "", "spot": "P1", "amount": 100}', 422, "bad_bet"),
        (b'{"account": "u1", "spot": "P1", "amount": 100, "ammount": 5}', 422, "bad_bet"),
        (b'[{"account": "u1", "spot": "P1", "amount": 100}]', 422, "bad_bet"),
    ],
)
def test_malformed_single_bets_get_json_errors_and_place_nothing(table, body, status, error):
    client, book, _, journal = table
    book.open_round("PD-01-S1-R1", closes_at=115.0)
    before = journal_size(journal)
    answer = client.post("/v1/bets", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == status
    assert answer.json()["error"] == error and answer.json()["reason"]
    assert journal_size(journal) == before


def test_a_batch_is_decided_bet_by_bet_but_rejected_whole_if_malformed(table):
    client, book, _, journal = table
    book.open_round("PD-01-S1-R1", closes_at=115.0)
    before = journal_size(journal)
    bad = [{"account": "u1", "spot": "P1", "amount": 100}, {"account": "u1", "spot": "P2"}]
    answer = client.post("/v1/bets/batch", json=bad)
    assert answer.status_code == 422 and answer.json()["index"] == 1
    assert journal_size(journal) == before and book.balances["u1"] == 1000
    for body in ([], {"bets": []}):
        assert client.post("/v1/bets/batch", json=body).status_code == 422
    too_many = [{"account": "u2", "spot": "P1", "amount": 1}] * 1001
    assert client.post("/v1/bets/batch", json=too_many).status_code == 413

    batch = [{"account": "u1", "spot": "P1", "amount": 300},
             {"account": "u1", "spot": "P1PAIR", "amount": 300},
             {"account": "u1", "spot": "P2", "amount": 100},  # 1000 - 600 - 300 = 100 < 200
             {"account": "u1", "spot": "P2PAIR", "amount": 100, "ref": "slip-9"}]
    answer = client.post("/v1/bets/batch", json=batch)
    assert answer.status_code == 200
    results = answer.json()["results"]
    assert [r["type"] for r in results] == ["bet_accepted", "bet_accepted", "bet_rejected",
                                            "bet_accepted"]
    assert results[2]["reason"] == "insufficient_funds"
    assert book.balances["u1"] == 0


def test_accepted_bets_reach_the_ledger_and_concurrent_bets_never_overdraw(table, tmp_path):
    client, book, _, journal = table
    book.open_round("PD-01-S1-R1", closes_at=115.0)
    url = str(client.base_url)
    accepted: list[dict] = []
    lock = threading.Lock()

    def platform() -> None:
        with httpx.Client(base_url=url, headers=AUTH, timeout=30) as own:
            for _ in range(15):
                answer = own.post("/v1/bets", json={"account": "u1", "spot": "P4", "amount": 50})
                assert answer.status_code in (200, 409)
                if answer.status_code == 200:
                    with lock:
                        accepted.append(answer.json())

    threads = [threading.Thread(target=platform) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert len(accepted) == 10  # 1000 / (2 x 50): 90 tries, exactly ten fit
    assert book.balances["u1"] == 0
    with SettlementCore(tmp_path / "ledger.db") as core:
        worker = DeliveryWorker(journal, InProcessTransport(core))
        assert worker.drain(30)
        worker.stop()
        assert core.balances() == {"u1": 0, "u2": 100_000}
        report = core.check()
        assert report.ok and report.figures["bets_open"] == 10


def test_bets_arriving_together_share_a_commit_and_keep_their_answers(tmp_path):
    book = BetBook(tmp_path / "journal.db")
    for i in range(20):
        book.set_wallet(f"p{i}", 1000 * (i + 1))
    book.open_round("PD-01-S1-R1", closes_at=1e12)
    calls: list[int] = []

    def slow_place_bets(bets: list[dict]) -> list[dict]:
        calls.append(len(bets))
        time.sleep(0.3)  # a slow disk: requests pile up meanwhile
        return book.place_bets(bets)

    answers: dict[int, httpx.Response] = {}
    start = threading.Barrier(20)
    with serve_in_thread(make_bet_app(slow_place_bets, {KEY: "p"})) as url:
        def one(i: int) -> None:
            with httpx.Client(base_url=url, headers=AUTH, timeout=30) as client:
                start.wait(30)
                # p{i} holds 1000(i+1): 600(i+1) is affordable, so every answer differs
                answers[i] = client.post(
                    "/v1/bets", json={"account": f"p{i}", "spot": "P2", "amount": 300 * (i + 1)})

        threads = [threading.Thread(target=one, args=(i,)) for i in range(20)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
    assert sum(calls) == 20 and len(calls) < 20, calls
    for i, answer in answers.items():
        assert answer.status_code == 200
        assert answer.json()["account"] == f"p{i}" and answer.json()["deducted"] == 600 * (i + 1)
    assert all(book.balances[f"p{i}"] == 400 * (i + 1) for i in range(20))


def test_when_the_station_cannot_record_the_platform_hears_nothing_was_placed(tmp_path):
    book = BetBook(tmp_path / "journal.db")
    book.set_wallet("u1", 1000)
    book.open_round("PD-01-S1-R1", closes_at=1e12)

    def full_disk(bets: list[dict]) -> list[dict]:
        raise sqlite3.OperationalError("database or disk is full")

    with serve_in_thread(make_bet_app(full_disk, {KEY: "p"})) as url:
        answer = httpx.post(url + "/v1/bets", headers=AUTH, timeout=10,
                            json={"account": "u1", "spot": "P1", "amount": 10})
    assert answer.status_code == 503
    assert answer.json()["error"] == "unavailable" and "disk is full" in answer.json()["reason"]
    assert book.balances["u1"] == 1000
