"""The game contract is total: a toy game written only against it (tests/core/toy_game.py)
runs through the kernel, replay, settlement with its ledger, the live station and the
supervisor console, with nothing of the station changed for it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from station.console import UserStore, make_console_app, serve_console, stop_console
from station.core.diagram import mermaid
from station.core.inputs import US, read_trace
from station.core.replay import settings_from_header
from station.games import GAMES, get_game
from station.live.table_station import TableStation
from station.settlement.replay import replay_settled
from station.sim.script import TraceScript
from tests.core.staging import faults, of
from tests.core.toy_game import HighCard
from tests.core.toy_install import toy_game_installed
from tests.waiting import wait_for


@pytest.fixture(autouse=True)
def highcard_installed(tmp_path):
    """Installed as a game of its own package is: found through its entry point."""
    with toy_game_installed(tmp_path / "site"):
        assert GAMES["highcard"] is HighCard
        yield


def _script() -> TraceScript:
    s = TraceScript("highcard")
    s.wallet("u1", 1000).wallet("u2", 1000)
    s.dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(0.5).shoe("LOAD").wait(1)
    # round 1: LEFT's king beats RIGHT's three
    s.open_round().bet("u1", "LEFT", 100).bet("u2", "RIGHT", 50).bet("u2", "P1", 10)
    s.card("KH").wait(0.5)  # before the close: early_card, set aside
    s.supervisor("resume").until_closed()
    s.card("AS").wait(0.4).camera({"LEFT": ["AS"]}).wait(0.3)
    s.card("3C").wait(0.4).camera({"RIGHT": ["3C"]}).wait(1)
    s.camera({"LEFT": [], "RIGHT": []}).wait(1)
    # round 2: the camera reads another card on RIGHT: the supervisor cancels
    s.open_round().bet("u1", "RIGHT", 200).until_closed()
    s.card("7D").wait(0.4).camera({"LEFT": ["7D"]}).wait(0.3)
    s.card("9S").wait(0.4).camera({"RIGHT": ["9H"]}).wait(1)
    return s


def test_the_toy_game_draws_its_own_machine():
    text = mermaid(game="highcard")
    assert "betting --> dealing: betting_closes" in text
    assert "paused --> confirming: resume" in text


def test_replay_with_settlement_and_ledger(tmp_path):
    s = _script()
    s.supervisor("cancel_round").wait(1).end()
    records, problems = replay_settled(s.write(tmp_path / "trace.jsonl"))
    assert problems is None
    assert faults(records) == ["early_card", "card_mismatch"]
    assert [r["reason"] for r in of(records, "bet_rejected")] == ["bad_spot"]
    hand = of(records, "hand")[0]
    assert hand["cards"] == {"LEFT": ["AS"], "RIGHT": ["3C"]}
    assert hand["results"]["LEFT"]["outcome"] == "win"
    bets = {(b["account"], b["spot"]): b["returned"] for b in of(records, "settlement")[0]["bets"]}
    assert bets == {("u1", "LEFT"): 200, ("u2", "RIGHT"): 0}
    cancelled = of(records, "round_cancelled")[0]
    assert cancelled["reason"] == "card_mismatch" and cancelled["refunds"][0]["returned"] == 200
    assert of(records, "balances")[0]["accounts"] == {"u1": 1100, "u2": 950}


def test_live_station_and_console(tmp_path):
    s = _script()
    path = s.write(tmp_path / "trace.jsonl")
    header, inputs = read_trace(path)
    now = [1000.0]
    station = TableStation(settings_from_header(header), tmp_path / "j.sqlite",
                           clock=lambda: now[0])
    station.start()
    users = UserStore(None)
    users.add("sup1", "supervisor", "toy-game-sup-pass")
    app = make_console_app({"HC-01": station}, users=users, secret="toy-secret-" + "x" * 20,
                           audit_path=tmp_path / "audit.sqlite")
    server, thread, url = serve_console(app)
    try:
        for inp in inputs:
            now[0] = 1000.0 + inp.t_us / US
            station.submit(inp.kind, inp.value, inp.user)
        assert station.core.state == "paused"
        with httpx.Client(base_url=url, timeout=15) as c:
            r = c.post("/api/login", json={"user": "sup1", "password": "toy-game-sup-pass"})
            assert r.status_code == 200, r.text
            csrf = r.json()["csrf"]
            view = c.get("/api/tables/HC-01").json()
            text = repr(view)
            assert "card_mismatch" in text and "HC-01-S1-R2" in text
            assert "9S" not in text  # a disputed card is not shown
            r = c.post("/api/tables/HC-01/actions", json={"action": "cancel_round"},
                       headers={"X-CSRF-Token": csrf})
            assert r.status_code == 200, r.text
            wait_for(lambda: station.core.state != "paused", 10,
                     lambda: f"the cancelled round to unpause the table ({station.core.state})")
        assert station.core.state == "between_rounds"
        assert station.core.balances == {"u1": 1100, "u2": 950}
    finally:
        stop_console(server, thread)
        station.stop()
    assert get_game("highcard").name == "highcard"


def test_an_action_of_its_own_through_the_kernel_and_replay(tmp_path):
    """The toy game declares `extend_betting` with its payload: the trace format carries it,
    replay reads it for this game alone, and the kernel hands it to the game's handler."""
    import re

    from station.core.inputs import TraceError
    from station.core.replay import replay_records

    s = TraceScript("highcard")
    s.wallet("u1", 1000)
    s.dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(0.5).shoe("LOAD").wait(1)
    s.open_round().dealer("extend_betting", seconds=10).wait(1)
    s.dealer("extend_betting", seconds=99).wait(1)  # the game's own judgement: refused
    s.wait(14).bet("u1", "LEFT", 100)  # after the countdown's first end: still open
    s.wait(10).bet("u1", "RIGHT", 100).end()  # after the extended end: closed
    records = replay_records(s.write(tmp_path / "trace.jsonl"))
    extended = of(records, "betting_extended")
    assert len(extended) == 1 and extended[0]["closes_at"] - s.opened_at == 15 + 10
    assert [r["reason"] for r in of(records, "action_refused")] == ["bad_seconds: 1 to 30"]
    assert [r["spot"] for r in of(records, "bet_accepted")] == ["LEFT"]
    assert [r["reason"] for r in of(records, "bet_rejected")] == ["betting_closed"]

    # its line carries exactly its payload, and no other game takes it
    for line, words in (('{"t": 9.0, "dealer": "extend_betting"}', "needs its 'seconds'"),
                        ('{"t": 9.0, "dealer": "extend_betting", "seconds": 5, "x": 1}',
                         "unknown fields ['x']")):
        bad = tmp_path / "bad.jsonl"
        lines = (tmp_path / "trace.jsonl").read_text().splitlines()
        bad.write_text("\n".join([*lines[:6], line]) + "\n")
        with pytest.raises(TraceError, match=re.escape(words)):
            replay_records(bad)
    other = tmp_path / "pokdeng.jsonl"
    lines = (tmp_path / "trace.jsonl").read_text().splitlines()
    other.write_text("\n".join([lines[0].replace('"highcard"', '"pokdeng"'), *lines[1:]]) + "\n")
    with pytest.raises(TraceError, match="unknown dealer action 'extend_betting' at a pokdeng"):
        replay_records(other)


TOY = Path(__file__).parent
ROOT = TOY.parents[1]


def test_the_toy_game_has_a_camera_layout_of_its_own(tmp_path, capsys):
    """Its layout (tests/core/toy_camera_1080p.toml) is checked against the zones the game
    declares, found through its entry point; `station camera render` lays cards in its zones
    and `station camera read` reads them back off the rendered picture."""
    from firmware_bridge.camera.layout import LayoutError, load_layout
    from station.cli import main as station_main
    from station.games.camera_zones import game_zones
    from station.live.config import ConfigError, parse_config

    layout = load_layout(TOY / "toy_camera_1080p.toml", game_zones)
    assert (layout.game, list(layout.zones)) == ("highcard", ["LEFT", "RIGHT"])
    one_zone = tmp_path / "one_zone.toml"
    one_zone.write_text(re.sub(r"\[zones\.RIGHT\]\npolygon = .*\n", "",
                               (TOY / "toy_camera_1080p.toml").read_text()))
    with pytest.raises(LayoutError, match=r"a highcard layout .* needs zones RIGHT"):
        load_layout(one_zone, game_zones)
    with pytest.raises(ConfigError, match="missing LEFT, RIGHT"):
        parse_config({"table": {"name": "HC-X", "game": "highcard"},
                      "camera": {"enabled": True,
                                 "layout": str(ROOT / "config" / "camera_pokdeng_1080p.toml")}})

    picture, truth = tmp_path / "toy.png", {}
    for seed in range(1, 40):  # a picture with a face-up card in each position
        assert station_main(["camera", "render", "--config", str(TOY / "toy_camera_1080p.toml"),
                             "--out", str(picture), "--seed", str(seed)]) == 0
        truth = json.loads(capsys.readouterr().out)["zones"]
        if all(any(c != "??" for c in truth[p]) for p in ("LEFT", "RIGHT")):
            break
    assert sorted(truth) == ["LEFT", "RIGHT"] and all(truth.values()), truth
    assert station_main(["camera", "read", "--config", str(TOY / "toy_camera_1080p.toml"),
                         str(picture)]) == 0
    seen = json.loads(capsys.readouterr().out)["zones"]
    assert {p: sorted(cs) for p, cs in seen.items()} == {p: sorted(cs) for p, cs in truth.items()}


def test_station_run_checks_the_toy_tables_config(tmp_path):
    """`station run --check` in a process of its own, where the game is found only through
    the entry point of the distribution on its path: the table, its game's setting and its
    camera layout are taken."""
    site = tmp_path / "site"  # the autouse fixture's installation
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    p = subprocess.run([sys.executable, "-m", "station", "run", "--config",
                        str(TOY / "toy_table.toml"), "--check"],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "table HC-SIM (highcard)" in p.stdout and "camera on" in p.stdout, p.stdout
    # without the distribution on its path, the game is unknown and the config refused
    env["PYTHONPATH"] = str(ROOT)
    p = subprocess.run([sys.executable, "-m", "station", "run", "--config",
                        str(TOY / "toy_table.toml"), "--check"],
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert p.returncode != 0 and "highcard" in p.stderr, (p.stdout, p.stderr)
