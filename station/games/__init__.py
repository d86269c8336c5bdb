"""Games are modules: each gives the table core its deal plan, its evaluation and its
settlement arithmetic. Pok Deng is the first; Wenzhou Pai Gow and Si Zhi Dao plug in here."""

from __future__ import annotations

from station.games.base import Game
from station.games.pokdeng import PokDeng

GAMES: dict[str, type[Game]] = {"pokdeng": PokDeng}


def get_game(name: str) -> Game:
    try:
        return GAMES[name]()
    except KeyError:
        raise ValueError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None
