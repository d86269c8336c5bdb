"""A game's own settings: a class of its package (`Game.settings_class`), read from a table
config's `[game]` section with errors that name the key, recorded in the journal's and the
traces' headers beside the table's, and used by its procedure. The toy game, installed
through its entry point, has one of its own: `extend_max_seconds`."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from station.core.inputs import read_trace
from station.core.replay import replay_records, settings_from_header
from station.core.settings import TableSettings
from station.live.config import ConfigError, load_config, parse_config
from station.live.journal_key import make_key_file
from station.runtime import start_runtime
from station.sim.script import TraceScript
from tests.core.staging import of
from tests.core.toy_install import toy_game_installed

CONFIG = Path(__file__).parents[2] / "config"


def _config(tmp_path: Path, game: str, own: dict | None = None, procedure: dict | None = None,
            table: str = "T-01") -> dict:
    data: dict = {"table": {"name": table, "game": game}, "storage": {"dir": str(tmp_path / "var")},
                  "shoe": {"url": "loop://"}, "camera": {"enabled": False},
                  "journal": {"signing_key_file": str(make_key_file(tmp_path / "keys" / f"{table}.key"))}}
    if own is not None:
        data["game"] = own
    if procedure is not None:
        data["table"]["procedure"] = procedure
    return data


def test_the_examples_put_each_games_own_settings_in_its_section():
    paigow = load_config(CONFIG / "table_paigow.toml").table
    assert type(paigow.own).__name__ == "PaiGowSettings" and paigow.own.dice_mismatch_seconds == 5.0
    sizhidao = load_config(CONFIG / "table_sizhidao.toml").table
    assert (sizhidao.own.ante, sizhidao.own.buy_in_seconds) == (100, 10.0)
    assert sizhidao.camera_lag_tolerant is True


def test_a_games_section_is_read_through_its_class(tmp_path):
    cfg = parse_config(_config(tmp_path, "sizhidao", {"ante": 250, "decision_seconds": 20}))
    assert (cfg.table.own.ante, cfg.table.own.decision_seconds, cfg.table.own.arrange_seconds) \
        == (250, 20.0, 10.0)
    # the table's settings are no game's: a bare table has only its game's defaults
    assert not hasattr(TableSettings(), "ante")
    assert parse_config(_config(tmp_path, "paigow")).table.own.dice_mismatch_seconds == 5.0


@pytest.mark.parametrize(("game", "own", "words"), [
    ("sizhidao", {"ante": -5}, "game.ante must not be negative"),
    ("sizhidao", {"ante": 2.5}, "game.ante must be an int, got 2.5"),
    ("paigow", {"dice_mismatch_seconds": "soon"}, "game.dice_mismatch_seconds must be a float"),
    ("paigow", {"dice_mismatch_secs": 3}, "unknown setting of a paigow table 'dice_mismatch_secs'"),
    ("pokdeng", {"ante": 100}, "unknown setting of a pokdeng table 'ante'"),
    ("sizhidao", {"betting_seconds": 10}, "unknown setting of a sizhidao table 'betting_seconds'"),
])
def test_mistakes_in_the_games_section_name_the_key(tmp_path, game, own, words):
    with pytest.raises(ConfigError) as e:
        parse_config(_config(tmp_path, game, own))
    assert words in str(e.value)


def test_a_games_setting_left_under_table_procedure_still_runs_and_says_where_it_goes(
        tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="station.config"):
        cfg = parse_config(_config(tmp_path, "sizhidao", procedure={
            "ante": 300, "decision_seconds": 12, "camera_lag_tolerant": True}))
    assert (cfg.table.own.ante, cfg.table.own.decision_seconds) == (300, 12.0)
    assert cfg.table.camera_lag_tolerant is True
    said = caplog.text
    assert "ante, decision_seconds" in said and "[game]" in said
    # in both places it is refused, naming both
    with pytest.raises(ConfigError, match=r"game\.ante: also set as table\.procedure\.ante"):
        parse_config(_config(tmp_path, "sizhidao", {"ante": 100}, procedure={"ante": 300}))


def test_a_header_recorded_before_the_games_held_their_settings_replays_the_same(tmp_path):
    """Trace headers name the table's and the game's settings side by side, as they did
    when all were the core's: such a header sets the game's own."""
    s = TraceScript("sizhidao", settings={"ante": 50, "decision_seconds": 15,
                                          "arrange_seconds": 10, "buy_in_seconds": 10})
    header, _ = read_trace(s.end().write(tmp_path / "t.jsonl"))
    settings = settings_from_header(header)
    assert settings.own.ante == 50 and settings.betting_seconds == 15.0


def test_the_toy_games_own_setting_is_read_recorded_and_used(tmp_path):
    """The toy game, a game installed on its own, gets its `[game] extend_max_seconds` from
    the config; the live table's journal and its recorded traces carry it, and a replay of
    such a trace refuses an extension beyond it."""
    with toy_game_installed(tmp_path / "site"):
        with pytest.raises(ConfigError, match="extend_max_seconds: at least 1"):
            parse_config(_config(tmp_path, "highcard", {"extend_max_seconds": 0}, table="HC-01"))
        cfg = parse_config(_config(tmp_path, "highcard", {"extend_max_seconds": 12},
                                   table="HC-01"))
        assert cfg.table.own.extend_max_seconds == 12
        rt = start_runtime(cfg, with_console=False, with_bet_api=False)
        try:
            assert rt.station.core.settings.own.extend_max_seconds == 12
            rt.station.submit("dealer", "new_shoe")
        finally:
            rt.stop()
        traces = sorted((tmp_path / "var" / "traces").glob("*.jsonl"))
        assert traces
        headers = [json.loads(p.read_text().splitlines()[0]) for p in traces]
        assert all(h["settings"]["extend_max_seconds"] == 12 for h in headers), headers

        s = TraceScript("highcard", settings=headers[0]["settings"])
        s.wallet("u1", 1000)
        s.dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(0.5).shoe("LOAD").wait(1)
        s.open_round().dealer("extend_betting", seconds=13).wait(1)  # beyond 12: refused
        s.dealer("extend_betting", seconds=12).wait(1).end()
        records = replay_records(s.write(tmp_path / "trace.jsonl"))
        assert [r["reason"] for r in of(records, "action_refused")] == ["bad_seconds: 1 to 12"]
        assert len(of(records, "betting_extended")) == 1


def test_a_table_that_names_itself_not_is_the_first_of_its_games_prefix(tmp_path):
    """The game of a bare `TableSettings()` is the registry's default, and a table without a
    name takes the first name of its game's own prefix (`Game.table_prefix`): a game installed
    on its own included, through the settings and a config alike."""
    from station.core.settings import SettingsError, default_table
    from station.games import DEFAULT_GAME, GAMES

    bare = TableSettings()
    assert bare.game == DEFAULT_GAME
    assert bare.table == f"{GAMES[DEFAULT_GAME].table_prefix}01"
    for game in GAMES:
        assert TableSettings(game=game).table == f"{GAMES[game].table_prefix}01"
    assert TableSettings(table="X-7", game=DEFAULT_GAME).table == "X-7"
    with pytest.raises(SettingsError, match="unknown game 'nogame'"):
        default_table("nogame")
    with toy_game_installed(tmp_path / "site"):
        assert TableSettings(game="highcard").table == "HC-01"
        data = _config(tmp_path, "highcard")
        del data["table"]["name"]
        assert parse_config(data).table.table == "HC-01"
    data = _config(tmp_path, "nogame")
    del data["table"]["name"]
    with pytest.raises(ConfigError, match="table.game: unknown game 'nogame'"):
        parse_config(data)
