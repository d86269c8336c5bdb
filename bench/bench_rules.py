"""Speed of the rules of every game of the station, each figure beside a baseline measured in
the same run on the same machine.

    ./run.sh bench rules            # full run
    ./run.sh bench rules --quick    # fewer hands, for a smoke run

The games are found in the registry (station.games.GAMES); each game that declares a rules
benchmark (its `rules_bench` tool, station/games/tools.py) prints its own figures: what its
rules spend their time on and what the obvious way of doing it costs. A game that declares
none is named as such, so a game is never left out silently.
"""

from __future__ import annotations

from station.games import GAMES, get_game
from station.games.tools import game_tool


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    for name in GAMES:
        run = game_tool(name, "rules_bench")
        if run is None:
            print(f"{get_game(name).title or name}: no rules benchmark declared\n")
            continue
        run(quick)
        print()
    return 0
