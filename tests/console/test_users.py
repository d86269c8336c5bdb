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
    assert sum(1 for e in entries if e["outcome"] == "login_failed" and e["user"] == "sup1") == 7


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
