"""`station run --config config/table_sizhidao.toml`: the configuration checks (`--check`,
its camera layout's seat zones against the game's), and the station started from it over a
real pty shoe serves the player API and the seat page on the table's API port, keyed by the
platform's key from the environment."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from station.live.config import ConfigError, load_config, parse_config

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "config" / "table_sizhidao.toml"


def test_the_config_checks() -> None:
    out = subprocess.run([sys.executable, "-m", "station", "run", "--config", str(CONFIG),
                          "--check"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "table SZ-SIM (sizhidao)" in out.stdout and "camera on" in out.stdout
    cfg = load_config(CONFIG)
    assert cfg.table.game == "sizhidao" and cfg.table.own.ante == 100
    own = cfg.table.own
    assert (own.decision_seconds, own.arrange_seconds, own.buy_in_seconds) == (15, 10, 10)


def test_the_camera_layout_has_the_seat_zones_of_the_game() -> None:
    from firmware_bridge.camera.layout import load_layout
    from station.games import get_game

    layout = load_layout(REPO / "config" / "camera_sizhidao_1080p.toml")
    assert sorted(layout.zones) == sorted(get_game("sizhidao").zones) == [f"S{i}" for i in range(1, 8)]
    # the Pok Deng layout does not fit a Si Zhi Dao table, and says which zones it misses
    with pytest.raises(ConfigError, match="missing S1"):
        parse_config({"table": {"name": "SZ-X", "game": "sizhidao"},
                      "camera": {"enabled": True,
                                 "layout": str(REPO / "config" / "camera_pokdeng_1080p.toml")}})


def test_station_run_serves_the_players(tmp_path: Path) -> None:
    from firmware_bridge.shoe.simulator import ShoeSimulator
    from station.cards import ALL_CARDS

    shoe = ShoeSimulator(deck=[str(c) for c in ALL_CARDS], cut_at=None, seed=4)
    url = shoe.serve_pty()
    text = CONFIG.read_text()
    text = text.replace('url = "socket://127.0.0.1:4001"', f'url = "{url}"')
    text = text.replace('dir = "var/SZ-SIM"', f'dir = "{tmp_path / "data"}"')
    text = text.replace("port = 8600", "port = 0").replace("port = 8601", "port = 0")
    text = text.replace('layout = "config/', f'layout = "{REPO}/config/')
    cfg = tmp_path / "table.toml"
    cfg.write_text(text)
    env = {**os.environ, "STATION_BET_API_KEYS": "k-run-1=platform",
           "STATION_JOURNAL_KEY": "sz-sim-journal-key-0123456789abcdef"}
    proc = subprocess.Popen([sys.executable, "-m", "station", "run", "--config", str(cfg),
                             "--log-level", "WARNING"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        api = None
        deadline = time.monotonic() + 60
        while api is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            m = re.search(r"bet API (http://\S+)", line)
            if m:
                api = m.group(1)
        assert api, proc.stderr.read() if proc.poll() is not None else "no bet API line"
        auth = {"authorization": "Bearer k-run-1"}
        for acc, seat in (("a", "S2"), ("b", "S5"), ("c", "S7")):
            r = httpx.post(api + "/v1/wallets", json={"account": acc, "balance": 5000}, headers=auth)
            assert r.status_code == 200
            r = httpx.post(api + "/v1/players/actions",
                           json={"account": acc, "action": "sit", "seat": seat}, headers=auth)
            assert r.status_code == 200 and r.json()["records"][0]["type"] == "seated"
        view = httpx.get(api + "/v1/players/a/view", headers=auth).json()
        assert view["table"] == "SZ-SIM" and view["you"]["seat"] == "S2"
        assert sorted(view["seats"]) == ["S2", "S5", "S7"] and view["leader"] == "S2"
        assert httpx.post(api + "/v1/players/actions", json={"account": "a", "action": "sit"}).status_code == 401
        page = httpx.get(api + "/seat/")
        assert page.status_code == 200 and "seat.js" in page.text
    finally:
        proc.terminate()
        proc.wait(30)
        shoe.close()
    assert proc.returncode == 0, proc.stderr.read()
