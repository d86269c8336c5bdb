"""A game's tools are in its package and the station's commands find them through the game
(station/games/tools.py): the toy game, installed through its entry point, is settled by
`station settle` with a tool of its own module, and nothing of the station names it."""

from __future__ import annotations

import io
import json

import pytest

from station.commands.settle import settle_lines, settler
from station.games import GAMES, GameError
from station.games.tools import TOOLS, game_tool, games_with
from tests.core.toy_game import HighCard
from tests.core.toy_install import toy_game_installed


def test_every_tool_a_game_of_the_station_declares_loads():
    for name in GAMES:
        for tool in GAMES[name].tools:
            assert tool in TOOLS and callable(game_tool(name, tool)), (name, tool)
    assert set(games_with("settle_round")) >= {"pokdeng", "paigow", "sizhidao"}
    assert "sizhidao" not in games_with("rtp")


def test_the_toy_games_own_settle_tool_answers_station_settle(tmp_path):
    with toy_game_installed(tmp_path / "site"):
        assert "highcard" in games_with("settle_round")
        out, err = io.StringIO(), io.StringIO()
        lines = [json.dumps({"cards": {"LEFT": ["KH"], "RIGHT": ["3C"]},
                             "bets": [{"account": "a1", "spot": "LEFT", "amount": 100}]}).encode(),
                 b'{"cards": {"LEFT": ["KH"]}}']
        failed = settle_lines(lines, out, err, settler("highcard"))
        assert failed == 1 and "line 2: a highcard hand names positions" in err.getvalue()
        answer = json.loads(out.getvalue())
        assert answer["results"]["LEFT"]["outcome"] == "win"
        assert answer["bets"][0]["returned"] == 200
        assert game_tool("highcard", "rtp") is None
        with pytest.raises(ValueError, match="unknown game .nosuch."):
            settler("nosuch")


def test_a_game_declaring_a_tool_the_station_has_not_is_refused():
    class Odd(HighCard):
        name = "odd"
        tools = {"settle": "tests.core.toy_game:settle_round"}

    with pytest.raises(GameError, match="game 'odd': tools names 'settle', no tool"):
        GAMES["odd"] = Odd

    class Bad(HighCard):
        name = "bad"
        tools = {"settle_round": "tests.core.toy_game.settle_round"}

    with pytest.raises(GameError, match=r"tools\['settle_round'\] .* is not \"module:function\""):
        GAMES["bad"] = Bad
    assert "odd" not in GAMES and "bad" not in GAMES


@pytest.mark.parametrize("game", ["paigow", "sizhidao"])
def test_station_soak_runs_the_soak_the_game_names(tmp_path, game):
    """`station soak --game GAME` as a command: the game's `soak` tool runs its rounds."""
    import subprocess
    import sys
    from pathlib import Path

    out = subprocess.run(
        [sys.executable, "-m", "station", "soak", "--game", game, "--rounds", "2", "--crash", "0",
         "--work", str(tmp_path / "work"), "--out", str(tmp_path / "report")],
        cwd=Path(__file__).parents[2], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "report:" in out.stdout
    assert (tmp_path / "report").is_dir() and any((tmp_path / "report").iterdir())
