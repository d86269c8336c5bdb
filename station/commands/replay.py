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
    matched = _against_chain(args.trace, records)
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    try:
        for r in records:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    finally:
        if args.out:
            out.close()
    return 1 if problem or matched is False else 0


def _against_chain(trace: str, records: list[dict]) -> bool | None:
    """An exported trace names the journal's chain head it ends at and the digest of the
    records the journal holds through it: say whether this replay made exactly those (None:
    the trace names no chain)."""
    from firmware_bridge.tracefile import open_text
    from station.core.journal import record_text, records_digest

    with open_text(trace) as f:
        first = json.loads(f.readline() or "{}")
    end = first.get("chain") if isinstance(first, dict) else None
    if not isinstance(end, dict):
        return None
    made = records[:-1] if records and records[-1].get("type") == "balances" else records
    n, digest = records_digest(record_text(r) for r in made)
    where = (f"entry {end.get('seq')} of journal {end.get('journal_id')}, chain head "
             f"{end.get('head')}")
    # what is checked is the trace against its own header, which whoever wrote the trace
    # wrote too: the head is printed whole so it can be held against `journal verify`'s
    if n == end.get("records") and digest == end.get("records_sha256"):
        print(f"station replay: the trace replays to exactly the records its own header says "
              f"the journal held ({n}, through {where}); that this is the journal's real chain "
              "head is shown only by comparing it with the head `station journal verify` "
              "prints for the journal", file=sys.stderr)
        return True
    print(f"station replay: the trace does NOT replay to the records its own header names "
          f"({where}): replay made {n} records, the header says {end.get('records')} (or "
          "other ones)", file=sys.stderr)
    return False
