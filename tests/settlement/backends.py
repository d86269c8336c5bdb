"""The two ledger engines for parametrised tests: an SQLite file per test, or a fresh database
per test on one PostgreSQL server started for the whole session (from the system's binaries,
into a temporary folder, on a free loopback port)."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from station.settlement.ledger import open_store, sqlite_path

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def local_postgres():
    from station.studio.servers import LocalPostgres

    # fsync off: the tests kill processes, never the machine, and the OS keeps what was written
    from tests.ports import free_port

    # one server per test worker (pytest-xdist: each worker is a session), a database per test
    server = LocalPostgres(fsync=False, port=free_port()).start()
    yield server
    server.close()


def new_ledger(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str | Path:
    if kind == "sqlite":
        return tmp_path / "ledger.db"
    server = request.getfixturevalue("local_postgres")
    return server.create_database(f"t_{uuid.uuid4().hex[:16]}")


def run_sql(ledger: str | Path, sql: str, params: tuple = ()) -> list[tuple[Any, ...]]:
    """Run a statement straight on the ledger, behind the core's back (tests of the check)."""
    path = sqlite_path(ledger)
    if path is not None:
        with sqlite3.connect(path) as conn:
            return conn.execute(sql, params).fetchall()
    import psycopg

    with psycopg.connect(str(ledger), autocommit=True) as conn:
        cur = conn.execute(sql.replace("?", "%s"), params)
        return cur.fetchall() if cur.description else []


def counts(ledger: str | Path) -> tuple[int, int, int]:
    store = open_store(ledger, read_only=True, pool_size=1)
    try:
        with store.transaction(read_only=True) as tx:
            row = tx.one("SELECT (SELECT COUNT(*) FROM postings), (SELECT COUNT(*) FROM entries),"
                         " (SELECT COUNT(*) FROM rounds)")
    finally:
        store.close()
    return tuple(int(x) for x in row)
