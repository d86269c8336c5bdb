"""`station journal migrate JOURNAL [--ledger LEDGER] [--key-env NAME | --key-file PATH]`: chain
a journal written before the hash chain, once, with the table's key; and carry a table over
from a journal written before the table kernel, when the station refuses to start on it
(station/live/journal_migrate.py says when and how).

`station journal export JOURNAL OUT [--note TEXT]`: write every input the journal holds as one
TRACES.md trace (`.jsonl`, or `.jsonl.gz`), from the table's first input: what the table was
given, whole, across restarts, for `station replay` and for a dispute. The journal is only
read (a running station may keep writing it).

`station journal verify JOURNAL [--ledger URL] [--key-env NAME | --key-file PATH]`: walk the journal's hash chain and its signed
checkpoints (station/core/verify.py) and print one JSON line, `{"ok", "entries",
"checkpoints", "first_bad"}`; exit 0 when intact, 1 when not, 2 when the file (or the key,
or the ledger) cannot be read."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    m = sub.add_parser("migrate", help="chain a journal from before the chain, once; carry a "
                                       "pre-kernel journal over into a new journal")
    m.add_argument("journal", help="the table's journal.sqlite (under storage.dir)")
    m.add_argument("--ledger", help="the table's ledger: it must hold no checkpoint of a "
                                    "journal to be chained; a pre-kernel journal's settlement "
                                    "messages are delivered there first (the embedded ledger)")
    from station.commands.journal_verify import add_key_arguments

    add_key_arguments(m)

    v = sub.add_parser("verify", help="prove the journal is the one the table wrote")
    v.add_argument("journal", help="the table's journal.sqlite (or a copy of it)")
    v.add_argument("--ledger", help="the table's ledger (a file or a postgresql:// URL): its "
                                    "newest checkpoint of this journal is checked too")
    from station.commands.journal_verify import add_key_arguments

    add_key_arguments(v)

    e = sub.add_parser("export", help="write the journal's inputs as one trace")
    e.add_argument("journal", help="the table's journal.sqlite (under storage.dir)")
    e.add_argument("out", help="the trace to write (.jsonl or .jsonl.gz)")
    e.add_argument("--note", default="", help="the trace header's note")


def run(args: argparse.Namespace) -> int:
    if args.action == "export":
        return _export(args)
    if args.action == "verify":
        from station.commands.journal_verify import run_verify

        return run_verify(args)
    from station.commands.journal_verify import journal_key
    from station.core import chain
    from station.core.journal import JournalError
    from station.core.verify import Unreadable
    from station.live.journal_migrate import migrate

    why = ""
    try:
        key = journal_key(Path(args.journal), args.key_env, args.key_file).key
    except (Unreadable, chain.ChainKeyError) as e:
        key = None  # a journal with its chain already needs none; one without it says so
        why = str(e)
    try:
        done = migrate(args.journal, ledger=args.ledger, key=key)
    except JournalError as e:
        print(f"station journal migrate: {e}" + ("" if key else f" ({why})"), file=sys.stderr)
        return 1
    print(json.dumps({"archived": None if done.archived is None else str(done.archived),
                      "journal": str(done.journal), "chained": done.chained,
                      "delivered": done.delivered, "balances": done.balances}, indent=2))
    return 0


def _export(args: argparse.Namespace) -> int:
    from station.core.journal import JournalError, export_trace

    path, out = Path(args.journal), Path(args.out)
    # never over anything: not the journal, its -wal or -shm file, another table's journal,
    # a ledger or an earlier export
    beside = {Path(str(path) + s).resolve() for s in ("", "-wal", "-shm", "-journal")}
    if out.exists() or out.resolve() in beside:
        print(f"station journal export: {out} exists or belongs to the journal; the trace "
              "goes to a new file", file=sys.stderr)
        return 2
    try:
        lines = export_trace(path, out, note=args.note or f"exported from {path.name}")
    except JournalError as e:
        print(f"station journal export: {e}", file=sys.stderr)
        return 2
    except (OSError, sqlite3.Error) as e:
        print(f"station journal export: cannot write {out}: {e}", file=sys.stderr)
        return 2
    print(json.dumps({"journal": str(path), "trace": str(out), "lines": lines}))
    return 0
