"""`station replay TRACE [--out FILE]`: run a recorded trace through the table core."""

from __future__ import annotations

import argparse
import json
import sys

from station.core.inputs import TraceError
from station.core.settings import SettingsError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trace", help="trace file (.jsonl or .jsonl.gz)")
    p.add_argument("--out", help="write the output records here (default: standard output)")
    p.add_argument("--ledger", help="settle into this ledger file (default: a temporary one); "
                                    "the final balances are checked against it")
    p.add_argument("--no-settle", action="store_true",
                   help="do not run the settlement core (rules and procedure only)")


def run(args: argparse.Namespace) -> int:
    from station.settlement.replay import replay_settled

    try:
        records, problem = replay_settled(args.trace, ledger=args.ledger, settle=not args.no_settle)
    except (TraceError, SettingsError, ValueError) as e:
        print(f"station replay: {args.trace}: {e}", file=sys.stderr)
        print("station replay: nothing was settled", file=sys.stderr)
        return 2
    if problem:
        print(f"station replay: settlement disagrees with the table core: {problem}",
              file=sys.stderr)
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    try:
        for r in records:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    finally:
        if args.out:
            out.close()
    return 1 if problem else 0
