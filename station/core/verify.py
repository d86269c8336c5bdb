"""Walk a journal's hash chain and its checkpoints (`station journal verify`).

Reads the SQLite file only. Every entry's hash is recomputed from the one before it and the
entry's stored text (docs/core.md, "The hash chain") and compared with the hash the station
stored when it wrote the entry; every checkpoint's head is compared with the recomputed chain
at its entry and its signature with the table's key; and, given the ledger's newest
checkpoint for the journal, that one is held against the chain too. The first problem, by
entry, is the answer, named by the entry's `seq`.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from struct import error as struct_error
from typing import Any

from station.core import chain

#: how a record the station wrote begins: its time (a number, no quote in it), then its type
_RECORD_HEAD = re.compile(rb'\{"t": [-+.0-9eE]+, "type": "([a-z_0-9]+)"[,}]')


class Unreadable(Exception):
    """The file cannot be read as a journal at all (exit 2, not a verdict)."""


@dataclass
class Verdict:
    entries: int = 0
    checkpoints: int = 0
    first_bad: dict[str, Any] | None = None
    #: what the verdict does not say by itself: the unchained part, the unsigned tail
    notes: list[str] = field(default_factory=list)
    #: the recomputed chain's hash at each checkpointed entry (and at the ledger's)
    heads: dict[int, bytes] = field(default_factory=dict)
    table: str = ""
    journal_id: str = ""
    head_seq: int = 0
    head: bytes = b""
    #: the chain's format (`meta.chain` "version"): how its genesis and checkpoints are made
    chain_version: int = 0

    @property
    def ok(self) -> bool:
        return self.first_bad is None

    def line(self) -> dict[str, Any]:
        return {"ok": self.ok, "entries": self.entries, "checkpoints": self.checkpoints,
                "first_bad": self.first_bad}

    def bad(self, seq: int, why: str) -> None:
        if self.first_bad is None or seq < self.first_bad["seq"]:
            self.first_bad = {"seq": seq, "why": why}


@dataclass(frozen=True)
class LedgerCheckpoint:
    seq: int
    head: bytes
    sig: str


def open_read_only(path: str | Path) -> sqlite3.Connection:
    src = Path(path)
    if not src.is_file():
        raise Unreadable(f"{src}: no such file")
    try:
        conn = sqlite3.connect(src.resolve().as_uri() + "?mode=ro", uri=True)
        conn.execute("SELECT value FROM meta LIMIT 1").fetchall()
        conn.execute("SELECT seq, t_us, line FROM inputs LIMIT 1").fetchall()
    except sqlite3.Error as e:
        raise Unreadable(f"{src} is not a station journal ({e})") from None
    return conn


def verify(conn: sqlite3.Connection, key: bytes,
           ledger: LedgerCheckpoint | Sequence[LedgerCheckpoint] | None = None) -> Verdict:
    """`ledger`: the ledger's checkpoints of this journal (every one it holds, or only its
    newest): each the journal's length reaches is held against the chain at its entry."""
    v = Verdict()
    if isinstance(ledger, LedgerCheckpoint):
        ledger = [ledger]
    # SQLite's own structure first: a damaged page of an index the walk never reads (one
    # the station's lookups do) would otherwise pass unseen
    try:
        problems = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as e:
        raise Unreadable(f"the journal's database cannot be read ({e})") from None
    if problems != ["ok"]:
        raise Unreadable("the journal's database file is damaged (SQLite's quick_check: "
                         + "; ".join(problems) + ")")
    # text as the bytes the file stores: a changed byte that is no longer UTF-8 is a changed
    # entry (named by its seq), not a file SQLite cannot decode (docs/core.md)
    text_factory = conn.text_factory
    conn.text_factory = bytes
    try:
        _verify(conn, key, ledger, v)
    except sqlite3.DatabaseError as e:
        # a file changed under SQLite's own structure: the walk stops where it could read
        raise Unreadable(f"the journal's database cannot be read ({e})") from None
    finally:
        conn.text_factory = text_factory
    return v


def _meta(conn: sqlite3.Connection, name: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key=?", (name,)).fetchone()
    if row is None:
        return None
    value = row[0]
    if isinstance(value, bytes):
        try:
            return value.decode()
        except UnicodeDecodeError:
            return "\ufffd"  # damaged: never a valid header, id or chain description
    return str(value)


def _round_end_records(header_text: str) -> frozenset[str] | None:
    """The record types the journal's game declares round-ending; None when its game is not
    one this station knows."""
    from station.games import get_game  # the games plug into the core: looked up by name

    try:
        proc = get_game(json.loads(header_text)["game"]).table_procedure()
    except (ValueError, TypeError, KeyError):
        return None
    return None if proc is None else frozenset(proc.round_end_records)


def _verify(conn: sqlite3.Connection, key: bytes, ledger: Sequence[LedgerCheckpoint] | None,
            v: Verdict) -> None:
    header_text = _meta(conn, "header")
    if header_text is None:
        raise Unreadable("no table header: not a station journal")
    try:
        table = json.loads(header_text)["table"]
    except (ValueError, TypeError, KeyError):
        table = None
    v.journal_id = _meta(conn, "journal_id") or ""
    v.entries = int(conn.execute("SELECT COUNT(*) FROM inputs").fetchone()[0])
    chain_text = _meta(conn, "chain")
    tables = {_text(n) for (n,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name IN ('chain', 'checkpoints')")}
    if chain_text is None or len(tables) < 2:
        _unchained(conn, chain_text, tables, ledger, v)
        return
    if not isinstance(table, str):
        v.bad(0, "the journal's header names no table: the genesis cannot be made")
        return
    v.table = table
    round_end = _round_end_records(header_text)
    if round_end is None:
        v.bad(0, "the journal's header names no game this station knows: which entries end "
                 "a round (and must be signed) cannot be told")
        return
    try:
        meta = chain.read_chain_meta(chain_text)
    except ValueError as e:
        v.bad(0, f"the chain's description is damaged ({e})")
        return
    every, unchained = meta["every"], meta["unchained_through"]
    v.chain_version = version = meta["version"]
    if unchained:
        v.notes.append(f"entries 1-{unchained} were written before the chain: chained when the "
                       "journal was migrated, so proven unchanged since then only")
    epoch = _meta(conn, "epoch")
    if version > 1 and epoch is None:
        v.bad(0, "the journal's epoch (meta 'epoch'), part of its genesis, is missing")
        return
    genesis = chain.genesis(table, v.journal_id or None, header_text, every, unchained,
                            version=version, chain_text=chain_text, epoch_text=epoch or "")
    cps = [(int(s), bytes(h), _text(sig), t_us, _text(why)) for s, h, sig, t_us, why in
           conn.execute("SELECT seq, head, sig, t_us, why FROM checkpoints ORDER BY seq")]
    v.checkpoints = len(cps)
    wanted = {c[0] for c in cps}
    for lcp in ledger or ():
        wanted.add(lcp.seq)
    v.heads[0] = genesis
    ends: list[int] = []
    last, head, whole = _walk(conn, genesis, wanted, v, round_end, ends)
    v.head_seq, v.head = last, head
    jid = v.journal_id or None
    if not cps:
        v.bad(0, "no signed checkpoint: the journal was written without a signing key, or "
                 "its checkpoints were removed")
    for seq, signed_head, sig, t_us, why in cps:
        if seq > last:
            if whole:
                v.bad(last + 1, f"the journal ends at entry {last}, cut short: its last "
                                f"checkpoint vouches for {cps[-1][0]} entries")
            break
        if seq not in v.heads:
            break  # the walk stopped earlier, at a worse problem
        if isinstance(t_us, bool) or not isinstance(t_us, int) or not chain.checkpoint_ok(
                key, table, jid, seq, signed_head, sig, version=version, t_us=t_us, why=why):
            v.bad(seq, f"checkpoint at entry {seq}: its signature is not the table key's "
                       "over it (forged, its head, time or reason changed, or another key)")
            break
        if v.heads[seq] != signed_head:
            v.bad(seq, "the journal's genesis (its table, id, header, epoch or chain "
                       "description) is not the one its first checkpoint signs" if seq == 0
                  else f"checkpoint at entry {seq}: the chain there is not the one signed "
                       "(entries up to it were changed and the chain recomputed)")
            break
    signed = {c[0] for c in cps}
    for seq in ends:
        if seq > unchained and seq not in signed:
            v.bad(seq, f"entry {seq} ends a round but no checkpoint signs it: checkpoints were "
                       "removed (and the chain perhaps recomputed from there)")
            break
    prev = 0
    for seq in [s for s in sorted(signed) if s <= last] + [last + 1]:
        # the station signs at least every `every` entries; a migrated journal's first
        # checkpoint after its genesis is at the end of its unchained part
        gap_end = seq if seq <= last else last
        limit = every if seq <= last else every - 1
        if gap_end > unchained and gap_end - max(prev, unchained) > limit:
            v.bad(max(prev, unchained) + every,
                  f"{gap_end - max(prev, unchained)} entries after the checkpoint at entry "
                  f"{max(prev, unchained)} without one, though the table signs every {every}: "
                  "checkpoints were removed")
            break
        prev = seq
    newest = conn.execute("SELECT seq, why FROM checkpoints ORDER BY seq DESC LIMIT 1").fetchone()
    if newest is not None and _text(newest[1]) == chain.STOP and last > int(newest[0]) and whole:
        v.bad(int(newest[0]) + 1, f"entries after the station's orderly stop (at entry "
                                  f"{int(newest[0])}): the station leaves none there, so "
                                  "something else wrote them")
    if v.first_bad is None and cps and last > cps[-1][0]:
        v.notes.append(f"entries {cps[-1][0] + 1}-{last} follow the last checkpoint: chained, "
                       "not signed yet")
    if whole:
        for lcp in sorted(ledger or (), key=lambda c: c.seq):
            _against_ledger(key, table, jid, lcp, last, v)


def _unchained(conn: sqlite3.Connection, chain_text: str | None, tables: set[str],
               ledger: Sequence[LedgerCheckpoint] | None, v: Verdict) -> None:
    """A journal without its chain (description or tables): one from before the chain, not
    migrated yet, or one whose chain was removed, which the first trace of a chain, or a
    ledger holding checkpoints of it, gives away."""
    from station.core.chain_signs import signs_of_a_chain

    gone = " and ".join(sorted({"chain", "checkpoints"} - tables))
    signs = ([f"its chain description (meta 'chain') is there but its {gone} table is not"]
             if chain_text is not None else [])
    signs += signs_of_a_chain(conn, chain_tables_made=len(tables) == 2)
    if ledger:
        signs.append(f"the ledger holds {len(ledger)} checkpoint(s) of it")
    if signs:
        v.bad(0, f"no hash chain, yet {signs[0]}: the journal was chained and its chain "
                 "was removed (" + "; ".join(signs) + ")")
    else:
        v.bad(1 if v.entries else 0, "no hash chain: written before the chain and not "
                                     "migrated yet (`station journal migrate` chains it once)")


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _walk(conn: sqlite3.Connection, genesis: bytes, wanted: set[int], v: Verdict,
          round_end: frozenset[str], ends: list[int]) -> tuple[int, bytes, bool]:
    """Recompute the chain entry by entry; returns the last entry reached, its hash, and
    whether the walk reached the journal's end without a problem. `ends` gets the entries
    whose records end a round."""
    records = iter(conn.execute("SELECT input_seq, record, type, typeof(record) FROM records"
                                " ORDER BY input_seq, seq"))
    pending = next(records, None)
    head, expect = genesis, 1
    entry_hash = chain.entry_hash
    rows = conn.execute("SELECT i.seq, i.t_us, i.line, c.hash, typeof(i.line) FROM inputs i"
                        " LEFT JOIN chain c ON c.seq = i.seq ORDER BY i.seq")
    for seq, t_us, line, stored, line_kind in rows:
        if seq != expect:
            if seq < expect:
                v.bad(seq, f"entry {seq} stands before the chain's first entry")
            else:
                v.bad(expect, f"entry {expect} is missing (the journal goes from entry "
                              f"{expect - 1} to {seq})")
            return expect - 1, head, False
        recs: list[bytes] = []
        kinds: list[tuple[Any, Any]] = []  # each record's stored type and storage class
        if pending is not None and pending[0] <= seq:
            if pending[0] < seq:
                v.bad(pending[0], f"records of entry {pending[0]}, which the journal does not hold")
                return expect - 1, head, False
            while pending is not None and pending[0] == seq:
                recs.append(pending[1])
                kinds.append((pending[2], pending[3]))
                pending = next(records, None)
        if line_kind != b"text" or any(k != b"text" for _, k in kinds):
            # the same bytes stored as a BLOB would hash alike: the station writes text only
            v.bad(seq, f"entry {seq} holds something other than the station's text")
            return expect - 1, head, False
        try:
            head = entry_hash(head, seq, t_us, line, recs)
        except (AttributeError, TypeError, struct_error):
            v.bad(seq, f"entry {seq} holds something other than the station's text")
            return expect - 1, head, False
        if stored is None:
            v.bad(seq, f"entry {seq} has no chain hash: it was added after the fact")
            return expect - 1, head, False
        if stored != head:
            v.bad(seq, f"entry {seq} is not what the table wrote: its input, time or records "
                       "differ from the chain")
            return expect - 1, head, False
        types = _record_types(seq, recs, kinds, v)
        if types is None:
            return expect - 1, head, False
        if recs and any(t in round_end for t in types):
            ends.append(seq)
        if seq in wanted:
            v.heads[seq] = head
        expect += 1
    last = expect - 1
    if pending is not None:
        v.bad(pending[0], f"records of entry {pending[0]}, which the journal does not hold")
    beyond = conn.execute("SELECT MIN(seq) FROM chain WHERE seq > ?", (last,)).fetchone()[0]
    if beyond is not None:
        vouched = conn.execute("SELECT MAX(seq) FROM checkpoints").fetchone()[0]
        v.bad(last + 1, f"the chain holds entry {beyond}, which the journal does not: the "
                        f"journal was cut short (its last checkpoint vouches for {vouched or 0} "
                        "entries)")
    return last, head, v.first_bad is None


def _record_types(seq: int, recs: list[bytes], kinds: list[tuple[Any, Any]],
                  v: Verdict) -> list[str] | None:
    """The types the records of entry `seq` name in their text, each checked against the
    `type` column beside it (which is not hashed, and which the station's lookups use)."""
    types = []
    for text, (stored, _) in zip(recs, kinds, strict=True):
        stored_type = stored.decode(errors="replace") if isinstance(stored, bytes) else stored
        # the station writes a record's time, then its type, first (`TableKernel.emit`),
        # and the text is the hashed one: a dict, with no second "type". No need to parse
        # all of it
        head = _RECORD_HEAD.match(text) if isinstance(text, bytes) else None
        if head is not None:
            named: Any = head.group(1).decode(errors="replace")
        else:
            try:
                named = json.loads(text).get("type")
            except (ValueError, AttributeError):
                named = None
        if not isinstance(named, str) or named != stored_type:
            v.bad(seq, f"entry {seq} has a record filed as type {stored_type!r} whose text says "
                       f"{named!r}: its type was changed")
            return None
        types.append(named)
    return types


def _against_ledger(key: bytes, table: str, jid: str | None, cp: LedgerCheckpoint, last: int,
                    v: Verdict) -> None:
    if not chain.signature_ok(key, table, jid, cp.seq, cp.head, cp.sig):
        v.bad(cp.seq, f"the ledger's checkpoint at entry {cp.seq} is not signed by this key")
    elif cp.seq > last:
        v.bad(last + 1, f"the journal ends at entry {last}, but the ledger holds a checkpoint "
                        f"vouching for {cp.seq} entries: it was cut short")
    elif cp.seq in v.heads and v.heads[cp.seq] != cp.head:
        v.bad(cp.seq, f"the journal disagrees with the ledger's checkpoint at entry {cp.seq}: "
                      "the journal was rewritten (and re-signed) after the ledger had it")
