"""What shows that a journal without a hash chain once had one.

A journal from before the chain is chained once (`station journal migrate`). One whose chain
was removed to pass it off as such a journal (its `chain` and `checkpoints` tables dropped or
emptied, `meta.chain` deleted) must not be: chaining it would sign whatever it now holds. Such
a journal still carries traces only a station that chains its journal leaves; the station
refuses to migrate one that carries any, and `station journal verify` names the first it
finds. Someone who knows them all can remove them too: the ledger's copy of the checkpoints
(`verify --ledger`, and the ledger's refusal of a second chain start) is the witness then.
"""

from __future__ import annotations

import sqlite3

from station.core.snapshot import TAGGED_PREFIX

#: meta rows only a station that chains its journal writes (a write tried after a failed one)
CHAIN_ERA_META = ("write_probe",)


def signs_of_a_chain(conn: sqlite3.Connection, *, chain_tables_made: bool) -> list[str]:
    """Each trace of a chain in a journal whose chain description (`meta.chain`) is missing,
    worded for an operator; empty for a journal from before the chain. `chain_tables_made`:
    whether the `chain` and `checkpoints` tables existed before the caller opened the file
    (a station that chains creates them at its first open, whatever else happens)."""
    tables = {str(n.decode() if isinstance(n, bytes) else n) for (n,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    out = []
    for name in ("chain", "checkpoints"):
        if name in tables and conn.execute(f"SELECT 1 FROM {name} LIMIT 1").fetchone():
            out.append(f"its {name} table holds rows")
    if chain_tables_made and not out:
        out.append("it has the chain's tables, which a station that chains its journal makes "
                   "when it first opens it")
    if "settlement_outbox" in tables and conn.execute(
            "SELECT 1 FROM settlement_outbox WHERE kind = 'checkpoint' LIMIT 1").fetchone():
        out.append("its outbox holds checkpoint messages")
    if "snapshots" in tables and conn.execute(
            "SELECT 1 FROM snapshots WHERE substr(state, 1, ?) = ? LIMIT 1",
            (len(TAGGED_PREFIX), TAGGED_PREFIX)).fetchone():
        out.append("it holds a snapshot tagged with a table key")
    for key in CHAIN_ERA_META:
        if conn.execute("SELECT 1 FROM meta WHERE key = ?", (key,)).fetchone():
            out.append(f"its meta holds {key!r}, which only a station that chains writes")
    if conn.execute("SELECT 1 FROM inputs WHERE instr(line, '\"station_fault\"') > 0"
                    " LIMIT 1").fetchone():
        out.append("it holds a station_fault entry, which only a station that chains writes")
    return out
