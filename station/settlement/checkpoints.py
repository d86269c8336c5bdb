"""The ledger's copy of each table journal's checkpoints (message kind `checkpoint`).

A table's station signs its journal's chain head every N entries and at each round's end
(station/core/chain.py) and sends each checkpoint with the outbox. The ledger keeps every
one per table and journal (`journal_checkpoint_log`), beside the books, and the newest on its
own (`journal_checkpoints`): a journal rewritten on the table PC later, even by someone
holding the table's key, then disagrees with one the ledger already had
(`station journal verify --ledger` checks every one the journal reaches). A checkpoint at or
below the newest the ledger holds (a journal restored from an older copy that played on) is
kept too, marked a conflict. A checkpoint moves no money and posts nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from station.settlement.ledger import Tx

#: a checkpoint's columns, in both tables
_COLUMNS = """
    table_id   TEXT NOT NULL,
    journal_id TEXT NOT NULL,
    seq        BIGINT NOT NULL,
    head       TEXT NOT NULL,
    sig        TEXT NOT NULL,
    t          DOUBLE PRECISION,"""

#: made on first use, so a ledger of an earlier format keeps its format number
CHECKPOINTS_SQL = f"""
CREATE TABLE IF NOT EXISTS journal_checkpoints ({_COLUMNS}
    PRIMARY KEY (table_id, journal_id)
)"""

#: every checkpoint that came; `conflict` 1: it came at or below the newest already held
CHECKPOINT_LOG_SQL = f"""
CREATE TABLE IF NOT EXISTS journal_checkpoint_log ({_COLUMNS}
    conflict   INTEGER NOT NULL,
    PRIMARY KEY (table_id, journal_id, seq, head)
)"""

_HEX = frozenset("0123456789abcdef")


def _hex(m: Mapping[str, Any], name: str, length: int) -> str:
    v = m.get(name)
    if not isinstance(v, str) or len(v) != length or not set(v) <= _HEX:
        raise ValueError(f"field {name!r} must be {length} lowercase hex digits")
    return v


#: the checkpoints that start a journal's chain (its genesis, or the migration of a journal
#: from before the chain): a chain starts once per journal
CHAIN_STARTS = ("genesis", "migrated")


class ChainRestarted(ValueError):
    """A chain start for a journal the ledger already holds a checkpoint of."""


def apply(tx: Tx, table: str, key: str, m: Mapping[str, Any]) -> tuple:
    """(result, round_id, finish) as the core's other kinds give them. A checkpoint that
    starts a chain (`why`: genesis or migrated) for a journal the ledger already has one of
    is refused: the journal was chained again on the table PC, which re-signs whatever it
    holds (the station refuses to, station/core/journal.py)."""
    seq, jid = m.get("seq"), m.get("journal_id")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise ValueError("field 'seq' must be a non-negative integer")
    if not isinstance(jid, str):
        raise ValueError("field 'journal_id' must be a string")
    head, sig = _hex(m, "head", 64), _hex(m, "sig", 64)
    t = m.get("t")
    why = m.get("why")
    if why is not None and not isinstance(why, str):
        raise ValueError("field 'why' must be a string")
    if why in CHAIN_STARTS:
        tx.execute(CHECKPOINTS_SQL)
        held = tx.one("SELECT seq FROM journal_checkpoints WHERE table_id = ? AND journal_id = ?",
                      (table, jid))
        # a migration signs its genesis (entry 0) first, then its migrated head
        if held is not None and (why != "migrated" or int(held[0]) > 0):
            raise ChainRestarted(
                f"a {why} checkpoint for journal {jid!r} of table {table}, whose chain the "
                f"ledger already holds (a checkpoint at entry {held[0]}): the journal was "
                "chained again")
    result = {"key": key, "kind": "checkpoint", "journal_id": jid, "seq": seq}

    def keep_newest(_entry_id: int) -> None:
        tx.execute(CHECKPOINTS_SQL)
        tx.execute(CHECKPOINT_LOG_SQL)
        held = tx.one("SELECT seq FROM journal_checkpoints WHERE table_id = ? AND journal_id = ?",
                      (table, jid))
        conflict = 1 if held is not None and seq <= int(held[0]) else 0
        tx.execute(
            "INSERT INTO journal_checkpoint_log (table_id, journal_id, seq, head, sig, t, conflict)"
            " VALUES (?,?,?,?,?,?,?) ON CONFLICT (table_id, journal_id, seq, head) DO NOTHING",
            (table, jid, seq, head, sig, None if t is None else float(t), conflict))
        tx.execute(
            "INSERT INTO journal_checkpoints (table_id, journal_id, seq, head, sig, t)"
            " VALUES (?,?,?,?,?,?) ON CONFLICT (table_id, journal_id) DO UPDATE SET"
            " seq = excluded.seq, head = excluded.head, sig = excluded.sig, t = excluded.t"
            " WHERE excluded.seq > journal_checkpoints.seq",
            (table, jid, seq, head, sig, None if t is None else float(t)))

    return result, None, keep_newest


def newest(store: Any, table: str, journal_id: str) -> dict[str, Any] | None:
    """The newest checkpoint on record for the journal, read only (a ledger that never had
    one has no table for them: None)."""
    with store.transaction(read_only=True) as tx:
        if not tx.has_table("journal_checkpoints"):
            return None
        row = tx.one("SELECT seq, head, sig, t FROM journal_checkpoints"
                     " WHERE table_id = ? AND journal_id = ?", (table, journal_id))
    if row is None:
        return None
    return {"seq": int(row[0]), "head": row[1], "sig": row[2], "t": row[3]}


def journals_of(store: Any, table: str) -> list[str]:
    """The journal ids of the table the ledger holds checkpoints of, read only."""
    with store.transaction(read_only=True) as tx:
        if not tx.has_table("journal_checkpoints"):
            return []
        return sorted(str(r[0]) for r in tx.execute(
            "SELECT DISTINCT journal_id FROM journal_checkpoints WHERE table_id = ?", (table,)))


def every_one(store: Any, table: str, journal_id: str) -> list[dict[str, Any]]:
    """Every checkpoint on record for the journal, by entry, read only: each with `seq`,
    `head`, `sig`, `t` and `conflict`. A ledger from before the log holds only the newest."""
    with store.transaction(read_only=True) as tx:
        rows = []
        if tx.has_table("journal_checkpoint_log"):
            rows = [{"seq": int(r[0]), "head": r[1], "sig": r[2], "t": r[3],
                     "conflict": bool(r[4])} for r in tx.execute(
                "SELECT seq, head, sig, t, conflict FROM journal_checkpoint_log"
                " WHERE table_id = ? AND journal_id = ? ORDER BY seq", (table, journal_id))]
    top = newest(store, table, journal_id)
    if top is not None and not any(r["seq"] == top["seq"] and r["head"] == top["head"]
                                   for r in rows):
        rows.append({**top, "conflict": False})
    return sorted(rows, key=lambda r: r["seq"])
