"""Where the ledger lives: an embedded SQLite file, or a PostgreSQL database, chosen by URL.

- ``sqlite:///var/ledger.sqlite`` (relative), ``sqlite:////srv/ledger.sqlite`` (absolute) or a
  plain path: one file, WAL and ``synchronous=FULL`` (a commit is on disk before it returns);
  writers take the file's write lock at ``BEGIN IMMEDIATE``, so transactions are serial.
- ``postgresql://user@host:port/db``: a connection pool (psycopg 3); transactions run at READ
  COMMITTED and lock every account row they move (``SELECT … FOR UPDATE``), so bets on one
  wallet from several tables, or from several settlement processes, queue behind each other
  and a wallet never goes below zero. A transaction that loses a race (deadlock, a key
  inserted by another process first) is retried whole by the core (`Store.retryable`).

Both speak the same SQL, written with ``?`` placeholders; `Tx` adapts it to the engine.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from station.settlement.ledger.schema import (
    MIGRATE_SQLITE_V1,
    PG_META,
    SCHEMA_VERSION,
    SYSTEM_ACCOUNTS,
    schema_sql,
)


class LedgerError(Exception):
    """A file or database that is not a ledger this station can use."""


def is_postgres_url(ledger: str | Path) -> bool:
    return isinstance(ledger, str) and ledger.startswith(("postgresql://", "postgres://"))


def sqlite_path(ledger: str | Path) -> Path | None:
    """The file of an SQLite ledger (URL or path), or None for a PostgreSQL URL."""
    if isinstance(ledger, Path):
        return ledger
    if is_postgres_url(ledger):
        return None
    if ledger.startswith("sqlite:///"):
        return Path(ledger[len("sqlite:///"):])
    if "://" in ledger:
        raise LedgerError(f"unknown ledger URL {ledger!r}: use sqlite:///PATH or postgresql://…")
    return Path(ledger)


def redact(url: str) -> str:
    """A ledger URL fit for logs and screens: no password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def open_store(ledger: str | Path, *, read_only: bool = False, pool_size: int = 4) -> Store:
    """The ledger at `ledger` (URL or path); created if absent unless `read_only`."""
    path = sqlite_path(ledger)
    if path is None:
        return PostgresStore(str(ledger), read_only=read_only, pool_size=pool_size)
    return SqliteStore(path, read_only=read_only)


@functools.lru_cache(maxsize=512)
def _to_format(sql: str) -> str:
    # psycopg's placeholders; the SQL here has no literal '%' nor '?' inside strings
    return sql.replace("%", "%%").replace("?", "%s")


class Tx:
    """One transaction of either engine: run statements, nest savepoints."""

    #: appended to a SELECT of rows the transaction will update (PostgreSQL row locks)
    lock = ""

    def __init__(self, cursor: Any, *, postgres: bool) -> None:
        self._cur = cursor
        self._pg = postgres
        self._sp = 0
        self.lock = " FOR UPDATE" if postgres else ""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        cur = self._cur
        cur.execute(_to_format(sql) if self._pg else sql, params)
        return cur.fetchall() if cur.description is not None else []

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple | None:
        rows = self.execute(sql, params)
        return rows[0] if rows else None

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self._cur.executemany(_to_format(sql) if self._pg else sql, rows)

    def insert_id(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run an INSERT and return the new row's id."""
        row = self.one(sql + " RETURNING id", params)
        assert row is not None
        return int(row[0])

    def has_table(self, name: str) -> bool:
        """Does the ledger have the table `name`? (Tables beside the books are made on first
        use, so a ledger no process of the code that makes one has opened lacks it.)"""
        if self._pg:
            row = self.one("SELECT to_regclass(?) IS NOT NULL", (name,))
        else:
            row = self.one("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        return bool(row and row[0])

    def in_list(self, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """A membership test and its parameters: ``col`` + fragment, e.g. ``id IN (?,?)``."""
        if self._pg:
            return " = ANY(?)", [list(values)]
        return f" IN ({','.join('?' * len(values))})", list(values)

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        """Undo everything inside if it raises (the exception goes on)."""
        self._sp += 1
        name = f"sp{self._sp}"
        self._cur.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            self._cur.execute(f"ROLLBACK TO SAVEPOINT {name}")
            self._cur.execute(f"RELEASE SAVEPOINT {name}")
            raise
        else:
            self._cur.execute(f"RELEASE SAVEPOINT {name}")
        finally:
            self._sp -= 1


class Store:
    dialect = ""
    #: what `describe` prints: a path or a URL without its password
    where = ""
    #: errors after which the whole transaction is simply tried again (lost races)
    retryable: tuple[type[BaseException], ...] = ()
    #: errors that mean the engine is not reachable now (the caller retries later)
    unavailable: tuple[type[BaseException], ...] = ()

    def transaction(self, *, read_only: bool = False, timeout_s: float | None = None,
                    ) -> contextlib.AbstractContextManager[Tx]:
        """One transaction; `timeout_s`: how long to wait for a connection of a pool (a
        status page's read must not wait out the pool's 30 s while the database is away)."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class SqliteStore(Store):
    """The embedded default: one file. One connection, used under a lock (writers are serial
    in SQLite anyway)."""

    dialect = "sqlite"
    unavailable = (sqlite3.OperationalError,)

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self._lock = threading.RLock()
        self.read_only = read_only
        if read_only:
            uri = f"file:{self.path.resolve()}?mode=ro"
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout = 10000")
            self._conn = conn
            self._check_version()
            return
        conn = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self._conn = conn
        conn.execute("PRAGMA busy_timeout = 10000")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            if conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]:
                conn.close()
                raise LedgerError(f"{self.path} is an SQLite file but not a settlement ledger")
            # tables and format version in one transaction: a station killed while creating
            # its ledger leaves either nothing or a whole ledger, never tables without a version
            conn.executescript(f"BEGIN IMMEDIATE;\n{schema_sql('sqlite')}\n"
                               f"PRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;")
        elif version == 1:
            # foreign keys off while the tables are swapped (they are renamed, then copied)
            conn.execute("PRAGMA foreign_keys = OFF")
            conn.executescript(
                "BEGIN IMMEDIATE;\n" + MIGRATE_SQLITE_V1.format(schema=schema_sql("sqlite"))
                + f"\nPRAGMA user_version = {SCHEMA_VERSION};\nCOMMIT;")
        conn.execute("PRAGMA foreign_keys = ON")
        self._check_version()

    def _check_version(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            self._conn.close()
            raise LedgerError(
                f"{self.path}: ledger format {version}, this station reads format {SCHEMA_VERSION}"
                if version else f"{self.path} is an SQLite file but not a settlement ledger")

    @contextlib.contextmanager
    def transaction(self, *, read_only: bool = False, timeout_s: float | None = None,
                    ) -> Iterator[Tx]:
        with self._lock:
            conn = self._conn
            # a reader's BEGIN gives one consistent snapshot; a writer takes the lock at once
            conn.execute("BEGIN" if read_only or self.read_only else "BEGIN IMMEDIATE")
            try:
                yield Tx(conn.cursor(), postgres=False)
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection (the books check registers its exact-sum aggregate on it)."""
        return self._conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class PostgresStore(Store):
    """A studio's ledger on PostgreSQL: a pool of connections, row-locked wallet updates."""

    dialect = "postgresql"

    def __init__(self, url: str, *, read_only: bool = False, pool_size: int = 4) -> None:
        import psycopg
        from psycopg import errors
        from psycopg_pool import ConnectionPool

        self.url = url
        self.where = redact(url)
        self.read_only = read_only
        self.retryable = (errors.SerializationFailure, errors.DeadlockDetected,
                          errors.UniqueViolation)
        self.unavailable = (psycopg.OperationalError, psycopg.InterfaceError)
        self._psycopg = psycopg
        options = "-c default_transaction_read_only=on" if read_only else ""
        self._pool = ConnectionPool(
            url, min_size=1, max_size=max(1, pool_size), open=False,
            kwargs={"options": options} if options else {},
            # a connection that died with the server (a restart) is replaced, not handed out
            check=ConnectionPool.check_connection,
            name="ledger",
        )
        try:
            self._pool.open(wait=True, timeout=15)
        except Exception as exc:
            self._pool.close()
            raise LedgerError(f"cannot reach the ledger database {self.where}: {exc}") from exc
        try:
            self._prepare()
        except BaseException:
            self._pool.close()
            raise

    def _prepare(self) -> None:
        with self._pool.connection() as conn:
            with conn.transaction():
                cur = conn.cursor()
                # several service processes may start at once: one creates, the others wait
                if not self.read_only:
                    cur.execute("SELECT pg_advisory_xact_lock(7162534)")
                cur.execute("SELECT to_regclass('ledger_meta') IS NOT NULL,"
                            " (SELECT COUNT(*) FROM information_schema.tables"
                            "  WHERE table_schema = current_schema())")
                has_meta, n_tables = cur.fetchone()
                if not has_meta:
                    if n_tables or self.read_only:
                        raise LedgerError(f"{self.where} is a database but not a settlement ledger")
                    cur.execute(PG_META)
                    cur.execute(schema_sql("postgresql"))
                    cur.execute("INSERT INTO ledger_meta (name, value) VALUES ('format', %s)",
                                (str(SCHEMA_VERSION),))
                cur.execute("SELECT value FROM ledger_meta WHERE name = 'format'")
                row = cur.fetchone()
                if row is None or row[0] != str(SCHEMA_VERSION):
                    raise LedgerError(f"{self.where}: ledger format {row and row[0]}, this "
                                      f"station reads format {SCHEMA_VERSION}")

    @contextlib.contextmanager
    def transaction(self, *, read_only: bool = False, timeout_s: float | None = None,
                    ) -> Iterator[Tx]:
        with self._pool.connection(timeout=timeout_s) as conn:
            with conn.transaction():
                cur = conn.cursor()
                if read_only:
                    # one snapshot for every query of a books check, beside live writers
                    cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield Tx(cur, postgres=True)

    def close(self) -> None:
        self._pool.close()


def ensure_system_accounts(tx: Tx, table: str) -> dict[str, int]:
    """The table's cashier, in_play and house accounts (made on first use): name -> id."""
    tx.executemany(
        "INSERT INTO accounts (kind, table_id, name) VALUES ('system', ?, ?)"
        " ON CONFLICT DO NOTHING",
        [(table, name) for name in SYSTEM_ACCOUNTS],
    )
    rows = tx.execute("SELECT name, id FROM accounts WHERE kind = 'system' AND table_id = ?",
                      (table,))
    return {name: int(id_) for name, id_ in rows}
