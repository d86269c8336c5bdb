"""`station ledger check|balances`: the settlement books, for auditors and the floor supervisor.

`check` verifies the books from the raw postings (they sum to zero, every bet was deducted once
and settled or refunded at most once, exactly once when its round is over, balances equal the
postings) and lists every difference. Exit status 0 when clean, 1 with problems, 2 when the
ledger cannot be read. The ledger is opened read-only, so a check may run beside a live table.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = sub.add_parser("check", help="verify the books; exit 1 if anything is off")
    check.add_argument("--ledger", required=True, help="the ledger SQLite file")
    check.add_argument("--all-closed", action="store_true",
                       help="also count a bet still open (round not over) as a problem")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    bal = sub.add_parser("balances", help="print every wallet's balance as JSON")
    bal.add_argument("--ledger", required=True)


def run(args: argparse.Namespace) -> int:
    from station.settlement.ledger import LedgerError, check_books, connect

    path = Path(args.ledger)
    if not path.is_file():
        print(f"station ledger: no ledger file at {path}", file=sys.stderr)
        return 2
    try:
        conn = connect(path, read_only=True)
        if args.action == "balances":
            rows = conn.execute("SELECT name, balance FROM accounts WHERE kind='wallet' ORDER BY name")
            print(json.dumps(dict(rows), indent=1))
            return 0
        report = check_books(conn, require_closed=args.all_closed)
    except (sqlite3.Error, LedgerError) as exc:
        print(f"station ledger: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.as_dict(), indent=1))
    else:
        figures = ", ".join(f"{k} {v}" for k, v in report.figures.items())
        print(f"ledger {path}: {'clean' if report.ok else 'PROBLEMS'} ({figures})")
        for problem in report.problems:
            print(f"  - {problem}")
    return 0 if report.ok else 1
