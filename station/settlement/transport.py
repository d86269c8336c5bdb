"""How outbox messages reach the settlement core: in the same process, or signed over HTTP.

Over HTTP every request and every answer is signed with HMAC-SHA256 under a secret the station
and the settlement service share. The signed text is ``<timestamp>\\n<nonce>\\n<body>``: the
service refuses a signature that does not verify, a timestamp outside its window, or a nonce it
has already seen inside that window, so a captured request cannot be played back later; and a
request played back within the window is harmless anyway, because the core applies each message
key once. The station checks the answer's signature too, so nothing but the service can confirm
a delivery.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Mapping
from typing import Any

import httpx

from station.settlement.core import BatchOutcome, SettlementCore, SettlementRefused
from station.settlement.outbox import TransportError

TIMESTAMP_HEADER = "X-Settlement-Timestamp"
NONCE_HEADER = "X-Settlement-Nonce"
SIGNATURE_HEADER = "X-Settlement-Signature"
#: how far a signed timestamp may be from the receiver's clock, in seconds
DEFAULT_WINDOW = 300.0
DELIVER_PATH = "/v1/deliver"


class SignatureError(Exception):
    """A request or answer whose signature, timestamp or nonce does not hold."""


def _as_bytes(secret: str | bytes) -> bytes:
    key = secret.encode() if isinstance(secret, str) else secret
    if not key:
        raise ValueError("the settlement secret is empty")
    return key


def signature(secret: str | bytes, timestamp: str, nonce: str, body: bytes) -> str:
    mac = hmac.new(_as_bytes(secret), digestmod=hashlib.sha256)
    mac.update(f"{timestamp}\n{nonce}\n".encode())
    mac.update(body)
    return mac.hexdigest()


def signed_headers(secret: str | bytes, body: bytes, *, now: float | None = None) -> dict[str, str]:
    timestamp = f"{time.time() if now is None else now:.3f}"
    nonce = secrets.token_hex(16)
    return {
        TIMESTAMP_HEADER: timestamp,
        NONCE_HEADER: nonce,
        SIGNATURE_HEADER: signature(secret, timestamp, nonce, body),
    }


class NonceWindow:
    """Nonces seen within the timestamp window; older ones are forgotten (their timestamps
    would be refused anyway)."""

    def __init__(self, window: float = DEFAULT_WINDOW) -> None:
        self.window = window
        self._seen: dict[str, float] = {}
        self._next_purge = 0.0

    def verify(
        self, secret: str | bytes, headers: Mapping[str, str], body: bytes, *, now: float | None = None
    ) -> None:
        now = time.time() if now is None else now
        timestamp = headers.get(TIMESTAMP_HEADER)
        nonce = headers.get(NONCE_HEADER)
        given = headers.get(SIGNATURE_HEADER)
        if not timestamp or not nonce or not given:
            raise SignatureError("unsigned: timestamp, nonce and signature headers are required")
        if not hmac.compare_digest(signature(secret, timestamp, nonce, body), given):
            raise SignatureError("bad signature")
        try:
            sent = float(timestamp)
        except ValueError:
            raise SignatureError(f"bad timestamp {timestamp!r}") from None
        if abs(now - sent) > self.window:
            raise SignatureError(f"timestamp {timestamp} is outside the {self.window:.0f} s window")
        if now >= self._next_purge:
            self._seen = {n: t for n, t in self._seen.items() if now - t <= self.window}
            self._next_purge = now + 10.0
        if nonce in self._seen:
            raise SignatureError("nonce already used: a replayed request")
        self._seen[nonce] = now


def verify_answer(secret: str | bytes, headers: Mapping[str, str], body: bytes) -> None:
    """Check an answer from the service (signature and freshness; nonces are per request)."""
    NonceWindow().verify(secret, headers, body)


def outcome_to_json(outcome: BatchOutcome) -> dict[str, Any]:
    return {
        "results": outcome.results,
        "refused": None if outcome.refused is None else outcome.refused.as_dict(),
    }


def outcome_from_json(data: Any) -> BatchOutcome:
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise TransportError(f"the settlement service answered something unexpected: {data!r:.200}")
    refused = data.get("refused")
    outcome = BatchOutcome(results=data["results"])
    if refused is not None:
        outcome.refused = SettlementRefused(
            refused.get("key"), str(refused.get("reason")), str(refused.get("detail"))
        )
    return outcome


class InProcessTransport:
    """The default: the settlement core runs inside the station, on its own ledger file."""

    def __init__(self, core: SettlementCore) -> None:
        self.core = core

    def deliver(self, messages: list[dict[str, Any]]) -> BatchOutcome:
        return self.core.apply_batch(messages)

    def close(self) -> None:
        pass


class HttpTransport:
    """Signed HTTP to `station settlement serve` at `url` (e.g. ``http://127.0.0.1:8710``)."""

    def __init__(self, url: str, secret: str | bytes, *, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.secret = _as_bytes(secret)
        self._client = httpx.Client(timeout=timeout)

    def deliver(self, messages: list[dict[str, Any]]) -> BatchOutcome:
        body = json.dumps({"messages": messages}, separators=(",", ":")).encode()
        headers = signed_headers(self.secret, body)
        headers["Content-Type"] = "application/json"
        try:
            response = self._client.post(self.url + DELIVER_PATH, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise TransportError(f"settlement service at {self.url} unreachable: {exc!r}") from exc
        if response.status_code != 200:
            raise TransportError(
                f"settlement service answered {response.status_code}: {response.text[:300]}"
            )
        try:
            verify_answer(self.secret, response.headers, response.content)
        except SignatureError as exc:
            raise TransportError(f"settlement service answer not trusted: {exc}") from exc
        try:
            data = response.json()
        except ValueError as exc:
            raise TransportError("settlement service answered with invalid JSON") from exc
        return outcome_from_json(data)

    def close(self) -> None:
        self._client.close()
