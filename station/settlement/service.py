"""`station settlement serve`: the settlement core as a separate HTTP service.

One endpoint does the work: ``POST /v1/deliver`` with ``{"messages": [...]}``, signed (see
`station.settlement.transport`). The answer, signed the same way, is ``{"results": [...],
"refused": null | {"key", "reason", "detail"}}``: the results of the messages applied, in order,
and the refusal that stopped the batch, if any. A request that is not signed properly gets 401
and touches nothing. ``GET /v1/health`` (unsigned) says the service is up.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from station.settlement.core import SettlementCore
from station.settlement.transport import (
    DEFAULT_WINDOW,
    DELIVER_PATH,
    NonceWindow,
    SignatureError,
    outcome_to_json,
    signed_headers,
)

#: a hand with 50,000 bets is about 4 MB of JSON; far above that is a mistake, not a round
MAX_BODY = 64 * 1024 * 1024


def _error(status: int, error: str, reason: str) -> JSONResponse:
    return JSONResponse({"error": error, "reason": reason}, status_code=status)


def make_settlement_app(
    core: SettlementCore, secret: str | bytes, *, window: float = DEFAULT_WINDOW
) -> Starlette:
    nonces = NonceWindow(window)

    async def deliver(request: Request) -> Response:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
            return _error(413, "too_large", f"a delivery is at most {MAX_BODY} bytes")
        body = await request.body()
        if len(body) > MAX_BODY:
            return _error(413, "too_large", f"a delivery is at most {MAX_BODY} bytes")
        try:
            nonces.verify(secret, request.headers, body)
        except SignatureError as exc:
            return _error(401, "unauthorized", str(exc))
        try:
            data: Any = json.loads(body)
        except ValueError:
            return _error(400, "bad_json", "the body is not JSON")
        if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
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
