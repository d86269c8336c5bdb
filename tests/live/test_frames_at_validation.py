"""The camera keeps its frame, with the zones drawn, at each validation its table's game
declares (`Procedure.frame_records`): a Pok Deng or Pai Gow hand (`<round id>.png`), each
deal's showdown at a Si Zhi Dao table (`<deal id>.png`, part of its game's evidence pack).
A real synthetic camera frame of the Si Zhi Dao layout, the records of a recorded session
with a tied game."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from firmware_bridge.camera.build import build_recogniser
from firmware_bridge.camera.scene import TableScene
from firmware_bridge.camera.sources import open_source
from station.core.inputs import read_trace
from station.core.replay import replay_records, settings_from_header
from station.games import get_game
from station.live.camera_feed import CameraFeed, camera_source_spec
from station.live.config import load_table_camera_config, parse_config
from station.live.table_station import TableStation

REPO = Path(__file__).resolve().parents[2]
TRACE = REPO / "tests" / "data" / "traces-sizhidao" / "tie_once" / "trace.jsonl"


def test_each_showdown_of_a_pot_game_keeps_its_frame_with_the_zones_drawn(tmp_path):
    header, _ = read_trace(TRACE)
    station = TableStation(settings_from_header(header), tmp_path / "journal.sqlite")
    cfg = parse_config({"table": {"name": header.table, "game": "sizhidao"},
                        "storage": {"dir": str(tmp_path)},
                        "camera": {"enabled": True,
                                   "layout": str(REPO / "config" / "camera_sizhidao_1080p.toml")}})
    cam = load_table_camera_config(cfg)
    zones = list(get_game("sizhidao").zones)
    source = open_source(camera_source_spec(cfg, cam), layout=cam.layout,
                         scene=TableScene(zones, seed=3, seat_zones=zones))
    frames = tmp_path / "frames"
    feed = CameraFeed(station, source, build_recogniser(cam), frames_dir=frames)
    try:
        assert feed.watched.read() is not None  # one real frame of the table
        raw = feed.watched.last_frame.copy()
        records = replay_records(TRACE)
        feed._on_records(records)  # as the station hands them on after each commit
    finally:
        source.close()
        station.journal.close()
    deals = [r["deal_id"] for r in records if r["type"] == "showdown"]
    assert deals == ["SZ-01-G1-D1", "SZ-01-G1-D2", "SZ-01-G2-D1"]
    assert sorted(p.name for p in frames.iterdir()) == [f"{d}.png" for d in deals]
    kept = cv2.imread(str(frames / f"{deals[0]}.png"))
    assert kept.shape == raw.shape
    assert not np.array_equal(kept, raw), "the zones are drawn on the kept frame"
