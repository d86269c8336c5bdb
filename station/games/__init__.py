"""Games are packages: each gives the table kernel its rules (`Game`) and its procedure
(`Procedure`), per the contract in station/games/base.py. Registered by name here."""

from __future__ import annotations

from station.games.base import Game
from station.games.paigow.rules import PaiGow
from station.games.pokdeng import PokDeng
from station.games.sizhidao import SiZhiDao

GAMES: dict[str, type[Game]] = {"pokdeng": PokDeng, "paigow": PaiGow, "sizhidao": SiZhiDao}


def register(game: type[Game]) -> type[Game]:
    """Add a game (its `name` is the key); returns it, so it can decorate the class."""
    GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    try:
        return GAMES[name]()
    except KeyError:
        raise ValueError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None
