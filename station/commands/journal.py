"""`station journal migrate JOURNAL [--ledger LEDGER]`: carry a table over from a journal
written before the table kernel, when the station refuses to start on it
(station/live/journal_migrate.py says when and how)."""

from __future__ import annotations

import argparse
import json
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    m = sub.add_parser("migrate", help="carry a pre-kernel journal over into a new journal")
    m.add_argument("journal", help="the table's journal.sqlite (under storage.dir)")
    m.add_argument("--ledger", help="the embedded ledger: settlement messages still in the "
                                    "journal's outbox are delivered there first")


def run(args: argparse.Namespace) -> int:
    from station.core.journal import JournalError
    from station.live.journal_migrate import migrate

    try:
        done = migrate(args.journal, ledger=args.ledger)
    except JournalError as e:
        print(f"station journal migrate: {e}", file=sys.stderr)
        return 1
    print(json.dumps({"archived": str(done.archived), "journal": str(done.journal),
                      "delivered": done.delivered, "balances": done.balances}, indent=2))
    return 0
