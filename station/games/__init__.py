"""Games are packages: each gives the table kernel its rules (`Game`) and its procedure
(`Procedure`), per the contract in station/games/base.py.

The registry is lazy, by name, as python-can finds its interfaces: `BUILT_IN` says where each
of the station's games is ("module:Class"), and a game installed separately declares itself
in the `dealer_station.games` entry-point group. Nothing is imported until a game is asked
for, and then only its rules (the procedure is imported when a table needs it), so
settlement and the rules tools never load the kernel's procedures. A game is validated when
it is first loaded or registered (station/games/validate.py): a game that misses a piece of
the contract is refused with an error naming the game and the piece.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator, MutableMapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

_log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from station.games.base import Game

#: the station's own games: name -> "module:Class" of its rules
BUILT_IN: dict[str, str] = {
    "pokdeng": "station.games.pokdeng.rules:PokDeng",
    "paigow": "station.games.paigow.rules:PaiGow",
    "sizhidao": "station.games.sizhidao.rules:SiZhiDao",
}

#: the game of a table that names none (a bare `TableSettings()`, a config without
#: `[table] game`, a tool's `--game` left out)
DEFAULT_GAME: str = "pokdeng"

#: where games installed separately declare themselves: `name = "package.module:Class"`
ENTRY_POINT_GROUP = "dealer_station.games"


class GameError(ValueError):
    """A game that cannot be loaded or does not keep the contract."""


def load_declared(game: str, what: str, spec: str, error: type[ValueError] = GameError) -> Any:
    """What a game declares by name, `"module:NAME"` (its procedure, a tool, its panel, its
    camera layout), imported now; `error` naming the game and the piece when it cannot be."""
    module, _, attr = spec.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise error(f"game {game!r}: its {what} {spec} cannot be loaded "
                    f"({type(e).__name__}: {e})") from e


def _load(name: str, spec: str) -> type[Game]:
    module, _, attr = spec.partition(":")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as e:
        raise GameError(f"game {name!r}: cannot load {spec} ({type(e).__name__}: {e})") from e
    from station.games.validate import validate_game

    validate_game(name, cls)
    return cls


class GameRegistry(MutableMapping[str, "type[Game]"]):
    """Name -> the game's rules class, each loaded and validated on first use."""

    def __init__(self) -> None:
        self._specs: dict[str, str] = {}
        self._loaded: dict[str, type[Game]] = {}
        self._found = False
        #: names registered directly (`GAMES[name] = cls`), kept across a rescan
        self._direct: set[str] = set()

    def _find(self) -> None:
        if self._found:
            return
        self._found = True
        for name, spec in BUILT_IN.items():
            self._specs.setdefault(name, spec)
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name in BUILT_IN and ep.value != BUILT_IN[ep.name]:
                # an installed package never replaces a game of the station's own: a table
                # of that name keeps the rules the station was certified with
                _log.warning("installed game %r (%s) ignored: the station has a game of that "
                             "name (%s)", ep.name, ep.value, BUILT_IN[ep.name])
                continue
            self._specs.setdefault(ep.name, ep.value)

    def rescan(self) -> None:
        """Look for installed games again at the next lookup (a package installed or removed
        while the station runs); the built-in games and those registered directly stay."""
        self._specs = {n: s for n, s in self._specs.items() if n in self._direct}
        self._loaded = {n: c for n, c in self._loaded.items() if n in self._direct}
        self._found = False

    def __getitem__(self, name: str) -> type[Game]:
        if name in self._loaded:
            return self._loaded[name]
        self._find()
        spec = self._specs[name]  # KeyError: no such game
        cls = _load(name, spec)
        self._loaded[name] = cls
        return cls

    def __setitem__(self, name: str, game: type[Game]) -> None:
        """Register a game class directly (validated now)."""
        from station.games.validate import validate_game

        validate_game(name, game)
        self._find()
        self._specs[name] = f"{game.__module__}:{game.__qualname__}"
        self._loaded[name] = game
        self._direct.add(name)

    def __delitem__(self, name: str) -> None:
        self._find()
        self._direct.discard(name)
        del self._specs[name]
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        self._find()
        return iter(sorted(self._specs))

    def __len__(self) -> int:
        self._find()
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        self._find()
        return name in self._specs


GAMES = GameRegistry()


def get_game(name: str) -> Game:
    try:
        cls = GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r} (known: {', '.join(sorted(GAMES))})") from None
    return cls()


def default_game() -> str:
    """The game a table or tool plays when it is given none (`DEFAULT_GAME`)."""
    return DEFAULT_GAME
