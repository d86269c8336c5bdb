"""Games are found by name, loaded when first asked for, and checked against the contract
when they register: a game missing a piece is refused with its name and the piece."""

from __future__ import annotations

import sys
import textwrap

import pytest

from station.games import GAMES, GameError, GameRegistry, get_game
from tests.core.toy_game import HighCard, HighCardProcedure


def _variant(**procedure_attrs) -> type:
    proc = type("BrokenProcedure", (HighCardProcedure,), procedure_attrs)
    return type("Broken", (HighCard,), {"name": "broken", "procedure_class": proc})


def test_the_built_in_games_by_name():
    assert sorted(GAMES) == ["paigow", "pokdeng", "sizhidao"]
    assert get_game("paigow").table_prefix == "WZ-"
    with pytest.raises(ValueError, match="unknown game 'baccarat' .known: paigow, pokdeng, sizhidao"):
        get_game("baccarat")


def test_a_valid_game_registers_and_leaves():
    GAMES["highcard"] = HighCard
    try:
        assert get_game("highcard").table_procedure() is HighCardProcedure
    finally:
        del GAMES["highcard"]
    assert "highcard" not in GAMES


@pytest.mark.parametrize("attrs,words", [
    ({"fault_kinds": {"early_card": ("A card left the shoe early.", "")}},
     "fault kind 'early_card' needs"),
    ({"cancel_only": frozenset({"meteor_strike"})}, "cancel_only names fault kinds without words"),
    ({"states": (*HighCardProcedure.states, "limbo")}, "no move of its machine reaches ['limbo']"),
    ({"states": tuple(s for s in HighCardProcedure.states if s != "closed")},
     "lacks the skeleton's ['closed']"),
    ({"timer_order": ("betting_close",)}, "timer_order must place the kernel's ['link', 'camera']"),
    ({"on_card": lambda self: None}, "on_card(self) does not take what the kernel passes"),
    ({"follow": {("dealing", "nowhere"): "lost"}}, "names states it does not declare: ['nowhere']"),
    ({"cancel_round": lambda self, user, reason, *, must: None},
     "cancel_round(self, user, reason, *, must) does not take what the kernel passes"),
    ({"fault_kinds": {k: v for k, v in HighCardProcedure.fault_kinds.items() if k != "link_lost"},
      "lasting_faults": frozenset()},
     "has no words for ['link_lost'], which the kernel raises at every table"),
])
def test_a_game_missing_a_piece_is_refused_with_its_name_and_the_piece(attrs, words):
    with pytest.raises(GameError) as e:
        GAMES["broken"] = _variant(**attrs)
    assert str(e.value).startswith("game 'broken': ")
    assert words in str(e.value)
    assert "broken" not in GAMES


def test_a_name_that_is_not_the_games_own_is_refused():
    with pytest.raises(GameError, match="its class says name = 'highcard'"):
        GAMES["other"] = HighCard


def test_a_procedure_named_by_module_that_cannot_load_fails_when_a_table_needs_it():
    cls = type("Late", (HighCard,), {"name": "late", "procedure_class": "tests.core.nowhere:Gone"})
    GAMES["late"] = cls  # the rules alone are fine
    try:
        with pytest.raises(GameError, match="game 'late': its procedure tests.core.nowhere:Gone "
                                            "cannot be loaded"):
            get_game("late").table_procedure()
    finally:
        del GAMES["late"]


def test_a_game_installed_separately_is_found_through_its_entry_point(tmp_path, monkeypatch):
    """A package that declares `[dealer_station.games] highcard = ...` in its metadata is a
    game of the station, with nothing of the station edited."""
    dist = tmp_path / "highcard_game-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: highcard-game\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(textwrap.dedent("""\
        [dealer_station.games]
        highcard = tests.core.toy_game:HighCard
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = GameRegistry()
    assert "highcard" in registry and sorted(registry) == ["highcard", "paigow", "pokdeng",
                                                          "sizhidao"]
    assert registry["highcard"] is HighCard
    assert str(tmp_path) in sys.path


def _installed(tmp_path, monkeypatch, lines: str) -> None:
    dist = tmp_path / "other_game-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: other-game\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[dealer_station.games]\n" + lines)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_an_installed_package_never_replaces_a_game_of_the_stations_own(tmp_path, monkeypatch,
                                                                        caplog):
    _installed(tmp_path, monkeypatch, "pokdeng = tests.core.toy_game:HighCard\n")
    registry = GameRegistry()
    assert registry["pokdeng"].__name__ == "PokDeng"
    assert "installed game 'pokdeng' (tests.core.toy_game:HighCard) ignored" in caplog.text


def test_one_installed_game_that_cannot_load_takes_no_tool_from_the_others(tmp_path, monkeypatch,
                                                                         caplog):
    from station.games import tools

    _installed(tmp_path, monkeypatch, "baccarat = nowhere.baccarat:Baccarat\n")
    monkeypatch.setattr("station.games.GAMES", GameRegistry())
    assert tools.games_with("settle_round") == ("paigow", "pokdeng", "sizhidao")
    assert "game 'baccarat': cannot load nowhere.baccarat:Baccarat" in caplog.text
    with pytest.raises(GameError, match="game 'baccarat'"):
        tools.game_tool("baccarat", "settle_round")
