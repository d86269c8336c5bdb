"""The studio finds each game's pieces through the game (station/games/tools.py): the
session a studio table is fed (`studio_session`), the round its console lists
(`studio_round`), each table named by its game's prefix and the default game from the
registry. A game without a piece is told
apart by name, never given another game's."""

from __future__ import annotations

from typing import Any

import pytest

from station.games import BUILT_IN, default_game, get_game
from station.games.tools import game_tool, games_with
from station.studio.scripts import build_session
from station.studio.state import TableState
from tests.core.toy_install import toy_game_installed


class _Station:
    """What TableState reads of a station: its public view, and a place for its listener."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.view = view

    def add_listener(self, fn: Any) -> None:
        pass


def test_every_games_studio_session_is_its_own_and_a_game_without_one_is_refused(tmp_path):
    assert set(games_with("studio_session")) == set(BUILT_IN)
    for game in games_with("studio_session"):
        table = f"{get_game(game).table_prefix}07"
        session = build_session(game, table, seed=3, rounds=2)
        assert session.header["table"] == table and session.header["game"] == game
        assert session.rounds == 2 and session.lines[-1]["end"] is True
        # the table's own players, and no other table's
        accounts = {line[kind]["account"] for line in session.lines
                    for kind in ("wallet", "bet", "player") if kind in line}
        assert accounts and all(a.startswith(f"{table}.") for a in accounts), accounts
    with toy_game_installed(tmp_path / "site"):
        with pytest.raises(ValueError, match="no studio session for the game 'highcard'"):
            build_session("highcard", "HC-01", seed=1, rounds=1)


def test_a_tables_round_on_the_studio_console_is_the_games_own_or_the_views():
    house = TableState(_Station({"game": default_game(), "round": {"round_id": "T-01-S1-R4"}}),
                       None).state()
    assert house["round"] == "T-01-S1-R4" and "game_round" not in house
    # a game whose round is a game with deals inside it says so by its tool
    pot_games = games_with("studio_round")
    assert pot_games
    for game in pot_games:
        assert game_tool(game, "studio_round")({"game": game}) is None  # between games
    # a view naming no game the station has: the view's round, nothing looked up
    odd = TableState(_Station({"game": "nosuch", "round": {"round_id": "X-1"}}), None).state()
    assert odd["round"] == "X-1" and "game_round" not in odd
