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
REFUSAL_PATH = "/v1/refusal"
#: the largest delivery the service takes (`station settlement serve`): a hand with 50,000
#: bets is about 4 MB of JSON; far above that is a mistake, not a round
DELIVER_MAX_BYTES = 64 * 1024 * 1024
#: the service's answers to a body it refuses before its core sees it (bounded_json's codes):
#: deterministic, so a message refused alone is refused for good
BODY_REFUSALS = frozenset({"too_large", "too_deep", "too_long", "too_many", "bad_json"})


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
    """Signed HTTP to `station settlement serve` at `url` (e.g. ``http://127.0.0.1:8710``).

    A delivery the service refuses for its body (a signed 413 or 400 of `BODY_REFUSALS`) is
    split: the first half is delivered (the worker comes back for the rest), down to the one
    message refused alone. That message is refused for good: reported to the service
    (recorded in the ledger's refusals) and answered to the worker as a `SettlementRefused`,
    which marks it, alarms and lets the queue flow. A message larger than `max_body` alone
    is known refused without sending it. An answer that is not signed by the service (a
    proxy's 413) proves nothing: the queue holds and retries, as for any transport failure.
    """

    def __init__(self, url: str, secret: str | bytes, *, timeout: float = 30.0,
                 max_body: int = DELIVER_MAX_BYTES) -> None:
        self.url = url.rstrip("/")
        self.secret = _as_bytes(secret)
        self.max_body = max_body
        self._client = httpx.Client(timeout=timeout)

    @staticmethod
    def _body(messages: list[dict[str, Any]]) -> bytes:
        return json.dumps({"messages": messages}, separators=(",", ":")).encode()

    def deliver(self, messages: list[dict[str, Any]]) -> BatchOutcome:
        body = self._body(messages)
        if len(body) > self.max_body:
            if len(messages) > 1:
                return self.deliver(messages[: len(messages) // 2])
            return self._refused(messages[0], len(body), "too_large",
                                 f"a request here is at most {self.max_body} bytes")
        response = self._post(DELIVER_PATH, body)
        if response.status_code in (400, 413):
            error = self._signed_body_refusal(response)
            if error is not None:
                if len(messages) > 1:
                    return self.deliver(messages[: len(messages) // 2])
                return self._refused(messages[0], len(body), *error)
        if response.status_code != 200:
            raise TransportError(
                f"settlement service answered {response.status_code}: {response.text[:300]}"
            )
        return outcome_from_json(self._trusted_json(response))

    def _post(self, path: str, body: bytes) -> httpx.Response:
        headers = signed_headers(self.secret, body)
        headers["Content-Type"] = "application/json"
        try:
            return self._client.post(self.url + path, content=body, headers=headers)
        except httpx.HTTPError as exc:
            raise TransportError(f"settlement service at {self.url} unreachable: {exc!r}") from exc

    def _trusted_json(self, response: httpx.Response) -> Any:
        try:
            verify_answer(self.secret, response.headers, response.content)
        except SignatureError as exc:
            raise TransportError(f"settlement service answer not trusted: {exc}") from exc
        try:
            return response.json()
        except ValueError as exc:
            raise TransportError("settlement service answered with invalid JSON") from exc

    def _signed_body_refusal(self, response: httpx.Response) -> tuple[str, str] | None:
        """(error, reason) if the service itself refused the body; None if unproven."""
        try:
            verify_answer(self.secret, response.headers, response.content)
            data = response.json()
        except (SignatureError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("error") not in BODY_REFUSALS:
            return None
        return str(data["error"]), str(data.get("reason", ""))[:1000]

    def _refused(self, message: dict[str, Any], size: int, error: str, reason: str) -> BatchOutcome:
        key = message.get("key") if isinstance(message.get("key"), str) else ""
        kind = message.get("kind") if isinstance(message.get("kind"), str) else ""
        detail = f"the settlement service refused the message's body ({size} bytes): {reason}"
        report = json.dumps({"key": key, "kind": kind, "reason": error, "detail": detail,
                             "bytes": size}).encode()
        response = self._post(REFUSAL_PATH, report)
        if response.status_code != 200:
            raise TransportError(f"settlement service did not record the refusal of {key}: "
                                 f"{response.status_code}: {response.text[:300]}")
        self._trusted_json(response)
        return BatchOutcome(results=[], refused=SettlementRefused(key, error, detail))

    def close(self) -> None:
        self._client.close()
