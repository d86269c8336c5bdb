"""The betting platform's HTTP API, over a real uvicorn server, on the real table station:
a `TableStation` with its journal, fed a recorded shoe up to an open round (the bet API is an
input of the table: what it sends is decided by the table core on its journaled input path)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import httpx
import pytest

from station.core.inputs import US, read_trace
from station.core.replay import settings_from_header
from station.live.bet_api import make_bet_app
from station.live.table_station import TableStation
from station.settlement.core import SettlementCore
from station.settlement.outbox import DeliveryWorker
from station.settlement.transport import InProcessTransport
from tests.settlement.helpers import serve_in_thread
from tests.waiting import pace

KEY = "k-platform-one-7c1d"
AUTH = {"Authorization": f"Bearer {KEY}"}
TRACE = Path(__file__).resolve().parents[1] / "data" / "traces" / "clean_shoe" / "trace.jsonl"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class LiveTable:
    """A real table station fed a recorded shoe; `open_round()` plays it to its first open
    round (the trace's own bets and wallets left out), so the test's bets are the only ones."""

    def __init__(self, journal: Path, *, max_bet: int = 5000) -> None:
        self.clock = Clock()
        header, inputs = read_trace(TRACE)
        settings = settings_from_header(header).with_overrides({"max_bet": max_bet})
        self.inputs = [i for i in inputs if i.kind not in ("bet", "wallet", "end")]
        self.station = TableStation(settings, journal, clock=self.clock)
        self.station.start()
        self.journal = journal
        self.closes_at: float | None = None

    @property
    def balances(self) -> dict[str, int]:
        return dict(self.station.core.balances)

    def set_wallet(self, account: str, balance: int) -> None:
        self.station.submit("wallet", {"account": account, "balance": balance})

    def open_round(self) -> None:
        """Feed the shoe until its first round is open for bets."""
        for pos, inp in enumerate(self.inputs):
            self.clock.now = 1000.0 + inp.t_us / US
            records = self.station.submit(inp.kind, inp.value, inp.user)
            opened = next((r for r in records if r["type"] == "round_open"), None)
            if opened is not None:
                self.closes_at = 1000.0 + opened["closes_at"]
                self.inputs = self.inputs[pos + 1:]
                return
        raise AssertionError("the trace opened no round")

    def close_betting(self) -> None:
        assert self.closes_at is not None
        self.clock.now = self.closes_at

    def stop(self) -> None:
        self.station.stop()


@pytest.fixture
def live(tmp_path: Path, request: pytest.FixtureRequest):
    table = LiveTable(tmp_path / "journal.sqlite", **getattr(request, "param", {}))
    yield table
    table.stop()


@pytest.fixture
def table(live: LiveTable):
    live.set_wallet("u1", 1000)
    live.set_wallet("u2", 100_000)
    with serve_in_thread(make_bet_app(live.station.place_bets, {KEY: "platform-one"},
                                      set_wallet=live.set_wallet)) as url:
        with httpx.Client(base_url=url, headers=AUTH, timeout=10) as client:
            yield client, live, live.journal


def journal_size(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM inputs").fetchone()[0]


def test_without_a_known_key_nothing_is_placed(table):
    client, book, journal = table
    book.open_round()
    before = journal_size(journal)
    bet = {"account": "u1", "spot": "P1", "amount": 100}
    for headers in ({"Authorization": ""}, {"Authorization": "Bearer wrong"},
                    {"Authorization": f"Basic {KEY}"}):
        answer = client.post("/v1/bets", json=bet, headers=headers)
        assert answer.status_code == 401 and answer.json()["error"] == "unauthorized"
    assert journal_size(journal) == before and book.balances["u1"] == 1000


def test_bets_are_decided_by_the_table_with_trace_reasons(table):
    client, book, _ = table
    answer = client.post("/v1/bets", json={"account": "u1", "spot": "P1", "amount": 100})
    assert answer.status_code == 409 and answer.json()["reason"] == "no_round"
    book.open_round()
    answer = client.post("/v1/bets", json={"account": "u1", "spot": "P3", "amount": 100})
    assert answer.status_code == 200
    record = answer.json()
    assert record["type"] == "bet_accepted" and record["deducted"] == 200
    assert record["round_id"].startswith("PD-01-S") and record["round_id"].endswith("-R1")
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
    book.close_betting()  # at closes_at betting is over
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
    client, book, journal = table
    book.open_round()
    before = journal_size(journal)
    answer = client.post("/v1/bets", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == status
    assert answer.json()["error"] == error and answer.json()["reason"]
    assert journal_size(journal) == before


def test_a_batch_is_decided_bet_by_bet_but_rejected_whole_if_malformed(table):
    client, book, journal = table
    book.open_round()
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
    client, book, journal = table
    book.open_round()
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


@pytest.mark.parametrize("live", [{"max_bet": 0}], indirect=True)
def test_bets_arriving_together_share_a_commit_and_keep_their_answers(live):
    book = live
    for i in range(20):
        book.set_wallet(f"p{i}", 1000 * (i + 1))
    book.open_round()
    calls: list[int] = []

    def slow_place_bets(bets: list[dict]) -> list[dict]:
        calls.append(len(bets))
        pace(0.3)  # a slow disk: requests pile up meanwhile
        return book.station.place_bets(bets)

    answers: dict[int, httpx.Response] = {}
    start = threading.Barrier(20)
    with serve_in_thread(make_bet_app(slow_place_bets, {KEY: "p"}, max_batch=1000)) as url:
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
        assert answer.status_code == 200, answer.text
        assert answer.json()["account"] == f"p{i}" and answer.json()["deducted"] == 600 * (i + 1)
    assert all(book.balances[f"p{i}"] == 400 * (i + 1) for i in range(20))


def test_when_the_station_cannot_record_the_platform_hears_nothing_was_placed(live):
    book = live
    book.set_wallet("u1", 1000)
    book.open_round()

    def full_disk(bets: list[dict]) -> list[dict]:
        raise sqlite3.OperationalError("database or disk is full")

    with serve_in_thread(make_bet_app(full_disk, {KEY: "p"})) as url:
        answer = httpx.post(url + "/v1/bets", headers=AUTH, timeout=10,
                            json={"account": "u1", "spot": "P1", "amount": 10})
    assert answer.status_code == 503
    assert answer.json()["error"] == "unavailable" and "disk is full" in answer.json()["reason"]
    assert book.balances["u1"] == 1000


def _restarts(live: LiveTable) -> dict[str, int]:
    """Stop the table and start a new station on its journal: it must re-apply every input."""
    live.station.stop()
    again = TableStation(live.station.settings, live.journal, clock=live.clock)
    again.start()
    try:
        return dict(again.core.balances)
    finally:
        again.stop()


def test_refs_are_bounded_nonempty_and_never_reused_for_another_bet(table):
    client, book, journal = table
    book.open_round()
    before = journal_size(journal)
    for ref in ("r" * 129, "r" * 200, "", 7):
        answer = client.post("/v1/bets", json={"account": "u1", "spot": "P1", "amount": 10, "ref": ref})
        assert answer.status_code == 422 and answer.json()["field"] == "ref", ref
    assert journal_size(journal) == before
    first = client.post("/v1/bets", json={"account": "u1", "spot": "P1", "amount": 100, "ref": "slip-1"})
    assert first.status_code == 200 and first.json()["deducted"] == 200  # twice the stake
    # the same bet again is a retry: the first answer, deducted once
    again = client.post("/v1/bets", json={"account": "u1", "spot": "P1", "amount": 100, "ref": "slip-1"})
    assert again.status_code == 200 and again.json() == first.json()
    # the same ref for another bet is refused, and places nothing
    for other in ({"spot": "P2", "amount": 100}, {"spot": "P1", "amount": 300}):
        answer = client.post("/v1/bets", json={"account": "u1", "ref": "slip-1", **other})
        assert answer.status_code == 409 and answer.json()["error"] == "ref_reused"
        assert answer.json()["first"] == first.json()
    batch = client.post("/v1/bets/batch", json=[
        {"account": "u1", "spot": "P3", "amount": 50, "ref": "slip-1"},
        {"account": "u1", "spot": "P3", "amount": 50, "ref": "slip-2"}]).json()["results"]
    assert batch[0]["type"] == "ref_reused" and batch[1]["type"] == "bet_accepted"
    assert book.balances["u1"] == 1000 - 200 - 100
    # a ref of exactly 128 characters is fine, and the journal replays after all of it
    long_ref = client.post("/v1/bets", json={"account": "u1", "spot": "P4", "amount": 10, "ref": "x" * 128})
    assert long_ref.status_code == 200
    book.close_betting()
    late = client.post("/v1/bets", json={"account": "u2", "spot": "P4", "amount": 10, "ref": "y" * 128})
    assert late.status_code == 409 and late.json()["reason"] == "betting_closed"
    assert _restarts(book) == {"u1": 680, "u2": 100_000}


@pytest.mark.parametrize("amount", [2**63, 2**62 + 1, 10**15 + 1, -(2**63), 10**30])
def test_amounts_beyond_the_maximum_are_refused_before_the_journal(table, amount):
    client, book, journal = table
    book.open_round()
    before = journal_size(journal)
    answer = client.post("/v1/bets", json={"account": "u2", "spot": "P1", "amount": amount})
    assert answer.status_code == 422 and answer.json()["field"] == "amount"
    answer = client.post("/v1/wallets", json={"account": "u9", "balance": amount})
    assert answer.status_code == 422 and answer.json()["field"] == "balance"
    assert journal_size(journal) == before
    assert client.post("/v1/wallets", json={"account": "u9", "balance": 10**15}).status_code == 200
    assert _restarts(book)["u9"] == 10**15


@pytest.mark.parametrize("body", [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"account": "u1", "spot": "P1", "amount": NaN}',
    b'{"account": "u1", "spot": "P1", "amount": Infinity}',
    b'{"account": "' + b"a" * 5000 + b'", "spot": "P1", "amount": 1}',
    b'{"account": {"a": {"b": {"c": {"d": 1}}}}, "spot": "P1", "amount": 1}',
])
def test_hostile_bodies_are_a_4xx_on_every_bet_endpoint(table, body):
    client, book, journal = table
    book.open_round()
    before = journal_size(journal)
    for path in ("/v1/bets", "/v1/bets/batch", "/v1/wallets"):
        answer = client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert 400 <= answer.status_code < 500, (path, answer.status_code)
        assert answer.json()["reason"]
    assert journal_size(journal) == before
