"""A running station with a synthetic camera and a copy of the Pok Deng camera config, for
the table setup tests: a technician and a dealer, a face-up 7H in P2 and nothing in P1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from firmware_bridge.camera import TableScene
from firmware_bridge.camera.config import load_camera_config
from station.console import UserStore
from station.live.camera_feed import camera_factory_for
from station.live.config import parse_config
from station.live.journal_key import make_key_file
from station.runtime import start_runtime
from tests.waiting import wait_for

REPO = Path(__file__).resolve().parents[2]
PASSWORD = {"tech1": "tech-pass-1", "dealer1": "dealer-pass-1"}


@pytest.fixture
def setup_table(tmp_path):
    camera = tmp_path / "camera_pd07.toml"
    shutil.copy(REPO / "config" / "camera_pokdeng_1080p.toml", camera)
    cfg = parse_config({"table": {"name": "PD-07"}, "storage": {"dir": str(tmp_path / "var")},
                        "camera": {"enabled": True, "source": "synthetic", "layout": str(camera),
                                   "fps": 10},
                        "console": {"port": 0},
                        "journal": {"signing_key_file": str(make_key_file(tmp_path / "PD-07.key"))}},
                       base_dir=tmp_path)
    scene = TableScene(load_camera_config(camera).layout.zone_names, seed=4)
    scene.deal("P2", "7H", face_up=True)  # a face-up card in P2, nothing in P1
    users = UserStore(tmp_path / "users.sqlite")
    for name, role in (("tech1", "technician"), ("dealer1", "dealer")):
        users.add(name, role, PASSWORD[name])
    rt = start_runtime(cfg, camera_factory=camera_factory_for(cfg, scene), users=users,
                       console_secret="setup-test-secret", with_bet_api=False)
    try:
        wait_for(lambda: rt.camera.readings.get("P2") == ("7H",), 60,
                 lambda: f"the camera to read P2 (readings {rt.camera.readings})")
        yield rt, camera, scene
    finally:
        rt.stop()


