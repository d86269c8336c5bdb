"""The station's outbox to settlement: the journal side of the hand-off.

Each message for settlement (a wallet set, an accepted bet, a validated hand, a cancelled
round) is written into the ``settlement_outbox`` table **in the same SQLite transaction as its
journal entry**: either both are on disk or neither is, so a crash can never leave a validated
hand that settlement will not hear about, nor a message about something the journal does not
know. The delivery worker (station/settlement/outbox.py) empties it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from typing import Any

OUTBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS settlement_outbox (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    key          TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL,
    body         TEXT NOT NULL,
    enqueued_at  REAL NOT NULL,
    delivered_at REAL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    result       TEXT
);
CREATE INDEX IF NOT EXISTS settlement_outbox_pending
    ON settlement_outbox(seq) WHERE delivered_at IS NULL;
"""



def enqueue(conn: sqlite3.Connection, message: Mapping[str, Any]) -> None:
    """Put a message in the outbox on the caller's connection, without committing.

    The caller commits it together with its journal entry. A message whose key is already in
    the outbox is ignored (the caller redoing a step after a restart). Run `OUTBOX_SCHEMA` on
    the connection once at start-up (``executescript`` commits, so never inside a transaction).
    """
    if not isinstance(message, Mapping):
        raise TypeError(f"a settlement message is a dict, got {type(message).__name__}")
    key, kind = message.get("key"), message.get("kind")
    if not isinstance(key, str) or not key:
        raise ValueError(f"a settlement message needs a non-empty string 'key', got {key!r}")
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"settlement message {key}: needs a string 'kind', got {kind!r}")
    # allow_nan=False: NaN is not JSON and never a valid amount or time
    body = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    conn.execute(
        "INSERT OR IGNORE INTO settlement_outbox (key, kind, body, enqueued_at) VALUES (?,?,?,?)",
        (key, kind, body, time.time()),
    )
