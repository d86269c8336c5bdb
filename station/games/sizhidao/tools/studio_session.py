"""`station studio`: the session a studio Si Zhi Dao table is fed (station/studio/scripts.py):
the game's table simulator (station/games/sizhidao/sim.py) with its bots, playing as the
table's own players."""

from __future__ import annotations

import random

from station.games.sizhidao.sim import SimTable
from station.studio.scripts import Session


def session(rng: random.Random, table: str, games: int, names: list[str],
            cancel_every: int) -> Session:
    """`games` games at `table` by five players (the simulator's own count; `names` and
    `cancel_every` are the house-banked tables')."""
    sim = SimTable(rng.getrandbits(32), table=table, players=5)
    # the table's own players (the simulator's bots are named bot1…)
    sim.accounts = [f"{table}.{a}" for a in sim.accounts]
    sim.run(games)
    return Session(dict(sim.script.header), sim.script.lines, games)
