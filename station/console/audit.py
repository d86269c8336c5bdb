"""The console's audit log: who asked for what, when, and what came of it.

Every decision taken through the console (and every login, good or bad) is one row, written
after the table has answered: `outcome` is `done` when the table took the action, `refused`
with the table's reason when the procedure did not allow it, `forbidden` when the user's role
may not take it. The table's own journal records the input itself; this log adds the person.
No card is ever written here (PROCEDURE.md §4: logs readable by supervisors carry none).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from station.private_files import private_file

SCHEMA = """
CREATE TABLE IF NOT EXISTS audit (
    id       INTEGER PRIMARY KEY,
    at       REAL NOT NULL,      -- wall clock, seconds since the epoch
    user     TEXT NOT NULL,
    role     TEXT,
    tbl      TEXT,               -- the table, or NULL for a login
    action   TEXT NOT NULL,
    round_id TEXT,               -- the round in progress when the action was taken
    outcome  TEXT NOT NULL,      -- done / refused / forbidden / login / login_failed / logout
    reason   TEXT,
    records  TEXT                -- the record types the table produced, JSON
);
CREATE INDEX IF NOT EXISTS audit_round ON audit(round_id);
"""


class AuditLog:
    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            private_file(self.path, sqlite=True)
        self._conn = sqlite3.connect(str(self.path) if self.path else ":memory:",
                                     check_same_thread=False, isolation_level=None)
        if self.path is not None:
            self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute("PRAGMA busy_timeout=5000")
        self._conn.executescript(SCHEMA)
        self._lock = threading.Lock()

    def write(self, *, user: str, role: str | None, action: str, outcome: str,
              table: str | None = None, round_id: str | None = None, reason: str | None = None,
              records: list[str] | None = None, at: float | None = None) -> dict[str, Any]:
        row = {"at": time.time() if at is None else at, "user": user, "role": role,
               "table": table, "action": action, "round_id": round_id, "outcome": outcome,
               "reason": reason, "records": records or []}
        with self._lock:
            cur = self._conn.execute(
                "INSERT INTO audit (at, user, role, tbl, action, round_id, outcome, reason, records)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (row["at"], user, role, table, action, round_id, outcome, reason,
                 json.dumps(row["records"])))
        row["id"] = cur.lastrowid
        return row

    def entries(self, *, table: str | None = None, round_id: str | None = None,
                limit: int = 200) -> list[dict[str, Any]]:
        """Newest first."""
        q = "SELECT id, at, user, role, tbl, action, round_id, outcome, reason, records FROM audit"
        cond, args = [], []
        if table is not None:
            cond.append("tbl = ?")
            args.append(table)
        if round_id is not None:
            cond.append("round_id = ?")
            args.append(round_id)
        if cond:
            q += " WHERE " + " AND ".join(cond)
        q += " ORDER BY id DESC LIMIT ?"
        args.append(int(limit))
        with self._lock:
            rows = self._conn.execute(q, args).fetchall()
        return [{"id": i, "at": at, "user": u, "role": r, "table": t, "action": a, "round_id": rid,
                 "outcome": o, "reason": why, "records": json.loads(rec or "[]")}
                for i, at, u, r, t, a, rid, o, why, rec in rows]

    def close(self) -> None:
        self._conn.close()
