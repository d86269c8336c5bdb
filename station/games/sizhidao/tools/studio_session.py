"""`station studio`: the session a studio Si Zhi Dao table is fed (station/studio/scripts.py):
the game's table simulator (station/games/sizhidao/sim.py) with its bots, playing as the
table's players."""

from __future__ import annotations

import random

from station.games.sizhidao.sim import SimTable
from station.studio.scripts import Session

#: a player's wallet as the simulator sees it when the wallets are the studio's: large, so its
#: bots bet amounts of their own and go all in only when the betting outgrows it (an all-in
#: takes the whole wallet, which the studio ledger, not the session, knows)
SHARED_WALLET = 20_000


def session(rng: random.Random, table: str, games: int, names: list[str],
            cancel_every: int, *, shared_wallets: bool = False) -> Session:
    """`games` games at `table` by five players, the first of `names` (`cancel_every` is the
    house-banked tables'). `shared_wallets`: the players' wallets are the studio ledger's
    (a table with `reserve`), so the session sets none."""
    sim = SimTable(rng.getrandbits(32), table=table, players=5, wallet=SHARED_WALLET,
                   short_stacks=not shared_wallets)
    # the table's own players (the simulator's bots are named bot1…), one per account it has
    if len(names) < len(sim.accounts):
        raise ValueError(f"a Si Zhi Dao session needs {len(sim.accounts)} players' names")
    sim.accounts = list(names[:len(sim.accounts)])
    sim.run(games)
    lines = sim.script.lines
    if shared_wallets:
        lines = [line for line in lines if "wallet" not in line]
    return Session(dict(sim.script.header), lines, games)
