"""The station's journal: every input, durably, before anything leaves the station.

One SQLite file (WAL, synchronous=FULL). Each input is one transaction holding the input
line, the output records it produced and the messages it put in the settlement outbox; only
after that commit does the station ACK the shoe, answer a bet or notify a console. A restart
reads the inputs back and re-applies them to a fresh core, which — being deterministic —
reaches exactly the state it had, and the records it re-makes are checked against the stored
ones. The journal's inputs are a trace: `export_trace` writes them in TRACES.md format.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from firmware_bridge.tracefile import TraceWriter
from station.core import chain
from station.core.inputs import (
    JOURNAL_ONLY_KEYS,
    Input,
    TraceHeader,
    input_line,
    parse_header,
    parse_input,
    zone_kinds_of,
)
from station.core.outbox import OUTBOX_SCHEMA, enqueue
from station.private_files import private_file

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (
    seq   INTEGER PRIMARY KEY,
    t_us  INTEGER NOT NULL,
    line  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
    seq       INTEGER PRIMARY KEY,
    input_seq INTEGER NOT NULL,
    type      TEXT NOT NULL,
    record    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_type ON records(type);
CREATE INDEX IF NOT EXISTS records_input ON records(input_seq);
CREATE TABLE IF NOT EXISTS snapshots (
    input_seq INTEGER PRIMARY KEY,
    state     BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS chain (
    seq  INTEGER PRIMARY KEY,
    hash BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoints (
    seq  INTEGER PRIMARY KEY,
    head BLOB NOT NULL,
    t_us INTEGER NOT NULL,
    why  TEXT NOT NULL,
    sig  TEXT NOT NULL
);
"""


class JournalError(RuntimeError):
    pass


STOP = chain.STOP



def log_migrated(path: Path, last: int) -> None:
    import logging

    logging.getLogger("station.journal").warning(
        "journal %s was written before the hash chain: its %d entries are chained now and "
        "marked unchained (the chain proves them unchanged from now on, not as written)",
        path, last)


class Journal:
    def __init__(self, path: str | Path, header: TraceHeader | None = None, *,
                 epoch: float | None = None, sync: str = "full",
                 signing_key: bytes | None = None,
                 checkpoint_every: int = chain.CHECKPOINT_EVERY,
                 migrate_chain: bool = False) -> None:
        """`sync`: "full" fsyncs every commit (survives power loss); "normal" survives a
        crash of the station process but may lose the last commits on power loss.
        `signing_key`: the table's key for checkpoints (docs/core.md, "The hash chain");
        without one the chain is kept but nothing is signed or sent to the ledger.
        `migrate_chain`: chain a journal written before the chain (`station journal migrate`
        alone asks it, with the key); without it such a journal is not opened."""
        if sync not in ("full", "normal"):
            raise JournalError(f"journal sync must be 'full' or 'normal', got {sync!r}")
        self.path = Path(path)
        private_file(self.path, sqlite=True)  # it holds every card: the station's user only
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute(f"PRAGMA synchronous={sync.upper()}")
        self.conn.execute("PRAGMA busy_timeout=10000")
        #: whether the file had the chain's tables before this open (a journal from before
        #: the chain has neither): only such a journal is ever migrated
        self._had_chain_tables = bool(self.conn.execute(
            "SELECT COUNT(*) FROM sqlite_master WHERE type='table'"
            " AND name IN ('chain', 'checkpoints')").fetchone()[0])
        self.signing_key = signing_key
        try:
            # before anything is written to the file: a journal refused is left as it was
            self._refuse_unchained(migrate_chain)
        except BaseException:
            self.conn.close()
            raise
        self.conn.executescript(SCHEMA)
        self.conn.executescript(OUTBOX_SCHEMA)
        row = self.conn.execute("SELECT value FROM meta WHERE key='header'").fetchone()
        if row is None:
            if header is None:
                raise JournalError(f"{self.path}: a new journal needs the table's header")
            self.header = header
            epoch = time.time() if epoch is None else epoch
            with self.conn:
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.execute("INSERT INTO meta VALUES ('header', ?)",
                                  (json.dumps(header.to_line()),))
                self.conn.execute("INSERT INTO meta VALUES ('epoch', ?)", (repr(epoch),))
                # the journal's own id: settlement keys and round ids carry it, so a new
                # journal at the same table never reuses a key
                self.conn.execute("INSERT INTO meta VALUES ('journal_id', ?)",
                                  (uuid.uuid4().hex[:12],))
            self.epoch = epoch
            self.is_new = True
        else:
            self.is_new = False
            self.header = parse_header(json.loads(row[0]))
            if header is not None and (header.table, header.game, header.camera) != (
                self.header.table, self.header.game, self.header.camera
            ):
                raise JournalError(
                    f"{self.path} belongs to table {self.header.table} ({self.header.game}, "
                    f"camera {self.header.camera}); the configuration says {header.table} "
                    f"({header.game}, camera {header.camera})"
                )
            self.epoch = float(self.conn.execute("SELECT value FROM meta WHERE key='epoch'").fetchone()[0])
        row = self.conn.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()
        #: None for a journal written before journals had ids: it keeps the key scheme its
        #: outbox already used (unprefixed), so its bets and its hands still meet in the ledger
        self.journal_id: str | None = row[0] if row else None
        self._open_chain(checkpoint_every)

    # ---------------------------------------------------------------- the hash chain
    def _refuse_unchained(self, migrate: bool) -> None:
        """A journal without its chain description is opened only to be migrated (`migrate`,
        with the key), and never one that shows it was chained before: chaining it would
        sign whatever it now holds, without anyone deciding to."""
        c = self.conn
        names = {n for (n,) in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"meta", "inputs"} <= names or c.execute(
                "SELECT 1 FROM meta WHERE key='chain'").fetchone() or not c.execute(
                "SELECT 1 FROM meta WHERE key='header'").fetchone():
            return  # a new journal, or one with its chain
        if self._had_chain_tables and self._holds_a_chain(names):
            # the chain's description was removed from a chained journal: chaining it again
            # would re-sign whatever it holds now, and the checkpoints it had would vanish
            raise JournalError(
                f"{self.path} has a hash chain but its description (meta 'chain') is missing: "
                "it was removed or damaged, so the journal is not opened (re-chaining it "
                "would sign whatever it now holds); check it with `station journal verify` "
                "and restore the journal from its backup")
        if "settlement_outbox" in names and c.execute(
                "SELECT 1 FROM settlement_outbox WHERE kind = 'checkpoint' LIMIT 1").fetchone():
            # its outbox holds checkpoints: it was chained, and its chain was removed to pass
            # it off as a journal from before the chain
            raise JournalError(
                f"{self.path} has no hash chain, yet its outbox holds checkpoints: it was "
                "chained and its chain was removed, so the station does not chain it again "
                "(that would sign whatever it now holds); check it with `station journal "
                "verify` and restore the journal from its backup")
        if not c.execute("SELECT 1 FROM inputs LIMIT 1").fetchone():
            return  # nothing in it to vouch for: chained from its genesis like a new one
        from station.core.chain_signs import signs_of_a_chain

        signs = signs_of_a_chain(c, chain_tables_made=self._had_chain_tables)
        if signs:
            raise JournalError(
                f"{self.path} has no hash chain, yet {signs[0]}: it was chained and its "
                "chain was removed, so it is not chained again (that would sign whatever it "
                "now holds); check it with `station journal verify` and restore the journal "
                "from its backup")
        if not migrate:
            raise JournalError(
                f"{self.path} has no hash chain: it was written before the chain (or its "
                "chain was removed). It is chained once, by hand: check it with `station "
                f"journal verify`, then `station journal migrate {self.path}` "
                "(docs/operator.md, \"Proving the journal\")")
        if self.signing_key is None:
            raise JournalError(f"{self.path}: chaining a journal from before the chain "
                               "needs the table's signing key (its migration is signed)")

    def _open_chain(self, every: int) -> None:
        """Load the chain head. A journal from before the chain that got this far is being
        migrated (`_refuse_unchained`): its entries so far are chained now, marked unchained
        (hashed at this migration, not as written), and the migration is recorded in its
        chain description, which the genesis hashes, and signed."""
        c = self.conn
        row = c.execute("SELECT value FROM meta WHERE key='chain'").fetchone()
        self.header_text = c.execute("SELECT value FROM meta WHERE key='header'").fetchone()[0]
        if row is None:
            last = int(c.execute("SELECT COALESCE(MAX(seq), 0) FROM inputs").fetchone()[0])
            more = {"migrated": {"entries": last, "at": round(time.time(), 3)}} if last else {}
            text = chain.chain_meta(every, last, **more)
            with c:
                c.execute("BEGIN IMMEDIATE")
                c.execute("INSERT INTO meta VALUES ('chain', ?)", (text,))
                c.execute("DELETE FROM chain")
                self._set_genesis(chain.read_chain_meta(text), text)
                head = self.genesis_hash
                records = self._records_by_input()
                for seq, t_us, line in c.execute(
                        "SELECT seq, t_us, line FROM inputs ORDER BY seq").fetchall():
                    head = chain.entry_hash(head, seq, t_us, line, records.get(seq, ()))
                    c.execute("INSERT INTO chain VALUES (?, ?)", (seq, head))
                self.head, self.head_seq = head, last
                self.last_checkpoint_seq = -1
                if last:
                    log_migrated(self.path, last)
                self._pending: tuple[int, int, str] | None = None
                self._checkpoint_if_signing("genesis", 0, 0, self.genesis_hash)
                if last:
                    self._checkpoint_if_signing("migrated", last, self.last_t_us(), head)
        else:
            meta = chain.read_chain_meta(row[0])
            self._set_genesis(meta, row[0])
            last = c.execute("SELECT seq, hash FROM chain ORDER BY seq DESC LIMIT 1").fetchone()
            self.head, self.head_seq = (bytes(last[1]), int(last[0])) if last else (self.genesis_hash, 0)
            cp = c.execute("SELECT MAX(seq) FROM checkpoints").fetchone()[0]
            self.last_checkpoint_seq = -1 if cp is None else int(cp)
            self._pending = None
            if cp is not None:
                self._check_since_checkpoint(int(cp))
            if self.signing_key is not None and self.last_checkpoint_seq < 0:
                # chained by a station without a key until now: its genesis is signed now
                with c:
                    c.execute("BEGIN IMMEDIATE")
                    self._checkpoint_if_signing("genesis", 0, 0, self.genesis_hash)
        self._at_begin = (self.head, self.head_seq, self.last_checkpoint_seq)

    def _check_since_checkpoint(self, cp: int) -> None:
        """Before anything is appended (and signed): the entries after the newest checkpoint
        must be the station's own. None may follow a checkpoint an orderly stop left (the
        station leaves none there), and the chain from the checkpoint's head to the journal's
        head is recomputed from the entries and compared with the stored hashes."""
        c = self.conn
        head, why, sig, cp_t_us = c.execute(
            "SELECT head, why, sig, t_us FROM checkpoints WHERE seq=?", (cp,)).fetchone()
        head = bytes(head)
        if why == chain.STOP and self.head_seq > cp:
            raise JournalError(
                f"{self.path}: entries {cp + 1}-{self.head_seq} follow the station's orderly "
                f"stop at entry {cp}: something other than the station (without the table's "
                "key) wrote them, so the station does not start and sign over them. Check the "
                "journal with `station journal verify`; whether the table carries on from a "
                "backup is the operator's decision (docs/operator.md, \"Proving the journal\")")
        if self.signing_key is not None and cp > 0 and not chain.checkpoint_ok(
                self.signing_key, self.header.table, self.journal_id, cp, head, str(sig),
                version=self.chain_version, t_us=int(cp_t_us), why=str(why)):
            raise JournalError(
                f"{self.path}: its newest checkpoint (entry {cp}) is not signed by this table's "
                "key: the station does not sign over it; check the journal with "
                "`station journal verify`")
        stored = c.execute("SELECT hash FROM chain WHERE seq=?", (cp,)).fetchone()
        if (cp == 0 and head != self.genesis_hash) or (
                cp > 0 and (stored is None or bytes(stored[0]) != head)):
            raise JournalError(
                f"{self.path}: the chain at entry {cp} is not the one its checkpoint signs: "
                "the station does not sign over it; check it with `station journal verify`")
        records: dict[int, list[str]] = {}
        for seq, rec in c.execute("SELECT input_seq, record FROM records WHERE input_seq > ?"
                                  " ORDER BY seq", (cp,)):
            records.setdefault(int(seq), []).append(rec)
        expect = cp + 1
        for seq, t_us, line, h in c.execute(
                "SELECT i.seq, i.t_us, i.line, c.hash FROM inputs i LEFT JOIN chain c"
                " ON c.seq = i.seq WHERE i.seq > ? ORDER BY i.seq", (cp,)).fetchall():
            if seq != expect or h is None:
                raise JournalError(f"{self.path}: entry {expect} after the checkpoint at "
                                   f"entry {cp} is missing or unchained: check it with "
                                   "`station journal verify`")
            head = chain.entry_hash(head, seq, t_us, line, records.get(seq, ()))
            if bytes(h) != head:
                raise JournalError(
                    f"{self.path}: entry {seq} is not what the chain from the checkpoint at "
                    f"entry {cp} says: the station does not sign over it; check the journal "
                    "with `station journal verify`")
            expect += 1
        if expect - 1 != self.head_seq or head != self.head:
            raise JournalError(f"{self.path}: the chain's head (entry {self.head_seq}) is not "
                               f"where its entries end (entry {expect - 1})")
        if why == chain.STOP and self.signing_key is not None:
            # from here on the station appends: entries after this checkpoint are its own
            with c:
                c.execute("BEGIN IMMEDIATE")
                self._rename_checkpoint(cp, chain.STOP_THEN_STARTED)

    def mark_stopped(self) -> None:
        """Inside the open transaction, at an orderly stop with nothing new to sign: the
        newest checkpoint, at the head, is where the station stopped."""
        if self.last_checkpoint_seq == self.head_seq and self.head_seq > 0:
            self._rename_checkpoint(self.head_seq, chain.STOP)

    def _rename_checkpoint(self, seq: int, why: str) -> None:
        """Inside the open transaction: the checkpoint at `seq` now says `why`, signed again
        (a format 2 checkpoint's signature covers its reason, so without the key it stays)."""
        if self.signing_key is None:
            if self.chain_version == 1:
                self.conn.execute("UPDATE checkpoints SET why=? WHERE seq=?", (why, seq))
            return
        head, t_us = self.conn.execute("SELECT head, t_us FROM checkpoints WHERE seq=?",
                                       (seq,)).fetchone()
        sig = chain.sign_checkpoint(self.signing_key, self.header.table, self.journal_id, seq,
                                    bytes(head), version=self.chain_version, t_us=int(t_us),
                                    why=why)
        self.conn.execute("UPDATE checkpoints SET why=?, sig=? WHERE seq=?", (why, sig, seq))

    def _holds_a_chain(self, names: set[str]) -> bool:
        """Anything chained or signed (or any entry) in a journal that has the chain's tables:
        one whose first open stopped before its chain was described holds none."""
        return any(self.conn.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone()
                   for t in ("chain", "checkpoints", "inputs") if t in names)

    def _set_genesis(self, meta: dict[str, Any], chain_text: str) -> None:
        self.checkpoint_every = int(meta["every"])
        self.unchained_through = int(meta["unchained_through"])
        self.chain_version = int(meta["version"])
        epoch = self.conn.execute("SELECT value FROM meta WHERE key='epoch'").fetchone()
        self.genesis_hash = chain.genesis(self.header.table, self.journal_id, self.header_text,
                                          self.checkpoint_every, self.unchained_through,
                                          version=self.chain_version, chain_text=chain_text,
                                          epoch_text=str(epoch[0]) if epoch else "")

    def _records_by_input(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for seq, rec in self.conn.execute("SELECT input_seq, record FROM records ORDER BY seq"):
            out.setdefault(int(seq), []).append(rec)
        return out

    def _chain_entry(self, seq: int, t_us: int, line: str, records: list[str]) -> None:
        """Inside the open transaction: entry `seq` is whole; hash it onto the chain."""
        self.head = chain.entry_hash(self.head, seq, t_us, line, records)
        self.head_seq = seq
        self.conn.execute("INSERT INTO chain VALUES (?, ?)", (seq, self.head))
        if seq - max(self.last_checkpoint_seq, 0) >= self.checkpoint_every:
            self.checkpoint("every", t_us)

    def _close_pending(self) -> None:
        if self._pending is not None:
            seq, t_us, line = self._pending
            self._pending = None
            self._chain_entry(seq, t_us, line, [])

    def checkpoint(self, why: str, t_us: int | None = None) -> bool:
        """Inside the open transaction: sign the chain head as it stands and put the
        checkpoint in the outbox for the ledger. False when there is nothing new to sign or
        no key."""
        self._close_pending()
        if self.head_seq <= self.last_checkpoint_seq:
            return False
        return self._checkpoint_if_signing(why, self.head_seq,
                                           self.last_t_us() if t_us is None else t_us, self.head)

    def _checkpoint_if_signing(self, why: str, seq: int, t_us: int, head: bytes) -> bool:
        if self.signing_key is None:
            return False
        sig = chain.sign_checkpoint(self.signing_key, self.header.table, self.journal_id, seq,
                                    head, version=self.chain_version, t_us=t_us, why=why)
        self.conn.execute("INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?, ?)",
                          (seq, head, t_us, why, sig))
        self.last_checkpoint_seq = seq
        table, jid = self.header.table, self.journal_id or ""
        # as the kernel's messages: a journal from before journal ids books under the
        # ledger's default table (station/core/kernel.py, `message`)
        where = {"table": table} if self.journal_id else {}
        enqueue(self.conn, {"key": f"{table}/{jid}/checkpoint:{seq}", "kind": "checkpoint",
                            **where, "journal_id": jid, "seq": seq, "head": head.hex(),
                            # the ledger witnesses the head: its copy carries the head's own
                            # signature (the same as the journal's in chain format 1)
                            "sig": chain.sign(self.signing_key, table, self.journal_id, seq,
                                              head),
                            "why": why, "t": t_us / 1_000_000})
        return True

    def chain_head(self) -> tuple[int, str]:
        """The last chained entry's seq and the chain's hash there (hex)."""
        return self.head_seq, self.head.hex()

    def inputs(self, after: int = 0) -> Iterator[tuple[int, Input]]:
        prev = None
        kinds = zone_kinds_of(self.header.game)
        for seq, line in self.conn.execute("SELECT seq, line FROM inputs WHERE seq > ? ORDER BY seq",
                                           (after,)):
            inp = parse_input(json.loads(line), seq, prev, journal=True, zone_kinds=kinds)
            prev = inp.t_us
            yield seq, inp

    def last_t_us(self) -> int:
        row = self.conn.execute("SELECT MAX(t_us) FROM inputs").fetchone()
        return int(row[0] or 0)

    def begin(self, inp: Input | None = None) -> int:
        """Open a transaction (one input, or a group of inputs that arrived together) and
        write the input first. Returns its seq (0 when no input was given)."""
        # kept before BEGIN: a transaction that cannot even begin (a failing disk) is rolled
        # back to here too, never to the start of an earlier, committed one
        self._at_begin = (self.head, self.head_seq, self.last_checkpoint_seq)
        self.conn.execute("BEGIN IMMEDIATE")
        if inp is None:
            return 0
        try:
            return self.add_input(inp)
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def add_input(self, inp: Input) -> int:
        self._close_pending()
        line = input_line(inp)
        cur = self.conn.execute("INSERT INTO inputs (t_us, line) VALUES (?, ?)",
                                (inp.t_us, line))
        seq = int(cur.lastrowid or 0)
        # the entry is hashed once its records are known (add_outputs, or the commit)
        self._pending = (seq, inp.t_us, line)
        return seq

    def add_outputs(self, seq: int, records: list[dict[str, Any]],
                    messages: list[dict[str, Any]]) -> None:
        c = self.conn
        texts = [record_text(r) for r in records]
        if records:
            c.executemany(
                "INSERT INTO records (input_seq, type, record) VALUES (?, ?, ?)",
                [(seq, r["type"], t) for r, t in zip(records, texts, strict=True)],
            )
        for m in messages:
            enqueue(c, m)
        if self._pending is not None and self._pending[0] == seq:
            _, t_us, line = self._pending
            self._pending = None
            self._chain_entry(seq, t_us, line, texts)

    def commit(self, seq: int | None = None, records: list[dict[str, Any]] | None = None,
               messages: list[dict[str, Any]] | None = None) -> None:
        """Add what applying input `seq` produced (if given), then make it all durable."""
        try:
            if seq is not None:
                self.add_outputs(seq, records or [], messages or [])
            self._close_pending()
            self.conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    def rollback(self) -> None:
        self._pending = None
        self.head, self.head_seq, self.last_checkpoint_seq = self._at_begin
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def append(self, inp: Input, records: list[dict[str, Any]], messages: list[dict[str, Any]]) -> int:
        seq = self.begin(inp)
        self.commit(seq, records, messages)
        return seq

    def add_snapshot(self, seq: int, state: bytes) -> None:
        """The core's state after input `seq`, inside the open transaction. Restarts begin
        from the newest snapshot instead of the first input; older ones are dropped."""
        self.conn.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?)", (seq, state))
        self.conn.execute("DELETE FROM snapshots WHERE input_seq < ?", (seq,))

    def latest_snapshot(self) -> tuple[int, bytes] | None:
        row = self.conn.execute(
            "SELECT input_seq, state FROM snapshots ORDER BY input_seq DESC LIMIT 1").fetchone()
        return (int(row[0]), bytes(row[1])) if row else None

    def iter_records(self, after_input: int = 0) -> Iterator[dict[str, Any]]:
        for (r,) in self.conn.execute(
                "SELECT record FROM records WHERE input_seq > ? ORDER BY seq", (after_input,)):
            yield json.loads(r)

    def stored_records(self) -> list[dict[str, Any]]:
        return [json.loads(r) for (r,) in self.conn.execute("SELECT record FROM records ORDER BY seq")]

    def records_of_type(self, *types: str, limit: int | None = None) -> list[dict[str, Any]]:
        """Stored records of these types, oldest first (only the newest `limit` if given)."""
        marks = ",".join("?" * len(types))
        q = f"SELECT record FROM records WHERE type IN ({marks}) ORDER BY seq DESC"
        if limit:
            q += f" LIMIT {int(limit)}"
        return [json.loads(r) for (r,) in list(self.conn.execute(q, types))[::-1]]

    def export_trace(self, path: str | Path, note: str = "") -> int:
        """Write the journal's inputs as a TRACES.md trace (see `export_trace`)."""
        return _write_trace(self.header, self.inputs(), path, note, chain_end(self.conn))

    def probe_write(self) -> None:
        """One small real write, committed (the station asks whether the disk takes writes
        again after one failed): raises as a failing journal write does."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('write_probe', ?)",
                              (repr(time.time()),))
            self.conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    closed = False

    def close(self) -> None:
        self.closed = True
        self.conn.close()


def chain_end(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """What an exported trace's header says of the chain it ends at: the journal id, the last
    entry's seq and the chain's hash there (as the station stored it), and how many records
    the journal holds through it with their SHA-256 (`records_digest`), which `station replay`
    recomputes from the records the trace replays to."""
    try:
        row = conn.execute("SELECT seq, hash FROM chain ORDER BY seq DESC LIMIT 1").fetchone()
    except sqlite3.Error:
        return None  # a journal from before the chain, read only: nothing to carry
    if row is None:
        return None
    jid = conn.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()
    n, digest = records_digest(r for (r,) in conn.execute(
        "SELECT record FROM records WHERE input_seq <= ? ORDER BY seq", (row[0],)))
    return {"journal_id": jid[0] if jid else None, "seq": int(row[0]),
            "head": bytes(row[1]).hex(), "records": n, "records_sha256": digest}


def records_digest(texts: Iterator[str]) -> tuple[int, str]:
    """SHA-256 over records as the journal stores them, each UTF-8 and ended by a newline."""
    import hashlib

    h, n = hashlib.sha256(), 0
    for t in texts:
        h.update(t.encode())
        h.update(b"\n")
        n += 1
    return n, h.hexdigest()


def record_text(record: dict[str, Any]) -> str:
    """A record as the journal stores it (and hashes it)."""
    return json.dumps(record, ensure_ascii=False)


def _write_trace(header: TraceHeader, inputs: Iterator[tuple[int, Input]], path: str | Path,
                 note: str, chain_at_end: dict[str, Any] | None = None) -> int:
    if note:
        header = TraceHeader(header.table, header.game, header.camera, header.settings, note)
    first = header.to_line()
    if chain_at_end is not None:
        first["chain"] = chain_at_end
    last_us = None
    with TraceWriter(path, first) as w:
        for _, inp in inputs:
            last_us = inp.t_us
            if inp.kind not in JOURNAL_ONLY_KEYS:
                w.write(inp.to_line())
        if last_us is not None:
            # the clock runs to the last input, ticks included, so timers that fired after
            # the last other input fire in the replay too
            w.write({"t": last_us / 1_000_000, "end": True})
        return w.lines


def export_trace(journal_path: str | Path, path: str | Path, note: str = "") -> int:
    """Write the journal's inputs, from the table's first, as one TRACES.md trace; returns
    its line count. The journal is opened read-only (a running station may go on writing
    it): nothing is created or changed in it, nor in a file that is not a journal, which is
    a JournalError. Clock ticks are left out (`JOURNAL_ONLY_KEYS`: a trace's times and its
    `end` line imply them); a studio table's reservation answers are kept
    (`STUDIO_TRACE_KEYS`), so its bets and pot actions replay as the table decided them."""
    src = Path(journal_path)
    if not src.is_file():
        raise JournalError(f"{src} is not a station journal (no such file)")
    try:
        conn = sqlite3.connect(src.resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise JournalError(f"{src} is not a station journal ({e})") from None
    try:
        try:
            row = conn.execute("SELECT value FROM meta WHERE key='header'").fetchone()
            conn.execute("SELECT seq, line FROM inputs LIMIT 1").fetchall()
        except sqlite3.Error as e:
            raise JournalError(f"{src} is not a station journal ({e})") from None
        if row is None:
            raise JournalError(f"{src} is not a station journal (no table header)")
        try:
            header = parse_header(json.loads(row[0]))
        except (ValueError, TypeError, KeyError) as e:
            raise JournalError(f"{src}: its table header cannot be read ({e})") from None

        try:
            kinds = zone_kinds_of(header.game)
        except ValueError as e:
            raise JournalError(f"{src}: {e}") from None

        def rows() -> Iterator[tuple[int, Input]]:
            prev = None
            for seq, line in conn.execute("SELECT seq, line FROM inputs ORDER BY seq"):
                try:
                    inp = parse_input(json.loads(line), seq, prev, journal=True, zone_kinds=kinds)
                except (ValueError, TypeError) as e:
                    raise JournalError(f"{src}: input {seq} cannot be read ({e})") from None
                prev = inp.t_us
                yield seq, inp

        return _write_trace(header, rows(), path, note, chain_end(conn))
    finally:
        conn.close()

