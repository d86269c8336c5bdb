"""Console users: who may watch a table and who may decide for it.

Three roles. The **supervisor** takes the procedure's supervisor decisions (confirm_shuffle,
resume, cancel_round, end_shoe, close_table); the **dealer** takes the dealer's actions
(new_shoe, open_betting, and the actions its game adds). Both may watch. The **technician**
takes no decision at the table: they set it up (the console's table setup: camera zones,
calibration; station/console/setup.py) and may watch. Passwords are never stored: only an scrypt hash
(`hashlib.scrypt`, standard library) with a per-user salt, in a small SQLite file.
"""

from __future__ import annotations

import argparse
import getpass
import hashlib
import hmac
import secrets
import sqlite3
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from station.private_files import private_file

ROLES = ("supervisor", "dealer", "technician")
#: which of the kernel's inputs each role may send to the table (PROCEDURE.md §1); a game
#: adds its own per role (`Presentation.role_actions`, station/console/panels.py)
ROLE_ACTIONS: dict[str, frozenset[str]] = {
    "supervisor": frozenset({"confirm_shuffle", "resume", "cancel_round", "end_shoe", "close_table"}),
    "dealer": frozenset({"new_shoe", "open_betting"}),
    # the table's setup (station/console/setup.py) is no input to the table
    "technician": frozenset(),
}

# scrypt cost: n=2**14, r=8 needs 16 MiB and about 50 ms: slow enough to make guessing costly,
# fast enough for a login form.
_N, _R, _P = 2**14, 8, 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    hash TEXT NOT NULL
);
"""


class UserError(ValueError):
    pass


def hash_password(password: str, *, n: int = _N, r: int = _R, p: int = _P) -> str:
    """`scrypt$n$r$p$salt$key` (hex); everything needed to check the password later."""
    salt = secrets.token_bytes(16)
    key = hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, dklen=32, maxmem=64 * 2**20)
    return f"scrypt${n}${r}${p}${salt.hex()}${key.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        algo, n, r, p, salt, key = stored.split("$")
        if algo != "scrypt":
            return False
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r),
                             p=int(p), dklen=len(key) // 2, maxmem=64 * 2**20)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got.hex(), key)


@dataclass(frozen=True, slots=True)
class User:
    name: str
    role: str


class UserStore:
    """Users in SQLite (`path`), or in memory when `path` is None (tests, one-off demos)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            private_file(self.path, sqlite=True)  # password hashes: the station's user only
        self._conn = sqlite3.connect(str(self.path) if self.path else ":memory:",
                                     check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._conn.executescript(SCHEMA)
        self._lock = threading.Lock()
        # a hash to check against when the user does not exist, so that an unknown name
        # takes as long to refuse as a wrong password
        self._dummy = hash_password(secrets.token_hex(8))

    def add(self, name: str, role: str, password: str) -> User:
        """Create the user, or replace the role and password of an existing one."""
        if role not in ROLES:
            raise UserError(f"unknown role {role!r}: choose one of {', '.join(ROLES)}")
        if not name or not name.isprintable() or len(name) > 64 or name.strip() != name:
            raise UserError("a user name is 1 to 64 printable characters, without spaces around")
        if len(password) < 8:
            raise UserError("a password needs at least 8 characters")
        h = hash_password(password)
        with self._lock:
            self._conn.execute("INSERT INTO users (name, role, hash) VALUES (?, ?, ?) "
                               "ON CONFLICT(name) DO UPDATE SET role=excluded.role, hash=excluded.hash",
                               (name, role, h))
        return User(name, role)

    def remove(self, name: str) -> bool:
        with self._lock:
            cur = self._conn.execute("DELETE FROM users WHERE name=?", (name,))
        return cur.rowcount > 0

    def users(self) -> list[User]:
        with self._lock:
            rows = self._conn.execute("SELECT name, role FROM users ORDER BY name").fetchall()
        return [User(n, r) for n, r in rows]

    def authenticate(self, name: str, password: str) -> User | None:
        with self._lock:
            row = self._conn.execute("SELECT role, hash FROM users WHERE name=?", (name,)).fetchone()
        if row is None:
            check_password(password, self._dummy)
            return None
        role, stored = row
        return User(name, role) if check_password(password, stored) else None

    def stored_hash(self, name: str) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT hash FROM users WHERE name=?", (name,)).fetchone()
        return row[0] if row else None

    def close(self) -> None:
        self._conn.close()


def main(argv: list[str] | None = None) -> int:
    """`python -m station.console adduser|deluser|list --users FILE ...`"""
    ap = argparse.ArgumentParser(prog="python -m station.console",
                                 description="Manage the supervisor console's users.")
    ap.add_argument("--users", required=True, help="the user file (SQLite), created if missing")
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("adduser", help="add a user or change a user's role and password")
    a.add_argument("name")
    a.add_argument("--role", choices=ROLES, required=True)
    a.add_argument("--password-stdin", action="store_true",
                   help="read the password from standard input instead of asking")
    d = sub.add_parser("deluser", help="remove a user")
    d.add_argument("name")
    sub.add_parser("list", help="list users and their roles")
    args = ap.parse_args(argv)
    store = UserStore(args.users)
    try:
        if args.cmd == "adduser":
            if args.password_stdin:
                pw = sys.stdin.readline().rstrip("\n")
            else:
                pw = getpass.getpass(f"password for {args.name}: ")
                if getpass.getpass("again: ") != pw:
                    print("the two passwords differ", file=sys.stderr)
                    return 1
            store.add(args.name, args.role, pw)
            print(f"{args.name} ({args.role}) saved in {args.users}")
        elif args.cmd == "deluser":
            if not store.remove(args.name):
                print(f"no user {args.name!r}", file=sys.stderr)
                return 1
        else:
            for u in store.users():
                print(f"{u.name}\t{u.role}")
    except UserError as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0
