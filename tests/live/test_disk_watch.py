"""The disk under storage.dir: frames and traces pruned after `retention_days` (never the
journal, the ledger, users or audit), free space as a metric and in the table's view, a
warning below `free_warn_mb`, and `new_shoe` refused below `free_floor_mb` with a reason the
dealer sees — nothing journaled for it — while a shoe starts as usual above it."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from station.core.settings import TableSettings
from station.live.config import ConfigError, parse_config
from station.live.disk import DAY_S, MB, DiskLimits, DiskWatch
from station.live.table_station import TableStation
from station.metrics import REGISTRY
from tests.waiting import wait_for


def _aged(path: Path, days: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * 100)
    t = time.time() - days * DAY_S
    os.utime(path, (t, t))
    return path


def test_old_frames_and_traces_are_pruned_and_nothing_else(tmp_path):
    old = [_aged(tmp_path / "frames" / "PD-01-S1-R1.png", 40),
           _aged(tmp_path / "traces" / "PD-01-S1-20260101-000000.jsonl", 40),
           _aged(tmp_path / "traces" / "PD-01-S2-20260102-000000.jsonl.gz", 31)]
    kept = [_aged(tmp_path / "frames" / "PD-01-S9-R1.png", 5),
            _aged(tmp_path / "traces" / "PD-01-S9-20261201-000000.jsonl", 29),
            _aged(tmp_path / "journal.sqlite", 400), _aged(tmp_path / "ledger.sqlite", 400),
            _aged(tmp_path / "console_audit.sqlite", 400), _aged(tmp_path / "users.sqlite", 400),
            _aged(tmp_path / "frames" / "notes.txt", 400)]
    watch = DiskWatch(tmp_path, "PD-01", DiskLimits(retention_days=30))
    assert sorted(watch.prune()) == sorted(old)
    assert not any(p.exists() for p in old) and all(p.exists() for p in kept)
    assert watch.prune() == []


def test_free_space_is_a_metric_and_in_the_view_and_warns_when_low(tmp_path, caplog):
    st = os.statvfs(tmp_path)
    free = st.f_bavail * st.f_frsize
    watch = DiskWatch(tmp_path, "PD-07", DiskLimits(free_warn_mb=free // MB + 10_000,
                                                     free_floor_mb=0))
    station = TableStation(TableSettings(table="PD-07"), tmp_path / "journal.sqlite")
    station.disk = watch
    station.start()
    try:
        disk = station.view["disk"]
        # the filesystem is shared: others write while the test reads, so within 64 MB
        assert abs(disk["free_bytes"] - free) < 64 * MB and disk["low"] and not disk["below_floor"]
        gauge = REGISTRY.find("station_disk_free_bytes")
        assert gauge is not None and abs(gauge.get(table="PD-07") - free) < 64 * MB
        assert 'station_disk_free_bytes{table="PD-07"}' in REGISTRY.render()
        assert any("below the warning level" in r.message for r in caplog.records)
    finally:
        station.stop()


def test_new_shoe_is_refused_below_the_floor_and_taken_above_it(tmp_path):
    station = TableStation(TableSettings(table="PD-08"), tmp_path / "journal.sqlite")
    station.start()
    try:
        huge = os.statvfs(tmp_path).f_blocks * os.statvfs(tmp_path).f_frsize // MB + 1
        station.disk = DiskWatch(tmp_path, "PD-08", DiskLimits(free_warn_mb=huge, free_floor_mb=huge))
        records = station.submit("dealer", "new_shoe")
        assert [r["type"] for r in records] == ["action_refused"]
        assert "MB free" in records[0]["reason"] and "new shoe" in records[0]["reason"]
        assert station.view["state"] == "idle"
        conn = sqlite3.connect(tmp_path / "journal.sqlite")
        try:
            lines = [line for (line,) in conn.execute("SELECT line FROM inputs")]
        finally:
            conn.close()
        assert not any("new_shoe" in line for line in lines)
        station.disk = DiskWatch(tmp_path, "PD-08", DiskLimits(free_warn_mb=0, free_floor_mb=0))
        records = station.submit("dealer", "new_shoe")
        assert [r["type"] for r in records] == ["shoe_start"]
        wait_for(lambda: station.view["state"] == "shuffling", 10, "the shoe to start")
    finally:
        station.stop()


def test_storage_limits_are_configured_and_checked():
    cfg = parse_config({"storage": {"retention_days": 14, "free_warn_mb": 4096,
                                    "free_floor_mb": 1024}})
    assert cfg.disk == DiskLimits(14.0, 4096, 1024)
    with pytest.raises(ConfigError, match="free_floor_mb"):
        parse_config({"storage": {"free_warn_mb": 100, "free_floor_mb": 200}})
    with pytest.raises(ConfigError, match="retention_days"):
        parse_config({"storage": {"retention_days": 0}})
    with pytest.raises(ConfigError, match="checkpoint_every"):
        parse_config({"journal": {"checkpoint_every": 0}})
    assert parse_config({"journal": {"signing_key_env": "PD01_KEY"}}).signing_key_env == "PD01_KEY"


def test_a_configured_frames_dir_is_pruned_where_it_is(tmp_path):
    """`[camera] frames_dir` outside storage.dir: retention prunes the frames there (the
    station's own pruning, as started with the table), and nothing of storage.dir's."""
    from station.live.journal_key import make_key_file
    from station.runtime import start_runtime

    frames = tmp_path / "camera-frames"
    old = _aged(frames / "PD-09-S1-R1.png", 40)
    recent = _aged(frames / "PD-09-S9-R1.png", 2)
    cfg = parse_config({"table": {"name": "PD-09"}, "storage": {"dir": "var", "retention_days": 30},
                        "shoe": {"url": "loop://"},
                        "camera": {"enabled": False, "frames_dir": "camera-frames"},
                        "recording": {"traces": False},
                        "journal": {"signing_key_file": str(make_key_file(tmp_path / "PD-09.key"))}},
                       source="test", base_dir=tmp_path)
    assert cfg.frames_path == frames  # relative to the configuration, like storage.dir
    beside = _aged(cfg.data_dir / "frames" / "PD-09-S2-R1.png", 40)
    rt = start_runtime(cfg, with_console=False, with_bet_api=False)
    try:
        wait_for(lambda: not old.exists(), 10, "the configured frames folder to be pruned")
    finally:
        rt.stop()
    assert recent.exists()
    # storage.dir/frames is not where this table keeps its frames: not its to prune
    assert beside.exists()
