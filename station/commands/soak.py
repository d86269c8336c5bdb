"""`station soak`: thousands of rounds end to end at accelerated time, with injected faults."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=("pokdeng", "paigow", "sizhidao"), default="pokdeng",
                   help="the table's game (default: pokdeng; sizhidao: --rounds counts games)")
    p.add_argument("--rounds", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="docs/soak", help="where the report and plots go")
    p.add_argument("--work", default=None, help="where the journal and ledger go (default: temp)")
    p.add_argument("--sync", choices=("full", "normal"), default="normal",
                   help="journal sync for the soak (default normal: the soak measures the core)")
    p.add_argument("--crash", type=float, default=0.003, help="chance per round of a crash")


def run(args: argparse.Namespace) -> int:
    if args.game == "sizhidao":  # a pot game: its own session of seats, bots and tie rounds
        from station.sim.sizhidao_soak import run_soak

        return run_soak(args)
    from station.sim.soak import Soak, SoakOptions, write_report

    opts = SoakOptions(rounds=args.rounds, seed=args.seed, journal_sync=args.sync,
                       crash=args.crash, sample_every=max(1, args.rounds // 200), game=args.game)
    command = "./run.sh station soak " + " ".join(shlex.quote(a) for a in sys.argv[2:])
    with tempfile.TemporaryDirectory(prefix="station-soak-") as tmp:
        soak = Soak(opts, Path(args.work or tmp))
        rep = soak.run()
        files = write_report(rep, opts, Path(args.out), soak.latencies, command.strip())
    print(json.dumps({k: v for k, v in rep.as_dict().items() if k not in ("memory", "restart_seconds")},
                     indent=2, default=str))
    print("report: " + ", ".join(str(f) for f in files))
    ok = rep.exactly_once and rep.ledger_ok and rep.balances_match
    return 0 if ok else 1
