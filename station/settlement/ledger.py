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
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.settlement.pot import pot_problems

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
-- Only a bet's acceptance postings name it (the wallet's deduction and in_play's share).
CREATE INDEX IF NOT EXISTS postings_by_bet ON postings(bet_id) WHERE bet_id IS NOT NULL;
-- Accepted bets; immutable once written.
CREATE TABLE IF NOT EXISTS bets (
    id         INTEGER PRIMARY KEY,
    key        TEXT NOT NULL UNIQUE,
    round_id   TEXT NOT NULL,
    game       TEXT NOT NULL,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    spot       TEXT NOT NULL,
    amount     INTEGER NOT NULL CHECK (amount > 0),
    deducted   INTEGER NOT NULL CHECK (deducted > 0)
);
CREATE INDEX IF NOT EXISTS bets_by_round ON bets(round_id);
-- How each bet ended. The primary key makes a second settlement or refund of a bet impossible.
-- The closing entry's postings are per account (one wallet credit per player per round, one
-- in_play debit, one house posting); `check_books` reconciles them with these rows.
CREATE TABLE IF NOT EXISTS bet_closures (
    bet_id   INTEGER PRIMARY KEY REFERENCES bets(id),
    entry_id INTEGER NOT NULL REFERENCES entries(id),
    outcome  TEXT NOT NULL CHECK (outcome IN ('settled', 'refunded')),
    returned INTEGER NOT NULL CHECK (returned >= 0)
);
CREATE TABLE IF NOT EXISTS rounds (
    round_id TEXT PRIMARY KEY,
    status   TEXT NOT NULL CHECK (status IN ('settled', 'cancelled')),
    entry_id INTEGER NOT NULL REFERENCES entries(id),
    reason   TEXT
);
"""

SYSTEM_ACCOUNTS = ("cashier", "in_play", "house")
#: PRAGMA user_version of a ledger this code writes; a file of another version is refused
SCHEMA_VERSION = 1


class LedgerError(Exception):
    """A file that is not a ledger this station can use."""

#: at most this many problems are listed one by one; the rest are counted
MAX_LISTED_PROBLEMS = 50


def connect(path: str | Path, *, read_only: bool = False) -> sqlite3.Connection:
    """Open the ledger file. Writers get WAL + synchronous=FULL; transactions are explicit."""
    if read_only:
        uri = f"file:{Path(path).resolve()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 10000")
        _check_version(conn, path)
        return conn
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    if conn.execute("PRAGMA user_version").fetchone()[0] == 0:
        if conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]:
            conn.close()
            raise LedgerError(f"{path} is an SQLite file but not a settlement ledger")
        # tables and format version in one transaction: a station killed while creating its
        # ledger leaves either nothing or a whole ledger, never tables without a version
        conn.executescript(f"BEGIN IMMEDIATE;\n{SCHEMA}\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;")
    _check_version(conn, path)
    for name in SYSTEM_ACCOUNTS:
        conn.execute("INSERT OR IGNORE INTO accounts (kind, name) VALUES ('system', ?)", (name,))
    return conn


def _check_version(conn: sqlite3.Connection, path: str | Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        conn.close()
        raise LedgerError(
            f"{path}: ledger format {version}, this station reads format {SCHEMA_VERSION}"
        )


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
    - every bet was deducted exactly once (its own two postings) and is closed (settled or
      refunded) at most once (the schema allows no more), exactly once if its round is over,
      by its round's entry; a refund returns exactly what was deducted;
    - every closing entry posted, account by account, exactly what the bets it closed
      returned (and in_play and the house their counterparts);
    - ``in_play`` holds exactly what the open bets deducted;
    - every pot account (`station.settlement.pot`) of a closed game is at zero.
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
        house = conn.execute(
            "SELECT id FROM accounts WHERE kind = 'system' AND name = 'house'"
        ).fetchone()[0]
        counts = {"open": 0, "settled": 0, "refunded": 0}
        rows = conn.execute(
            """
            SELECT b.key, b.deducted, c.outcome, c.returned, c.entry_id, r.status, r.entry_id,
                   COUNT(p.id),
                   COALESCE(SUM(p.account_id = :ip AND p.amount = b.deducted), 0),
                   COALESCE(SUM(p.account_id = b.account_id AND p.amount = -b.deducted), 0)
            FROM bets b
            LEFT JOIN bet_closures c ON c.bet_id = b.id
            LEFT JOIN rounds r ON r.round_id = b.round_id
            LEFT JOIN postings p ON p.bet_id = b.id
            GROUP BY b.id
            """,
            {"ip": in_play},
        )
        open_deducted = 0
        for (key, deducted, outcome, returned, closed_by, round_status, round_entry,
             n_naming, n_in_play, n_wallet) in rows:
            if not (n_naming == 2 and n_in_play == 1 and n_wallet == 1):
                problem(f"bet {key}: not deducted exactly once from its wallet into play"
                        f" ({n_naming} postings name it)")
            if outcome is None:
                counts["open"] += 1
                open_deducted += deducted
                if round_status is not None:
                    problem(f"bet {key}: neither settled nor refunded though its round was"
                            f" {round_status}")
                elif require_closed:
                    problem(f"bet {key}: neither settled nor refunded")
                continue
            counts[outcome] += 1
            expected_round = {"settled": "settled", "refunded": "cancelled"}[outcome]
            if round_status != expected_round:
                problem(f"bet {key}: {outcome} but its round is {round_status or 'not closed'}")
            elif closed_by != round_entry:
                problem(f"bet {key}: {outcome} by entry {closed_by}, its round by {round_entry}")
            if outcome == "refunded" and returned != deducted:
                problem(f"bet {key}: refunded {returned} of {deducted}")

        # The closing entries must move exactly what their closures say, account by account.
        due: dict[tuple[int, int], int] = defaultdict(int)
        for entry_id, account_id, amount in conn.execute(
            """
            SELECT c.entry_id, b.account_id, SUM(c.returned) FROM bet_closures c
              JOIN bets b ON b.id = c.bet_id GROUP BY c.entry_id, b.account_id
            UNION ALL
            SELECT c.entry_id, :ip, -SUM(b.deducted) FROM bet_closures c
              JOIN bets b ON b.id = c.bet_id GROUP BY c.entry_id
            UNION ALL
            SELECT c.entry_id, :house, SUM(b.deducted - c.returned) FROM bet_closures c
              JOIN bets b ON b.id = c.bet_id GROUP BY c.entry_id
            """,
            {"ip": in_play, "house": house},
        ):
            due[(entry_id, account_id)] += amount
        posted: dict[tuple[int, int], int] = defaultdict(int)
        for entry_id, account_id, amount in conn.execute(
            "SELECT p.entry_id, p.account_id, SUM(p.amount) FROM postings p"
            " JOIN entries e ON e.id = p.entry_id"
            " WHERE e.kind IN ('hand', 'round_cancelled') GROUP BY p.entry_id, p.account_id"
        ):
            posted[(entry_id, account_id)] += amount
        names = {i: n for i, n in conn.execute("SELECT id, name FROM accounts")}
        entry_keys = {}
        for entry_id, account_id in sorted(set(due) | set(posted)):
            if due.get((entry_id, account_id), 0) != posted.get((entry_id, account_id), 0):
                if not entry_keys:
                    entry_keys = dict(conn.execute("SELECT id, key FROM entries"
                                                   " WHERE kind IN ('hand', 'round_cancelled')"))
                problem(
                    f"entry {entry_id} ({entry_keys.get(entry_id)}): {names[account_id]!r} was"
                    f" posted {posted.get((entry_id, account_id), 0)}, the bets it closed account"
                    f" for {due.get((entry_id, account_id), 0)}"
                )

        in_play_balance = conn.execute(
            "SELECT balance FROM accounts WHERE id = ?", (in_play,)
        ).fetchone()[0]
        if in_play_balance != open_deducted:
            problem(f"in_play holds {in_play_balance} but the open bets deducted {open_deducted}")
        # pot games (Si Zhi Dao): a closed game's pot is empty; an open one only at the end
        for text in pot_problems(conn, require_closed=require_closed):
            problem(text)
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
