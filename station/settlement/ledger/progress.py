"""What the studio ledger has applied of each table, and which settlement process may apply it.

Two small tables beside the books (made on first use by the bus consumer, on either engine):

- ``table_progress``: per table, the highest outbox sequence the ledger has answered (applied
  or refused, in the table's order), the stream sequence that carried it and when. The
  consumer applies a table's messages only in outbox order (a message after a gap waits for
  the one missing), and a station asks for this figure to re-send what the ledger does not
  hold (docs/studio.md, "Reconciliation").
- ``consumer_leases``: who applies a durable consumer's messages (a table's, or the whole
  bus's). A process holds the lease of every durable it fetches from and renews it inside each
  of its apply transactions, so a second process on the same durable waits as a standby, and a
  process that lost its lease (it stalled past the lease, another took over) can commit
  nothing more: its transaction finds the lease gone and rolls back.

Times are the database's own clock, so processes on machines whose clocks differ agree on
when a lease ran out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from station.settlement.ledger.store import Store, Tx

PROGRESS_SCHEMA = """
CREATE TABLE IF NOT EXISTS table_progress (
    table_id    TEXT PRIMARY KEY,
    outbox_seq  {int} NOT NULL,
    stream_seq  {int},
    applied_at  {real} NOT NULL,
    gaps        {int} NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS consumer_leases (
    name        TEXT PRIMARY KEY,
    owner       TEXT NOT NULL,
    expires_at  {real} NOT NULL
);
"""


class LeaseLost(Exception):
    """This process no longer holds the lease of a durable it was applying: it must stop."""


def _now(tx: Tx) -> str:
    """The database's clock in seconds since the epoch, as SQL."""
    return ("extract(epoch from clock_timestamp())" if tx._pg  # noqa: SLF001 - the dialect
            else "((julianday('now') - 2440587.5) * 86400.0)")


def create_tables(store: Store, schema: str, lock_id: int) -> None:
    """Run `schema` (statements of CREATE ... IF NOT EXISTS, `{int}` and `{real}` for the
    engine's types) in one transaction. On PostgreSQL an advisory lock (`lock_id`) comes
    first: several settlement processes may start at once, and CREATE IF NOT EXISTS races on
    the catalog."""
    pg = store.dialect == "postgresql"
    sql = schema.format(int="BIGINT" if pg else "INTEGER", real="DOUBLE PRECISION" if pg else "REAL")
    with store.transaction() as tx:
        if pg:
            tx.execute(f"SELECT pg_advisory_xact_lock({int(lock_id)})")
        for statement in sql.split(";"):
            if statement.strip():
                tx.execute(statement)


def ensure_progress_tables(store: Store) -> None:
    create_tables(store, PROGRESS_SCHEMA, 7162535)


def acquire(store: Store, name: str, owner: str, lease_s: float) -> bool:
    """Take the lease `name` for `owner` if it is free, run out, or already `owner`'s."""
    with store.transaction() as tx:
        now = _now(tx)
        rows = tx.execute(
            f"INSERT INTO consumer_leases (name, owner, expires_at) VALUES (?, ?, {now} + ?)"
            " ON CONFLICT (name) DO UPDATE SET owner = excluded.owner,"
            " expires_at = excluded.expires_at"
            f" WHERE consumer_leases.owner = excluded.owner OR consumer_leases.expires_at < {now}"
            " RETURNING owner", (name, owner, lease_s))
    return bool(rows) and rows[0][0] == owner


def acquire_many(store: Store, names: Sequence[str], owner: str, lease_s: float) -> set[str]:
    """`acquire` for several leases in one transaction: the names now `owner`'s."""
    names = sorted(set(names))
    if not names:
        return set()
    with store.transaction() as tx:
        now = _now(tx)
        rows = tx.execute(
            "INSERT INTO consumer_leases (name, owner, expires_at) VALUES "
            + ",".join([f"(?, ?, {now} + ?)"] * len(names))
            + " ON CONFLICT (name) DO UPDATE SET owner = excluded.owner,"
            " expires_at = excluded.expires_at"
            f" WHERE consumer_leases.owner = excluded.owner OR consumer_leases.expires_at < {now}"
            " RETURNING name, owner", [v for n in names for v in (n, owner, lease_s)])
    return {n for n, o in rows if o == owner}


def renew(tx: Tx, names: Sequence[str], owner: str, lease_s: float) -> None:
    """Inside an apply transaction: extend `owner`'s leases, or raise LeaseLost."""
    if not names:
        return
    wanted = sorted(set(names))
    frag, params = tx.in_list(wanted)
    rows = tx.execute(
        f"UPDATE consumer_leases SET expires_at = {_now(tx)} + ? WHERE owner = ? AND name{frag}"
        " RETURNING name", [lease_s, owner, *params])
    held = {r[0] for r in rows}
    if held != set(wanted):
        raise LeaseLost(f"leases {sorted(set(wanted) - held)} are no longer {owner}'s")


def release(store: Store, names: Iterable[str], owner: str) -> None:
    names = sorted(set(names))
    if not names:
        return
    with store.transaction() as tx:
        frag, params = tx.in_list(names)
        tx.execute(f"DELETE FROM consumer_leases WHERE owner = ? AND name{frag}", [owner, *params])


def record_progress(tx: Tx, answered: dict[str, tuple[int, int | None]],
                    gaps: dict[str, int]) -> set[str]:
    """Inside an apply transaction: each table's highest outbox sequence answered (and the
    stream sequence that carried it), never moving back; returns the tables whose progress
    (and gaps) this wrote (a round of repeats moves nothing)."""
    now = _now(tx)
    written: set[str] = set()
    for table, (outbox_seq, stream_seq) in sorted(answered.items()):
        rows = tx.execute(
            "INSERT INTO table_progress (table_id, outbox_seq, stream_seq, applied_at, gaps)"
            f" VALUES (?, ?, ?, {now}, ?) ON CONFLICT (table_id) DO UPDATE SET"
            " outbox_seq = excluded.outbox_seq, stream_seq = excluded.stream_seq,"
            " applied_at = excluded.applied_at, gaps = table_progress.gaps + excluded.gaps"
            " WHERE excluded.outbox_seq > table_progress.outbox_seq RETURNING table_id",
            (table, outbox_seq, stream_seq, gaps.get(table, 0)))
        written.update(t for (t,) in rows)
    return written


def applied_up_to(store: Store, tables: Sequence[str] | None = None) -> dict[str, int]:
    """Each table's highest outbox sequence the ledger answered (a table never heard: absent)."""
    with store.transaction(read_only=True) as tx:
        if tables is None:
            rows = tx.execute("SELECT table_id, outbox_seq FROM table_progress")
        else:
            if not tables:
                return {}
            frag, params = tx.in_list(list(tables))
            rows = tx.execute(f"SELECT table_id, outbox_seq FROM table_progress WHERE table_id{frag}",
                              params)
    return {t: int(s) for t, s in rows}


def progress_rows(store: Store, timeout_s: float | None = None) -> dict[str, Any]:
    """For `station studio status`: every table's progress and the leases held now
    (`timeout_s`: for a connection of the store's pool)."""
    with store.transaction(read_only=True, timeout_s=timeout_s) as tx:
        now = tx.one(f"SELECT {_now(tx)}")[0]  # type: ignore[index]
        tables = [dict(table=t, outbox_seq=int(o), stream_seq=None if s is None else int(s),
                       applied_at=float(a), gaps=int(g))
                  for t, o, s, a, g in tx.execute(
                      "SELECT table_id, outbox_seq, stream_seq, applied_at, gaps"
                      " FROM table_progress ORDER BY table_id")]
        leases = [dict(name=n, owner=o, expires_in_s=float(e) - float(now))
                  for n, o, e in tx.execute(
                      "SELECT name, owner, expires_at FROM consumer_leases ORDER BY name")]
    return {"now": float(now), "tables": tables, "leases": leases}
