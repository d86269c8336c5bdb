"""Login sessions of the console, with expiry and a CSRF token each.

The browser holds only a cookie `session_id.signature` (HMAC-SHA256 with the console's
secret, HttpOnly, SameSite=Strict); the session itself (user, role, expiry, CSRF token) stays
in the console. Every state-changing request must also carry the session's CSRF token in the
`X-CSRF-Token` header (or a `csrf` form field): a page from another site cannot read it, so it
cannot make the supervisor's browser decide anything.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

COOKIE = "station_console"


@dataclass(slots=True)
class Session:
    sid: str
    user: str
    role: str
    csrf: str
    created: float
    expires: float


class Sessions:
    def __init__(self, secret: str | bytes, *, ttl_seconds: float = 8 * 3600,
                 clock: Callable[[], float] = time.time) -> None:
        if not secret:
            raise ValueError("the console needs a secret to sign its session cookies")
        self._key = secret.encode() if isinstance(secret, str) else bytes(secret)
        self.ttl = ttl_seconds
        self._clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def _sign(self, sid: str) -> str:
        return hmac.new(self._key, sid.encode(), hashlib.sha256).hexdigest()

    def create(self, user: str, role: str) -> tuple[Session, str]:
        """A new session and the cookie value that names it."""
        now = self._clock()
        s = Session(secrets.token_urlsafe(24), user, role, secrets.token_urlsafe(24), now, now + self.ttl)
        with self._lock:
            self._purge(now)
            self._sessions[s.sid] = s
        return s, f"{s.sid}.{self._sign(s.sid)}"

    def get(self, cookie: str | None) -> Session | None:
        """The live session a cookie names; None if missing, forged or expired."""
        if not cookie or "." not in cookie:
            return None
        sid, sig = cookie.rsplit(".", 1)
        if not hmac.compare_digest(sig, self._sign(sid)):
            return None
        with self._lock:
            s = self._sessions.get(sid)
            if s is None:
                return None
            if self._clock() >= s.expires:
                del self._sessions[sid]
                return None
            return s

    def alive(self, sid: str) -> bool:
        with self._lock:
            s = self._sessions.get(sid)
            return s is not None and self._clock() < s.expires

    def end(self, sid: str) -> None:
        with self._lock:
            self._sessions.pop(sid, None)

    def _purge(self, now: float) -> None:
        for sid in [k for k, s in self._sessions.items() if now >= s.expires]:
            del self._sessions[sid]

    @staticmethod
    def csrf_ok(session: Session, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(session.csrf, token or "")
