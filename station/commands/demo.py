"""`station demo`: a whole simulated studio table on this machine (the README's main command).

Each game's demo is its `demo` tool (station/games/tools.py): the game names it."""

from __future__ import annotations

import argparse

from station.core.settings import DEFAULT_GAME
from station.games.tools import game_tool, games_with


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=games_with("demo"), default=DEFAULT_GAME,
                   help="the table's game (default %(default)s; at a pot game --rounds counts "
                        "its games)")
    p.add_argument("--speed", type=float, default=1.0, help="dealer pace (2 = twice as fast)")
    p.add_argument("--rounds", type=int, help="stop after this many rounds settled (a cancelled "
                                              "round is dealt again; default: run on)")
    p.add_argument("--shoes", type=int, help="stop after this many shoes")
    p.add_argument("--no-camera", action="store_true", help="degraded mode: no camera")
    p.add_argument("--betting-seconds", type=float, default=None,
                   help="seconds the betting stays open (default 15; not for a pot game, "
                        "whose players bet in turns)")
    p.add_argument("--decide-after", type=float, default=20.0,
                   help="seconds a paused table waits for you at the console before the "
                        "simulated floor supervisor decides")
    p.add_argument("--faults", default="",
                   help="comma list of: noise, unplug and the dealer's mistakes at the "
                        "game's table: misplace, early_turn (cards dealt face down), misprint, "
                        "mistype_dice (dice entered by the dealer)")
    p.add_argument("--fault-rate", type=float, default=0.15,
                   help="chance per round of each dealer mistake named in --faults (noise: a "
                        "fifth of it is the share of spoiled frames; unplug: every 13/rate cards)")
    p.add_argument("--bettors", type=int, default=6)
    p.add_argument("--port", type=int, default=8600, help="console port (bet API: port + 1)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--data", default=None, help="where the journal, ledger and traces go "
                                                "(default: var/demo-<time>)")
    p.add_argument("--password", default=None, help="console password (default: random, printed)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--clock", choices=("wall", "virtual"), default="wall",
                   help="the table's time line (default wall: real time, for a person "
                        "watching). virtual: one clock for the station, the dealer, the players "
                        "and the simulated camera, which runs at most at real speed and stands "
                        "while work is in flight (a frame not yet recognised, an input not yet "
                        "applied, a dealer or player mid-step), so a loaded machine runs the demo "
                        "slower, never differently (the tests run it so)")


def run(args: argparse.Namespace) -> int:
    demo = game_tool(args.game, "demo")  # the game names its demo
    assert demo is not None  # the parser offers only the games that have one
    return demo(args)
