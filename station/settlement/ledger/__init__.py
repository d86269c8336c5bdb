"""The settlement ledger: double-entry books in integer minor units, on an embedded SQLite file
(one table, the default) or on PostgreSQL (a studio of many tables), chosen by URL.

- `schema`: the tables, the same on both engines; the bounds that keep every sum inside 64 bits
- `store`: opening a ledger by URL, transactions and row locks on either engine
- `check`: `ledger check`, the books verified from the raw rows
"""

from __future__ import annotations

from station.settlement.ledger.check import MAX_LISTED_PROBLEMS, CheckReport, check_books
from station.settlement.ledger.schema import MAX_BALANCE, SCHEMA_VERSION, SYSTEM_ACCOUNTS
from station.settlement.ledger.store import (
    LedgerError,
    PostgresStore,
    SqliteStore,
    Store,
    Tx,
    is_postgres_url,
    open_store,
    redact,
    sqlite_path,
)

__all__ = [
    "MAX_BALANCE",
    "MAX_LISTED_PROBLEMS",
    "SCHEMA_VERSION",
    "SYSTEM_ACCOUNTS",
    "CheckReport",
    "LedgerError",
    "PostgresStore",
    "SqliteStore",
    "Store",
    "Tx",
    "check_books",
    "is_postgres_url",
    "open_store",
    "redact",
    "sqlite_path",
]
