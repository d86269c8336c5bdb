"""A game's presentation is checked when the game registers, like the rest of its contract:
the class it names, the panel files it declares (the fragment marks the panel's sections,
the script registers the panel), the player page, the road class, and each hook it
overrides with the contract's arguments. A game that misses one is refused with its name and
the missing piece, before a console serves it."""

from __future__ import annotations

import pytest

from station.games import GAMES, GameError, get_game
from station.games.presentation import Presentation, Road, load_presentation
from tests.core.toy_game import HighCard
from tests.core.toy_panel import HighCardPanel, HighCardRoad

MODULE = HighCardPanel.__module__  # variants live beside the toy panel's files


def _with(**attrs) -> type:
    pres = type("BrokenPanel", (HighCardPanel,), {"__module__": MODULE, **attrs})
    return type("Broken", (HighCard,), {"name": "broken", "presentation": pres})


def _spec(spec: str) -> type:
    return type("Broken", (HighCard,), {"name": "broken", "presentation": spec})


@pytest.mark.parametrize("game,words", [
    (_spec("tests.core.toy_panel"), "presentation 'tests.core.toy_panel' is not \"module:Class\""),
    (_spec("tests.core.toy_panel:Nowhere"), "its presentation tests.core.toy_panel:Nowhere "
                                            "cannot be loaded (AttributeError"),
    (_spec("tests.core.nowhere:Panel"), "cannot be loaded (ModuleNotFoundError"),
    (_spec("tests.core.toy_panel:HighCardRoad"), "is not a station.games.presentation.Presentation"),
    (_with(files={"js": "missing.js"}), "BrokenPanel's panel file js = 'missing.js' is missing"),
    (_with(panel=None), "ships panel files but names no panel"),
    (_with(panel="lowcard"), "panel.html marks no section data-panel=\"lowcard\""),
    (_with(road_class=dict), "road_class <class 'dict'> is not a station.games.presentation.Road"),
    (_with(road_class=type("R", (HighCardRoad,), {"read": lambda self, records: {}})),
     "R.read(self, records) does not take what the kernel passes"),
    (_with(dealt=lambda self: {}), "BrokenPanel.dealt(self) does not take what the kernel passes"),
    (_with(player_page="no_such_page"), "player page lacks no_such_page/index.html"),
])
def test_a_presentation_missing_a_piece_is_refused_with_the_games_name_and_the_piece(game, words):
    with pytest.raises(GameError) as e:
        GAMES["broken"] = game
    assert str(e.value).startswith("game 'broken': "), str(e.value)
    assert words in str(e.value), str(e.value)
    assert "broken" not in GAMES


def test_a_script_that_does_not_register_its_panel_is_refused():
    with pytest.raises(GameError, match=r"panel\.css does not register window\.stationPanels\.highcard"):
        GAMES["broken"] = _with(files={"html": "panel.html", "js": "panel.css"})


def test_the_built_in_games_declare_their_presentations():
    seen = {}
    for name in ("pokdeng", "paigow", "sizhidao"):
        pres = load_presentation(get_game(name))
        assert type(pres) is not Presentation and pres.panel == name
        assert pres.road_class is not Road
        for file in pres.files.values():
            assert (pres.folder() / file).is_file()
        # each in its own package
        assert pres.folder().parts[-3:] == ("games", name, "panel")
        seen[name] = pres
    assert seen["sizhidao"].view_key and seen["sizhidao"].player_page
    assert seen["paigow"].role_actions == {"dealer": frozenset({"dice"})}
    assert seen["pokdeng"].view_key is None and seen["pokdeng"].role_actions == {}


def test_a_game_without_a_presentation_gets_the_base_one():
    plain = type("Plain", (HighCard,), {"name": "plain", "presentation": None})
    GAMES["plain"] = plain
    try:
        pres = load_presentation(get_game("plain"))
        assert type(pres) is Presentation and pres.panel is None and pres.files == {}
        assert pres.road_class(pres.game).read(lambda types: [{"type": "hand"}], ["LEFT"], 1, 1) \
            == {"shoe": None, "rounds": 0, "roads": {}}
    finally:
        del GAMES["plain"]
