"""`station soak`: thousands of rounds end to end at accelerated time, with injected faults.

Each game's soak is its `soak` tool (station/games/tools.py): the game names it."""

from __future__ import annotations

import argparse

from station.core.settings import DEFAULT_GAME
from station.games.tools import game_tool, games_with


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=games_with("soak"), default=DEFAULT_GAME,
                   help="the table's game (default %(default)s; at a pot game --rounds counts "
                        "its games)")
    p.add_argument("--rounds", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default="docs/soak", help="where the report and plots go")
    p.add_argument("--work", default=None, help="where the journal and ledger go (default: temp)")
    p.add_argument("--sync", choices=("full", "normal"), default="normal",
                   help="journal sync for the soak (default normal: the soak measures the core)")
    p.add_argument("--crash", type=float, default=0.003, help="chance per round of a crash")


def run(args: argparse.Namespace) -> int:
    soak = game_tool(args.game, "soak")
    assert soak is not None  # the parser offers only the games that have it
    return soak(args)
