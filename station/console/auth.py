"""Who is at the console: login, logout, sessions, CSRF, and the lockout that guards them.

Lockout policy (docs/console.md, "Logging in"):

- wrong passwords are counted per **(user name, client address)**: after `PAIR_FAILURES`
  within `WINDOW_S` that name is refused *from that address* until the oldest failure leaves
  the window — so a stranger guessing at `sup1` locks out only themselves, never the
  supervisor at the floor's own screen;
- and per **client address** across all names: after `ADDRESS_FAILURES` within the window
  that address is refused for every name (spraying many names from one place);
- the table of failures forgets what has left the window and never holds more than
  `MAX_KEYS` entries (the oldest go first), so it cannot be grown without bound.

The client address is the connection's peer address as uvicorn reports it; no forwarded-for
header is trusted (behind a studio proxy, run uvicorn with the proxy's own settings).

What lands in the audit log is bounded too: a user name is logged at most
`MAX_LOGGED_NAME_CHARS` characters, and refused requests (401 without a session, 403 for a
wrong CSRF token or a role's limit, 429 while locked out) are written at most
`RefusalAudit.PER_WINDOW` times per address and kind in `RefusalAudit.WINDOW_S`; the next
row written says how many like it were not.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from station.console.audit import AuditLog
from station.console.bodies import body_bytes, json_object
from station.console.errors import ApiError
from station.console.pages import page
from station.console.sessions import COOKIE, Session, Sessions

if TYPE_CHECKING:
    from station.console.model import Console

#: a user name is at most 64 characters (`UserStore.add`); longer is logged cut to this
MAX_LOGGED_NAME_CHARS = 64


def logged_name(name: str) -> str:
    """A user name as the audit log keeps it: cut, and marked as cut."""
    if len(name) <= MAX_LOGGED_NAME_CHARS:
        return name
    return name[:MAX_LOGGED_NAME_CHARS] + f"… ({len(name)} characters)"


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


class _Windows:
    """Event times per key, forgotten after `window_s`, at most `max_keys` keys."""

    def __init__(self, limit: int, window_s: float, max_keys: int, clock: Callable[[], float]) -> None:
        self.limit, self.window_s, self.max_keys, self.clock = limit, window_s, max_keys, clock
        self._times: OrderedDict[Any, deque[float]] = OrderedDict()

    def _forget_old(self, now: float) -> None:
        # keys are kept in order of their last event: the stale ones are at the front
        while self._times:
            key, times = next(iter(self._times.items()))
            if times and times[-1] > now - self.window_s:
                break
            del self._times[key]

    def add(self, key: Any) -> None:
        now = self.clock()
        self._forget_old(now)
        times = self._times.pop(key, None) or deque(maxlen=self.limit)
        times.append(now)
        self._times[key] = times
        while len(self._times) > self.max_keys:
            self._times.popitem(last=False)

    def wait_s(self, key: Any) -> float:
        """Seconds until `key` is under its limit again (0: it is now)."""
        now = self.clock()
        self._forget_old(now)
        times = self._times.get(key)
        if times is None or len(times) < self.limit:
            return 0.0
        return max(0.0, times[0] + self.window_s - now)

    def clear(self, key: Any) -> None:
        self._times.pop(key, None)

    def __len__(self) -> int:
        return len(self._times)


class LoginGuard:
    PAIR_FAILURES = 5
    ADDRESS_FAILURES = 20
    WINDOW_S = 300.0
    MAX_KEYS = 10_000

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._pairs = _Windows(self.PAIR_FAILURES, self.WINDOW_S, self.MAX_KEYS, clock)
        self._addresses = _Windows(self.ADDRESS_FAILURES, self.WINDOW_S, self.MAX_KEYS, clock)

    def wait_s(self, name: str, address: str) -> float:
        """Seconds before this name may try again from this address (0: now)."""
        key = (name[:MAX_LOGGED_NAME_CHARS + 1], address)
        with self._lock:
            return max(self._pairs.wait_s(key), self._addresses.wait_s(address))

    def failed(self, name: str, address: str) -> None:
        with self._lock:
            self._pairs.add((name[:MAX_LOGGED_NAME_CHARS + 1], address))
            self._addresses.add(address)

    def succeeded(self, name: str, address: str) -> None:
        with self._lock:
            self._pairs.clear((name[:MAX_LOGGED_NAME_CHARS + 1], address))

    def sizes(self) -> tuple[int, int]:
        with self._lock:
            return len(self._pairs), len(self._addresses)


class RefusalAudit:
    """Refused requests in the audit log, at most PER_WINDOW per (address, kind) per WINDOW_S."""

    PER_WINDOW = 10
    WINDOW_S = 60.0
    MAX_KEYS = 10_000

    def __init__(self, audit: AuditLog, clock: Callable[[], float] = time.monotonic) -> None:
        self.audit = audit
        self._lock = threading.Lock()
        self._written = _Windows(self.PER_WINDOW, self.WINDOW_S, self.MAX_KEYS, clock)
        self._suppressed: dict[tuple[str, str], int] = {}

    def write(self, address: str, *, user: str, role: str | None, action: str, outcome: str,
              reason: str, table: str | None = None, round_id: str | None = None) -> bool:
        """Audit one refusal unless this address has had its share; True if written."""
        key = (address, outcome)
        with self._lock:
            if self._written.wait_s(key) > 0:
                if key in self._suppressed or len(self._suppressed) < self.MAX_KEYS:
                    self._suppressed[key] = self._suppressed.get(key, 0) + 1
                return False
            self._written.add(key)
            skipped = self._suppressed.pop(key, 0)
        if skipped:
            reason += f" ({skipped} more like it from {address} were not logged)"
        self.audit.write(user=logged_name(user), role=role, action=logged_name(action),
                         outcome=outcome, reason=f"{reason} [from {address}]", table=table,
                         round_id=round_id)
        return True


# ---------------------------------------------------------------------- request helpers
def console_of(request: Request) -> Console:
    return request.app.state.console


def session_of(request: Request) -> Session | None:
    return console_of(request).sessions.get(request.cookies.get(COOKIE))


def need_session(request: Request) -> Session:
    s = session_of(request)
    if s is None:
        console_of(request).refusals.write(
            client_address(request), user="-", role=None, action=f"{request.method} {request.url.path}",
            outcome="unauthorized", reason="no session")
        raise ApiError(401, "log in first (or your session has expired)")
    return s


def need_csrf(request: Request, s: Session, form_token: str | None = None) -> None:
    token = request.headers.get("x-csrf-token") or form_token
    if not Sessions.csrf_ok(s, token):
        console_of(request).refusals.write(
            client_address(request), user=s.user, role=s.role,
            action=f"{request.method} {request.url.path}", outcome="bad_csrf",
            reason="missing or wrong CSRF token")
        raise ApiError(403, "missing or wrong CSRF token: reload the console and try again")


# ---------------------------------------------------------------------- login and logout
async def login_page(request: Request) -> Response:
    if session_of(request) is not None:
        return RedirectResponse("/", status_code=303)
    return page("login.html", message="")


async def login(request: Request) -> Response:
    """The login form (form POST, answered with a redirect) and JSON clients (answered with
    JSON): both set the session cookie."""
    c = console_of(request)
    address = client_address(request)
    is_json = request.headers.get("content-type", "").startswith("application/json")
    if is_json:
        body = await json_object(request)
    else:
        # the login form is urlencoded; parsed here so that no multipart library is needed
        raw = await body_bytes(request)
        try:
            form = parse_qs(raw.decode("utf-8"), max_num_fields=10)
        except (UnicodeDecodeError, ValueError):
            form = {}
        body = {k: form[k][0] for k in ("user", "password") if form.get(k)}
    user, password = body.get("user"), body.get("password")
    if not isinstance(user, str) or not isinstance(password, str) or not user:
        if is_json:
            raise ApiError(400, 'send {"user": "...", "password": "..."}')
        return page("login.html", message="Enter your user name and password.")
    wait = c.logins.wait_s(user, address)
    if wait > 0:
        reason = (f"too many wrong passwords for {logged_name(user)} from this address: "
                  f"try again in {math.ceil(wait)} s")
        c.refusals.write(address, user=user, role=None, action="login", outcome="login_locked",
                         reason=reason)
        if is_json:
            raise ApiError(429, reason)
        resp = page("login.html", message=reason[0].upper() + reason[1:] + ".")
        resp.status_code = 429
        return resp
    found = await anyio.to_thread.run_sync(c.users.authenticate, user, password)
    if found is None:
        c.logins.failed(user, address)
        c.audit.write(user=logged_name(user), role=None, action="login", outcome="login_failed",
                      reason=f"wrong user name or password [from {address}]")
        c.own.counter("station_console_logins_total", "console logins").inc(outcome="failed")
        if is_json:
            raise ApiError(401, "wrong user name or password")
        resp = page("login.html", message="Wrong user name or password.")
        resp.status_code = 401
        return resp
    c.logins.succeeded(user, address)
    s, cookie = c.sessions.create(found.name, found.role)
    c.audit.write(user=found.name, role=found.role, action="login", outcome="login")
    c.own.counter("station_console_logins_total", "console logins").inc(outcome="ok")
    resp_ok: Response
    if is_json:
        resp_ok = JSONResponse({"user": s.user, "role": s.role, "csrf": s.csrf, "expires": s.expires})
    else:
        resp_ok = RedirectResponse("/", status_code=303)
    resp_ok.set_cookie(COOKIE, cookie, max_age=max(1, math.ceil(c.sessions.ttl)), httponly=True,
                       samesite="strict", secure=c.secure_cookies, path="/")
    return resp_ok


async def logout(request: Request) -> Response:
    c = console_of(request)
    s = need_session(request)
    need_csrf(request, s)
    c.sessions.end(s.sid)
    c.audit.write(user=s.user, role=s.role, action="logout", outcome="logout")
    resp = JSONResponse({"ok": True})
    resp.delete_cookie(COOKIE, path="/")
    return resp
