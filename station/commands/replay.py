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


def run(args: argparse.Namespace) -> int:
    from station.core.replay import replay_records

    try:
        records = replay_records(args.trace)
    except (TraceError, SettingsError, ValueError) as e:
        print(f"station replay: {args.trace}: {e}", file=sys.stderr)
        print("station replay: nothing was settled", file=sys.stderr)
        return 2
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    try:
        for r in records:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    finally:
        if args.out:
            out.close()
    return 0
