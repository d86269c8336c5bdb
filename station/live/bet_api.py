"""The HTTP bet API the betting platform calls while betting is open.

    POST /v1/bets        one bet:   {"account": "u1", "spot": "<spot>", "amount": 100}
    POST /v1/bets/batch  a list of such bets (at most `max_batch`), decided in order
    Authorization: Bearer <API key>

The API only checks the *shape* of what it is sent; whether a bet is taken is the table core's
decision, made on its journaled input path (`place_bets`) exactly as for any other input, so a
replay of the table's trace decides the same. `place_bets` must record all or none of the bets
of one call (it raises if none were recorded). Answers:

- single bet accepted: **200** with the ``bet_accepted`` record;
- single bet refused: **409** with the ``bet_rejected`` record (its ``reason`` is a TRACES.md
  reason) plus ``"error": "bet_rejected"``: the platform learns from the status alone that
  the wallet was not charged;
- batch: **200** with ``{"results": [record, ...]}``, one record per bet in order, accepted or
  not (a batch is not all-or-nothing: each bet is decided on its own);
- bets arriving together (from one platform or several) are decided in arrival order and may
  share one journal transaction (group commit, see `_Coalescer`);
- a ``ref`` (the platform's idempotency key, 1 to 128 characters) sent again with the same
  bet is answered with the first decision (a retry never deducts twice); sent again with
  another spot or amount it is **409** ``{"error": "ref_reused", "first": <first decision>}``
  (in a batch, that bet's result has ``"type": "ref_reused"``) and nothing is placed;
- malformed input: **400** (not JSON, NaN/Infinity, nested deeper than 4, a string over 1,024
  characters), **422** (wrong shape: names the field and, in a batch, the index; nothing of
  the batch is placed — an empty ``ref``, an amount beyond ``station.money.MAX_AMOUNT``, an
  account over 64 characters are all 422), **413** (too large), **401** (no or unknown key),
  **503** (the station could not record the bets; nothing was placed). Every error body is
  ``{"error": ..., "reason": ...}``.

Every bet is checked by `station.intake.check_bet` before it is journaled, the same check
replay applies to the journal, so nothing this API accepts can stop the station restarting.
"""

from __future__ import annotations

import asyncio
import hmac
import time
from collections.abc import Callable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from station import bounded_json
from station.bounded_json import BodyError, Bounds
from station.intake import IntakeError, check_bet, check_wallet

PlaceBets = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]

BET_FIELDS = {"account": str, "spot": str, "amount": int}
OPTIONAL_FIELDS = {"ref": str}  # the platform's own reference, passed through to the journal
REF_REUSED = ("this ref was already used for another bet (another spot or amount): a retry "
              "sends the same bet again; a new bet needs a new ref")


class _Coalescer:
    """Group commit: requests that arrive while `place_bets` is busy go in its next call.

    The station journals each `place_bets` call in one transaction (one fsync), so under load
    many platforms' bets share a commit instead of queueing for one each; an idle table
    still decides a lone bet at once. Bets are decided in the order they arrived. If the call
    raises, none of its bets were recorded (the input path is all-or-nothing) and every
    request in the group hears so.
    """

    def __init__(self, place_bets: PlaceBets, max_bets: int) -> None:
        self.place_bets = place_bets
        self.max_bets = max_bets
        self._waiting: list[tuple[list[dict[str, Any]], asyncio.Future]] = []
        self._busy = False

    async def submit(self, bets: list[dict[str, Any]]) -> list[dict[str, Any]]:
        future = asyncio.get_running_loop().create_future()
        self._waiting.append((bets, future))
        if not self._busy:
            self._busy = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                group, size = [], 0
                while self._waiting and (not group or size + len(self._waiting[0][0]) <= self.max_bets):
                    bets, future = self._waiting.pop(0)
                    group.append((bets, future))
                    size += len(bets)
                merged = [bet for bets, _ in group for bet in bets]
                try:
                    records = await run_in_threadpool(self.place_bets, merged)
                    if len(records) != len(merged):
                        raise RuntimeError(
                            f"answered for {len(records)} of {len(merged)} bets")
                except Exception as exc:  # noqa: BLE001 - handed to every waiting request
                    for _, future in group:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                start = 0
                for bets, future in group:
                    if not future.done():
                        future.set_result(records[start:start + len(bets)])
                    start += len(bets)
        finally:
            self._busy = False


class _BadRequest(Exception):
    def __init__(self, status: int, error: str, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason, self.extra = status, error, reason, extra

    def response(self) -> JSONResponse:
        return JSONResponse(
            {"error": self.error, "reason": self.reason, **self.extra}, status_code=self.status
        )


def _check_shape(bet: Any, index: int | None = None) -> dict[str, Any]:
    """The bet's shape, stricter than replay's (`station.intake.check_bet`, which this ends
    with): the API takes only integer amounts and no fields it does not know."""
    where = {} if index is None else {"index": index}
    if not isinstance(bet, dict):
        raise _BadRequest(422, "bad_bet", "a bet is a JSON object", **where)
    unknown = set(bet) - set(BET_FIELDS) - set(OPTIONAL_FIELDS)
    if unknown:
        shown = sorted(unknown)[:5]
        raise _BadRequest(422, "bad_bet", f"unknown fields {shown}", **where)
    for name, kind in BET_FIELDS.items():
        value = bet.get(name)
        if value is None:
            raise _BadRequest(422, "bad_bet", f"{name} is required", field=name, **where)
        # bool is an int in Python, never a stake
        if isinstance(value, bool) or not isinstance(value, kind):
            unit = " (integer minor units)" if kind is int else ""
            raise _BadRequest(
                422, "bad_bet", f"{name} must be {'an integer' if kind is int else 'a string'}{unit}",
                field=name, **where,
            )
    if "ref" in bet and not isinstance(bet["ref"], str):
        raise _BadRequest(422, "bad_bet", "ref must be a string", field="ref", **where)
    try:
        return check_bet(bet)
    except IntakeError as e:
        raise _BadRequest(422, "bad_bet", str(e), **({"field": e.field} if e.field else {}),
                          **where) from None


def _ref_reused(sent: dict[str, Any], record: dict[str, Any]) -> bool:
    """The table answered a bet with a ref by the first decision for that ref: if that
    decision was for another spot or amount, the ref was reused, not retried."""
    return "ref" in sent and (record.get("spot"), record.get("amount")) != (sent["spot"], sent["amount"])


def make_bet_app(
    place_bets: PlaceBets,
    api_keys: Mapping[str, str],
    *,
    max_batch: int = 1000,
    max_body: int = 1_000_000,
    set_wallet: Callable[[str, int], None] | None = None,
    table: str = "",
) -> Starlette:
    """The bet API over `place_bets` (the station's input path); `api_keys` maps key → platform.

    With `set_wallet`, `POST /v1/wallets` ({"account": ..., "balance": ...}) lets the platform's
    wallet service set an account's balance at the table (a `wallet` input, journaled like
    every other input; answered 200 once recorded). A balance is 0 to
    `station.money.MAX_AMOUNT`; more is 422 and nothing is recorded.
    """
    keys = [(k.encode(), name) for k, name in api_keys.items() if k]
    coalescer = _Coalescer(place_bets, max(max_batch, 1))
    from station.metrics import BET_INTAKE_LATENCY, REGISTRY

    intake = REGISTRY.histogram(BET_INTAKE_LATENCY, "a bet request to the table's answer, journaled")

    def platform_of(request: Request) -> str:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() == "bearer" and token:
            given = token.strip().encode()
            found = None
            for key, name in keys:  # compare against every key: no timing hint of a prefix
                if hmac.compare_digest(key, given):
                    found = name
            if found is not None:
                return found
        raise _BadRequest(401, "unauthorized", "missing or unknown API key (Authorization: Bearer <key>)")

    bounds = Bounds(max_bytes=max_body, max_depth=4, max_string_chars=1024,
                    max_items=max(2 * max_batch, 16))  # a longer batch is 413, below

    async def read_json(request: Request) -> Any:
        try:
            return await bounded_json.read_json(request, bounds)
        except BodyError as e:
            raise _BadRequest(e.status, e.error, e.reason) from None

    async def place(bets: list[dict[str, Any]], platform: str) -> list[dict[str, Any]]:
        for bet in bets:
            bet["platform"] = platform
        started = time.perf_counter()
        try:
            placed = await coalescer.submit(bets)
            intake.observe(time.perf_counter() - started, table=table)
            return placed
        except Exception as exc:  # noqa: BLE001 - the platform must hear "not placed", not a 500 page
            raise _BadRequest(503, "unavailable", f"the station could not record the bets: {exc}") from exc

    async def single(request: Request) -> JSONResponse:
        try:
            platform = platform_of(request)
            bet = _check_shape(await read_json(request))
            (record,) = await place([bet], platform)
        except _BadRequest as bad:
            return bad.response()
        if _ref_reused(bet, record):
            return JSONResponse({"error": "ref_reused", "reason": REF_REUSED, "first": record},
                                status_code=409)
        if record.get("type") == "bet_accepted":
            return JSONResponse(record)
        return JSONResponse({"error": "bet_rejected", **record}, status_code=409)

    async def batch(request: Request) -> JSONResponse:
        try:
            platform = platform_of(request)
            data = await read_json(request)
            if not isinstance(data, list) or not data:
                raise _BadRequest(422, "bad_batch", "a batch is a non-empty JSON list of bets")
            if len(data) > max_batch:
                raise _BadRequest(413, "too_large", f"a batch holds at most {max_batch} bets")
            bets = [_check_shape(bet, i) for i, bet in enumerate(data)]
            records = await place(bets, platform)
        except _BadRequest as bad:
            return bad.response()
        results = [{"type": "ref_reused", "error": "ref_reused", "reason": REF_REUSED, "first": r}
                   if _ref_reused(b, r) else r for b, r in zip(bets, records, strict=True)]
        return JSONResponse({"results": results})

    async def wallet(request: Request) -> JSONResponse:
        try:
            platform_of(request)
            data = await read_json(request)
            if not isinstance(data, dict) or set(data) != {"account", "balance"}:
                raise _BadRequest(422, "bad_wallet", 'send {"account": "...", "balance": N}')
            try:
                checked = check_wallet(data)
            except IntakeError as e:
                raise _BadRequest(422, "bad_wallet", str(e), field=e.field) from None
            account, balance = checked["account"], checked["balance"]
            assert set_wallet is not None
            try:
                await run_in_threadpool(set_wallet, account, balance)
            except Exception as exc:  # noqa: BLE001 - "not recorded" is the answer, not a 500 page
                raise _BadRequest(503, "unavailable", f"the station could not record it: {exc}") from exc
        except _BadRequest as bad:
            return bad.response()
        return JSONResponse({"account": account, "balance": balance})

    routes = [
        Route("/v1/bets", single, methods=["POST"]),
        Route("/v1/bets/batch", batch, methods=["POST"]),
    ]
    if set_wallet is not None:
        routes.append(Route("/v1/wallets", wallet, methods=["POST"]))
    return Starlette(routes=routes)
