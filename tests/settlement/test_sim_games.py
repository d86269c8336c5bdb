"""The settlement simulator deals any game of the station's from what the game declares
(its spots, deck, positions, prefix), knowing none by name: the default game's table
unless told, each other game's at a table of its own prefix."""

from __future__ import annotations

import pytest

from station.games import DEFAULT_GAME, GAMES, get_game
from station.settlement.sim import BetBook, plan_session


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_session_of_each_game_is_dealt_from_its_declarations(game):
    rules = get_game(game)
    session = plan_session(3, 12, game_name=game)
    rounds = {m["round_id"] for m in session.messages if "round_id" in m}
    assert rounds and all(r.startswith(f"{rules.table_prefix}01-S") for r in rounds), rounds
    bets = [m for m in session.messages if m["kind"] == "bet"]
    assert all(b["spot"] in rules.spots and b["game"] == game for b in bets)
    if rules.spots:
        assert bets, "a game with spots is bet on"
        hands = [m for m in session.messages if m["kind"] == "hand"]
        assert hands and all(set(h["cards"]) == set(rules.positions) for h in hands)
    assert session.rounds_settled + session.rounds_cancelled >= 1
    assert all(v >= 0 for v in session.balances.values())
    # the same seed deals the same session; a table named is kept
    assert plan_session(3, 12, game_name=game).messages == session.messages
    named = plan_session(3, 2, game_name=game, table="T-9")
    assert all(m["round_id"].startswith("T-9-") for m in named.messages if "round_id" in m)


def test_the_default_game_is_the_registrys(tmp_path):
    rules = get_game(DEFAULT_GAME)
    session = plan_session(3, 2)
    assert all(m["round_id"].startswith(rules.table_prefix) for m in session.messages
               if "round_id" in m)
    assert BetBook(tmp_path / "book.db").game.name == DEFAULT_GAME
