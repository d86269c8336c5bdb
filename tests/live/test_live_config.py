"""Table configuration: the documented examples load; mistakes are named by their key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from station.live.config import ConfigError, load_config, parse_config

CONFIG = Path(__file__).parents[2] / "config"


@pytest.mark.parametrize("name", ["table_real.toml", "table_simulated.toml", "table_no_camera.toml"])
def test_examples_load(name):
    cfg = load_config(CONFIG / name)
    assert cfg.shoe.url and cfg.table.game == "pokdeng"


def test_no_camera_example_is_degraded():
    assert load_config(CONFIG / "table_no_camera.toml").table.camera is False


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"table": {"name": 5}}, "table.name: expected str"),
        ({"table": {"procedure": {"betting_secs": 3}}}, "unknown table setting 'betting_secs'"),
        ({"table": {"procedure": {"betting_seconds": -1}}}, "must not be negative"),
        ({"table": {"game": "baccarat"}}, "table.game: unknown game"),
        ({"shoe": {"baudrate": 1234}}, "shoe.baudrate"),
        ({"shoe": {"port": "x"}}, "shoe: unknown key(s) port"),
        ({"settlement": {"mode": "remote"}}, "settlement.url"),
        ({"settlement": {"mode": "cloud"}}, "settlement.mode"),
        ({"console": {"port": 70000}}, "console.port"),
        ({"storage": {"sync": "sometimes"}}, "storage.sync"),
        ({"camera": {"enabled": "yes"}}, "camera.enabled: expected bool"),
        ({"tables": {}}, "unknown section(s) tables"),
    ],
)
def test_mistakes_name_the_key(data, words):
    with pytest.raises(ConfigError) as e:
        parse_config(data)
    assert words in str(e.value)


def test_shoe_url_required_and_bad_toml(tmp_path):
    p = tmp_path / "t.toml"
    p.write_text("[table]\nname = 'PD-9'\n")
    with pytest.raises(ConfigError, match="shoe.url"):
        load_config(p)
    p.write_text("[table\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(p)


def test_run_check_exit_codes(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "station", "run", "--config",
                         str(CONFIG / "table_real.toml"), "--check"], capture_output=True, text=True)
    assert ok.returncode == 0 and "PD-01" in ok.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text("[shoe]\nurl = '/dev/ttyUSB0'\nbaudrate = 'fast'\n")
    r = subprocess.run([sys.executable, "-m", "station", "run", "--config", str(bad)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "shoe.baudrate" in r.stderr
