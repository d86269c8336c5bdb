"""Console users and sessions: scrypt-hashed passwords, roles, the user file helper, expiry,
password guessing, and event streams that end with the session."""

from __future__ import annotations

import io
import sqlite3
import sys
import threading

import httpx
import pytest

from station.console.sessions import Sessions
from station.console.users import UserError, UserStore, check_password, hash_password, main


def test_passwords_are_stored_as_scrypt_hashes_only(tmp_path) -> None:
    store = UserStore(tmp_path / "users.sqlite")
    store.add("sup1", "supervisor", "correct horse battery")
    store.close()
    raw = sqlite3.connect(tmp_path / "users.sqlite").execute("SELECT name, role, hash FROM users").fetchall()
    assert raw[0][:2] == ("sup1", "supervisor")
    h = raw[0][2]
    assert h.startswith("scrypt$16384$8$1$") and "correct" not in h
    assert (tmp_path / "users.sqlite").read_bytes().find(b"correct horse") == -1
    # the same password hashes differently each time (salted) and both check
    h2 = hash_password("correct horse battery")
    assert h2 != h and check_password("correct horse battery", h2)
    store = UserStore(tmp_path / "users.sqlite")
    assert store.authenticate("sup1", "correct horse battery").role == "supervisor"
    assert store.authenticate("sup1", "correct horse batterY") is None
    assert store.authenticate("nobody", "correct horse battery") is None
    assert not check_password("x", "md5$abc") and not check_password("x", "garbage")


def test_user_rules(tmp_path) -> None:
    store = UserStore(None)
    with pytest.raises(UserError, match="role"):
        store.add("x", "pit_boss", "long enough")
    with pytest.raises(UserError, match="8 characters"):
        store.add("x", "dealer", "short")
    with pytest.raises(UserError, match="user name"):
        store.add(" x", "dealer", "long enough")
    store.add("d", "dealer", "long enough")
    store.add("d", "supervisor", "another one")  # replaces role and password
    assert [(u.name, u.role) for u in store.users()] == [("d", "supervisor")]
    assert store.authenticate("d", "long enough") is None
    assert store.remove("d") and not store.remove("d")


def test_the_user_file_helper(tmp_path, monkeypatch, capsys) -> None:
    path = str(tmp_path / "users.sqlite")
    monkeypatch.setattr(sys, "stdin", io.StringIO("floor-pass-123\n"))
    assert main(["--users", path, "adduser", "sup9", "--role", "supervisor", "--password-stdin"]) == 0
    assert main(["--users", path, "list"]) == 0
    assert "sup9\tsupervisor" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.StringIO("short\n"))
    assert main(["--users", path, "adduser", "d1", "--role", "dealer", "--password-stdin"]) == 1
    assert "8 characters" in capsys.readouterr().err
    assert UserStore(path).authenticate("sup9", "floor-pass-123") is not None
    assert main(["--users", path, "deluser", "sup9"]) == 0
    assert main(["--users", path, "deluser", "sup9"]) == 1


def test_sessions_sign_and_expire() -> None:
    now = [1000.0]
    s = Sessions("k" * 32, ttl_seconds=60, clock=lambda: now[0])
    sess, cookie = s.create("sup1", "supervisor")
    assert s.get(cookie) is sess and s.alive(sess.sid)
    other = Sessions("another secret", ttl_seconds=60, clock=lambda: now[0])
    assert other.get(cookie) is None  # signed with another secret
    assert s.get(sess.sid + ".0000") is None and s.get(None) is None and s.get("junk") is None
    assert Sessions.csrf_ok(sess, sess.csrf) and not Sessions.csrf_ok(sess, "x") and not Sessions.csrf_ok(sess, None)
    now[0] += 61
    assert s.get(cookie) is None and not s.alive(sess.sid)
    with pytest.raises(ValueError):
        Sessions("")


def test_password_guessing_is_slowed(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    c = httpx.Client(base_url=con.url)
    for _ in range(5):
        assert c.post("/api/login", json={"user": "sup1", "password": "guess-guess"}).status_code == 401
    r = c.post("/api/login", json={"user": "sup1", "password": "floor-sup-pass"})
    assert r.status_code == 429 and "too many wrong passwords" in r.json()["error"]
    # the form says so too, and what a visitor typed is shown escaped, never as markup
    r = c.post("/login", data={"user": "sup1", "password": "x"})
    assert r.status_code == 429 and "Too many wrong passwords for sup1" in r.text
    for _ in range(5):
        c.post("/api/login", json={"user": "<b>x</b>", "password": "guess-guess"})
    r = c.post("/login", data={"user": "<b>x</b>", "password": "x"})
    assert r.status_code == 429 and "&lt;b&gt;x&lt;/b&gt;" in r.text and "<b>x</b>" not in r.text
    # another user is not held up by it
    assert c.post("/api/login", json={"user": "sup2", "password": "second-sup-pass"}).status_code == 200
    entries = con.console.audit.entries()
    assert sum(1 for e in entries if e["outcome"] == "login_failed" and e["user"] == "sup1") == 5
    assert sum(1 for e in entries if e["outcome"] == "login_locked" and e["user"] == "sup1") == 2


def _client_from(url: str, address: str) -> httpx.Client:
    """A client whose connections come from this loopback address (127.0.0.0/8 is all ours)."""
    return httpx.Client(base_url=url, timeout=15,
                        transport=httpx.HTTPTransport(local_address=address))


def test_a_stranger_guessing_cannot_lock_the_supervisor_out(make_table, serve) -> None:
    con = serve(make_table("order_fault"))
    stranger, floor = _client_from(con.url, "127.0.0.2"), _client_from(con.url, "127.0.0.3")
    for _ in range(12):
        stranger.post("/api/login", json={"user": "sup1", "password": "guess-guess"})
    assert stranger.post("/api/login", json={"user": "sup1", "password": "floor-sup-pass"}).status_code == 429
    # the supervisor at the floor's own screen logs in at once
    assert floor.post("/api/login", json={"user": "sup1", "password": "floor-sup-pass"}).status_code == 200
    # spraying many names from one address locks that address for every name
    for i in range(25):
        stranger.post("/api/login", json={"user": f"name{i}", "password": "guess-guess"})
    r = stranger.post("/api/login", json={"user": "sup2", "password": "second-sup-pass"})
    assert r.status_code == 429
    # and the audit log does not grow with every try: locked attempts are written at most
    # ten a minute per address
    locked = [e for e in con.console.audit.entries(limit=1000) if e["outcome"] == "login_locked"]
    assert 1 <= len(locked) <= 10


def test_what_is_logged_of_a_login_is_bounded(make_table, serve) -> None:
    con = serve(make_table("order_fault"))
    c = httpx.Client(base_url=con.url, timeout=30)
    huge = "u" * 100_000
    r = c.post("/api/login", json={"user": huge[:1000], "password": "x"})
    assert r.status_code == 401
    # a body past the console's bound is refused before it is read
    r = c.post("/api/login", json={"user": huge, "password": "x"})
    assert r.status_code == 413
    r = c.post("/login", content=b"user=" + b"a" * (32 * 2**20) + b"&password=x",
               headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413
    names = [e["user"] for e in con.console.audit.entries(limit=1000)]
    assert max(len(n) for n in names) <= 100
    assert any(n.startswith("u" * 64 + "…") for n in names)


def test_the_failure_table_forgets_and_is_bounded() -> None:
    from station.console.auth import LoginGuard

    now = [0.0]
    guard = LoginGuard(clock=lambda: now[0])
    for i in range(LoginGuard.MAX_KEYS + 500):
        guard.failed(f"name{i}", f"10.0.{i // 250}.{i % 250}")
    pairs, addresses = guard.sizes()
    assert pairs <= LoginGuard.MAX_KEYS and addresses <= LoginGuard.MAX_KEYS
    now[0] += LoginGuard.WINDOW_S + 1
    guard.failed("sup1", "10.9.9.9")
    assert guard.sizes() == (1, 1)
    for _ in range(LoginGuard.PAIR_FAILURES):
        guard.failed("sup1", "10.9.9.9")
    assert guard.wait_s("sup1", "10.9.9.9") > 0 and guard.wait_s("sup1", "10.9.9.8") == 0
    now[0] += LoginGuard.WINDOW_S + 1
    assert guard.wait_s("sup1", "10.9.9.9") == 0


def test_event_stream_ends_at_logout(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    c = con.client("sup1")
    events: list[str] = []
    opened = threading.Event()

    def listen() -> None:
        with c.stream("GET", "/api/events") as s:
            for line in s.iter_lines():
                if line.startswith("data: "):
                    events.append(line)
                    opened.set()

    th = threading.Thread(target=listen, daemon=True)
    th.start()
    assert opened.wait(10)
    assert c.post("/api/logout", headers={"X-CSRF-Token": c.csrf}).status_code == 200
    th.join(10)
    assert not th.is_alive(), "the stream outlived the session"
