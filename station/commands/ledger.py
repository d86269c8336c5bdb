"""`station ledger check|balances`: the settlement books, for auditors and the floor supervisor.

`check` verifies the books from the raw postings (they sum to zero, every bet was deducted once
and settled or refunded at most once, exactly once when its round is over, balances equal the
postings) and lists every difference. Exit status 0 when clean, 1 with problems, 2 when the
ledger cannot be read. The ledger is opened read-only, so a check may run beside a live table
or a live studio. `--ledger` is a file path, ``sqlite:///PATH`` or ``postgresql://…``; the
environment variable STATION_LEDGER_URL is used when it is not given (a password need not be
on the command line).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    ledger_help = ("the ledger: a SQLite file path, sqlite:///PATH or postgresql://… "
                   "(default: $STATION_LEDGER_URL)")
    check = sub.add_parser("check", help="verify the books; exit 1 if anything is off")
    check.add_argument("--ledger", help=ledger_help)
    check.add_argument("--all-closed", action="store_true",
                       help="also count a bet still open (round not over) as a problem")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    bal = sub.add_parser("balances", help="print every wallet's balance as JSON")
    bal.add_argument("--ledger", help=ledger_help)


def run(args: argparse.Namespace) -> int:
    from station.settlement.ledger import (
        LedgerError,
        check_books,
        is_postgres_url,
        open_store,
        redact,
        sqlite_path,
    )

    ledger = args.ledger or os.environ.get("STATION_LEDGER_URL")
    if not ledger:
        print("station ledger: give --ledger or set STATION_LEDGER_URL", file=sys.stderr)
        return 2
    shown = redact(ledger) if is_postgres_url(ledger) else ledger
    try:
        path = sqlite_path(ledger)
    except LedgerError as exc:
        print(f"station ledger: {exc}", file=sys.stderr)
        return 2
    if path is not None and not path.is_file():
        print(f"station ledger: no ledger file at {path}", file=sys.stderr)
        return 2
    unavailable: tuple[type[BaseException], ...] = (sqlite3.Error,)
    if path is None:
        import psycopg
        unavailable += (psycopg.Error,)
    try:
        store = open_store(ledger, read_only=True, pool_size=1)
    except (LedgerError, *unavailable) as exc:
        print(f"station ledger: cannot read {shown}: {exc}", file=sys.stderr)
        return 2
    try:
        if args.action == "balances":
            with store.transaction(read_only=True) as tx:
                rows = tx.execute("SELECT name, balance FROM accounts WHERE kind = 'wallet'"
                                  " ORDER BY name")
            print(json.dumps({name: int(balance) for name, balance in rows}, indent=1))
            return 0
        report = check_books(store, require_closed=args.all_closed)
    except (LedgerError, *unavailable) as exc:
        print(f"station ledger: cannot read {shown}: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    if args.json:
        print(json.dumps(report.as_dict(), indent=1))
    else:
        figures = ", ".join(f"{k} {v}" for k, v in report.figures.items())
        print(f"ledger {shown}: {'clean' if report.ok else 'PROBLEMS'} ({figures})")
        for problem in report.problems:
            print(f"  - {problem}")
    return 0 if report.ok else 1
