"""`station journal migrate`: chain a journal written before the hash chain, once; and carry
a table over from a journal written before the table kernel.

A journal from before the chain is not opened by the station (it would have to chain it, and
so sign whatever it holds, without anyone deciding to): the operator checks it and migrates
it by hand, with the table's key. Its entries are hashed as they stand, marked unchained, and
the migration (how many entries, when) is written into its chain description, which the
genesis hashes, and signed (a `migrated` checkpoint, which the ledger refuses for a journal
whose chain it already holds). A journal that shows it was chained before
(station/core/chain_signs.py), or whose ledger holds checkpoints of it, is refused.

A journal from before the kernel (format 1: no journal id) normally recovers by itself: its
old snapshot is passed over and every input is re-applied and checked against the records it
stored. When its history touched behaviour the kernel corrected against the spec (a link
timer from `new_shoe`, a decision that no longer clears a fault whose condition holds, …),
re-applying makes other records than it stored, and the station refuses to start on it
rather than re-write history. `migrate` then carries the table over without re-applying:

- the journal must stand between rounds (every round it opened was settled or cancelled) and
  its settlement outbox must be delivered — through the embedded ledger when one is given —
  so no bet is left open and nothing reaches settlement twice;
- every wallet's balance is taken from the journal's own inputs and records (wallets set,
  bets deducted, returns and refunds credited);
- the old journal is kept, renamed `<name>.pre-kernel-<time>` (it stays the evidence of
  everything before), and a new journal is started for the same table and settings, its first
  inputs the balances. Its settlement keys carry its own journal id, so nothing collides with
  the old journal's keys in the ledger.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from station.core.inputs import Input
from station.core.journal import Journal, JournalError
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header


@dataclass(frozen=True)
class Migrated:
    #: the old journal, kept (None: the journal was chained in place, nothing carried over)
    archived: Path | None
    journal: Path
    balances: dict[str, int]
    delivered: int
    #: how many entries were chained now (None: it had its chain already)
    chained: int | None = None


def unchained_journal_unknown_to_ledger(journal_path: Path, ledger: str | Path) -> None:
    """Before a journal without a hash chain is chained: its ledger must hold no checkpoint
    of it. One that does was chained once, and its chain removed to have it signed again as
    it now holds. (A ledger of another machine is the witness the journal's file cannot
    be: traces of a chain in the file can be removed too.)"""
    from station.settlement.checkpoints import every_one
    from station.settlement.ledger import open_store
    from station.settlement.ledger.store import is_postgres_url

    if not Path(journal_path).is_file() or (not is_postgres_url(str(ledger))
                                            and not Path(ledger).is_file()):
        return
    conn = sqlite3.connect(Path(journal_path).resolve().as_uri() + "?mode=ro", uri=True)
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta WHERE key IN "
                                 "('header', 'journal_id', 'chain')").fetchall())
    except sqlite3.Error:
        return  # not a journal the station can open: Journal says why
    finally:
        conn.close()
    if "chain" in meta or "header" not in meta:
        return
    jid = meta.get("journal_id")
    table = json.loads(meta["header"]).get("table", "")
    store = open_store(str(ledger), read_only=True)
    try:
        held = every_one(store, table if jid else "", jid or "")
    finally:
        store.close()
    if held:
        raise JournalError(
            f"{journal_path} has no hash chain, yet its ledger {ledger} holds "
            f"{len(held)} checkpoint(s) of it (up to entry {held[-1]['seq']}): it was chained "
            "and its chain was removed, so the station does not chain it again; check it with "
            "`station journal verify --ledger` and restore the journal from its backup")


def _has_chain(path: Path) -> bool:
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return conn.execute("SELECT 1 FROM meta WHERE key='chain'").fetchone() is not None
    except sqlite3.Error as e:
        raise JournalError(f"{path} is not a station journal ({e})") from None
    finally:
        conn.close()


def balances_of(journal: Journal) -> dict[str, int]:
    """Every wallet's balance after the journal, from its inputs and the records each made."""
    made: dict[int, list[dict[str, Any]]] = {}
    for seq, record in journal.conn.execute("SELECT input_seq, record FROM records ORDER BY seq"):
        made.setdefault(seq, []).append(json.loads(record))
    balances: dict[str, int] = {}
    for seq, inp in journal.inputs():
        if inp.kind == "wallet":
            balances[inp.value["account"]] = inp.value["balance"]
        for r in made.get(seq, []):
            if r["type"] == "bet_accepted":
                balances[r["account"]] = balances.get(r["account"], 0) - r["deducted"]
            elif r["type"] in ("settlement", "round_cancelled"):
                for b in r.get("bets", r.get("refunds", [])):
                    balances[b["account"]] = balances.get(b["account"], 0) + b["returned"]
    return balances


def open_round(journal: Journal) -> str | None:
    """The round the journal opened and did not settle or cancel, if any."""
    opened: str | None = None
    for r in journal.records_of_type("round_open", "hand", "round_cancelled"):
        opened = r["round_id"] if r["type"] == "round_open" else None
    return opened


def _deliver(journal_path: Path, ledger: Path) -> int:
    from station.settlement.core import SettlementCore
    from station.settlement.outbox import DeliveryWorker
    from station.settlement.transport import InProcessTransport

    core = SettlementCore(ledger)
    transport = InProcessTransport(core)
    worker = DeliveryWorker(journal_path, transport)
    try:
        before = worker.pending()
        worker.start()
        if not worker.drain(30):
            raise JournalError(f"{journal_path}: {worker.pending()} settlement messages could not "
                               f"be delivered to {ledger}; nothing was migrated")
        return before
    finally:
        worker.stop()
        transport.close()
        core.close()


def migrate(path: str | Path, *, ledger: str | Path | None = None,
            key: bytes | None = None) -> Migrated:
    """Chain the journal in place if it has no chain yet (with `key`, the table's); else, if
    it was written before the table kernel, carry the table over into a new journal."""
    path = Path(path)
    if not path.exists():
        raise JournalError(f"{path}: no such journal")
    if not _has_chain(path):
        if key is None:
            raise JournalError(f"{path} has no hash chain: chaining it needs the table's "
                               "signing key (its migration is signed)")
        if ledger is not None:
            unchained_journal_unknown_to_ledger(path, ledger)
        # chained in place, and nothing else: a journal from before the kernel that the
        # station then refuses for its history is carried over by the next migrate
        journal = Journal(path, signing_key=key, migrate_chain=True)
        chained = journal.unchained_through
        journal.close()
        return Migrated(None, path, {}, 0, chained)
    journal = Journal(path, signing_key=key)
    try:
        if journal.journal_id is not None:
            raise JournalError(f"{path} has its hash chain and was written by the table kernel "
                               "already: nothing to migrate")
        rid = open_round(journal)
        if rid is not None:
            raise JournalError(f"{path}: round {rid} is still open in it; the old journal can only "
                               "be carried over between rounds")
        header = journal.header
        balances = balances_of(journal)
    finally:
        journal.close()
    delivered = 0
    if ledger is not None:
        delivered = _deliver(path, Path(ledger))
    conn = sqlite3.connect(path)
    try:
        pending = conn.execute(
            "SELECT COUNT(*) FROM settlement_outbox WHERE delivered_at IS NULL").fetchone()[0]
    finally:
        conn.close()
    if pending:
        raise JournalError(f"{path}: {pending} settlement messages are not delivered yet; give the "
                           "table's ledger (--ledger) so they are delivered first")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    archived = path.with_name(f"{path.name}.pre-kernel-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        old = Path(str(path) + suffix)
        if old.exists():
            old.rename(Path(str(archived) + suffix))
    new = Journal(path, header, signing_key=key)
    try:
        # the balances are the new journal's first inputs, journaled with exactly what the
        # kernel makes of them, so the new journal recovers like any other
        kernel = TableKernel(settings_from_header(header), journal_id=new.journal_id)
        new.begin()
        for account, balance in sorted(balances.items()):
            inp = Input(0, "wallet", {"account": account, "balance": balance})
            seq = new.add_input(inp)
            kernel.apply(inp)
            records, messages, _ = kernel.take_outputs()
            new.add_outputs(seq, records, messages)
        new.commit()
    finally:
        new.close()
    return Migrated(archived, path, balances, delivered)
