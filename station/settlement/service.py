"""`station settlement serve`: the settlement core as a separate HTTP service.

One endpoint does the work: ``POST /v1/deliver`` with ``{"messages": [...]}``, signed (see
`station.settlement.transport`). The answer, signed the same way, is ``{"results": [...],
"refused": null | {"key", "reason", "detail"}}``: the results of the messages applied, in order,
and the refusal that stopped the batch, if any. A request that is not signed properly gets 401
and touches nothing. ``GET /v1/health`` (unsigned) says the service is up.
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
from station.settlement.core import SettlementCore
from station.settlement.transport import (
    DEFAULT_WINDOW,
    DELIVER_PATH,
    NONCE_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    NonceWindow,
    SignatureError,
    outcome_to_json,
    signed_headers,
)

#: a hand with 50,000 bets is about 4 MB of JSON; far above that is a mistake, not a round
MAX_BODY = 64 * 1024 * 1024
#: a delivery is {"messages": [message, ...]}, each message an object of fields and at most a
#: list of bets of objects: a few levels deep, never more
BOUNDS = Bounds(max_bytes=MAX_BODY, max_depth=8, max_string_chars=64 * 1024, max_items=1_000_000)
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
    core: SettlementCore, secret: str | bytes, *, window: float = DEFAULT_WINDOW
) -> Starlette:
    nonces = NonceWindow(window)

    async def deliver(request: Request) -> Response:
        try:
            body = await read_body(request.headers, request.stream(), MAX_BODY)
        except BodyError as exc:
            return _error(exc.status, exc.error, exc.reason)
        try:
            check_signed_headers(request.headers)
            nonces.verify(secret, request.headers, body)
        except SignatureError as exc:
            return _error(401, "unauthorized", str(exc))
        try:
            data: Any = parse_json(body, BOUNDS)
        except BodyError as exc:
            return _error(exc.status, exc.error, exc.reason)
        if not isinstance(data, dict) or set(data) != {"messages"} or not isinstance(data["messages"], list):
            return _error(400, "bad_request", 'expected {"messages": [...]}')
        outcome = await run_in_threadpool(core.apply_batch, data["messages"])
        answer = json.dumps(outcome_to_json(outcome), separators=(",", ":")).encode()
        return Response(answer, media_type="application/json", headers=signed_headers(secret, answer))

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "ledger": str(core.ledger_path)})

    return Starlette(
        routes=[
            Route(DELIVER_PATH, deliver, methods=["POST"]),
            Route("/v1/health", health, methods=["GET"]),
        ]
    )
