"""`station settlement serve`'s HTTP face: signed deliveries, and nothing else, move money."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import httpx
import pytest

from station.settlement.core import SettlementCore
from station.settlement.outbox import TransportError
from station.settlement.service import make_settlement_app
from station.settlement.transport import (
    NONCE_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    HttpTransport,
    signed_headers,
)
from tests.settlement.helpers import (
    REPO,
    SECRET,
    env_with_secret,
    free_port,
    kill,
    serve_in_thread,
    start_service,
)

WALLET = {"key": "wallet:1", "kind": "wallet", "account": "u1", "balance": 1000}
BET = {"key": "bet:R1:1", "kind": "bet", "round_id": "R1", "game": "pokdeng", "account": "u1",
       "spot": "P1", "amount": 100, "deducted": 200}


@pytest.fixture
def service(tmp_path, ledger):
    core = SettlementCore(ledger)
    with serve_in_thread(make_settlement_app(core, SECRET, window=60)) as url:
        yield url, core
    report = core.check()
    core.close()
    assert report.ok, report.problems


def post(url: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(url + "/v1/deliver", content=body, headers=headers, timeout=10)


def test_a_signed_delivery_is_applied_and_its_answer_is_signed(service):
    url, core = service
    transport = HttpTransport(url, SECRET)
    outcome = transport.deliver([WALLET, BET])
    assert [r["key"] for r in outcome.results] == ["wallet:1", "bet:R1:1"] and outcome.refused is None
    again = transport.deliver([WALLET, BET])  # a retry after a lost answer: same results
    assert again.results == outcome.results
    transport.close()
    assert core.balances() == {"u1": 800}


def test_a_refusal_comes_back_as_such(service):
    url, core = service
    transport = HttpTransport(url, SECRET)
    outcome = transport.deliver([WALLET, dict(BET, deducted=150)])
    assert len(outcome.results) == 1
    assert outcome.refused.key == "bet:R1:1" and outcome.refused.reason == "bad_deduction"
    transport.close()


def test_unsigned_forged_stale_and_replayed_requests_are_refused(service):
    url, core = service
    body = json.dumps({"messages": [WALLET]}).encode()
    assert post(url, body, {}).status_code == 401
    forged = signed_headers("not-the-secret", body)
    answer = post(url, body, forged)
    assert answer.status_code == 401 and answer.json()["reason"] == "bad signature"
    tampered = signed_headers(SECRET, body)
    evil = json.dumps({"messages": [dict(WALLET, balance=10**9)]}).encode()
    assert post(url, evil, tampered).status_code == 401
    stale = signed_headers(SECRET, body, now=time.time() - 3600)
    answer = post(url, body, stale)
    assert answer.status_code == 401 and "window" in answer.json()["reason"]
    assert core.balances() == {}
    good = signed_headers(SECRET, body)
    assert post(url, body, good).status_code == 200
    replay = post(url, body, good)
    assert replay.status_code == 401 and "replayed" in replay.json()["reason"]
    assert core.balances() == {"u1": 1000}
    assert core.check().ok


def test_bad_bodies_get_json_errors(service):
    url, _ = service
    for body in (b"not json", b'{"messages": 5}', b"[]"):
        answer = post(url, body, signed_headers(SECRET, body))
        assert answer.status_code == 400 and answer.json()["error"] in ("bad_json", "bad_request")


def test_the_station_does_not_trust_an_answer_it_cannot_verify(tmp_path, ledger):
    core = SettlementCore(ledger)
    with serve_in_thread(make_settlement_app(core, "service-secret")) as url:
        transport = HttpTransport(url, "station-secret")
        with pytest.raises(TransportError, match="401"):
            transport.deliver([WALLET])
        transport.close()
    core.close()


def test_the_serve_command_needs_its_secret_and_survives_sigkill(tmp_path, ledger):
    env = env_with_secret()
    del env["SETTLEMENT_SECRET"]
    done = subprocess.run(
        [sys.executable, "-m", "station", "settlement", "serve", "--ledger", str(tmp_path / "l.db"),
         "--port", str(free_port()), "--secret-env", "SETTLEMENT_SECRET"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "SETTLEMENT_SECRET" in done.stderr

    port = free_port()
    proc = start_service(ledger, port)
    transport = HttpTransport(f"http://127.0.0.1:{port}", SECRET)
    first = transport.deliver([WALLET, BET]).results
    kill(proc)
    proc = start_service(ledger, port)
    try:
        assert transport.deliver([WALLET, BET]).results == first  # applied once, across restarts
    finally:
        transport.close()
        kill(proc)
    with SettlementCore(ledger) as core:
        assert core.balances() == {"u1": 800}


def test_headers_are_named_as_documented():
    headers = signed_headers(SECRET, b"{}")
    assert set(headers) == {TIMESTAMP_HEADER, NONCE_HEADER, SIGNATURE_HEADER}


def test_a_message_the_services_http_layer_refuses_is_on_record_and_the_queue_flows(
        tmp_path, ledger):
    """A hand too large for the service (413) in the middle of a table's outbox: the worker
    finds it alone, it is recorded in the ledger's refusals and alarmed once, and the messages
    behind it are delivered."""
    import sqlite3

    from station.settlement.outbox import OUTBOX_SCHEMA, DeliveryWorker, enqueue

    core = SettlementCore(ledger)
    journal = tmp_path / "journal.sqlite"
    conn = sqlite3.connect(journal, isolation_level=None)
    conn.executescript(OUTBOX_SCHEMA)
    big = dict(WALLET, key="wallet:2", account="u2", note="x" * 6000)
    for message in (WALLET, dict(WALLET, key="wallet:1b", account="u3"), big,
                    dict(WALLET, key="wallet:3", account="u4", balance=70)):
        enqueue(conn, message)
    conn.close()
    alarms: list[tuple[str, str]] = []
    with serve_in_thread(make_settlement_app(core, SECRET, window=60, max_body=4000)) as url:
        transport = HttpTransport(url, SECRET)
        worker = DeliveryWorker(journal, transport, batch_size=10,
                                on_error=lambda exc, key: alarms.append((key, str(exc))))
        assert worker.drain(20)
        assert worker.pending() == 0
        (refused,) = worker.refused()
        assert refused["key"] == "wallet:2" and refused["refused"]["reason"] == "too_large"
        assert [key for key, _ in alarms] == ["wallet:2"]  # alarmed once, nothing held
        worker.stop()
        # an answer the service did not sign proves nothing: the queue would hold
        forged = httpx.Response(413, json={"error": "too_large", "reason": "proxy"})
        assert transport._signed_body_refusal(forged) is None
        transport.close()
    assert core.balances() == {"u1": 1000, "u3": 1000, "u4": 70}
    (on_record,) = core.refusals()
    assert on_record["key"] == "wallet:2" and on_record["reason"] == "too_large"
    report = core.check()
    assert report.ok and report.figures["refused"] == 1
    core.close()


def test_a_message_larger_than_the_service_takes_is_refused_without_sending_it(tmp_path, ledger):
    core = SettlementCore(ledger)
    with serve_in_thread(make_settlement_app(core, SECRET, window=60)) as url:
        transport = HttpTransport(url, SECRET, max_body=3000)
        outcome = transport.deliver([WALLET, dict(WALLET, key="wallet:9", note="y" * 5000)])
        assert [r["key"] for r in outcome.results] == ["wallet:1"] and outcome.refused is None
        outcome = transport.deliver([dict(WALLET, key="wallet:9", note="y" * 5000)])
        assert outcome.results == [] and outcome.refused.reason == "too_large"
        transport.close()
    assert [r["key"] for r in core.refusals()] == ["wallet:9"]
    core.close()
