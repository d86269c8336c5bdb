"""A camera line's zones are read by the kind the table's game gives each (`Game.zone_kinds`:
cards unless it says otherwise, or a dice tray's faces): the trace parser, the journal and
the dispute read a zone by its kind, never by its name, so a game of its own with a tray of
its own name is read like any other."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from station.core.inputs import TraceError, parse_input, read_trace, zone_kinds_of
from station.games import GAMES, GameError
from tests.core.toy_game import HighCard


class HighCardWithTray(HighCard):
    """The toy game with a dice tray of its own, named as no other game names one."""

    name = "highcard_tray"
    zones = (*HighCard.zones, "TRAY")
    zone_kinds = MappingProxyType({"TRAY": "dice"})


@pytest.fixture
def tray_game():
    GAMES[HighCardWithTray.name] = HighCardWithTray
    try:
        yield HighCardWithTray.name
    finally:
        del GAMES[HighCardWithTray.name]


def _trace(tmp_path, game: str, camera: str):
    p = tmp_path / "t.jsonl"
    p.write_text(f'{{"trace": 1, "table": "HC-01", "game": "{game}"}}\n'
                 f'{{"t": 0.5, "camera": {camera}}}\n{{"t": 1, "end": true}}\n')
    return p


def test_a_zone_is_read_by_the_kind_its_game_gives_it(tmp_path, tray_game):
    assert zone_kinds_of(tray_game) == {"TRAY": "dice"}
    _, inputs = read_trace(_trace(tmp_path, tray_game, '{"TRAY": [3, 0, 6], "LEFT": ["ah"]}'))
    assert inputs[0].value == {"TRAY": [3, 0, 6], "LEFT": ["AH"]}
    # the tray holds die faces, a card zone cards: each is refused the other's
    for camera, words in (('{"TRAY": ["AH"]}', "zone 'TRAY': expected die faces 0-6"),
                          ('{"TRAY": [7]}', "zone 'TRAY': expected die faces 0-6"),
                          ('{"LEFT": [3]}', "zone 'LEFT'")):
        with pytest.raises(TraceError, match=f"line 2: {words}"):
            read_trace(_trace(tmp_path, tray_game, camera))


def test_a_zone_another_game_reads_as_dice_holds_cards_at_a_table_whose_game_says_nothing(tmp_path):
    """A zone's name makes it no tray: at the toy game's table, which declares no dice, a
    zone of die faces is refused whatever it is called."""
    for zone in ("TRAY", "DICE"):
        with pytest.raises(TraceError, match=f"line 2: zone '{zone}'"):
            read_trace(_trace(tmp_path, "pokdeng", f'{{"{zone}": [3, 4]}}'))


def test_a_caller_that_knows_no_game_reads_each_zone_by_what_it_holds():
    """A simulator feeding a live station (it journals what it takes, and the journal is
    read by the game's kinds) parses a line without a game: numbers are die faces, text
    cards, and either refuses what it is not."""
    inp = parse_input({"t": 1, "camera": {"ANY": [2, 5], "P": ["th", "??"], "E": []}}, 2)
    assert inp.value == {"ANY": [2, 5], "P": ["TH", "??"], "E": []}
    with pytest.raises(TraceError, match="zone 'ANY'"):
        parse_input({"t": 1, "camera": {"ANY": [2, "AH"]}}, 2)
    with pytest.raises(TraceError, match="die faces"):
        parse_input({"t": 1, "camera": {"ANY": [9]}}, 2)


def test_a_game_that_declares_a_kind_no_camera_line_reads_is_refused():
    class HighCardWithChips(HighCard):
        name = "highcard_chips"
        zones = (*HighCard.zones, "CHIPS")
        zone_kinds = MappingProxyType({"CHIPS": "chips"})

    with pytest.raises(GameError, match="game 'highcard_chips': zone_kinds: no camera line "
                                        "reads a zone of kind 'chips'"):
        GAMES[HighCardWithChips.name] = HighCardWithChips
    assert HighCardWithChips.name not in GAMES
