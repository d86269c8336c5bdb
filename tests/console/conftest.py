"""Fixtures for the supervisor console: real tables fed by recorded traces on a manual clock,
a real console on uvicorn (127.0.0.1, a free port), real SQLite, real HTTP."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from station.console import UserStore, make_console_app, serve_console, stop_console
from station.core.inputs import US, Input, read_trace
from station.core.replay import settings_from_header
from station.live.table_station import TableStation
from tests.browser import chromium, new_page
from tests.console.setup_table import setup_table  # noqa: F401 - a running station for the table setup tests

DATA = Path(__file__).resolve().parents[1] / "data"
TRACES = DATA / "traces"
PASSWORDS = {"sup1": "floor-sup-pass", "sup2": "second-sup-pass", "dealer1": "dealer-pass-1"}


class Clock:
    """The station's wall clock, moved by the test: the trace's time drives the table."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class Table:
    """A live `TableStation` fed a recorded trace, input by input, like a real table."""

    def __init__(self, name: str, tmp: Path, clock: Clock, table: str | None = None) -> None:
        # "clean_shoe" (a Pok Deng trace), or "traces-paigow/clean", "traces-sizhidao/tie_once"
        folder = DATA / name if "/" in name else TRACES / name
        self.trace = folder / "trace.jsonl"
        self.header, inputs = read_trace(self.trace)
        self.inputs: list[Input] = [i for i in inputs if i.kind != "end"]
        self.expected = json.loads((folder / "expected.json").read_text())
        self.clock = clock
        settings = settings_from_header(self.header)
        if table is not None:  # a second table in the same studio
            settings = settings.with_overrides({"table": table})
        self.station = TableStation(settings, tmp / f"{folder.name}-{settings.table}.journal.sqlite",
                                     clock=clock)
        self.station.start()
        self.pos = 0

    def step(self) -> Input:
        inp = self.inputs[self.pos]
        self.pos += 1
        self.clock.t = 1000.0 + inp.t_us / US
        before = self.station.view_version
        self.station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)
        # the view is published right after the answer: wait for it
        self.station.wait_view(before, 5.0)
        return inp

    def feed_until_view(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Feed inputs one at a time (the trace's supervisor decisions included) until the
        table's view satisfies `pred`; return that view."""
        while self.pos < len(self.inputs):
            self.step()
            v = self.station.view
            if pred(v):
                return v
        raise AssertionError("the trace ended before the view showed what was waited for")

    def feed(self, until: Callable[[Input], bool] | None = None, *,
             skip_supervisor: bool = True) -> Input | None:
        """Feed inputs until `until(input)` is true for the next one (which is not fed) and
        return it; the trace's own supervisor lines are skipped (the test decides instead)."""
        while self.pos < len(self.inputs):
            inp = self.inputs[self.pos]
            if until is not None and until(inp):
                return inp
            if skip_supervisor and inp.kind == "supervisor" and inp.value != "confirm_shuffle":
                self.pos += 1
                continue
            self.step()
        return None

    def at(self, t: float) -> None:
        """Move the table clock to `t` seconds of the trace (for a decision taken then)."""
        self.clock.t = 1000.0 + t

    def stop(self) -> None:
        self.station.stop()


@pytest.fixture
def users() -> UserStore:
    store = UserStore(None)
    store.add("sup1", "supervisor", PASSWORDS["sup1"])
    store.add("sup2", "supervisor", PASSWORDS["sup2"])
    store.add("dealer1", "dealer", PASSWORDS["dealer1"])
    return store


@pytest.fixture
def make_table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    made: list[Table] = []

    def make(name: str, clock: Clock | None = None, table: str | None = None) -> Table:
        t = Table(name, tmp_path, clock or Clock(), table)
        made.append(t)
        return t

    yield make
    for t in made:
        t.stop()


class ConsoleServer:
    def __init__(self, app: Any, url: str) -> None:
        self.app, self.url = app, url
        self.console = app.state.console

    def client(self, user: str | None = None) -> httpx.Client:
        """An HTTP client, logged in as `user` when given (its CSRF token in `.csrf`)."""
        c = httpx.Client(base_url=self.url, timeout=15)
        c.csrf = None  # type: ignore[attr-defined]
        if user is not None:
            r = c.post("/api/login", json={"user": user, "password": PASSWORDS[user]})
            assert r.status_code == 200, r.text
            c.csrf = r.json()["csrf"]  # type: ignore[attr-defined]
        return c

    def act(self, c: httpx.Client, table: str, action: str) -> httpx.Response:
        return c.post(f"/api/tables/{table}/actions", json={"action": action},
                      headers={"X-CSRF-Token": c.csrf})  # type: ignore[attr-defined]


@pytest.fixture
def serve(users: UserStore, tmp_path: Path) -> Iterator[Callable[..., ConsoleServer]]:
    running: list[tuple[Any, threading.Thread]] = []

    def start(*tables: Table, frames_dir: Path | None = None, **kw: Any) -> ConsoleServer:
        app = make_console_app({t.station.settings.table: t.station for t in tables}, users=users,
                               secret="test-secret-" + "x" * 20, frames_dir=frames_dir,
                               audit_path=tmp_path / "audit.sqlite", **kw)
        server, thread, url = serve_console(app)
        running.append((server, thread))
        return ConsoleServer(app, url)

    yield start
    for server, thread in running:
        stop_console(server, thread)


# ---- the real browser (tests marked `browser`)
@pytest.fixture
def viewport() -> tuple[int, int]:
    """The page's size, width and height in CSS pixels; a module may ask for another."""
    return (1400, 1100)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for a test module; each test gets its own context and page."""
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser: Any, viewport: tuple[int, int]) -> Iterator[Any]:
    with new_page(browser, *viewport, what="the console page") as pg:
        yield pg
