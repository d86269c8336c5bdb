"""What a studio table's station receives, written out in advance for each game.

A simulated studio table is a real station (station/studio/tables.py): its table core reads
the same inputs as at a real table — the shoe's DS frames with their heartbeats, the camera's
zone observations, the dealer's and supervisor's actions, wallets, bets and players' actions.
Each game writes those inputs as trace lines, for one table's session of it, with its
`studio_session` tool (station/games/tools.py, a module of the game's own `tools/`); this
module finds it by the game's name, gives it the table's own players (`<table>.u01`…) and
its random numbers, and keeps what the games' sessions share: the `Session` they return, the
betting window, the wallets and the bets of a table whose players bet against the house
(the table core decides each bet against its balances). Some rounds end in a fault the
supervisor answers by cancelling the round: which, each game's session says.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from station.sim.script import TraceScript

#: a studio table's betting window (table time): shorter than a floor table's, so a simulated
#: round is mostly dealing
BETTING_SECONDS = 8


@dataclass
class Session:
    """A table's session: its trace header and its input lines (trace format, TRACES.md)."""

    header: dict[str, Any]
    lines: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0

    @property
    def table_seconds(self) -> float:
        return float(self.lines[-1]["t"]) if self.lines else 0.0


def build_session(game: str, table: str, *, seed: int, rounds: int, accounts: int = 8,
                  cancel_every: int = 7, players: str | None = None,
                  shared_wallets: bool = False) -> Session:
    """A session of `rounds` rounds (a pot game: games) of `game` at `table`, written by the
    game's `studio_session` tool (station/games/tools.py). Its players are `<players>.u01`…
    (`players` defaults to the table's name: players of its own; tables given the same
    `players` seat the same accounts). `shared_wallets`: the wallets are the studio ledger's
    (a table that reserves), so the session sets none."""
    from station.games.tools import game_tool, games_with

    write = game_tool(game, "studio_session")
    if write is None:
        raise ValueError(f"no studio session for the game {game!r} (games with one: "
                         f"{', '.join(games_with('studio_session'))})")
    rng = random.Random(f"{table}:{game}:{seed}")
    names = player_names(players or table, accounts)
    return write(rng, table, rounds, names, cancel_every, shared_wallets=shared_wallets)


def player_names(players: str, accounts: int = 8) -> list[str]:
    """The accounts of a studio table's players: `<players>.u01`…"""
    return [f"{players}.u{i + 1:02d}" for i in range(accounts)]


def wallets(s: TraceScript, rng: random.Random, names: Sequence[str]) -> None:
    """Each of the table's players' wallet, set before its first round."""
    for a in names:
        s.wallet(a, rng.choice([2_000, 5_000, 20_000]))


def bets(s: TraceScript, rng: random.Random, names: Sequence[str], spots: Sequence[str]) -> None:
    """A round's bets, while betting is open: 3 to 12, each by a player on a spot of the
    game's, whether or not the player can afford it (the table decides)."""
    for _ in range(rng.randint(3, 12)):
        s.bet(rng.choice(names), rng.choice(spots), rng.choice([10, 20, 50, 100, 500, 1000]))
        s.wait(round(rng.uniform(0.05, 0.4), 3))
