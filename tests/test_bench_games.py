"""The benchmarks (bench/) find what they measure through the registry: a game registered with
a benchmark piece of its own is measured with no change to the bench, a game without one is
named, never left out; and each piece a game of the station declares is one its bench can
use (a round the game settles, a camera that shows the game's zones)."""

from __future__ import annotations

import pytest

from station.games import GAMES, get_game
from station.games.tools import game_tool, games_with
from tests.core.toy_game import HighCard

RUNS: list[bool] = []


def toy_rules_bench(quick: bool) -> None:
    """The toy game's rules benchmark: it says it ran."""
    RUNS.append(quick)
    print(f"toy rules benchmark ran, quick={quick}")


class BenchedHighCard(HighCard):
    name = "benchedhighcard"
    title = "Benched high card"
    tools = {"rules_bench": f"{__name__}:toy_rules_bench"}


@pytest.mark.slow  # runs every declared rules benchmark, in its quick mode
def test_bench_rules_runs_the_benchmark_each_registered_game_declares(capsys):
    from bench import bench_rules

    GAMES["benchedhighcard"] = BenchedHighCard
    try:
        RUNS.clear()
        assert bench_rules.main(["--quick"]) == 0
    finally:
        del GAMES["benchedhighcard"]
    out = capsys.readouterr().out
    assert RUNS == [True] and "toy rules benchmark ran, quick=True" in out
    for name in GAMES:
        title = get_game(name).title or name
        if game_tool(name, "rules_bench") is None:
            assert f"{title}: no rules benchmark declared" in out
    assert "exact return to player" in out and "us/hand" in out  # a game's own figures


def test_every_game_of_the_station_declares_the_benchmark_pieces_it_is_measured_by():
    """What the benchmarks measure today stays measured: the rules, camera and settlement
    benchmarks each find at least one game, the camera one a game with a dice tray."""
    assert games_with("rules_bench") and games_with("camera_bench")
    assert games_with("settlement_bench_round") and games_with("player_bench_table")
    assert any("dice" in get_game(n).zone_kinds.values() for n in games_with("camera_table"))


@pytest.mark.parametrize("name", games_with("settlement_bench_round"))
def test_a_settlement_benchmark_round_is_one_the_game_settles(name):
    game = get_game(name)
    piece = game_tool(name, "settlement_bench_round")()
    outcome = game.outcome({"cards": piece["cards"]})
    results = game.evaluate(outcome)
    assert results and set(results) <= set(game.positions)
    for spot in [*piece["spots"], *piece["intake_spots"]]:
        deducted = game.check_bet(spot, 100)
        assert deducted >= 100 and game.returned(spot, 100, outcome) >= 0, spot
    assert set(piece["spots"]) == set(game.spots)  # every spot is benchmarked


@pytest.mark.parametrize("name", games_with("camera_table"))
def test_a_reference_camera_shows_every_zone_of_its_game(name):
    layout = game_tool(name, "camera_table")().layout
    assert set(get_game(name).zones) <= set(layout.zones), (name, layout.zones)
