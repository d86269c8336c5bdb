"""`station dispute ROUND_ID (--data DIR | --config TABLE.toml) [--frames DIR] [--ledger URL]
--out FILE.zip`: one round's evidence pack (station/dispute/): `evidence.json`, `index.html`
and the round's frames, in a zip that opens offline. With `--config` the pack follows the
table's configuration: its storage.dir, its `[camera] frames_dir`, its ledger and its key.
Standard error says which key checked the chain and where the frames and postings came from.
Exit 0 written, 1 written but the proof fails (the pack says where), 2 nothing written (no
such round, unreadable journal or configuration, no key)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    from station.commands.journal_verify import add_key_arguments

    p.add_argument("round_id", help="the round (a pot game: the game id), e.g. PD-01-S3-R41")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--data", help="the table's storage.dir (journal.sqlite, frames/, "
                                      "console_audit.sqlite)")
    where.add_argument("--config", help="the table's configuration: its storage.dir, its "
                                        "[camera] frames_dir, its ledger and its journal key")
    p.add_argument("--frames", help="the folder the camera kept its frames in (default: the "
                                    "config's [camera] frames_dir, else DIR/frames)")
    p.add_argument("--ledger", help="the ledger (a file or a postgresql:// URL): postings and "
                                    "its newest checkpoint (default: the config's, else "
                                    "DIR/ledger.sqlite if there)")
    p.add_argument("--out", required=True, help="the zip to write (a new file)")
    add_key_arguments(p)


def _sources(args: argparse.Namespace) -> tuple[Path, Path, str | None, str | None, str | None]:
    """storage.dir, the frames folder, the ledger, the key's variable and the key file: as
    given, else as the table's configuration says."""
    if args.config:
        from station.live.config import load_config

        cfg = load_config(args.config)
        data, frames, ledger = cfg.data_dir, cfg.frames_path, cfg.evidence_ledger
        key_env = args.key_env or (None if args.key_file else cfg.signing_key_env)
        key_file = args.key_file or (None if args.key_env or cfg.signing_key_file is None
                                     else str(cfg.signing_key_file))
    else:
        data = Path(args.data)
        frames, key_env, key_file = data / "frames", args.key_env, args.key_file
        ledger = str(data / "ledger.sqlite") if (data / "ledger.sqlite").is_file() else None
    return (data, Path(args.frames) if args.frames else frames, args.ledger or ledger,
            key_env, key_file)


def run(args: argparse.Namespace) -> int:
    from station.commands.journal_verify import journal_key
    from station.core.chain import ChainKeyError
    from station.core.verify import Unreadable
    from station.dispute.gather import DisputeError
    from station.dispute.pack import write_pack
    from station.live.config import ConfigError
    from station.settlement.ledger.store import redact

    out = Path(args.out)
    if out.exists():
        print(f"station dispute: {out} exists; the pack goes to a new file", file=sys.stderr)
        return 2
    try:
        data, frames, ledger, key_env, key_file = _sources(args)
        key = journal_key(data / "journal.sqlite", key_env, key_file)
        with open(out, "xb") as f:
            try:
                evidence = write_pack(data / "journal.sqlite", args.round_id, key.key, ledger, f,
                                      frames_dir=frames,
                                      audit_path=data / "console_audit.sqlite",
                                      key_source=key.source)
            except BaseException:
                f.close()
                out.unlink()
                raise
    except (DisputeError, Unreadable, ChainKeyError, ConfigError, ValueError) as e:
        print(f"station dispute: {e}", file=sys.stderr)
        return 2
    print(f"station dispute: the chain checked with the key from {key.source}; frames from "
          f"{frames}; postings from {'the ledger ' + redact(ledger) if ledger else 'no ledger'}",
          file=sys.stderr)
    proof = evidence["proof"]
    print(json.dumps({"out": str(out), "round_id": args.round_id, "entries": evidence["entries"],
                      "frames": len(evidence["frames"]), "chain_ok": proof["chain"]["through_round"],
                      "replay_equal": proof["replay_equal"],
                      "ledger_agrees": proof["ledger_agrees"]}))
    for b in evidence["bets"]:
        if b.get("ledger_disagrees"):
            print(f"station dispute: {b['kind']} {b['key']}: {b['ledger_disagrees']}",
                  file=sys.stderr)
    intact = (proof["chain"]["through_round"] and proof["replay_equal"]
              and proof["ledger_agrees"] is not False)
    return 0 if intact else 1
