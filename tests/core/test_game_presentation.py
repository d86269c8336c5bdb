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
    (_with(panel="lowcard"), "panel.html: its top-level <section> is not marked "
                             "data-panel=\"lowcard\" hidden"),
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


BROKEN = "tests.core.toy_panel.broken"  # a folder of panel files that break the contract


def _broken(**files: str) -> type:
    pres = type("BrokenPanel", (HighCardPanel,), {"__module__": BROKEN, "files": files})
    return type("Broken", (HighCard,), {"name": "broken", "presentation": pres})


@pytest.mark.parametrize("game,words", [
    # a hook overridden by something that is not a function: the console would call it
    (_with(recall=None), "BrokenPanel.recall must be a method, not None"),
    (_with(diagram=None), "BrokenPanel.diagram must be a method, not None"),
    (_with(dealt={}), "BrokenPanel.dealt must be a method, not {}"),
    (_with(road_class=type("R", (HighCardRoad,), {"read": None})), "R.read must be a method"),
    # declarations of the wrong type or shape
    (_with(role_actions="dealer"), "role_actions must map a role to a set of actions"),
    (_with(role_actions={"dealer": "dice"}), "role_actions['dealer'] must be a set of action names"),
    (_with(role_actions={"dealer": ["dice"]}), "role_actions['dealer'] must be a set of action names"),
    (_with(role_actions={"dealer": {3}}), "role_actions['dealer'] must be a set of action names"),
    (_with(role_actions={"croupier": frozenset({"peek"})}), "'croupier' is not a console role"),
    (_with(role_actions={"dealer": frozenset({"close_table", "cancel_round"})}),
     "role_actions['dealer'] takes the kernel's actions ['cancel_round', 'close_table']"),
    (_with(role_actions={"supervisor": frozenset({"new_shoe"})}),
     "role_actions['supervisor'] takes the kernel's actions ['new_shoe']"),
    (_with(outcome_fields="dice"), "outcome_fields must be a tuple of field names, not 'dice'"),
    (_with(view_key=5), "view_key must be a key of the view (a string) or None, not 5"),
    (_with(public_zones=frozenset({"LEFT"})), "public_zones: 'LEFT' is not a zone of the game"),
    (_with(public_zones=frozenset({"DICE"})), "public_zones: 'DICE' is not a zone of the game"),
    (_with(public_zones="LEFT"), "public_zones must be a set of zone names"),
    (_with(panel="high card"), "panel 'high card' is not a name"),
    (_with(files={"html": "panel.html", "py": "__init__.py"}), "unknown kind 'py'"),
    (_with(files={"js": "../toy_panel/panel.js"}), "js = '../toy_panel/panel.js' is not a bare file name"),
    (_with(files={"js": "sub/panel.js"}), "js = 'sub/panel.js' is not a bare file name"),
    (_with(files={"js": ".."}), "js = '..' is not a bare file name"),
    (_with(files={"js": "panel.css"}), "js = 'panel.css' is not a bare file name ending .js"),
    (_with(player_page="../pages"), "player_page '../pages' is not a bare folder name"),
    # the fragment and the script
    (_broken(html="stray.html"), "stray.html: its top-level <div> is not marked "
                                 "data-panel=\"highcard\" hidden"),
    (_broken(html="shown.html"), "shown.html: its top-level <section> is not marked "
                                 "data-panel=\"highcard\" hidden"),
    (_broken(html="keyed.html", js="mentions.js"),
     "mentions.js does not register window.stationPanels.highcard"),
])
def test_a_declaration_of_the_wrong_kind_is_refused(game, words):
    with pytest.raises(GameError) as e:
        GAMES["broken"] = game
    assert str(e.value).startswith("game 'broken': "), str(e.value)
    assert words in str(e.value), str(e.value)
    assert "broken" not in GAMES


def test_a_script_may_register_its_panel_by_key_and_a_game_may_add_its_own_actions():
    GAMES["broken"] = _broken(html="keyed.html", js="keyed.js")
    del GAMES["broken"]
    GAMES["broken"] = _with(role_actions={"dealer": frozenset({"peek"})}, outcome_fields=["x"])
    del GAMES["broken"]


def test_the_kernels_roles_are_the_consoles():
    from station.console.users import ROLE_ACTIONS, ROLES
    from station.games.presentation import KERNEL_ROLE_ACTIONS

    for role, actions in KERNEL_ROLE_ACTIONS.items():
        assert role in ROLES and ROLE_ACTIONS[role] == actions


def test_a_game_registered_again_is_served_its_new_presentation():
    from station.console.panels import presentation

    other = type("OtherPanel", (HighCardPanel,), {"__module__": MODULE, "panel": "other",
                                                  "files": {}})
    GAMES["broken"] = _with()
    try:
        assert presentation("broken").panel == "highcard"
        del GAMES["broken"]
        GAMES["broken"] = type("Broken", (HighCard,), {"name": "broken", "presentation": other})
        assert presentation("broken").panel == "other"
    finally:
        del GAMES["broken"]
    with pytest.raises(ValueError, match="unknown game 'broken'"):
        presentation("broken")


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
