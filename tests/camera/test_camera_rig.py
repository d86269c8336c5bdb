"""A table seen by several cameras (a rig): the two-camera Si Zhi Dao example meets the sheet's
"Seats" section, the loader refuses a bad rig naming the key, observations of the cameras are
merged, and a camera that stops makes the table's observations stop (the core's camera_lost
then follows, as for a table whose one camera stopped)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace

import cv2
import pytest

from firmware_bridge.camera.layout import LayoutError
from firmware_bridge.camera.merge import ObservationMerger
from firmware_bridge.camera.rig import Rig, load_rig
from firmware_bridge.camera.scene import TableScene
from firmware_bridge.camera.synthetic import SyntheticCamera
from station.cli import main
from station.games.camera_zones import game_zones
from station.live.camera_feed import camera_factory_for
from station.live.config import ConfigError, load_table_camera_config, parse_config
from tests.waiting import wait_for

REPO = Path(__file__).resolve().parents[2]
TWO = REPO / "config" / "camera_sizhidao_two_cameras.toml"
SEATS = [f"S{i}" for i in range(1, 8)]


def test_the_two_camera_example_meets_the_seats_section():
    rig = load_rig(TWO, game_zones)
    assert sorted(rig.zone_names) == SEATS and len(rig.zone_names) == 7  # each seat once
    assert len(rig.cameras) == 2
    for cam in rig.cameras.values():
        lay = cam.layout
        assert lay.mm_per_px <= 0.33 and lay.game == "sizhidao"
        for zone in lay.zones.values():
            x0, y0, x1, y1 = zone.bbox
            assert (x1 - x0) * lay.mm_per_px >= 200 and (y1 - y0) * lay.mm_per_px >= 160
            assert 0 <= x0 and x1 <= lay.width and 0 <= y0 and y1 <= lay.height  # wholly in view


def _rig_files(tmp_path: Path, rig_text: str) -> Path:
    for name in ("camera_sizhidao_right_1440p.toml", "camera_sizhidao_left_1440p.toml"):
        (tmp_path / name).write_text((REPO / "config" / name).read_text("utf-8"), "utf-8")
    path = tmp_path / "rig.toml"
    path.write_text(rig_text, "utf-8")
    return path


@pytest.mark.parametrize(("text", "says"), [
    ('[cameras.right]\nconfig = "camera_sizhidao_right_1440p.toml"\n[cameras.again]\n'
     'config = "camera_sizhidao_right_1440p.toml"\n', "cameras.again.config: zone S1 is also cameras.right's"),
    ('[cameras.right]\nconfig = "nowhere.toml"\n', "cameras.right.config: no file"),
    ('[cameras.right]\nfile = "camera_sizhidao_right_1440p.toml"\n', "cameras.right: unknown key(s) file"),
    ('[rig]\nlost_after_s = 9\n[cameras.right]\nconfig = "camera_sizhidao_right_1440p.toml"\n', "rig.lost_after_s 9"),
    ('[rig]\ngame = "pokdeng"\n[cameras.right]\nconfig = "camera_sizhidao_right_1440p.toml"\n',
     "cameras.right.config: a layout for 'sizhidao', the rig is for 'pokdeng'"),
])
def test_a_bad_rig_is_refused_naming_the_key(tmp_path, text, says):
    with pytest.raises(LayoutError, match=None) as err:
        load_rig(_rig_files(tmp_path, text), game_zones)
    assert says in str(err.value)


def _station_config(tmp_path: Path, layout: Path):
    return parse_config({"table": {"name": "SZ-CAM", "game": "sizhidao"},
                         "camera": {"enabled": True, "layout": str(layout)},
                         "storage": {"dir": str(tmp_path / "var")}}, base_dir=tmp_path)


def test_a_table_takes_a_rig_whose_cameras_together_see_every_seat(tmp_path):
    cfg = _station_config(tmp_path, TWO)
    rig = load_table_camera_config(cfg)
    assert isinstance(rig, Rig) and sorted(rig.zone_names) == SEATS
    only_right = _rig_files(tmp_path, '[cameras.right]\nconfig = "camera_sizhidao_right_1440p.toml"\n')
    with pytest.raises(ConfigError, match="missing S5, S6, S7"):
        load_table_camera_config(_station_config(tmp_path, only_right))


def test_the_merger_passes_one_observation_per_frame_time_and_nothing_while_a_camera_is_lost():
    now = [0.0]
    got: list[tuple[float, dict]] = []
    m = ObservationMerger({"right": ("S1", "S2"), "left": ("S3",)}, lambda t, o: got.append((t, o)),
                          lost_after_s=1.0, clock=lambda: now[0])
    m.update("right", 0.0, {"S1": [], "S2": []})
    assert got == [] and m.lost() == {"left": ("S3",)}  # left not heard from yet
    m.update("left", 0.0, {"S3": []})
    assert got == [(0.0, {"S1": [], "S2": [], "S3": []})]
    now[0] = 0.5
    m.update("right", 0.5, {"S2": ["??"]})
    assert got[-1] == (0.5, {"S2": ["??"]})
    now[0] = 1.6  # left silent for 1.6 s: lost
    m.update("right", 1.6, {"S1": ["??"]})
    m.update("right", 1.8, {})
    assert got[-1] == (0.5, {"S2": ["??"]}) and m.lost() == {"left": ("S3",)} and m.withheld == 3  # and the first, before left was heard
    now[0] = 2.0
    m.update("left", 2.0, {})  # back: what changed meanwhile is passed on
    assert got[-1] == (2.0, {"S1": ["??"]}) and m.lost() == {}
    with pytest.raises(ValueError, match="does not see"):
        m.update("left", 2.1, {"S1": []})


def _frame(layout, scene, seed: int):
    cam = SyntheticCamera(scene, layout, perturbations="clean", seed=seed)
    got = None
    while got is None:
        got = cam.read()
    return got[1]


def test_station_camera_read_reads_each_camera_of_a_rig(tmp_path, capsys):
    rig = load_rig(TWO, game_zones)
    images = []
    for k, (name, cam) in enumerate(rig.cameras.items()):
        zones = tuple(cam.layout.zones)
        scene = TableScene(zones, seed=3, seat_zones=zones)
        for j in range(1 + k):
            scene.deal(zones[0], ["2C", "9H"][j])
        path = tmp_path / f"{name}.png"
        cv2.imwrite(str(path), _frame(cam.layout, scene, 5 + k))
        images.append(f"{name}={path}")
    assert main(["camera", "read", "--config", str(TWO), *images]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["camera"] for x in lines] == ["right", "left"]
    assert lines[0]["zones"] == {"S1": ["??"], "S2": [], "S3": [], "S4": []}
    assert lines[1]["zones"] == {"S5": ["??", "??"], "S6": [], "S7": []}
    assert main(["camera", "read", "--config", str(TWO), str(tmp_path / "right.png")]) == 2
    assert "CAMERA=IMAGE" in capsys.readouterr().err


class _Station:
    def __init__(self) -> None:
        self.settings = SimpleNamespace(table="SZ-CAM")
        self.observations: list[dict] = []
        self.lock = threading.Lock()

    def add_listener(self, fn) -> None:
        pass

    def submit(self, kind: str, payload: dict, wait: bool = False) -> None:
        with self.lock:
            self.observations.append(payload)


def test_a_camera_that_stops_stops_the_tables_observations(tmp_path):
    """The left camera is a folder of four stills that ends; the right one films on. Once the
    left has given nothing for lost_after_s, the table hears nothing (not even a heartbeat):
    the core's camera_lost follows; status names the lost camera and its seats."""
    stills = tmp_path / "left"
    stills.mkdir()
    rig = load_rig(TWO, game_zones)
    left = rig.cameras["left"].layout
    frame = _frame(left, TableScene(tuple(left.zones)), 2)
    for i in range(4):
        cv2.imwrite(str(stills / f"{i}.png"), frame)
    for name in ("camera_sizhidao_right_1440p.toml", "camera_sizhidao_left_1440p.toml"):
        text = (REPO / "config" / name).read_text("utf-8")
        if "left" in name:
            text = text.replace('kind = "synthetic"\nperturbations = "clean"\nfps = 10',
                                f'kind = "folder"\npath = "{stills}"\nfps = 8')
        (tmp_path / name).write_text(text, "utf-8")
    rig_file = tmp_path / "rig.toml"
    rig_file.write_text(TWO.read_text("utf-8"), "utf-8")
    station = _Station()
    feed = camera_factory_for(_station_config(tmp_path, rig_file))(station)
    try:
        first = wait_for(lambda: station.observations[:1], 30, "the rig's first observation")[0]
        assert sorted(first) == SEATS  # one observation naming every seat of both cameras
        wait_for(lambda: feed.status["lost_cameras"] == {"left": ["S5", "S6", "S7"]}, 30,
                 lambda: f"the left camera lost (status {feed.status['lost_cameras']})")
        with station.lock:
            seen = len(station.observations)
        right = feed.rig["right"]
        frames = right.recogniser.frames
        wait_for(lambda: right.recogniser.frames >= frames + 10, 30, "ten more frames of the right camera")
        with station.lock:
            assert len(station.observations) == seen  # nothing passed on while left is lost
        assert "camera left lost: zones S5, S6, S7 not seen" in feed.status["message"]
    finally:
        feed.stop()


def test_the_doctor_checks_each_camera_of_a_rig(tmp_path):
    from station.doctor.camera import check_cameras

    findings = check_cameras(_station_config(tmp_path, TWO))
    names = [f.check for f in findings]
    assert "camera.right" in names and "camera.left" in names, names
    by = {f.check: f for f in findings}
    assert "2560x1440" in by["camera.right"].details and "2560x1440" in by["camera.left"].details
    assert by["camera.right"].verdict == "pass" and by["camera.left"].verdict == "pass", [by[n].details for n in by]
