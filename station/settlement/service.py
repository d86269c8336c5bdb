"""`station settlement serve`: the settlement core as a separate HTTP service.

One endpoint does the work: ``POST /v1/deliver`` with ``{"messages": [...]}``, signed (see
`station.settlement.transport`). The answer, signed the same way, is ``{"results": [...],
"refused": null | {"key", "reason", "detail"}}``: the results of the messages applied, in order,
and the refusal that stopped the batch, if any. A request that is not signed properly gets 401
and touches nothing. ``GET /v1/health`` (unsigned) says the service is up.

A body the HTTP layer refuses before the core sees it (413 ``too_large``, 400 ``too_deep``,
``too_long``, ``too_many``, ``bad_json``) is answered with that error, **signed**, so the
station can trust it: it splits the batch until the one message refused alone is found, and
reports it with ``POST /v1/refusal`` (signed: ``{"key", "kind", "reason", "detail", "bytes"}``),
which records it in the ledger's ``refusals`` like a refusal of the core's own; the station
marks it answered, alarms, and its queue flows (docs/settlement.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from station.bounded_json import BodyError, Bounds, parse_json, read_body
from station.settlement.core import SettlementCore, SettlementRefused
from station.settlement.transport import (
    BODY_REFUSALS,
    DEFAULT_WINDOW,
    DELIVER_MAX_BYTES,
    DELIVER_PATH,
    NONCE_HEADER,
    REFUSAL_PATH,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    NonceWindow,
    SignatureError,
    outcome_to_json,
    signed_headers,
)

#: a hand with 50,000 bets is about 4 MB of JSON; far above that is a mistake, not a round
MAX_BODY = DELIVER_MAX_BYTES
#: a delivery is {"messages": [message, ...]}, each message an object of fields and at most a
#: list of bets of objects: a few levels deep, never more
BOUNDS = Bounds(max_bytes=MAX_BODY, max_depth=8, max_string_chars=64 * 1024, max_items=1_000_000)
#: a refusal report is a few short fields
REFUSAL_BOUNDS = Bounds(max_bytes=16 * 1024, max_depth=2, max_string_chars=4096, max_items=16)
#: seconds since the epoch, as `signed_headers` writes them: digits, a point, up to 9 decimals.
#: Anything else (`nan`, `inf`, `1e9`, a sign, spaces) is refused before it is a float.
TIMESTAMP = re.compile(r"[0-9]{1,12}(\.[0-9]{1,9})?")
NONCE = re.compile(r"[A-Za-z0-9_\-]{8,128}")
SIGNATURE = re.compile(r"[0-9a-f]{64}")


def check_signed_headers(headers: Mapping[str, str]) -> None:
    """The signing headers' syntax, strictly, before the signature is checked: SignatureError."""
    for name, pattern, what in ((TIMESTAMP_HEADER, TIMESTAMP, "seconds since the epoch, e.g. 1764578400.125"),
                                (NONCE_HEADER, NONCE, "8 to 128 letters, digits, '-' or '_'"),
                                (SIGNATURE_HEADER, SIGNATURE, "64 lowercase hex digits")):
        value = headers.get(name)
        if value is None:
            continue  # missing: NonceWindow.verify says "unsigned"
        if not pattern.fullmatch(value):
            raise SignatureError(f"bad {name} header: it must be {what}, got {value[:40]!r}")


def _error(status: int, error: str, reason: str) -> JSONResponse:
    return JSONResponse({"error": error, "reason": reason}, status_code=status)


def make_settlement_app(
    core: SettlementCore, secret: str | bytes, *, window: float = DEFAULT_WINDOW,
    max_body: int = MAX_BODY,
) -> Starlette:
    nonces = NonceWindow(window)
    bounds = Bounds(max_bytes=max_body, max_depth=BOUNDS.max_depth,
                    max_string_chars=BOUNDS.max_string_chars, max_items=BOUNDS.max_items)

    def body_refused(exc: BodyError) -> Response:
        """The service's deterministic answer to a body, signed (the station acts on it)."""
        if exc.error not in BODY_REFUSALS:
            return _error(exc.status, exc.error, exc.reason)
        answer = json.dumps({"error": exc.error, "reason": exc.reason}).encode()
        return Response(answer, status_code=exc.status, media_type="application/json",
                        headers=signed_headers(secret, answer))

    async def deliver(request: Request) -> Response:
        try:
            body = await read_body(request.headers, request.stream(), max_body)
        except BodyError as exc:
            return body_refused(exc)
        try:
            check_signed_headers(request.headers)
            nonces.verify(secret, request.headers, body)
        except SignatureError as exc:
            return _error(401, "unauthorized", str(exc))
        try:
            data: Any = parse_json(body, bounds)
        except BodyError as exc:
            return body_refused(exc)
        if not isinstance(data, dict) or set(data) != {"messages"} or not isinstance(data["messages"], list):
            return _error(400, "bad_request", 'expected {"messages": [...]}')
        outcome = await run_in_threadpool(core.apply_batch, data["messages"])
        answer = json.dumps(outcome_to_json(outcome), separators=(",", ":")).encode()
        return Response(answer, media_type="application/json", headers=signed_headers(secret, answer))

    async def refusal(request: Request) -> Response:
        """A message the station found refused by this service's HTTP layer, on record."""
        try:
            body = await read_body(request.headers, request.stream(), REFUSAL_BOUNDS.max_bytes)
        except BodyError as exc:
            return _error(exc.status, exc.error, exc.reason)
        try:
            check_signed_headers(request.headers)
            nonces.verify(secret, request.headers, body)
        except SignatureError as exc:
            return _error(401, "unauthorized", str(exc))
        try:
            data: Any = parse_json(body, REFUSAL_BOUNDS)
        except BodyError as exc:
            return _error(exc.status, exc.error, exc.reason)
        fields = {"key": str, "kind": str, "reason": str, "detail": str, "bytes": int}
        if (not isinstance(data, dict) or set(data) != set(fields)
                or any(not isinstance(data[k], t) or isinstance(data[k], bool)
                       for k, t in fields.items())
                or data["reason"] not in BODY_REFUSALS):
            return _error(400, "bad_request", 'expected {"key", "kind", "reason" (a body '
                          'refusal), "detail", "bytes"}')
        stub = {"key": data["key"], "kind": data["kind"], "bytes": data["bytes"],
                "refused_at": "http"}
        refused = SettlementRefused(data["key"], data["reason"], data["detail"])
        await run_in_threadpool(core.record_refusal, stub, refused)
        answer = json.dumps({"recorded": data["key"]}).encode()
        return Response(answer, media_type="application/json", headers=signed_headers(secret, answer))

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "ledger": str(core.ledger_path)})

    return Starlette(
        routes=[
            Route(DELIVER_PATH, deliver, methods=["POST"]),
            Route(REFUSAL_PATH, refusal, methods=["POST"]),
            Route("/v1/health", health, methods=["GET"]),
        ]
    )
