"""The floor supervisor's console, assembled: a small Starlette app over one or more tables.

The parts, one job each: `model` (the tables and what is read of them), `auth` (login,
sessions, CSRF, lockout), `streams` (server-sent views), `routes` (the pages and the JSON
API), `bodies` (bounded request bodies), `pages` (templates and security headers).

Entry points: `make_console_app(stations, users=..., secret=...)` and `serve_console(app)`.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from station.console import auth, routes, setup, streams
from station.console.errors import ApiError
from station.console.model import Console
from station.console.users import UserStore
from station.live.table_station import TableStation
from station.metrics import REGISTRY, Registry

STATIC = Path(__file__).parent / "static"


def make_console_app(stations: Mapping[str, TableStation] | Iterable[TableStation], *,
                     users: UserStore | str | Path, secret: str | bytes,
                     frames_dir: str | Path | None = None, audit_path: str | Path | None = None,
                     session_ttl: float = 8 * 3600, registry: Registry = REGISTRY,
                     secure_cookies: bool = False,
                     session_clock: Callable[[], float] | None = None,
                     ledgers: Mapping[str, str | None] | None = None) -> Starlette:
    """The console over these tables (a mapping table name -> station, or the stations).

    `users`: a `UserStore` or the path of its file. `secret` signs the session cookies.
    `frames_dir`: where the camera writes `<round_id>.png` (a game's `<deal_id>.png`) at
    validation (optional).
    `audit_path`: the audit log (default: `console_audit.sqlite` beside the first journal).
    `session_clock`: the sessions' time in seconds (default: the wall clock).
    `ledgers`: table -> the ledger its evidence packs read postings and checkpoints from.
    """
    console = Console(stations, users=users, secret=secret, frames_dir=frames_dir,
                      audit_path=audit_path, session_ttl=session_ttl, registry=registry,
                      secure_cookies=secure_cookies, session_clock=session_clock,
                      ledgers=ledgers)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        console.close()

    table_routes = [
        Route("/", routes.index),
        Route("/login", auth.login_page, methods=["GET"]),
        Route("/login", auth.login, methods=["POST"]),
        Route("/api/login", auth.login, methods=["POST"]),
        Route("/api/logout", auth.logout, methods=["POST"]),
        Route("/api/session", routes.api_session),
        Route("/api/tables", routes.api_tables),
        Route("/api/events", streams.api_events),
        Route("/api/audit", routes.api_audit),
        Route("/api/tables/{table}", routes.api_table),
        Route("/api/tables/{table}/events", streams.api_table_events),
        Route("/api/tables/{table}/actions", routes.api_action, methods=["POST"]),
        Route("/api/tables/{table}/rounds", routes.api_rounds),
        Route("/api/tables/{table}/rounds/{round_id}", routes.api_round),
        Route("/api/tables/{table}/rounds/{round_id}/frame.png", routes.api_frame),
        Route("/api/tables/{table}/rounds/{round_id}/frames/{frame}.png", routes.api_frame),
        Route("/api/tables/{table}/rounds/{round_id}/evidence.zip", routes.api_evidence),
        Route("/api/tables/{table}/roads", routes.api_roads),
        Route("/api/tables/{table}/camera", routes.api_camera),
        Route("/api/tables/{table}/camera.jpg", routes.api_camera_jpeg),
        Route("/metrics", routes.metrics),
        Route("/games/{game}/{name}", routes.game_file),
        *setup.routes(),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=table_routes, lifespan=lifespan,
                    exception_handlers={ApiError: routes.api_error,
                                        HTTPException: routes.http_error})
    app.state.console = console
    console.start_samplers()
    app.add_middleware(routes.SecurityHeaders)
    return app


def serve_console(app: Starlette, host: str = "127.0.0.1", port: int = 0
                  ) -> tuple[uvicorn.Server, threading.Thread, str]:
    """Start uvicorn in a background thread; returns (server, thread, url) once it listens.

    Binds to 127.0.0.1 unless told otherwise: the console takes decisions for a live table
    and belongs on the station's own screen or behind the studio's proxy. Stop it with
    `stop_console(server, thread)`.
    """
    from station.live.http import serve_app

    served = serve_app(app, host, port, name="console", lifespan="on")
    return served.server, served.thread, served.url


def stop_console(server: uvicorn.Server, thread: threading.Thread, timeout: float = 10) -> None:
    console: Console | None = getattr(getattr(server.config.app, "state", None), "console", None)
    if console is not None:
        console.closing.set()  # event streams end at their next wake-up
    server.should_exit = True
    thread.join(timeout)
