"""The settlement service reads what it is sent strictly: times, nesting, numbers."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from station.settlement.core import SettlementCore
from station.settlement.service import make_settlement_app
from station.settlement.transport import (
    NONCE_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    signature,
    signed_headers,
)
from tests.settlement.helpers import SECRET, serve_in_thread

WALLET = {"key": "wallet:1", "kind": "wallet", "account": "u1", "balance": 1000}


@pytest.fixture
def service(tmp_path):
    core = SettlementCore(tmp_path / "ledger.db")
    with serve_in_thread(make_settlement_app(core, SECRET, window=60)) as url:
        yield url, core
    core.close()


def _signed_with(timestamp: str, body: bytes) -> dict[str, str]:
    nonce = "n" + str(time.monotonic_ns())
    return {TIMESTAMP_HEADER: timestamp, NONCE_HEADER: nonce,
            SIGNATURE_HEADER: signature(SECRET, timestamp, nonce, body),
            "Content-Type": "application/json"}


# "NOW" is the current time in seconds with a decimal point, "NOW,": with a comma instead; they
# are filled in when the test runs, so the tests' names are the same on every worker
@pytest.mark.parametrize("timestamp", ["nan", "NaN", "inf", "-inf", "infinity", "1e9", "NOWe0",
                                       "+NOW", "0x10", "NOW,"])
def test_a_signed_timestamp_that_is_not_plain_seconds_is_refused(service, timestamp):
    url, core = service
    now = f"{time.time():.3f}"
    timestamp = timestamp.replace("NOW,", now.replace(".", ",")).replace("NOW", now)
    body = json.dumps({"messages": [WALLET]}).encode()
    answer = httpx.post(url + "/v1/deliver", content=body, headers=_signed_with(timestamp, body), timeout=10)
    assert answer.status_code == 401 and "timestamp" in answer.json()["reason"].lower()
    assert core.balances() == {}


def test_a_plain_timestamp_is_taken(service):
    url, core = service
    body = json.dumps({"messages": [WALLET]}).encode()
    answer = httpx.post(url + "/v1/deliver", content=body, headers=_signed_with(f"{time.time():.3f}", body),
                        timeout=10)
    assert answer.status_code == 200 and core.balances() == {"u1": 1000}


@pytest.mark.parametrize("body", [
    b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    b'{"messages": [{"key": "wallet:1", "kind": "wallet", "account": "u1", "balance": NaN}]}',
    b'{"messages": [{"key": "wallet:1", "kind": "wallet", "account": "u1", "balance": 1, "t": Infinity}]}',
    b'{"messages": [], "extra": 1}',
    b'{"messages": {"0": 1}}',
    b"\xff\xfe",
])
def test_a_signed_but_malformed_delivery_is_a_400_and_moves_nothing(service, body):
    url, core = service
    headers = {**signed_headers(SECRET, body), "Content-Type": "application/json"}
    answer = httpx.post(url + "/v1/deliver", content=body, headers=headers, timeout=30)
    assert answer.status_code == 400 and answer.json()["reason"]
    assert core.balances() == {}
    assert core.check().ok


def raw_post_head(url: str, path: str, length: int) -> str:
    """Send only the head of a POST declaring `length` bytes; return the status line."""
    import socket
    from urllib.parse import urlsplit

    u = urlsplit(url)
    with socket.create_connection((u.hostname, u.port), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: {u.hostname}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {length}\r\n\r\n".encode())
        return sock.recv(4096).decode("latin-1").split("\r\n", 1)[0]


def test_an_oversized_delivery_is_refused_before_it_is_read(service):
    url, _ = service
    # answered at once, from the declared length alone: not one byte of the body was sent
    assert " 413 " in raw_post_head(url, "/v1/deliver", 65 * 2**20)
