"""`station demo --game sizhidao`: the simulated table (one-deck shoe on a pty, the station
with its console and player API, a scripted dealer, a simulated camera, players driven
through the real player API over HTTP) plays the games asked to a clean ledger with every
pot account at zero; the seat page's link is printed for a person to join."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_demo_plays_games_to_a_clean_ledger(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "station", "demo", "--game", "sizhidao", "--rounds", "3",
           "--speed", "10", "--port", "0", "--seed", "11", "--bettors", "6", "--no-camera",
           "--data", str(tmp_path / "demo"), "--password", "demo-password",
           "--clock", "virtual"]
    env = {**os.environ, "STATION_BET_API_KEYS": "k-demo-outside=outside-platform"}
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=400, env=env)
    text = out.stdout
    # the platform key is printed, so someone outside can play beside the bots
    assert "Bearer k-demo-outside" in text, text[:2000]
    assert "{\n" in text, (text, out.stderr[-3000:])
    summary = json.loads(text[text.index("{\n"):])
    assert out.returncode == 0, (summary, out.stderr[-3000:])
    assert summary["ledger_check"] == "clean" and summary["problems"] == []
    assert summary["pots"]["not_zero"] == {}
    assert summary["pots"]["accounts"] == summary["games_settled"] + summary["games_cancelled"]
    assert summary["games_settled"] + summary["games_cancelled"] >= 3
    actions = summary["player_actions"]
    assert actions.get("call", 0) + actions.get("raise", 0) + actions.get("bet", 0) > 0
    assert actions.get("arrange", 0) > 0
    # the seat page is offered to a person, with its own token, not the platform's key
    link = next(line.split("seat page:")[1].strip() for line in text.splitlines()
                if "seat page:" in line)
    assert "/seat/#t=" in link
    # the table's journal re-applies whole: a restart would carry on from it
    from station.core.settings import TableSettings
    from station.live.table_station import TableStation

    st = TableStation(TableSettings(table="SZ-01", game="sizhidao"), summary["journal"])
    try:
        assert st.recover() > 0
        assert st.core.proc.sz.game is None and st.core.proc.sz.games_opened >= 3
    finally:
        st.journal.close()


@pytest.mark.parametrize("option", [["--faults", "misplace"], ["--betting-seconds", "5"], ["--shoes", "2"]])
def test_the_demo_refuses_options_its_game_does_not_take(tmp_path: Path, option: list[str]) -> None:
    out = subprocess.run([sys.executable, "-m", "station", "demo", "--game", "sizhidao", *option,
                          "--port", "0", "--data", str(tmp_path / "d")],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    assert f"does not take {option[0]}" in out.stderr
    assert not (tmp_path / "d").exists()  # refused before anything started


def test_the_demos_platform_key_comes_from_the_environment(monkeypatch) -> None:
    from station.games.sizhidao.tools.demo import platform_key

    monkeypatch.setenv("STATION_BET_API_KEYS", "k-outside=studio-platform,k-two=other")
    assert platform_key() == ("k-outside", "studio-platform")
    monkeypatch.delenv("STATION_BET_API_KEYS")
    key, platform = platform_key()
    assert len(key) >= 20 and platform == "demo-platform" and key != platform_key()[0]


def test_no_camera_is_not_offered_as_degraded_mode(capsys) -> None:
    """--no-camera keeps the simulated camera observations; the table still runs with a camera
    (PROCEDURE.md §7 offers no degraded mode): the flag is no refusal any more."""
    import argparse

    from station.commands.demo import add_arguments
    from station.games.sizhidao.tools.demo import refused_options

    p = argparse.ArgumentParser()
    add_arguments(p)
    assert refused_options(p.parse_args(["--game", "sizhidao", "--no-camera"])) is None
    assert "--faults" in (refused_options(p.parse_args(["--game", "sizhidao", "--faults", "noise"])) or "")


def test_demo_bots_play_through_the_player_api(tmp_path: Path) -> None:
    """The bots know the table only through the API: a bot's view is its account's view."""
    from station.games.sizhidao.tools.bots import PlatformClient
    from tests.sizhidao.live_table import KEY, LiveTable

    live = LiveTable(tmp_path / "journal.sqlite").start()
    try:
        client = PlatformClient(live.url, KEY)
        status, payload = client.act("bot1", "sit", seat="S3")
        assert status == 200 and payload["records"][0]["seat"] == "S3"
        status, payload = client.act("bot2", "sit", seat="S3")
        assert status == 409 and client.refused["seat_taken"] == 1
        assert client.view("bot1")["you"]["seat"] == "S3"
        token = client.seat_token("bot1")
        r = httpx.get(live.url + "/v1/seat/view", headers={"authorization": f"Seat {token['token']}"})
        assert r.status_code == 200 and r.json()["you"]["account"] == "bot1"
        # a seat token acts for its own account only
        r = httpx.post(live.url + "/v1/seat/actions", json={"account": "bot2", "action": "leave"},
                       headers={"authorization": f"Seat {token['token']}"})
        assert r.status_code == 422
        r = httpx.post(live.url + "/v1/seat/actions", json={"action": "leave"},
                       headers={"authorization": f"Seat {token['token']}"})
        assert r.status_code == 200 and r.json()["records"][0]["type"] == "left"
        # a seat token is no platform key, and the platform key is no seat token
        r = httpx.get(live.url + "/v1/players/bot1/view",
                      headers={"authorization": f"Bearer {token['token']}"})
        assert r.status_code == 401
        r = httpx.get(live.url + "/v1/seat/view", headers={"authorization": f"Seat {KEY}"})
        assert r.status_code == 401
    finally:
        live.stop()


def test_the_rendered_seats_are_seen_only_once_the_camera_reported_every_seat() -> None:
    """The demo's dealer opens no game before the 4K camera has read the table (its first
    frame takes seconds): an empty table not yet reported is not seen."""
    from types import SimpleNamespace

    from firmware_bridge.camera.scene import TableScene
    from station.games.sizhidao.seats import SEATS
    from station.games.sizhidao.tools.demo import RenderedSeats

    scene = TableScene(SEATS, seed=1, seat_zones=SEATS)
    feed = SimpleNamespace(readings={})  # what the station's camera feed has reported so far
    seats = RenderedSeats(scene, feed)
    assert not seats.seen()
    feed.readings.update({s: () for s in SEATS})
    assert seats.seen()
    for card in ("2C", "3C"):
        seats.dealt("S3", card, 0)
    assert not seats.seen() and scene.snapshot()["S3"] == ["??", "??"]
    feed.readings["S3"] = ("??", "??")
    assert seats.seen()
    seats.cleared("S3")
    assert not seats.seen()
