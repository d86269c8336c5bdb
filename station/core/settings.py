"""Table settings: what every table has (the procedure's shared timings and limits,
PROCEDURE.md; defaults there), and the one reader every game's own settings go through.

A game's own settings are a frozen dataclass of its package (`Game.settings_class`), read
from a table config's `[game]` section. A trace or journal header names the table's and the
game's settings side by side in one flat `settings` object (TRACES.md §1), so a header
recorded before the games held their own settings reads the same."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any

# the game of a table that names none is registry data, beside the games themselves
from station.games import DEFAULT_GAME, GAMES

__all__ = ["DEFAULT_GAME", "NoSettings", "SettingsError", "TableSettings", "default_table",
           "game_settings_class", "read_settings"]


class SettingsError(ValueError):
    pass


@dataclass(frozen=True)
class NoSettings:
    """The settings of a game that has none of its own."""


@dataclass(frozen=True)
class TableSettings:
    #: the table's name; left empty, the first table of its game (`default_table`)
    table: str = ""
    game: str = DEFAULT_GAME
    camera: bool = True
    #: the betting countdown after open_betting
    betting_seconds: float = 15.0
    #: camera and shoe may disagree on the number of dealt cards this long
    placement_timeout_seconds: float = 5.0
    #: a position must be confirmed by the camera this long after all cards are out
    reveal_timeout_seconds: float = 60.0
    #: no camera observation for this long while a round is open
    camera_lost_seconds: float = 3.0
    #: no valid frame from the shoe for this long
    link_lost_seconds: float = 3.0
    #: smallest and largest single bet, minor units (0 = no upper limit)
    min_bet: int = 1
    max_bet: int = 0
    #: A live overhead camera reports a zone late when the dealer's hand covered it. Off (the
    #: spec's letter): zones that are no prefix of the deal plan are an `order` fault at once,
    #: and `placement_timeout` counts from when the numbers started to differ. On: a camera
    #: merely behind the shoe (no zone holds more than the shoe's reads put there) is no
    #: order fault, and the placement clock starts no earlier than the read of the oldest card
    #: the camera has not yet shown. Traces record the setting they ran with.
    camera_lag_tolerant: bool = False
    #: the game's own settings, an instance of its `Game.settings_class` (None: its defaults)
    game_settings: Any = None

    def __post_init__(self) -> None:
        if not self.table:
            object.__setattr__(self, "table", default_table(self.game))

    @property
    def own(self) -> Any:
        """The game's own settings: those given, or the defaults of the game's class."""
        if self.game_settings is not None:
            return self.game_settings
        return game_settings_class(self.game)()

    def value(self, name: str) -> Any:
        """A setting by name, the table's or the game's."""
        if name in TABLE_SETTING_NAMES:
            return getattr(self, name)
        return getattr(self.own, name)

    def values(self) -> dict[str, Any]:
        """Every setting by name, the table's and the game's (fault words are filled from it)."""
        own = self.own
        return {**{n: getattr(self, n) for n in TABLE_SETTING_NAMES},
                **{f.name: getattr(own, f.name) for f in fields(own)}}

    def with_overrides(self, overrides: Mapping[str, Any] | None, *,
                       unknown: list[str] | None = None) -> TableSettings:
        """Apply named settings, the table's and the game's in one flat mapping (a trace
        header's `settings`). An unknown name is an error, unless `unknown` is given: then
        it is collected there and ignored (a trace recorded by another station may carry
        settings this one does not have)."""
        if not overrides:
            return self
        overrides = dict(overrides)
        s = self
        if "game" in overrides:  # the game first: the other names may be its settings
            s = read_settings(s, {"game": overrides.pop("game")}, where="setting")
            if s.game != self.game:
                s = replace(s, game_settings=None)
        own_cls = game_settings_class(s.game)
        own_names = {f.name for f in fields(own_cls)}
        table_part: dict[str, Any] = {}
        game_part: dict[str, Any] = {}
        for key, value in overrides.items():
            (game_part if _known(key, own_names) and not _known(key, TABLE_SETTING_NAMES)
             else table_part)[key] = value
        s = read_settings(s, table_part, where="setting", unknown=unknown,
                          unknown_words="table setting")
        if game_part:
            own = read_settings(s.own, game_part, where="setting")
            s = replace(s, game_settings=own)
        return s

    def with_game_settings(self, values: Mapping[str, Any], *, where: str = "game") -> TableSettings:
        """The game's own settings from `values` (a config's `[game]` section), every key
        checked against the game's class; errors name the key as `<where>.<key>`."""
        own = read_settings(self.own, values, where=where,
                            unknown_words=f"setting of a {self.game} table")
        return replace(self, game_settings=own)


#: the names of the settings every table has (the game's own are its class's fields)
TABLE_SETTING_NAMES: frozenset[str] = frozenset(
    f.name for f in fields(TableSettings) if f.name != "game_settings")


def _rules_class(game: str) -> Any:
    try:
        return GAMES[game]
    except KeyError:
        raise SettingsError(f"unknown game {game!r} (known: {', '.join(sorted(GAMES))})") from None


def game_settings_class(game: str) -> type:
    """The settings class the game declares (`Game.settings_class`)."""
    return _rules_class(game).settings_class


def default_table(game: str) -> str:
    """The name of a table of `game` that was given none: the first of the game's prefix
    (`Game.table_prefix`)."""
    return f"{_rules_class(game).table_prefix}01"


def _known(key: str, names: frozenset[str] | set[str]) -> bool:
    return key in names or f"{key}_seconds" in names


def read_settings(base: Any, values: Mapping[str, Any], *, where: str,
                  unknown: list[str] | None = None, unknown_words: str = "setting") -> Any:
    """`base` (a frozen dataclass of settings) with `values` applied, each checked against
    its field's type (a float takes an int; none may be negative). An error names the key:
    `<where> 'key'` for a header's settings, `<where>.key` for a config section. An unknown
    key is an error, or, when `unknown` is given, collected there and ignored.
    `placement_timeout` names `placement_timeout_seconds`: a setting in seconds may be named
    without its unit."""
    if not values:
        return base
    assert is_dataclass(base)
    hints = typing.get_type_hints(type(base))
    known = {f.name for f in fields(base) if f.init}
    clean: dict[str, Any] = {}

    def name_of(key: str) -> str:
        return f"{where}.{key}" if where.isidentifier() and where != "setting" else f"{where} {key!r}"

    for key, value in values.items():
        if key not in known and f"{key}_seconds" in known:
            key = f"{key}_seconds"
        if key not in known:
            if unknown is not None:
                unknown.append(key)
                continue
            raise SettingsError(f"unknown {unknown_words} {key!r} (known: {', '.join(sorted(known))})")
        want = hints.get(key)
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        if want is float and is_number:
            if value < 0:
                raise SettingsError(f"{name_of(key)} must not be negative, got {value!r}")
            clean[key] = float(value)
        elif want is int and is_number and isinstance(value, int):
            if value < 0:
                raise SettingsError(f"{name_of(key)} must not be negative, got {value!r}")
            clean[key] = value
        elif want is bool and isinstance(value, bool):
            clean[key] = value
        elif want is str and isinstance(value, str) and value:
            clean[key] = value
        else:
            kind = getattr(want, "__name__", str(want))
            raise SettingsError(f"{name_of(key)} must be {'an' if kind == 'int' else 'a'} "
                                f"{kind}, got {value!r}")
    checked = replace(base, **clean)
    check = getattr(checked, "check", None)
    if check is not None:
        problem = check()
        if problem:
            raise SettingsError(f"{where}: {problem}")
    return checked
