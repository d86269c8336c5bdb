"""`station journal verify JOURNAL [--ledger URL]`: one JSON line on standard output, what it
cannot say by itself (an unchained part, an unsigned tail) on standard error; exit 0 intact,
1 not, 2 unreadable (the journal, the key or the ledger)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from station.core import chain
from station.core.verify import LedgerCheckpoint, Unreadable, open_read_only, verify
from station.live.journal_key import KEY_FILE


def journal_key(journal: Path, key_env: str | None) -> bytes:
    """The table's signing key: from the named environment variable, else the default one,
    else the key file beside the journal. Unreadable when none is there."""
    name = key_env or chain.DEFAULT_KEY_ENV
    key = chain.key_from_env(name)
    if key is not None:
        return key
    if key_env is None:
        path = journal.parent / KEY_FILE
        if path.is_file():
            return chain.parse_key(path.read_bytes(), str(path))
    raise Unreadable(f"no signing key: set ${name} to the table's key (the one the station "
                     f"signs with, `[journal] signing_key_env`)")


def ledger_checkpoint(ledger: str, table: str, journal_id: str) -> LedgerCheckpoint | None:
    """The ledger's newest checkpoint for this journal, read only."""
    from station.settlement.checkpoints import newest
    from station.settlement.ledger import open_store
    from station.settlement.ledger.store import is_postgres_url

    if not is_postgres_url(ledger) and not Path(ledger).is_file():
        raise Unreadable(f"{ledger}: no such ledger")
    try:
        store = open_store(ledger, read_only=True)
    except Exception as e:  # noqa: BLE001 - any failure to open is "cannot read the ledger"
        raise Unreadable(f"cannot read the ledger {ledger}: {e}") from None
    try:
        row = newest(store, table, journal_id)
    finally:
        store.close()
    if row is None:
        return None
    return LedgerCheckpoint(int(row["seq"]), bytes.fromhex(row["head"]), str(row["sig"]))


def run_verify(args: argparse.Namespace) -> int:
    path = Path(args.journal)
    try:
        conn = open_read_only(path)
        try:
            key = journal_key(path, args.key_env)
            ledger = None
            if args.ledger:
                row = conn.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()
                header = conn.execute("SELECT value FROM meta WHERE key='header'").fetchone()
                table = json.loads(header[0]).get("table", "") if header else ""
                jid = row[0] if row else ""
                # a journal from before journal ids books under the ledger's default table
                ledger = ledger_checkpoint(args.ledger, table if jid else "", jid)
                if ledger is None:
                    print(f"station journal verify: the ledger holds no checkpoint of this "
                          f"journal ({table}, journal {jid or 'without id'})", file=sys.stderr)
            verdict = verify(conn, key, ledger)
        finally:
            conn.close()
    except (Unreadable, chain.ChainKeyError) as e:
        print(f"station journal verify: {e}", file=sys.stderr)
        return 2
    for note in verdict.notes:
        print(f"station journal verify: {note}", file=sys.stderr)
    print(json.dumps(verdict.line()))
    return 0 if verdict.ok else 1
