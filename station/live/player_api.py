"""The player API of a table where players act: the betting platform's players act through
the live station (PROCEDURE.md §7.1, §7.10), and a seat page lets a person play one seat.
What an action may hold and which part of the view is the game's come from the table's game
(its presentation: `check_player_action`, `view_key`, station/games/presentation.py); this
module names no game.

For the platform, authenticated with its API key like the bet API (`Authorization: Bearer
<key>`), one account per action:

    POST /v1/players/actions               {"account": "u1", "action": "...", ...}
                                           (the fields are the game's: its presentation's
                                           `check_player_action`, TRACES.md §1.1)
    GET  /v1/players/{account}/view        what that account may see now (its own cards included)
    GET  /v1/players/{account}/stream      that account's event stream (server-sent events)
    POST /v1/players/{account}/seat-token  a token for the seat page of that account

An action is an input of the live `TableStation` like a bet: journaled first, then applied,
answered once durable with what the table made of it. **200** `{"records": [...]}` (the
`player_action`, `seated`, `left`, `buy_in`... it made), **409** the `action_refused` record
(its `reason` is PROCEDURE.md §7.1's) with `"error": "action_refused"`; **400** not JSON or
out of bounds, **413** too large, **422** wrong shape (nothing recorded), **401** no or
unknown key, **503** the station could not record it. A `ref` sent again is answered with the
first answer and applied once, across a restart too (the journal re-makes it).

Secrecy: the stream of account A carries every record `station.core.view.record_visible`
lets A see — the public ones and A's own `private` records, never another account's — a
`view` event after each batch, and a `now` event (`{"now": <station seconds>}`) each second
nothing else went out, so a page counts the game's clocks on the station's time; the view of A is the table's public view plus A's own part
(its seat, its cards from the read on). Nothing here serves the console or the dealer.

The seat page (`GET /seat/`, its game's `player_page`) is for a person playing one
seat. It never holds the platform's key: the platform asks for a seat token for one account
(`seat-token` above) and hands the person a link with the token in its fragment
(`/seat/#t=<token>`, so it is in no server's access log). With `Authorization: Seat <token>`
the page may read that account's view and stream and act for that account alone:

    GET  /v1/seat/view    GET /v1/seat/stream    POST /v1/seat/actions

Tokens live in the station's memory (a restart forgets them: the platform asks again) and
each names one account.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, StreamingResponse
from starlette.routing import Route

from station import bounded_json
from station.bounded_json import BodyError, Bounds
from station.core.view import record_visible
from station.games import get_game
from station.games.presentation import PlayerActionError, Presentation, load_presentation
from station.money import MAX_ACCOUNT_CHARS

BOUNDS = Bounds(max_bytes=4096, max_depth=3, max_string_chars=256, max_items=32)


class PlayerTable(Protocol):
    """What the API needs of the live table (`TableStation` is one)."""

    def player_action(self, action: dict[str, Any]) -> list[dict[str, Any]]: ...
    def own_view(self, account: str) -> tuple[dict[str, Any], dict[str, Any] | None]: ...
    def add_listener(self, fn: Callable[[list[dict[str, Any]]], None]) -> None: ...
    def now_us(self) -> int: ...

    @property
    def settings(self) -> Any: ...


def viewer_of(account: str) -> str:
    return f"account:{account}"


def presentation_of(table: Any) -> Presentation:
    """The presentation of the table's game (its settings name it)."""
    return load_presentation(get_game(table.settings.game))


def station_now(table: PlayerTable) -> float:
    """The station's time now in seconds, as views and `now` events carry it."""
    return round(table.now_us() / 1e6, 3)


def account_view(table: PlayerTable, account: str,
                 game_part: Presentation | None = None) -> dict[str, Any]:
    """The table as this account may see it: the public view's game part, and its own part."""
    view, own = table.own_view(account)
    pres = game_part or presentation_of(table)
    key = pres.view_key
    game = dict(view.get(key) or {}) if key else {}
    return {
        "table": view.get("table"),
        "t": view.get("t"),
        # station time now: the page counts the game's clocks from it
        "now": station_now(table),
        "state": view.get("state"),
        "paused": view.get("paused"),
        "version": view.get("version"),
        **game,
        "you": own or pres.no_own_part(account),
    }


class PlayerStreams:
    """Fans the table's records out to each open stream, each filtered for its account.

    `publish` runs on the table's owner thread (a `TableStation` listener) with every batch
    of durable records; each subscriber gets, in order, what `record_visible` lets its
    account see, and nothing when that is nothing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: list[tuple[str, asyncio.AbstractEventLoop, asyncio.Queue]] = []

    def publish(self, records: list[dict[str, Any]]) -> None:
        with self._lock:
            subs = list(self._subs)
        for account, loop, queue in subs:
            mine = [r for r in records if record_visible(r, viewer_of(account))]
            if not mine:
                continue
            try:
                loop.call_soon_threadsafe(queue.put_nowait, mine)
            except RuntimeError:  # that stream's loop has closed
                self.unsubscribe(queue)

    def subscribe(self, account: str) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue()
        with self._lock:
            self._subs.append((account, asyncio.get_running_loop(), queue))
        return queue

    def unsubscribe(self, queue: asyncio.Queue) -> None:
        with self._lock:
            self._subs = [s for s in self._subs if s[2] is not queue]

    @property
    def open_streams(self) -> int:
        with self._lock:
            return len(self._subs)


class SeatTokens:
    """Seat-page tokens: each names one account. Kept as digests (a memory dump shows no
    usable token) and looked up by digest (no timing hint of a prefix)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._accounts: dict[bytes, str] = {}

    @staticmethod
    def _digest(token: str) -> bytes:
        return hashlib.sha256(token.encode()).digest()

    def issue(self, account: str) -> str:
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._accounts[self._digest(token)] = account
        return token

    def account(self, token: str) -> str | None:
        with self._lock:
            return self._accounts.get(self._digest(token))


class _Bad(Exception):
    def __init__(self, status: int, error: str, reason: str, **extra: Any) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason, self.extra = status, error, reason, extra

    def response(self) -> JSONResponse:
        return JSONResponse(
            {"error": self.error, "reason": self.reason, **self.extra}, status_code=self.status
        )


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def make_player_app(
    table: PlayerTable,
    api_keys: Mapping[str, str],
    *,
    tokens: SeatTokens | None = None,
    heartbeat_s: float = 15.0,
) -> Starlette:
    """The player API and the seat page over `table`; `api_keys` maps key → platform."""
    keys = [(k.encode(), name) for k, name in api_keys.items() if k]
    game = presentation_of(table)
    # the game's seat page: its folder and files (none: /seat/ answers 404)
    seat_dir = game.folder() / game.player_page if game.player_page else None
    seat_files = dict(game.player_files)
    streams = PlayerStreams()
    table.add_listener(streams.publish)
    closing = threading.Event()  # set when the server stops: open streams end
    seat_tokens = tokens or SeatTokens()

    def platform_of(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        found = None
        if scheme.lower() == "bearer" and token:
            given = token.strip().encode()
            for key, name in keys:  # every key compared: no timing hint of a prefix
                if hmac.compare_digest(key, given):
                    found = name
        if found is None:
            raise _Bad(401, "unauthorized", "missing or unknown API key (Authorization: Bearer <key>)")
        return found

    def seat_account(request: Request) -> str:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        account = seat_tokens.account(token.strip()) if scheme.lower() == "seat" and token else None
        if account is None:
            raise _Bad(401, "unauthorized", "missing or unknown seat token (Authorization: Seat <token>)")
        return account

    def path_account(request: Request) -> str:
        account = request.path_params["account"]
        if not account or len(account) > MAX_ACCOUNT_CHARS:
            raise _Bad(422, "bad_account", f"an account is 1 to {MAX_ACCOUNT_CHARS} characters")
        return account

    async def act(request: Request, account: str | None) -> JSONResponse:
        try:
            data = await bounded_json.read_json(request, BOUNDS)
        except BodyError as e:
            raise _Bad(e.status, e.error, e.reason) from None
        try:
            value = game.check_player_action(data, account)
        except PlayerActionError as e:
            raise _Bad(422, "bad_action", e.reason, **({"field": e.field} if e.field else {})) from None
        try:
            answer = await run_in_threadpool(table.player_action, value)
        except Exception as exc:  # noqa: BLE001 - "not recorded" is the answer, not a 500 page
            raise _Bad(503, "unavailable", f"the station could not record it: {exc}") from exc
        # the answer never carries a record this account may not see
        mine = [r for r in answer if record_visible(r, viewer_of(value["account"]))]
        refused = next((r for r in mine if r.get("type") == "action_refused"), None)
        if refused is not None:
            return JSONResponse({"error": "action_refused", **refused}, status_code=409)
        return JSONResponse({"records": mine})

    def stream_of(account: str) -> StreamingResponse:
        queue = streams.subscribe(account)

        async def events() -> AsyncIterator[bytes]:
            try:
                yield b"retry: 1000\n\n"
                yield _sse("view", account_view(table, account, game))
                while not closing.is_set():
                    try:
                        batch = await asyncio.wait_for(queue.get(), timeout=min(heartbeat_s, 1.0))
                    except TimeoutError:
                        # nothing happened: the station's time goes out, so a page counts its
                        # clocks from the station's time, never on its own (and the stream
                        # stays open through proxies)
                        yield _sse("now", {"now": station_now(table)})
                        continue
                    while not queue.empty():  # what else came meanwhile goes out together
                        batch = batch + queue.get_nowait()
                    for rec in batch:
                        yield _sse("record", rec)
                    yield _sse("view", account_view(table, account, game))
            finally:
                streams.unsubscribe(queue)

        return StreamingResponse(
            events(), media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    # ---- the platform
    async def platform_action(request: Request) -> JSONResponse:
        try:
            platform_of(request)
            return await act(request, None)
        except _Bad as bad:
            return bad.response()

    async def platform_view(request: Request) -> JSONResponse:
        try:
            platform_of(request)
            account = path_account(request)
        except _Bad as bad:
            return bad.response()
        return JSONResponse(account_view(table, account, game), headers={"cache-control": "no-store"})

    async def platform_stream(request: Request) -> Any:
        try:
            platform_of(request)
            account = path_account(request)
        except _Bad as bad:
            return bad.response()
        return stream_of(account)

    async def issue_token(request: Request) -> JSONResponse:
        try:
            platform_of(request)
            account = path_account(request)
        except _Bad as bad:
            return bad.response()
        token = seat_tokens.issue(account)
        return JSONResponse({"account": account, "token": token, "page": f"/seat/#t={token}"},
                            headers={"cache-control": "no-store"})

    # ---- the seat page
    async def seat_action(request: Request) -> JSONResponse:
        try:
            account = seat_account(request)
            return await act(request, account)
        except _Bad as bad:
            return bad.response()

    async def seat_view(request: Request) -> JSONResponse:
        try:
            account = seat_account(request)
        except _Bad as bad:
            return bad.response()
        return JSONResponse(account_view(table, account, game), headers={"cache-control": "no-store"})

    async def seat_stream(request: Request) -> Any:
        try:
            account = seat_account(request)
        except _Bad as bad:
            return bad.response()
        return stream_of(account)

    page_headers = {
        "cache-control": "no-store",
        # the page runs its own script and talks to its own origin, nothing else
        "content-security-policy": "default-src 'self'; frame-ancestors 'none'",
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
    }

    async def seat_page(request: Request) -> Any:
        if seat_dir is None:
            return JSONResponse({"error": "not_found", "reason": "no seat page at this table"},
                                status_code=404)
        return FileResponse(seat_dir / "index.html", media_type="text/html",
                            headers=page_headers)

    async def seat_file(request: Request) -> Any:
        name = request.path_params["name"]
        if seat_dir is None or name not in seat_files:
            return JSONResponse({"error": "not_found", "reason": "no such file"}, status_code=404)
        return FileResponse(seat_dir / name, media_type=seat_files[name],
                            headers=page_headers)

    async def seat_root(request: Request) -> Any:
        return RedirectResponse("/seat/")

    app = Starlette(
        routes=[
            Route("/v1/players/actions", platform_action, methods=["POST"]),
            Route("/v1/players/{account}/view", platform_view, methods=["GET"]),
            Route("/v1/players/{account}/stream", platform_stream, methods=["GET"]),
            Route("/v1/players/{account}/seat-token", issue_token, methods=["POST"]),
            Route("/v1/seat/actions", seat_action, methods=["POST"]),
            Route("/v1/seat/view", seat_view, methods=["GET"]),
            Route("/v1/seat/stream", seat_stream, methods=["GET"]),
            Route("/seat", seat_root, methods=["GET"]),
            Route("/seat/", seat_page, methods=["GET"]),
            Route("/seat/{name}", seat_file, methods=["GET"]),
        ]
    )
    app.state.player_streams = streams
    app.state.seat_tokens = seat_tokens
    app.state.closing = closing
    return app


def stop_player_app(app: Starlette, served: Any) -> None:
    """End the open streams, then stop the server (a stream would hold its shutdown)."""
    app.state.closing.set()
    served.server.should_exit = True
    served.thread.join(5)
