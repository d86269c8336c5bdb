"""The studio finds each game's pieces through the game (station/games/tools.py): the
session a studio table is fed (`studio_session`), the round its console lists
(`studio_round`), the simulated table of `station demo` (`demo_table`), each table named by
its game's prefix and the default game from the registry. A game without a piece is told
apart by name, never given another game's."""

from __future__ import annotations

import random
from typing import Any

import pytest

from firmware_bridge.shoe.simulator import FaultPlan
from station.games import BUILT_IN, GAMES, default_game, get_game
from station.games.base import BetError
from station.games.tools import game_tool, games_with
from station.sim.studio import TABLES, DemoTable, StudioOptions
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


def test_each_demo_table_is_named_by_its_games_prefix_and_bets_on_its_own_spots():
    assert StudioOptions(data_dir=None).game == default_game() == next(iter(BUILT_IN))
    assert set(TABLES) == set(games_with("demo_table")) and TABLES
    for game in TABLES:
        rules = get_game(game)
        assert TABLES[game] == (f"{rules.table_prefix}01", rules.title or rules.name)
        own = game_tool(game, "demo_table")(StudioOptions(data_dir=None, game=game, seed=5),
                                            random.Random(5), FaultPlan())
        try:
            assert isinstance(own, DemoTable) and own.spots
            for spot in own.spots:
                rules.check_bet(spot, 10)  # BetError: a spot not of the game's
            assert own.layout is None or own.layout.is_file()
        finally:
            own.shoe.close()
    for game in set(GAMES) - set(TABLES):
        with pytest.raises(KeyError):
            TABLES[game]


def test_a_spot_of_another_game_is_refused_by_the_rules_the_demo_tables_are_checked_with():
    """The check above can fail: a game's rules refuse a spot that is not theirs."""
    game = next(iter(TABLES))
    with pytest.raises(BetError):
        get_game(game).check_bet("NO_SUCH_SPOT", 10)


def test_sessions_on_the_studios_wallets_set_none_and_seat_the_same_players():
    """Tables that reserve (`--reserve --players P`): the wallets are the studio ledger's, so
    no session sets one, and every table given the same players seats the same accounts."""
    seated = {}
    for game in games_with("studio_session"):
        table = f"{get_game(game).table_prefix}08"
        session = build_session(game, table, seed=4, rounds=2, players="studio",
                                shared_wallets=True)
        assert not any("wallet" in line for line in session.lines)
        seated[game] = {line[kind]["account"] for line in session.lines
                        for kind in ("bet", "player") if kind in line}
        assert seated[game] and all(a.startswith("studio.u") for a in seated[game])
    assert len(set.intersection(*seated.values())) >= 2  # one wallet, several tables
