"""`station journal verify JOURNAL [--ledger URL] [--key-env NAME | --key-file PATH]`: one JSON
line on standard output; on standard error, which key checked the checkpoints and what the
line cannot say by itself (an unchained part, an unsigned tail); exit 0 intact, 1 not, 2
unreadable (the journal, the key or the ledger).

The key is the one named: `--key-file`, else the variable `--key-env` names (default
STATION_JOURNAL_KEY). A key file lying beside the journal is never taken for it: a key kept
where the journal is proves nothing, so verify says it is there and unused."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from station.core import chain
from station.core.verify import LedgerCheckpoint, Unreadable, open_read_only, verify
from station.live.journal_key import TableKey, key_from_file, stray_key_note


def add_key_arguments(p: argparse.ArgumentParser) -> None:
    keys = p.add_mutually_exclusive_group()
    keys.add_argument("--key-env", default=None, metavar="NAME",
                      help="the environment variable holding the table's signing key "
                           f"(default {chain.DEFAULT_KEY_ENV})")
    keys.add_argument("--key-file", default=None, metavar="PATH",
                      help="a file holding the table's signing key (`[journal] "
                           "signing_key_file`)")


def journal_key(journal: Path, key_env: str | None, key_file: str | None = None) -> TableKey:
    """The table's signing key, from where it was named: `key_file`, else the variable
    `key_env` (default STATION_JOURNAL_KEY). Unreadable when it is not there."""
    if key_file is not None:
        warning = key_beside_journal(journal, Path(key_file))
        if warning:
            print(f"station: warning: {warning}", file=sys.stderr)
        return TableKey(key_from_file(Path(key_file)), f"the key file {key_file}")
    name = key_env or chain.DEFAULT_KEY_ENV
    key = chain.key_from_env(name)
    if key is not None:
        return TableKey(key, f"${name}")
    stray = stray_key_note(journal.parent)
    raise Unreadable(f"no signing key, so no checkpoint can be checked and nothing was judged: "
                     f"set ${name} to the table's key (the one the station signs with) or pass "
                     "--key-file" + (f"; {stray}" if stray else ""))


def key_beside_journal(journal: Path, key_file: Path) -> str | None:
    """What to say of a key file kept with the journal (in its folder, the table's
    storage.dir, or below it): a key whoever could change the journal could read proves
    nothing of it."""
    try:
        where, folder = key_file.resolve(), journal.resolve().parent
    except OSError:
        return None
    if where.is_relative_to(folder):
        return (f"the key file {key_file} lies beside the journal (in {folder}): whoever could "
                "change the journal could read it and sign again, so the checkpoints prove "
                "nothing against that person; keep the key elsewhere (docs/operator.md, "
                "\"Proving the journal\")")
    return None


def ledger_checkpoints(ledger: str, table: str, journal_id: str,
                       others: list[str] | None = None) -> list[LedgerCheckpoint]:
    """Every checkpoint the ledger holds of this journal, read only; those that came at or
    below the newest it already held (a journal restored and played on) are named on
    standard error. `others`, when given, receives the table's other journal ids the
    ledger holds checkpoints of."""
    from station.settlement.checkpoints import every_one, journals_of
    from station.settlement.ledger import open_store
    from station.settlement.ledger.store import is_postgres_url

    if not is_postgres_url(ledger) and not Path(ledger).is_file():
        raise Unreadable(f"{ledger}: no such ledger")
    try:
        store = open_store(ledger, read_only=True)
    except Exception as e:  # noqa: BLE001 - any failure to open is "cannot read the ledger"
        raise Unreadable(f"cannot read the ledger {ledger}: {e}") from None
    try:
        rows = every_one(store, table, journal_id)
        if others is not None:
            others[:] = [j for j in journals_of(store, table) if j != journal_id]
    finally:
        store.close()
    late = [r["seq"] for r in rows if r["conflict"]]
    if late:
        print(f"station journal verify: the ledger holds {len(late)} checkpoint(s) of this "
              f"journal that came at or below one it already had (entries "
              f"{', '.join(map(str, late[:10]))}{', …' if len(late) > 10 else ''}): the journal "
              "went back to an earlier state at some time", file=sys.stderr)
    return [LedgerCheckpoint(int(r["seq"]), bytes.fromhex(r["head"]), str(r["sig"]))
            for r in rows]


def run_verify(args: argparse.Namespace) -> int:
    path = Path(args.journal)
    try:
        conn = open_read_only(path)
        try:
            found = journal_key(path, args.key_env, getattr(args, "key_file", None))
            ledger = None
            unvouched = None
            if args.ledger:
                row = conn.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()
                header = conn.execute("SELECT value FROM meta WHERE key='header'").fetchone()
                table = json.loads(header[0]).get("table", "") if header else ""
                jid = row[0] if row else ""
                others: list[str] = []
                if not isinstance(jid, str):
                    unvouched = (f"the journal's id {jid!r} is not text, as the station writes "
                                 "it: the journal was rewritten")
                    jid = str(jid)
                # a journal from before journal ids books under the ledger's default table
                ledger = ledger_checkpoints(args.ledger, table if jid else "", jid, others)
                if not ledger and unvouched is None:
                    # the books are asked to vouch: a journal they never heard of is not the
                    # table's (a rewrite under a new id, or another table's ledger given)
                    unvouched = (f"the ledger holds no checkpoint of this journal ({table}, "
                                 f"journal {jid or 'without id'})" + (
                                     f"; it holds this table's journal(s) {', '.join(others)}"
                                     if others else "; it holds none of this table"))
            verdict = verify(conn, found.key, ledger)
            if unvouched is not None:
                verdict.bad(0, unvouched)
        finally:
            conn.close()
    except (Unreadable, chain.ChainKeyError) as e:
        print(f"station journal verify: {e}", file=sys.stderr)
        return 2
    notes = [f"checkpoints checked with the key from {found.source}", *verdict.notes]
    if verdict.head:
        notes.append(f"chain head verified: entry {verdict.head_seq}, {verdict.head.hex()}")
    for note in notes:
        print(f"station journal verify: {note}", file=sys.stderr)
    print(json.dumps(verdict.line()))
    return 0 if verdict.ok else 1
