"""`station dispute ROUND_ID --data DIR [--ledger URL] --out FILE.zip`: one round's evidence
pack (station/dispute/): `evidence.json`, `index.html` and the round's frames, in a zip that
opens offline. Exit 0 written, 1 written but the proof fails (the pack says where), 2 nothing
written (no such round, unreadable journal, no key)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("round_id", help="the round (a pot game: the game id), e.g. PD-01-S3-R41")
    p.add_argument("--data", required=True, help="the table's storage.dir (journal.sqlite, "
                                                 "frames/, console_audit.sqlite)")
    p.add_argument("--ledger", help="the ledger (a file or a postgresql:// URL): postings and "
                                    "its newest checkpoint (default: DIR/ledger.sqlite if there)")
    p.add_argument("--out", required=True, help="the zip to write (a new file)")
    p.add_argument("--key-env", default=None, metavar="NAME",
                   help="the variable holding the table's signing key (as `journal verify`)")


def run(args: argparse.Namespace) -> int:
    from station.commands.journal_verify import journal_key
    from station.core.verify import Unreadable
    from station.dispute.gather import DisputeError
    from station.dispute.pack import write_pack

    data, out = Path(args.data), Path(args.out)
    if out.exists():
        print(f"station dispute: {out} exists; the pack goes to a new file", file=sys.stderr)
        return 2
    try:
        key = journal_key(data / "journal.sqlite", args.key_env)
        ledger = args.ledger or (str(data / "ledger.sqlite")
                                 if (data / "ledger.sqlite").is_file() else None)
        with open(out, "xb") as f:
            try:
                evidence = write_pack(data / "journal.sqlite", args.round_id, key, ledger, f,
                                      frames_dir=data / "frames",
                                      audit_path=data / "console_audit.sqlite")
            except BaseException:
                f.close()
                out.unlink()
                raise
    except (DisputeError, Unreadable, ValueError) as e:
        print(f"station dispute: {e}", file=sys.stderr)
        return 2
    proof = evidence["proof"]
    print(json.dumps({"out": str(out), "round_id": args.round_id, "entries": evidence["entries"],
                      "frames": len(evidence["frames"]), "chain_ok": proof["chain"]["through_round"],
                      "replay_equal": proof["replay_equal"]}))
    return 0 if proof["chain"]["through_round"] and proof["replay_equal"] else 1
