"""The HTTP API the betting platform uses for Si Zhi Dao players (PROCEDURE.md §7.1, §7.10).

    POST /v1/players/actions          one player action: {"account": "u1", "action": "raise",
                                      "amount": 600} (`seat`, `amount`, `front`, `back`, `ref`
                                      as TRACES.md §1.1)
    GET  /v1/players/{account}/view   what that account may see now (its own cards included)
    GET  /v1/players/{account}/stream the account's event stream (server-sent events)
    Authorization: Bearer <API key>

The API checks only the shape of an action; what the table makes of it is the table's
decision on its journaled input path (`act`), as for any other input, so a replay decides the
same. Answers: **200** with the records the action made (`player_action`, `seated`, `left`,
`buy_in`, ...), **409** with the `action_refused` record (its `reason` is PROCEDURE.md §7.1's)
and `"error": "action_refused"`; **400** not JSON, **422** wrong shape, **401** no or unknown
key, **503** the station could not record it.

A player's private cards reach that account alone: the stream of account A carries every
public record and A's own `private` records, never another account's; the view of A shows
A's cards and nobody else's. Nothing here serves the console or the dealer.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from station.money import MAX_ACCOUNT_CHARS, MAX_REF_CHARS

Act = Callable[[dict[str, Any]], list[dict[str, Any]]]
View = Callable[[str], dict[str, Any]]
ACTION_FIELDS = ("seat", "amount", "front", "back", "ref")
MAX_BODY = 4096


def visible_to(record: Mapping[str, Any], account: str) -> bool:
    """A record's place in an account's stream: private records only to their owner."""
    return record.get("type") != "private" or record.get("account") == account


class PlayerStreams:
    """Fans the table's records out to each connected account, keeping private ones private.

    `publish` is called by the table's owner thread with every batch of records it made;
    each subscriber (one per open stream) gets what `visible_to` allows, in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: list[tuple[str, asyncio.AbstractEventLoop, asyncio.Queue]] = []

    def publish(self, records: list[dict[str, Any]]) -> None:
        with self._lock:
            subs = list(self._subs)
        for account, loop, queue in subs:
            mine = [r for r in records if visible_to(r, account)]
            if mine:
                loop.call_soon_threadsafe(queue.put_nowait, mine)

    def subscribe(self, account: str) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue()
        with self._lock:
            self._subs.append((account, asyncio.get_running_loop(), queue))
        return queue

    def unsubscribe(self, queue: asyncio.Queue) -> None:
        with self._lock:
            self._subs = [s for s in self._subs if s[2] is not queue]


class _Bad(Exception):
    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason

    def response(self) -> JSONResponse:
        return JSONResponse({"error": self.error, "reason": self.reason}, status_code=self.status)


def check_action(data: Any) -> dict[str, Any]:
    """The shape of a player action (what it means is the table's to judge)."""
    if not isinstance(data, dict):
        raise _Bad(422, "bad_action", "an action is a JSON object")
    account, action = data.get("account"), data.get("action")
    if not isinstance(account, str) or not account or len(account) > MAX_ACCOUNT_CHARS:
        raise _Bad(422, "bad_action", f"account must be 1 to {MAX_ACCOUNT_CHARS} characters")
    if not isinstance(action, str) or not action:
        raise _Bad(422, "bad_action", "action must be a non-empty string")
    unknown = sorted(set(data) - {"account", "action", *ACTION_FIELDS})
    if unknown:
        raise _Bad(422, "bad_action", f"unknown fields {unknown}")
    ref = data.get("ref")
    if ref is not None and (not isinstance(ref, str) or not ref or len(ref) > MAX_REF_CHARS):
        raise _Bad(422, "bad_action", f"ref must be 1 to {MAX_REF_CHARS} characters")
    return {k: data[k] for k in ("account", "action", *ACTION_FIELDS) if k in data}


def build_app(
    act: Act,
    view: View,
    streams: PlayerStreams,
    api_keys: Mapping[str, str],
    *,
    heartbeat_s: float = 15.0,
) -> Starlette:
    """`act` applies one action on the table's input path and returns the records it made
    (raising when it could not record it); `view(account)` is that account's view."""
    keys = [(k.encode(), name) for k, name in api_keys.items() if k]

    def authorise(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        found = None
        if scheme.lower() == "bearer" and token:
            given = token.strip().encode()
            for key, name in keys:  # every key compared: no timing hint
                if hmac.compare_digest(key, given):
                    found = name
        if found is None:
            raise _Bad(
                401, "unauthorized", "missing or unknown API key (Authorization: Bearer <key>)"
            )
        return found

    async def action(request: Request) -> JSONResponse:
        try:
            authorise(request)
            body = await request.body()
            if len(body) > MAX_BODY:
                raise _Bad(413, "too_large", f"an action is at most {MAX_BODY} bytes")
            try:
                data = json.loads(body)
            except ValueError:
                raise _Bad(400, "bad_json", "the body is not valid JSON") from None
            value = check_action(data)
            try:
                records = await run_in_threadpool(act, value)
            except Exception as exc:  # noqa: BLE001 - "not recorded" is the answer
                raise _Bad(503, "unavailable", f"the station could not record it: {exc}") from exc
        except _Bad as bad:
            return bad.response()
        answer = [r for r in records if visible_to(r, value["account"])]
        refused = [r for r in answer if r.get("type") == "action_refused"]
        if refused:
            return JSONResponse({"error": "action_refused", **refused[0]}, status_code=409)
        return JSONResponse({"records": answer})

    async def account_view(request: Request) -> JSONResponse:
        try:
            authorise(request)
        except _Bad as bad:
            return bad.response()
        account = request.path_params["account"]
        return JSONResponse(await run_in_threadpool(view, account))

    async def stream(request: Request) -> Any:
        try:
            authorise(request)
        except _Bad as bad:
            return bad.response()
        account = request.path_params["account"]
        queue = streams.subscribe(account)

        async def events() -> AsyncIterator[bytes]:
            try:
                first = await run_in_threadpool(view, account)
                yield b"event: view\ndata: " + json.dumps(first).encode() + b"\n\n"
                while True:
                    try:
                        batch = await asyncio.wait_for(queue.get(), timeout=heartbeat_s)
                    except TimeoutError:
                        yield b": keep-alive\n\n"
                        continue
                    for rec in batch:
                        yield b"event: record\ndata: " + json.dumps(rec).encode() + b"\n\n"
            finally:
                streams.unsubscribe(queue)

        return StreamingResponse(events(), media_type="text/event-stream")

    return Starlette(
        routes=[
            Route("/v1/players/actions", action, methods=["POST"]),
            Route("/v1/players/{account}/view", account_view, methods=["GET"]),
            Route("/v1/players/{account}/stream", stream, methods=["GET"]),
        ]
    )


class KernelPlayers:
    """A table kernel behind the player API, for a table run in one process (tests, the
    demo's bots): one lock, the station's clock, every record published to the streams.
    `record(input, records, messages)` is where the owner keeps what each input made (its
    journal, its settlement delivery) before anyone hears the answer."""

    def __init__(
        self,
        kernel: Any,
        clock_us: Callable[[], int],
        streams: PlayerStreams,
        record: Callable[[Any, list[dict[str, Any]], list[dict[str, Any]]], None] | None = None,
    ) -> None:
        self.kernel, self.clock_us, self.streams, self.record = kernel, clock_us, streams, record
        self.lock = threading.Lock()

    def apply(self, kind: str, value: Any, user: str | None = None) -> list[dict[str, Any]]:
        return self._apply(kind, value, user)[0]

    def _apply(self, kind: str, value: Any, user: str | None) -> tuple[list[dict[str, Any]], list]:
        from station.core.inputs import Input

        with self.lock:
            inp = Input(max(self.clock_us(), self.kernel.now_us), kind, value, user)
            self.kernel.apply(inp)
            records, messages, _commands = self.kernel.take_outputs()
            answer = list(self.kernel.proc.last_answer) if kind == "player" else []
            if self.record is not None:
                self.record(inp, records, messages)
        self.streams.publish(records)
        return records, answer

    def act(self, value: dict[str, Any]) -> list[dict[str, Any]]:
        return self._apply("player", value, None)[1]

    def view(self, account: str) -> dict[str, Any]:
        from station.games.sizhidao.views import player_view

        with self.lock:
            timers = {name: us / 1e6 for name, us in self.kernel.timers.items()}
            return player_view(self.kernel.proc.sz, account, timers)
