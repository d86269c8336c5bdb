"""`station` — one command line for the whole station.

Each subcommand lives in its own module under `station/commands/` and registers itself with
`add_parser(subparsers)`; its module is imported only when used, so `station replay` on a
bare machine does not load OpenCV, and a missing optional part fails only its own command.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "settle": ("station.commands.settle", "settle rounds read as JSON Lines (rules only)"),
    "rtp": ("station.commands.rtp", "exact return to player of a game's bets"),
    "replay": ("station.commands.replay", "replay a recorded trace through the table core"),
    "shoe": ("station.commands.shoe", "talk to a card shoe: `station shoe listen URL`"),
    "sim-shoe": ("station.commands.sim_shoe", "run the shoe simulator on a pty or TCP port"),
    "camera": ("station.commands.camera", "overhead camera: snapshot, read stills"),
    "ledger": ("station.commands.ledger", "settlement ledger: check the books"),
    "journal": ("station.commands.journal", "a table's journal: migrate one from before the kernel"),
    "settlement": ("station.commands.settlement", "run the settlement service"),
    "run": ("station.commands.run", "run the station at a table from a config file"),
    "doctor": ("station.commands.doctor", "check a table before its first shoe: shoe, cameras, disk, clock, settlement"),
    "demo": ("station.commands.demo", "a whole simulated studio table on this machine"),
    "diagram": ("station.commands.diagram", "print the table procedure as a mermaid diagram"),
    "studio": ("station.commands.studio", "a simulated studio: many tables, one settlement on PostgreSQL and NATS"),
    "soak": ("station.commands.soak", "thousands of rounds end to end with faults, at accelerated time"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="station", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_)
            continue
        mod = importlib.import_module(module)
        p = sub.add_parser(name, help=help_, description=help_)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    only = argv[0] if argv and argv[0] in COMMANDS else None
    if only is None:
        # help or an unknown command: describe all without importing any of them
        parser = argparse.ArgumentParser(prog="station", description=__doc__.splitlines()[0])
        sub = parser.add_subparsers(dest="command", metavar="COMMAND")
        for name, (_, help_) in COMMANDS.items():
            sub.add_parser(name, help=help_)
        parser.parse_args(argv or ["--help"])
        return 2
    args = build_parser(only).parse_args(argv)
    # what the station writes (journal, traces, ledger, users, audit log, frames) is for the
    # station's user only: docs/operator.md, "Files at rest"
    os.umask(0o077)
    return int(args._run(args) or 0)
