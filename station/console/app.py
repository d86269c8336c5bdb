"""The floor supervisor's console: a small Starlette app over one or more running tables.

What it shows comes only from each table's public view (`station.core.view.public_view`,
which already hides face-down and burn cards, PROCEDURE.md §4) and from the journal's output
records of rounds that are over (a `hand` record exists only once a round is validated).
What it does goes only through `TableStation.submit`, the same journaled input path the
table's other inputs take; each decision is also written to the console's audit log with the
person who took it and what the table answered.

Entry points: `make_console_app(stations, users=..., secret=...)` and `serve_console(app)`.
"""

from __future__ import annotations

import asyncio
import html
import json
import math
import re
import sqlite3
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import anyio
import anyio.to_thread
import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from station.console.audit import AuditLog
from station.console.beadroad import road, road_svg
from station.console.diagram import state_svg
from station.console.metrics import (
    CAMERA_FPS,
    RECOGNITION_LATENCY,
    REGISTRY,
    Registry,
    render_tables,
)
from station.console.sessions import COOKIE, Session, Sessions
from station.console.users import ROLE_ACTIONS, UserStore
from station.core.inputs import US
from station.live.table_station import StationStopped, TableStation

HERE = Path(__file__).parent
STATIC = HERE / "static"
TEMPLATES = HERE / "templates"

DEALER_ACTIONS = ROLE_ACTIONS["dealer"]
SUPERVISOR_ACTIONS = ROLE_ACTIONS["supervisor"]
#: shoe link counters that mean a frame was lost or spoiled on the way
DROP_COUNTERS = ("bad_crc", "malformed", "truncated", "too_long", "gap", "duplicate", "noise_bytes",
                 "unknown_type")
ROUND_ID = re.compile(r"^[A-Za-z0-9_.\-]+-S\d+-R\d+$")
#: record types that belong to a round and may be recalled once it is over
RECALL_TYPES = ("round_open", "betting_closed", "hand", "settlement", "round_cancelled", "fault",
                "resumed", "warning")


class ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


@dataclass
class _Table:
    station: TableStation
    # (station time, frames counter) samples, for the shoe link's frames per second
    frames: deque[tuple[float, int]] = field(default_factory=lambda: deque(maxlen=4096))
    frames_lock: threading.Lock = field(default_factory=threading.Lock)
    ro: sqlite3.Connection | None = None
    ro_lock: threading.Lock = field(default_factory=threading.Lock)


class Console:
    """Everything the routes share: the tables, users, sessions, audit log and metrics."""

    def __init__(self, stations: Mapping[str, TableStation] | Iterable[TableStation], *,
                 users: UserStore | str | Path, secret: str | bytes,
                 frames_dir: str | Path | None = None, audit_path: str | Path | None = None,
                 session_ttl: float = 8 * 3600, registry: Registry = REGISTRY,
                 secure_cookies: bool = False) -> None:
        if isinstance(stations, Mapping):
            items = list(stations.items())
            for name, st in items:
                if name != st.settings.table:
                    raise ValueError(f"table {name!r} is given the station of table "
                                     f"{st.settings.table!r}: name each station by its own table")
        else:
            items = [(s.settings.table, s) for s in stations]
        if not items:
            raise ValueError("the console needs at least one table")
        self.tables: dict[str, _Table] = {name: _Table(st) for name, st in items}
        self.users = users if isinstance(users, UserStore) else UserStore(users)
        self.sessions = Sessions(secret, ttl_seconds=session_ttl)
        self.frames_dir = Path(frames_dir) if frames_dir is not None else None
        if audit_path is None:
            # next to the first table's journal: the audit trail lives with the table's records
            first = items[0][1].journal.path
            audit_path = first.with_name("console_audit.sqlite")
        self.audit = AuditLog(audit_path)
        self.registry = registry
        self.own = Registry()  # the console's own counters
        self.secure_cookies = secure_cookies
        self.closing = threading.Event()
        self._subs: set[tuple[asyncio.AbstractEventLoop, asyncio.Event, frozenset[str]]] = set()
        self._subs_lock = threading.Lock()
        self._failures: dict[str, deque[float]] = {}
        self._login_lock = threading.Lock()

    # ------------------------------------------------------------------ password guessing
    #: after this many wrong passwords for one user name within the window, that name is
    #: refused until the oldest failure leaves the window
    LOGIN_FAILURES, LOGIN_WINDOW = 5, 300.0

    def login_failed(self, user: str) -> None:
        with self._login_lock:
            self._failures.setdefault(user, deque(maxlen=self.LOGIN_FAILURES)).append(time.monotonic())

    def login_wait(self, user: str) -> float:
        """Seconds before this user name may try again (0: now)."""
        with self._login_lock:
            d = self._failures.get(user)
            if d is None or len(d) < self.LOGIN_FAILURES:
                return 0.0
            return max(0.0, d[0] + self.LOGIN_WINDOW - time.monotonic())

    # ------------------------------------------------------------------ tables
    def table(self, name: str) -> _Table:
        t = self.tables.get(name)
        if t is None:
            raise ApiError(404, f"no table {name!r} here (tables: {', '.join(self.tables)})")
        return t

    def table_view(self, name: str, view: dict[str, Any] | None = None) -> dict[str, Any]:
        """The table's public view plus what the console adds: station time, device health,
        and the result of a round just settled. Adds nothing the public view hides."""
        t = self.table(name)
        st = t.station
        v = dict(view if view is not None else st.view)
        if not v:
            raise ApiError(503, f"table {name} has not started yet")
        now = st.now_us() / US
        v["now"] = round(now, 3)
        link = v.get("link") or {}
        counters = link.get("counters") or {}
        frames = int(counters.get("frames", 0))
        self._sample(t, v)
        with t.frames_lock:
            # frames per second over the last 10 s of station time, measured up to now (a
            # silent link reads 0, not the rate it last had)
            old = next(((ts, n) for ts, n in t.frames if ts >= now - 10), None)
        fps = None
        if old is not None:
            span = max(now - old[0], 1.0)
            fps = round(max(frames - old[1], 0) / span, 2)
        cam_fps = self.registry.find(CAMERA_FPS)
        lat = self.registry.find(RECOGNITION_LATENCY)
        camera = v.get("camera") or {}
        last_seen = camera.get("last_seen")
        v["health"] = {
            "shoe": {
                "up": bool(link.get("up")),
                "frames": frames,
                "frames_per_s": fps,
                "dropped": {k: int(counters.get(k, 0)) for k in DROP_COUNTERS},
                "gate": link.get("gate"),
                "led": link.get("led"),
                "device_faults": link.get("device_faults") or [],
                "last_frame_age_s": None if link.get("last_frame") is None
                else round(now - link["last_frame"], 2),
            },
            "camera": {
                "fitted": bool(camera.get("fitted")),
                "fps": cam_fps.get(table=name) if cam_fps is not None else None,  # type: ignore[attr-defined]
                "recognition_latency_ms": None if lat is None or lat.last(table=name) is None  # type: ignore[attr-defined]
                else round(lat.last(table=name) * 1000, 1),  # type: ignore[attr-defined]
                "last_seen_age_s": None if last_seen is None else round(now - last_seen, 2),
            },
        }
        r = v.get("round")
        hist = v.get("history") or []
        v["result"] = None
        if r and r.get("finished") and hist and hist[-1].get("round_id") == r.get("round_id"):
            v["result"] = hist[-1]
        return v

    @staticmethod
    def _sample(t: _Table, v: dict[str, Any]) -> None:
        frames = int(((v.get("link") or {}).get("counters") or {}).get("frames", 0))
        with t.frames_lock:
            if not t.frames or t.frames[-1][0] != v["t"]:
                t.frames.append((v["t"], frames))
            while t.frames and t.frames[0][0] < v["t"] - 60:
                t.frames.popleft()

    def _sampler(self, name: str) -> None:
        """Sample the shoe link's frame counter on every view of the table, whether or not a
        console is watching, so that frames per second are there when someone looks."""
        t = self.tables[name]
        version = -1
        while not self.closing.is_set():
            v = t.station.wait_view(version, 0.5)
            if v and v.get("version", 0) > version:
                version = v["version"]
                self._sample(t, v)
                self._wake(name)

    def subscribe(self, sub: tuple[asyncio.AbstractEventLoop, asyncio.Event, frozenset[str]]) -> None:
        with self._subs_lock:
            self._subs.add(sub)

    def unsubscribe(self, sub: tuple[asyncio.AbstractEventLoop, asyncio.Event, frozenset[str]]) -> None:
        with self._subs_lock:
            self._subs.discard(sub)

    def _wake(self, name: str) -> None:
        """Tell every event stream watching this table that it has a new view."""
        with self._subs_lock:
            subs = [s for s in self._subs if name in s[2]]
        for loop, event, _ in subs:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # that stream's loop has closed
                self.unsubscribe((loop, event, _))

    def start_samplers(self) -> None:
        for name in self.tables:
            threading.Thread(target=self._sampler, args=(name,), name=f"console-sample-{name}",
                             daemon=True).start()

    def all_views(self) -> list[dict[str, Any]]:
        return [self.table_view(n) for n in self.tables]

    # ------------------------------------------------------------------ the journal, read-only
    def _records(self, name: str, types: tuple[str, ...]) -> list[dict[str, Any]]:
        """Committed output records of these types, oldest first, through a read-only
        connection of our own (never the owner thread's, which may be mid-transaction)."""
        t = self.table(name)
        with t.ro_lock:
            if t.ro is None:
                path = t.station.journal.path.resolve()
                t.ro = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
                t.ro.execute("PRAGMA busy_timeout=5000")
            marks = ",".join("?" * len(types))
            rows = t.ro.execute(f"SELECT record FROM records WHERE type IN ({marks}) ORDER BY seq",
                                types).fetchall()
        return [json.loads(r) for (r,) in rows]

    def finished_rounds(self, name: str) -> dict[str, dict[str, Any]]:
        """round_id -> its `hand` or `round_cancelled` record: the rounds that are over."""
        out: dict[str, dict[str, Any]] = {}
        for rec in self._records(name, ("hand", "round_cancelled")):
            out[rec["round_id"]] = rec
        return out

    def hands(self, name: str, shoe: int | None = None) -> list[dict[str, Any]]:
        return [h for h in self._records(name, ("hand",)) if shoe is None or h.get("shoe") == shoe]

    def recall(self, name: str, round_id: str) -> dict[str, Any]:
        if not ROUND_ID.match(round_id) or not round_id.startswith(f"{name}-S"):
            raise ApiError(400, f"{round_id!r} is not a round id of table {name} "
                                f"(they look like {name}-S1-R7)")
        done = self.finished_rounds(name)
        if round_id not in done:
            raise ApiError(404, f"round {round_id} is not over (or never existed): only settled "
                                "or cancelled rounds can be recalled")
        recs = [r for r in self._records(name, RECALL_TYPES) if r.get("round_id") == round_id]
        hand = next((r for r in recs if r["type"] == "hand"), None)
        settlement = next((r for r in recs if r["type"] == "settlement"), None)
        cancelled = next((r for r in recs if r["type"] == "round_cancelled"), None)
        opened = next((r for r in recs if r["type"] == "round_open"), None)
        bets = (settlement or {}).get("bets") or (cancelled or {}).get("refunds") or []
        out: dict[str, Any] = {
            "table": name,
            "round_id": round_id,
            "shoe": opened.get("shoe") if opened else None,
            "round": opened.get("round") if opened else None,
            "opened_at": opened.get("t") if opened else None,
            "closes_at": opened.get("closes_at") if opened else None,
            "status": "settled" if hand else "cancelled",
            # a cancelled round's cards were never validated and may never have been shown:
            # they stay in the journal only
            "cards": hand["cards"] if hand else None,
            "results": hand["results"] if hand else None,
            "validated_by": hand.get("validated_by") if hand else None,
            "last_round": hand.get("last_round") if hand else None,
            "validated_at": hand.get("t") if hand else None,
            "cancelled": {"reason": cancelled.get("reason"), "user": cancelled.get("user"),
                          "t": cancelled.get("t")} if cancelled else None,
            "bets": bets,
            "totals": {"bets": len(bets), "staked": sum(b["amount"] for b in bets),
                       "deducted": sum(b["deducted"] for b in bets),
                       "returned": sum(b["returned"] for b in bets),
                       "house_net": sum(b["deducted"] - b["returned"] for b in bets)},
            "faults": [{"t": r["t"], "kind": r["kind"], "detail": r["detail"]}
                       for r in recs if r["type"] == "fault"],
            "warnings": [{"t": r["t"], "kind": r["kind"], "detail": r.get("detail")}
                         for r in recs if r["type"] == "warning"],
            "decisions": [{"t": r["t"], "action": "resume" if r["type"] == "resumed" else "cancel_round",
                           "user": r.get("user")}
                          for r in recs if r["type"] in ("resumed", "round_cancelled")],
            "audit": self.audit.entries(table=name, round_id=round_id),
            "frame": None,
        }
        if self.frame_path(round_id) is not None:
            out["frame"] = f"/api/tables/{name}/rounds/{round_id}/frame.png"
        return out

    def frame_path(self, round_id: str) -> Path | None:
        """The camera's frame at validation: `<frames_dir>/<round_id>.png`, when present."""
        if self.frames_dir is None or not ROUND_ID.match(round_id):
            return None
        p = self.frames_dir / f"{round_id}.png"
        return p if p.is_file() else None

    def close(self) -> None:
        self.closing.set()
        for t in self.tables.values():
            with t.ro_lock:
                if t.ro is not None:
                    t.ro.close()
                    t.ro = None


# ---------------------------------------------------------------------- request helpers
def _console(request: Request) -> Console:
    return request.app.state.console


def _session(request: Request) -> Session | None:
    return _console(request).sessions.get(request.cookies.get(COOKIE))


def _need_session(request: Request) -> Session:
    s = _session(request)
    if s is None:
        raise ApiError(401, "log in first (or your session has expired)")
    return s


def _need_csrf(request: Request, s: Session, form_token: str | None = None) -> None:
    token = request.headers.get("x-csrf-token") or form_token
    if not Sessions.csrf_ok(s, token):
        raise ApiError(403, "missing or wrong CSRF token: reload the console and try again")


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ApiError(400, "the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return body


def _security_headers(resp: Response) -> Response:
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["X-Frame-Options"] = "DENY"
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["Content-Security-Policy"] = (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "frame-ancestors 'none'; form-action 'self'")
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _page(name: str, *, trusted: dict[str, str] | None = None, **text: str) -> HTMLResponse:
    """A template with `{{name}}` filled in: `text` values are escaped (they may hold what a
    visitor typed), `trusted` ones (markup the console drew itself) are not."""
    page = (TEMPLATES / name).read_text(encoding="utf-8")
    for k, v in (trusted or {}).items():
        page = page.replace("{{" + k + "}}", v)
    for k, v in text.items():
        page = page.replace("{{" + k + "}}", html.escape(v))
    return HTMLResponse(page)


# ---------------------------------------------------------------------- pages
async def index(request: Request) -> Response:
    if _session(request) is None:
        return RedirectResponse("/login", status_code=303)
    return _page("console.html", trusted={"diagram": state_svg()})


async def login_page(request: Request) -> Response:
    if _session(request) is not None:
        return RedirectResponse("/", status_code=303)
    return _page("login.html", message="")


async def login(request: Request) -> Response:
    """The login form (form POST, answered with a redirect) and JSON clients (answered with
    JSON): both set the session cookie."""
    c = _console(request)
    is_json = request.headers.get("content-type", "").startswith("application/json")
    if is_json:
        body = await _json_body(request)
    else:
        # the login form is urlencoded; parsed here so that no multipart library is needed
        try:
            form = parse_qs((await request.body()).decode("utf-8"), max_num_fields=10)
        except (UnicodeDecodeError, ValueError):
            form = {}
        body = {k: form[k][0] for k in ("user", "password") if form.get(k)}
    user, password = body.get("user"), body.get("password")
    if not isinstance(user, str) or not isinstance(password, str) or not user:
        if is_json:
            raise ApiError(400, 'send {"user": "...", "password": "..."}')
        return _page("login.html", message="Enter your user name and password.")
    wait = c.login_wait(user)
    if wait > 0:
        reason = f"too many wrong passwords for {user}: try again in {math.ceil(wait)} s"
        c.audit.write(user=user, role=None, action="login", outcome="login_failed", reason=reason)
        if is_json:
            raise ApiError(429, reason)
        resp = _page("login.html", message=reason[0].upper() + reason[1:] + ".")
        resp.status_code = 429
        return resp
    found = await anyio.to_thread.run_sync(c.users.authenticate, user, password)
    if found is None:
        c.login_failed(user)
        c.audit.write(user=user, role=None, action="login", outcome="login_failed",
                      reason="wrong user name or password")
        c.own.counter("station_console_logins_total", "console logins").inc(outcome="failed")
        if is_json:
            raise ApiError(401, "wrong user name or password")
        resp = _page("login.html", message="Wrong user name or password.")
        resp.status_code = 401
        return resp
    with c._login_lock:
        c._failures.pop(user, None)
    s, cookie = c.sessions.create(found.name, found.role)
    c.audit.write(user=found.name, role=found.role, action="login", outcome="login")
    c.own.counter("station_console_logins_total", "console logins").inc(outcome="ok")
    resp: Response
    if is_json:
        resp = JSONResponse({"user": s.user, "role": s.role, "csrf": s.csrf, "expires": s.expires})
    else:
        resp = RedirectResponse("/", status_code=303)
    resp.set_cookie(COOKIE, cookie, max_age=max(1, math.ceil(c.sessions.ttl)), httponly=True, samesite="strict",
                    secure=c.secure_cookies, path="/")
    return resp


async def logout(request: Request) -> Response:
    c = _console(request)
    s = _need_session(request)
    _need_csrf(request, s)
    c.sessions.end(s.sid)
    c.audit.write(user=s.user, role=s.role, action="logout", outcome="logout")
    resp = JSONResponse({"ok": True})
    resp.delete_cookie(COOKIE, path="/")
    return resp


# ---------------------------------------------------------------------- API
async def api_session(request: Request) -> Response:
    s = _need_session(request)
    c = _console(request)
    return JSONResponse({"user": s.user, "role": s.role, "csrf": s.csrf, "expires": s.expires,
                         "actions": sorted(ROLE_ACTIONS[s.role]), "tables": list(c.tables)})


async def api_tables(request: Request) -> Response:
    _need_session(request)
    return JSONResponse({"tables": _console(request).all_views()})


async def api_table(request: Request) -> Response:
    _need_session(request)
    return JSONResponse(_console(request).table_view(request.path_params["table"]))


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


async def _view_stream(c: Console, names: list[str], session: Session) -> AsyncIterator[bytes]:
    """One `view` event per change of any of these tables (and a fresh one every 2 s, so
    time-based figures such as frames per second stay current). The stream ends when the
    session does (logout or expiry): the browser then finds itself logged out.

    No thread per stream: the console's one watcher thread per table wakes every stream
    through its event loop, so any number of screens cost no worker threads."""
    versions = {n: -1 for n in names}
    last_sent = {n: 0.0 for n in names}
    wake = asyncio.Event()
    sub = (asyncio.get_running_loop(), wake, frozenset(names))
    c.subscribe(sub)
    try:
        yield b"retry: 1000\n\n"
        # wake at least once a second so that a closing console or an ended session ends it
        while not c.closing.is_set() and c.sessions.alive(session.sid):
            for name in names:
                version = c.tables[name].station.view_version
                if version > versions[name] or time.monotonic() - last_sent[name] > 2:
                    versions[name] = version
                    last_sent[name] = time.monotonic()
                    yield _sse("view", c.table_view(name))
            with anyio.move_on_after(1.0):
                await wake.wait()
            wake.clear()
    finally:
        c.unsubscribe(sub)


def _stream_response(c: Console, names: list[str], session: Session) -> StreamingResponse:
    return StreamingResponse(_view_stream(c, names, session), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def api_events(request: Request) -> Response:
    s = _need_session(request)
    c = _console(request)
    return _stream_response(c, list(c.tables), s)


async def api_table_events(request: Request) -> Response:
    s = _need_session(request)
    c = _console(request)
    name = request.path_params["table"]
    c.table(name)
    return _stream_response(c, [name], s)


async def api_action(request: Request) -> Response:
    """A dealer or supervisor decision, through the table's journaled input path."""
    c = _console(request)
    s = _need_session(request)
    _need_csrf(request, s)
    name = request.path_params["table"]
    t = c.table(name)
    body = await _json_body(request)
    action = body.get("action")
    if action not in DEALER_ACTIONS | SUPERVISOR_ACTIONS:
        raise ApiError(400, f"unknown action {action!r}: one of "
                            f"{', '.join(sorted(DEALER_ACTIONS | SUPERVISOR_ACTIONS))}")
    view = t.station.view
    r = view.get("round") or {}
    round_id = r.get("round_id") if r and not r.get("finished") else None
    decided = c.own.counter("station_console_actions_total", "console actions by outcome")
    if action not in ROLE_ACTIONS[s.role]:
        who = "a supervisor" if action in SUPERVISOR_ACTIONS else "the dealer"
        reason = f"{action} is for {who}; you are logged in as {s.role}"
        c.audit.write(user=s.user, role=s.role, table=name, action=action, round_id=round_id,
                      outcome="forbidden", reason=reason)
        decided.inc(table=name, action=action, outcome="forbidden")
        raise ApiError(403, reason, outcome="forbidden")
    kind = "supervisor" if action in SUPERVISOR_ACTIONS else "dealer"
    # supervisor lines carry the user (TRACES.md); dealer lines do not — the audit log names
    # the dealer who pressed the button
    user = s.user if kind == "supervisor" else None
    try:
        records = await anyio.to_thread.run_sync(t.station.submit, kind, action, user)
    except (StationStopped, TimeoutError) as e:
        c.audit.write(user=s.user, role=s.role, table=name, action=action, round_id=round_id,
                      outcome="error", reason=str(e))
        raise ApiError(503, f"the table did not answer: {e}") from None
    refused = next((x for x in records if x["type"] == "action_refused"), None)
    types = [x["type"] for x in records]
    outcome = "refused" if refused else "done"
    reason = refused["reason"] if refused else None
    entry = c.audit.write(user=s.user, role=s.role, table=name, action=action, round_id=round_id,
                          outcome=outcome, reason=reason, records=types)
    decided.inc(table=name, action=action, outcome=outcome)
    body_out = {"outcome": outcome, "action": action, "reason": reason, "records": types,
                "audit_id": entry["id"], "view": c.table_view(name)}
    if refused:
        body_out["error"] = f"the table refused {action}: {reason}"
        return JSONResponse(body_out, status_code=409)
    return JSONResponse(body_out)


async def api_rounds(request: Request) -> Response:
    _need_session(request)
    c = _console(request)
    name = request.path_params["table"]
    out = []
    for rid, rec in c.finished_rounds(name).items():
        item: dict[str, Any] = {"round_id": rid, "t": rec["t"],
                                "status": "settled" if rec["type"] == "hand" else "cancelled"}
        if rec["type"] == "hand":
            item["shoe"], item["round"] = rec["shoe"], rec["round"]
            item["results"] = {p: x["outcome"] for p, x in rec["results"].items()}
        else:
            item["reason"] = rec.get("reason")
            m = re.search(r"-S(\d+)-R(\d+)$", rid)
            if m:
                item["shoe"], item["round"] = int(m.group(1)), int(m.group(2))
        item["frame"] = c.frame_path(rid) is not None
        out.append(item)
    out.reverse()
    return JSONResponse({"table": name, "rounds": out})


async def api_round(request: Request) -> Response:
    _need_session(request)
    c = _console(request)
    return JSONResponse(c.recall(request.path_params["table"], request.path_params["round_id"]))


async def api_frame(request: Request) -> Response:
    _need_session(request)
    c = _console(request)
    name, rid = request.path_params["table"], request.path_params["round_id"]
    c.recall(name, rid)  # the same checks: this table's round, and over
    p = c.frame_path(rid)
    if p is None:
        raise ApiError(404, f"no camera frame was kept for {rid}")
    return FileResponse(p, media_type="image/png")


async def api_roads(request: Request) -> Response:
    _need_session(request)
    c = _console(request)
    name = request.path_params["table"]
    view = c.table(name).station.view
    shoe_q = request.query_params.get("shoe")
    if shoe_q is not None:
        if not shoe_q.isdigit():
            raise ApiError(400, "shoe must be a shoe number, e.g. ?shoe=1")
        shoe = int(shoe_q)
    else:
        shoe = (view.get("shoe") or {}).get("number")
    hands = c.hands(name, shoe) if shoe is not None else []
    positions = [p for p in view.get("positions", []) if p != "B"]
    return JSONResponse({
        "table": name, "shoe": shoe, "rounds": len(hands),
        "roads": {p: {"svg": road_svg(hands, p), "beads": road(hands, p)} for p in positions},
    })


async def api_audit(request: Request) -> Response:
    s = _need_session(request)
    if s.role != "supervisor":
        raise ApiError(403, "the audit log is for supervisors")
    c = _console(request)
    table = request.query_params.get("table")
    if table is not None:
        c.table(table)
    try:
        limit = min(max(int(request.query_params.get("limit", "100")), 1), 1000)
    except ValueError:
        raise ApiError(400, "limit must be a number") from None
    return JSONResponse({"entries": c.audit.entries(table=table, limit=limit)})


async def metrics(request: Request) -> Response:
    c = _console(request)
    views = [t.station.view for t in c.tables.values() if t.station.view]
    lat = {n: list(t.station.latencies_us[-1000:]) for n, t in c.tables.items()}
    text = render_tables(views, lat) + c.registry.render() + c.own.render()
    return PlainTextResponse(text, media_type="text/plain; version=0.0.4")


# ---------------------------------------------------------------------- errors
async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return _security_headers(JSONResponse({"error": exc.message, **exc.extra}, status_code=exc.status))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/") or request.url.path == "/metrics":
        msg = {404: "no such API path", 405: "this method is not allowed here"}.get(
            exc.status_code, exc.detail)
        return JSONResponse({"error": f"{msg}: {request.method} {request.url.path}"},
                            status_code=exc.status_code)
    return PlainTextResponse(str(exc.detail), status_code=exc.status_code)


class _Headers:
    """Security headers on every response (pure ASGI: does not buffer the event streams)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with(message: Any) -> None:
            if message["type"] == "http.response.start":
                probe = Response()
                _security_headers(probe)
                headers = list(message.get("headers", []))
                have = {k.lower() for k, _ in headers}
                for k, v in probe.headers.raw:
                    if k not in have and k != b"content-length" and k != b"content-type":
                        headers.append((k, v))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with)


def make_console_app(stations: Mapping[str, TableStation] | Iterable[TableStation], *,
                     users: UserStore | str | Path, secret: str | bytes,
                     frames_dir: str | Path | None = None, audit_path: str | Path | None = None,
                     session_ttl: float = 8 * 3600, registry: Registry = REGISTRY,
                     secure_cookies: bool = False) -> Starlette:
    """The console over these tables (a mapping table name -> station, or the stations).

    `users`: a `UserStore` or the path of its file. `secret` signs the session cookies.
    `frames_dir`: where the camera writes `<round_id>.png` at validation (optional).
    `audit_path`: the audit log (default: `console_audit.sqlite` beside the first journal).
    """
    console = Console(stations, users=users, secret=secret, frames_dir=frames_dir,
                      audit_path=audit_path, session_ttl=session_ttl, registry=registry,
                      secure_cookies=secure_cookies)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        console.close()

    routes = [
        Route("/", index),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/session", api_session),
        Route("/api/tables", api_tables),
        Route("/api/events", api_events),
        Route("/api/audit", api_audit),
        Route("/api/tables/{table}", api_table),
        Route("/api/tables/{table}/events", api_table_events),
        Route("/api/tables/{table}/actions", api_action, methods=["POST"]),
        Route("/api/tables/{table}/rounds", api_rounds),
        Route("/api/tables/{table}/rounds/{round_id}", api_round),
        Route("/api/tables/{table}/rounds/{round_id}/frame.png", api_frame),
        Route("/api/tables/{table}/roads", api_roads),
        Route("/metrics", metrics),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={ApiError: _api_error, HTTPException: _http_error})
    app.state.console = console
    console.start_samplers()
    app.add_middleware(_Headers)
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
