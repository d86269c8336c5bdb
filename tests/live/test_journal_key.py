"""The journal's signing key never lives beside the journal, and nothing takes one from there.

A station starts only with its key named on purpose: the variable `[journal]
signing_key_env` names, or a key file `[journal] signing_key_file` names outside
storage.dir, private to its user. Without either it does not start (and `station run`
says why, exit 2), whatever lies in storage.dir. `station journal verify` and `station
dispute` take the key they are given and say which on standard error; a key file left beside
the journal is pointed out, never used. `station doctor` says where the station's key
comes from, or that the station will not start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from station.core import chain
from station.doctor.key import check_journal_key
from station.live.config import ConfigError, parse_config
from station.live.journal_key import KEY_FILE, make_key_file
from station.runtime import start_runtime

ENV = "STATION_JOURNAL_KEY"


def _config(tmp_path: Path, **journal: str):
    return parse_config({"table": {"name": "PD-07"}, "storage": {"dir": str(tmp_path / "var")},
                         "shoe": {"url": "loop://"}, "camera": {"enabled": False},
                         "recording": {"traces": False}, "journal": journal},
                        source="test", base_dir=tmp_path)


def _cli(*args: str, env_key: str | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin"}
    if env_key is not None:
        env[ENV] = env_key
    return subprocess.run([sys.executable, "-m", "station", *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_a_station_without_its_key_does_not_start_whatever_lies_beside_the_journal(
        tmp_path, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    cfg = _config(tmp_path)
    with pytest.raises(ConfigError, match=r"no journal signing key: set \$STATION_JOURNAL_KEY"):
        start_runtime(cfg, with_console=False, with_bet_api=False)
    assert not (cfg.data_dir / "journal.sqlite").exists()
    assert not (cfg.data_dir / KEY_FILE).exists(), "the station made itself a key beside the journal"
    # a key file in storage.dir (as earlier station versions made) is pointed out, not taken
    cfg.data_dir.mkdir(parents=True)
    (cfg.data_dir / KEY_FILE).write_text("a" * 64 + "\n")
    os.chmod(cfg.data_dir / KEY_FILE, 0o600)
    with pytest.raises(ConfigError, match="lies beside the journal and is not used"):
        start_runtime(cfg, with_console=False, with_bet_api=False)
    assert not (cfg.data_dir / "journal.sqlite").exists()
    # `station run` says the same and exits 2
    toml = tmp_path / "table.toml"
    toml.write_text(f'[table]\nname = "PD-07"\n[storage]\ndir = "{cfg.data_dir}"\n'
                    f'[shoe]\nurl = "loop://"\n[camera]\nenabled = false\n')
    p = _cli("run", "--config", str(toml))
    assert p.returncode == 2 and "no journal signing key" in p.stderr, p.stderr


def test_a_key_file_must_lie_outside_storage_dir_and_be_private(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    inside = make_key_file(tmp_path / "var" / "keys" / "PD-07.key")
    with pytest.raises(ConfigError, match="lies inside storage.dir"):
        _config(tmp_path, signing_key_file=str(inside))
    with pytest.raises(ConfigError, match="lies inside storage.dir"):
        _config(tmp_path, signing_key_file="var/keys/PD-07.key")  # relative to the config
    # a configuration built in code is held to the same at start
    cfg = _config(tmp_path)
    cfg.signing_key_file = inside
    with pytest.raises(ConfigError, match="lies inside storage.dir"):
        start_runtime(cfg, with_console=False, with_bet_api=False)
    readable = tmp_path / "keys" / "PD-07.key"
    readable.parent.mkdir()
    readable.write_text("b" * 64 + "\n")
    os.chmod(readable, 0o644)
    cfg = _config(tmp_path, signing_key_file=str(readable))
    with pytest.raises(ConfigError, match="other users may read"):
        start_runtime(cfg, with_console=False, with_bet_api=False)
    missing = _config(tmp_path, signing_key_file=str(tmp_path / "keys" / "none.key"))
    with pytest.raises(ConfigError, match="no such key file"):
        start_runtime(missing, with_console=False, with_bet_api=False)


def test_the_station_signs_with_the_named_key_and_verify_says_which_key_it_used(
        tmp_path, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    key_file = make_key_file(tmp_path / "keys" / "PD-07.key")
    cfg = _config(tmp_path, signing_key_file=str(key_file))
    rt = start_runtime(cfg, with_console=False, with_bet_api=False)
    try:
        rt.station.submit("wallet", {"account": "u1", "balance": 500})
    finally:
        rt.stop()
    journal = str(cfg.journal_path)
    key = key_file.read_text().strip()
    p = _cli("journal", "verify", journal, "--key-file", str(key_file))
    assert p.returncode == 0, p.stderr
    line = json.loads(p.stdout)
    assert set(line) == {"ok", "entries", "checkpoints", "first_bad"}
    assert line["ok"] is True and line["entries"] >= 1 and line["checkpoints"] >= 2
    assert p.stdout.count("\n") == 1
    assert f"checkpoints checked with the key from the key file {key_file}" in p.stderr
    p = _cli("journal", "verify", journal, env_key=key)
    assert p.returncode == 0 and f"with the key from ${ENV}" in p.stderr, p.stderr
    # the key copied beside the journal: still never taken without being named
    (cfg.data_dir / KEY_FILE).write_text(key + "\n")
    p = _cli("journal", "verify", journal)
    assert p.returncode == 2 and p.stdout == "", p.stdout
    assert "no signing key" in p.stderr and "nothing was judged" in p.stderr
    assert "lies beside the journal and is not used" in p.stderr
    p = _cli("journal", "verify", journal, "--key-env", "PD07_KEY")
    assert p.returncode == 2 and "$PD07_KEY" in p.stderr
    # another key: named as the one used, and the checkpoints fail under it
    p = _cli("journal", "verify", journal, env_key="c" * 64)
    assert p.returncode == 1 and "signature" in json.loads(p.stdout)["first_bad"]["why"]
    assert f"with the key from ${ENV}" in p.stderr


def test_the_doctor_says_where_the_key_comes_from_or_that_the_station_will_not_start(
        tmp_path, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    f = check_journal_key(_config(tmp_path))
    assert f.verdict == "fail" and "the station will not start" in f.details
    assert "signing_key_file" in f.action
    key_file = make_key_file(tmp_path / "keys" / "PD-07.key")
    ok = check_journal_key(_config(tmp_path, signing_key_file=str(key_file)))
    assert ok.verdict == "pass" and str(key_file) in ok.details
    assert key_file.read_text().strip() not in json.dumps(ok.as_dict())  # never the key
    os.chmod(key_file, 0o640)
    bad = check_journal_key(_config(tmp_path, signing_key_file=str(key_file)))
    assert bad.verdict == "fail" and "chmod 600" in bad.details
    monkeypatch.setenv(ENV, "d" * 64)
    cfg = _config(tmp_path)
    assert check_journal_key(cfg).verdict == "pass"
    assert check_journal_key(cfg).data["source"] == f"${ENV}"
    monkeypatch.setenv(ENV, "short")
    assert "at least" in check_journal_key(cfg).details
    monkeypatch.setenv(ENV, "d" * 64)
    cfg.data_dir.mkdir(parents=True)
    (cfg.data_dir / KEY_FILE).write_text("e" * 64)
    stray = check_journal_key(cfg)
    assert stray.verdict == "fail" and "lies beside the journal" in stray.details


def test_demos_name_their_key_file_beside_their_storage_dir_not_in_it(tmp_path):
    from station.live.journal_key import demo_key_file

    data = tmp_path / "demo-PD-01"
    first = demo_key_file(data)
    assert first == tmp_path / "demo-PD-01.journal_key" and oct(first.stat().st_mode & 0o777) == "0o600"
    assert demo_key_file(data).read_bytes() == first.read_bytes()  # kept across restarts
    assert len(chain.parse_key(first.read_bytes(), str(first))) == 64
