"""`station rtp GAME`: the exact return to player of each bet of a game, and on which base.

Each game that has the figures prints them itself: its `rtp` tool (station/games/tools.py),
in its own package.
"""

from __future__ import annotations

import argparse

from station.games.tools import game_tool, games_with


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=games_with("rtp"), help="the game")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--decks",
        type=int,
        default=None,
        help="a game dealt from a shoe of whole decks: decks in the shoe (default: the "
             "table's shoe); other values for comparison",
    )


def run(args: argparse.Namespace) -> int:
    rtp = game_tool(args.game, "rtp")
    assert rtp is not None  # the parser offers only the games that have it
    return rtp(args)
