"""The console's live streams: one server-sent `view` event per change of a table.

No thread per stream: the console's one watcher thread per table (`Console._sampler`) wakes
every stream watching that table through the stream's own event loop (`Hub.wake`), so any
number of screens cost no worker threads.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import anyio
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from station.console.auth import console_of, need_session
from station.console.sessions import Session

if TYPE_CHECKING:
    from station.console.model import Console

Subscriber = tuple[asyncio.AbstractEventLoop, asyncio.Event, frozenset[str]]


class Hub:
    """Which streams watch which tables, and waking them from any thread."""

    def __init__(self) -> None:
        self._subs: set[Subscriber] = set()
        self._lock = threading.Lock()

    def subscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self._subs.add(sub)

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self._subs.discard(sub)

    def wake(self, name: str) -> None:
        """Tell every event stream watching this table that it has a new view."""
        with self._lock:
            subs = [s for s in self._subs if name in s[2]]
        for sub in subs:
            loop, event, _ = sub
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # that stream's loop has closed
                self.unsubscribe(sub)


def sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


async def _view_stream(c: Console, names: list[str], session: Session) -> AsyncIterator[bytes]:
    """One `view` event per change of any of these tables (and a fresh one every 2 s, so
    time-based figures such as frames per second stay current). The stream ends when the
    session does (logout or expiry): the browser then finds itself logged out."""
    versions = {n: -1 for n in names}
    last_sent = {n: 0.0 for n in names}
    wake = asyncio.Event()
    sub = (asyncio.get_running_loop(), wake, frozenset(names))
    c.hub.subscribe(sub)
    try:
        yield b"retry: 1000\n\n"
        # wake at least once a second so that a closing console or an ended session ends it
        while not c.closing.is_set() and c.sessions.alive(session.sid):
            for name in names:
                version = c.tables[name].station.view_version
                if version > versions[name] or time.monotonic() - last_sent[name] > 2:
                    versions[name] = version
                    last_sent[name] = time.monotonic()
                    yield sse("view", c.table_view(name))
            with anyio.move_on_after(1.0):
                await wake.wait()
            wake.clear()
    finally:
        c.hub.unsubscribe(sub)


def _stream_response(c: Console, names: list[str], session: Session) -> StreamingResponse:
    return StreamingResponse(_view_stream(c, names, session), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def api_events(request: Request) -> Response:
    s = need_session(request)
    c = console_of(request)
    return _stream_response(c, list(c.tables), s)


async def api_table_events(request: Request) -> Response:
    s = need_session(request)
    c = console_of(request)
    name = request.path_params["table"]
    c.table(name)
    return _stream_response(c, [name], s)

