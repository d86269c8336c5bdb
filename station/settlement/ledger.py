"""The settlement ledger: double-entry books on an embedded SQLite file.

Every movement of money is an *entry* made of *postings* that sum to zero, in integer minor
units. Player wallets are accounts of kind ``wallet``; the station's own side is three system
accounts:

- ``cashier``: where wallet balances come from (a `wallet` message posts the difference);
- ``in_play``: money deducted for accepted bets and not yet settled or refunded;
- ``house``: what the table won or paid out.

A wallet balance can never go negative: the schema refuses it (CHECK constraint), so a bug
elsewhere fails loudly instead of minting credit. The cached balance in ``accounts`` is kept in
the same transaction as the postings, and `check_books` verifies the two agree.

The file runs in WAL mode with ``synchronous=FULL``: a commit is on disk before it returns,
which is what "settled" promises a player.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    id      INTEGER PRIMARY KEY,
    kind    TEXT NOT NULL CHECK (kind IN ('wallet', 'system')),
    name    TEXT NOT NULL,
    balance INTEGER NOT NULL DEFAULT 0,
    UNIQUE (kind, name),
    CHECK (kind != 'wallet' OR balance >= 0)
);
-- One row per applied message: the idempotency record and the journal entry in one.
CREATE TABLE IF NOT EXISTS entries (
    id         INTEGER PRIMARY KEY,
    key        TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    round_id   TEXT,
    t          REAL,
    applied_at REAL NOT NULL,
    digest     TEXT NOT NULL,  -- sha256 of the message, to catch a key reused for other content
    result     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS postings (
    id         INTEGER PRIMARY KEY,
    entry_id   INTEGER NOT NULL REFERENCES entries(id),
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    amount     INTEGER NOT NULL,
    bet_id     INTEGER REFERENCES bets(id)
);
CREATE INDEX IF NOT EXISTS postings_by_bet ON postings(bet_id) WHERE bet_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS postings_by_entry ON postings(entry_id);
CREATE TABLE IF NOT EXISTS bets (
    id         INTEGER PRIMARY KEY,
    key        TEXT NOT NULL UNIQUE,
    round_id   TEXT NOT NULL,
    game       TEXT NOT NULL,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    spot       TEXT NOT NULL,
    amount     INTEGER NOT NULL CHECK (amount > 0),
    deducted   INTEGER NOT NULL CHECK (deducted > 0),
    status     TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'settled', 'refunded')),
    returned   INTEGER CHECK (returned IS NULL OR returned >= 0)
);
CREATE INDEX IF NOT EXISTS bets_by_round ON bets(round_id, status);
CREATE TABLE IF NOT EXISTS rounds (
    round_id TEXT PRIMARY KEY,
    status   TEXT NOT NULL CHECK (status IN ('settled', 'cancelled')),
    entry_id INTEGER NOT NULL REFERENCES entries(id),
    reason   TEXT
);
"""

SYSTEM_ACCOUNTS = ("cashier", "in_play", "house")

#: at most this many problems are listed one by one; the rest are counted
MAX_LISTED_PROBLEMS = 50


def connect(path: str | Path, *, read_only: bool = False) -> sqlite3.Connection:
    """Open the ledger file. Writers get WAL + synchronous=FULL; transactions are explicit."""
    if read_only:
        uri = f"file:{Path(path).resolve()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 10000")
        return conn
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.executescript(SCHEMA)
    for name in SYSTEM_ACCOUNTS:
        conn.execute("INSERT OR IGNORE INTO accounts (kind, name) VALUES ('system', ?)", (name,))
    return conn


@dataclass
class CheckReport:
    """What `station ledger check` prints: `ok` is true only when `problems` is empty."""

    ok: bool
    problems: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "problems": self.problems, "figures": self.figures}


def check_books(conn: sqlite3.Connection, *, require_closed: bool = False) -> CheckReport:
    """Verify the books from the raw rows, trusting none of the cached figures.

    - all postings sum to zero, and so does every entry;
    - every account's cached balance equals the sum of its postings; no wallet is negative;
    - every bet was deducted exactly once and is closed (settled or refunded) at most once,
      exactly once if its round is over, with the amounts its status claims;
    - ``in_play`` holds exactly what the open bets deducted.
    With `require_closed`, a bet still open (its round not yet settled) is also a problem:
    auditors use it at the end of a session, when every round is over.
    """
    problems: list[str] = []
    more = 0

    def problem(text: str) -> None:
        nonlocal more
        if len(problems) < MAX_LISTED_PROBLEMS:
            problems.append(text)
        else:
            more += 1

    conn.execute("BEGIN")  # one consistent snapshot for all the queries below
    try:
        total, n_postings = conn.execute(
            "SELECT COALESCE(SUM(amount), 0), COUNT(*) FROM postings"
        ).fetchone()
        if total != 0:
            problem(f"postings sum to {total}, not 0")
        for entry_id, key, s in conn.execute(
            "SELECT e.id, e.key, SUM(p.amount) FROM postings p JOIN entries e ON e.id = p.entry_id"
            " GROUP BY p.entry_id HAVING SUM(p.amount) != 0"
        ):
            problem(f"entry {entry_id} ({key}) is unbalanced by {s}")
        for kind, name, cached, posted in conn.execute(
            "SELECT a.kind, a.name, a.balance, COALESCE(SUM(p.amount), 0) FROM accounts a"
            " LEFT JOIN postings p ON p.account_id = a.id GROUP BY a.id"
            " HAVING a.balance != COALESCE(SUM(p.amount), 0)"
        ):
            problem(f"{kind} account {name!r}: balance {cached} but postings sum to {posted}")
        for (name, balance) in conn.execute(
            "SELECT name, balance FROM accounts WHERE kind = 'wallet' AND balance < 0"
        ):
            problem(f"wallet {name!r} is negative: {balance}")

        in_play = conn.execute(
            "SELECT id FROM accounts WHERE kind = 'system' AND name = 'in_play'"
        ).fetchone()[0]
        counts = {"open": 0, "settled": 0, "refunded": 0}
        rows = conn.execute(
            """
            SELECT b.key, b.status, b.deducted, b.returned, r.status,
                   SUM(p.account_id = :ip AND p.amount > 0),
                   SUM(p.account_id = :ip AND p.amount < 0),
                   COALESCE(SUM(CASE WHEN p.account_id = :ip THEN p.amount END), 0),
                   COALESCE(SUM(CASE WHEN p.account_id = b.account_id THEN p.amount END), 0)
            FROM bets b
            LEFT JOIN rounds r ON r.round_id = b.round_id
            LEFT JOIN postings p ON p.bet_id = b.id
            GROUP BY b.id
            """,
            {"ip": in_play},
        )
        open_deducted = 0
        for key, status, deducted, returned, round_status, n_in, n_out, net_ip, net_w in rows:
            counts[status] += 1
            n_in = n_in or 0
            n_out = n_out or 0
            if n_in != 1:
                problem(f"bet {key}: deducted {n_in} times")
            if status == "open":
                open_deducted += deducted
                if n_out:
                    problem(f"bet {key}: open but closed {n_out} times in the postings")
                if round_status is not None:
                    problem(f"bet {key}: still open though its round was {round_status}")
                elif require_closed:
                    problem(f"bet {key}: neither settled nor refunded")
                continue
            if n_out != 1:
                problem(f"bet {key}: {status} {n_out} times")
            expected_round = {"settled": "settled", "refunded": "cancelled"}[status]
            if round_status != expected_round:
                problem(f"bet {key}: {status} but its round is {round_status or 'not closed'}")
            if status == "refunded" and returned != deducted:
                problem(f"bet {key}: refunded {returned} of {deducted}")
            if net_ip != 0:
                problem(f"bet {key}: {net_ip} left in play after it was {status}")
            if net_w != (returned or 0) - deducted:
                problem(
                    f"bet {key}: wallet moved {net_w}, expected {(returned or 0) - deducted}"
                )
        in_play_balance = conn.execute(
            "SELECT balance FROM accounts WHERE id = ?", (in_play,)
        ).fetchone()[0]
        if in_play_balance != open_deducted:
            problem(f"in_play holds {in_play_balance} but the open bets deducted {open_deducted}")
        figures = {
            "postings": n_postings,
            "wallets": conn.execute("SELECT COUNT(*) FROM accounts WHERE kind='wallet'").fetchone()[0],
            "messages": conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0],
            "rounds_settled": conn.execute(
                "SELECT COUNT(*) FROM rounds WHERE status='settled'").fetchone()[0],
            "rounds_cancelled": conn.execute(
                "SELECT COUNT(*) FROM rounds WHERE status='cancelled'").fetchone()[0],
            "bets_open": counts["open"],
            "bets_settled": counts["settled"],
            "bets_refunded": counts["refunded"],
            "in_play": in_play_balance,
        }
    finally:
        conn.execute("COMMIT")
    if more:
        problems.append(f"... and {more} more problems")
    return CheckReport(ok=not problems, problems=problems, figures=figures)
