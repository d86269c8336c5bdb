"""The live camera of a table: it honours its camera config file whole (tuning, source,
calibration) and refuses a zone layout that does not fit the table's game."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from firmware_bridge.camera.sources import ImageFolderSource
from station.cli import main
from station.live.camera_feed import camera_factory_for
from station.live.config import ConfigError, load_table_camera_config, parse_config
from tests.waiting import wait_for

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "config" / "camera_pokdeng_1080p.toml"


class _Station:
    """Stands in for the table station: takes camera observations, has a table name."""

    def __init__(self) -> None:
        self.settings = SimpleNamespace(table="T-CAM")
        self.observations: list[dict] = []
        self.seen = threading.Event()

    def add_listener(self, fn) -> None:
        pass

    def submit(self, kind: str, payload: dict, wait: bool = False) -> None:
        assert kind == "camera"
        self.observations.append(payload)
        self.seen.set()


def _station_config(tmp_path: Path, layout: Path | None, game: str = "pokdeng", **camera) -> object:
    cam = {"enabled": True, **({"layout": str(layout)} if layout else {}), **camera}
    return parse_config({"table": {"name": "T-CAM", "game": game}, "camera": cam,
                         "storage": {"dir": str(tmp_path / "var")}}, base_dir=tmp_path)


def _camera_file(tmp_path: Path, extra: str) -> Path:
    text = SHIPPED.read_text(encoding="utf-8")
    # keep the layout, zones and calibration; drop the shipped [source] and [recogniser]
    head, _, rest = text.partition("[source]")
    _, _, zones = rest.partition("[zones.P1]")
    path = tmp_path / "camera_t.toml"
    path.write_text(head + extra + "\n[zones.P1]" + zones, encoding="utf-8")
    return path


def test_the_live_camera_honours_its_config_files_tuning_and_source(tmp_path, capsys):
    stills = tmp_path / "stills"
    stills.mkdir()
    assert main(["camera", "render", "--out", str(stills / "a.png"), "--seed", "5"]) == 0
    capsys.readouterr()
    for i in range(1, 4):
        shutil.copy(stills / "a.png", stills / f"{'abcd'[i]}.png")
    cam_file = _camera_file(tmp_path, f'''[source]
kind = "folder"
path = "{stills}"
fps = 50

[recogniser]
stable_frames = 1
decoder = "zbar"
heartbeat = 0.2
''')
    cfg = _station_config(tmp_path, cam_file)
    station = _Station()
    feed = camera_factory_for(cfg)(station)
    try:
        rec = feed.watched.recogniser
        assert rec.stable_frames == 1
        assert rec.decoder.name == "zbar"
        assert feed.observer.tracker.heartbeat == 0.2
        assert isinstance(feed.watched.source, ImageFolderSource)
        assert rec.calibration.back is not None  # the file's [calibration.back]
        # with stable_frames = 1 the very first frame gives the first observation
        assert station.seen.wait(10)
        assert set(station.observations[0]) == set(rec.layout.zones)
        wait_for(lambda: feed.observer.frames >= 4, 10,
                 lambda: f"4 frames from the image folder (got {feed.observer.frames})")
        assert feed.status["back_calibrated"] is True and feed.status["message"] is None
    finally:
        feed.stop()


def test_the_station_config_names_the_device_and_the_file_tunes_it(tmp_path):
    cam_file = _camera_file(tmp_path, '[recogniser]\nstable_frames = 2\n')
    cfg = _station_config(tmp_path, cam_file, source="/dev/video97")
    from station.live.camera_feed import camera_source_spec

    cam = load_table_camera_config(cfg)
    assert camera_source_spec(cfg, cam) == "/dev/video97"
    assert cam.stable_frames == 2 and cam.decoder == "auto"


def test_a_camera_file_without_a_back_calibration_is_said_on_status(tmp_path):
    text = SHIPPED.read_text(encoding="utf-8")
    cam_file = tmp_path / "camera_nocal.toml"
    cam_file.write_text(text.split("# Learned by `station camera calibrate`")[0], encoding="utf-8")
    cfg = _station_config(tmp_path, cam_file)
    station = _Station()
    feed = camera_factory_for(cfg)(station)
    try:
        wait_for(lambda: feed.observer.frames >= 2, 10,
                 lambda: f"2 frames from the camera (got {feed.observer.frames})")
        status = feed.status
        assert status["back_calibrated"] is False
        assert "deck back not calibrated" in status["message"]
        from station.live.camera_feed import BACK_CALIBRATED
        from station.metrics import REGISTRY

        assert REGISTRY.find(BACK_CALIBRATED).values  # the console's figure is set
    finally:
        feed.stop()


PAIGOW_ZONES = "BANKER SHUN CHU DAO DICE".split()


def _zones_file(tmp_path: Path, names: list[str], game: str) -> Path:
    lines = [f'[layout]\nname = "t"\ngame = "{game}"\nwidth = 1920\nheight = 1080\n']
    for i, n in enumerate(names):
        x = 10 + i * 200
        lines.append(f"[zones.{n}]\npolygon = [[{x}, 20], [{x + 190}, 20], [{x + 190}, 500], [{x}, 500]]\n")
    p = tmp_path / f"camera_{game}.toml"
    p.write_text("\n".join(lines), encoding="utf-8")
    return p


def _zones_dict(names: list[str], game: str) -> dict:
    """A layout as a game declares its studio layout (a dict as a layout file holds it)."""
    return {"layout": {"name": "t", "game": game, "width": 1920, "height": 1080},
            "zones": {n: {"polygon": [[10 + i * 200, 20], [200 + i * 200, 20], [200 + i * 200, 500],
                                      [10 + i * 200, 500]]} for i, n in enumerate(names)}}


SEVEN_SEATS = _zones_dict([f"S{i}" for i in range(1, 8)], "sizhidao")
SIX_SEATS = _zones_dict([f"S{i}" for i in range(1, 7)], "sizhidao")


def test_a_layout_that_does_not_fit_the_game_is_refused_naming_the_zones(tmp_path):
    paigow = _zones_file(tmp_path, PAIGOW_ZONES, "paigow")
    with pytest.raises(ConfigError) as e:
        _station_config(tmp_path, paigow, game="pokdeng")
    msg = str(e.value)
    assert "missing P1, P2, P3, P4, P5, B, BURN" in msg
    assert "extra BANKER, CHU, DAO, DICE, SHUN" in msg
    extra = _zones_file(tmp_path, ["P1", "P2", "P3", "P4", "P5", "B", "BURN", "P6"], "pokdeng")
    with pytest.raises(ConfigError, match="extra P6") as e:
        _station_config(tmp_path, extra)
    assert "missing" not in str(e.value)
    # a table without a camera takes no layout at all
    cfg = _station_config(tmp_path, paigow, game="pokdeng", enabled=False)
    assert cfg.camera.enabled is False


def test_the_zone_check_is_driven_by_the_games_zone_tuple(tmp_path, monkeypatch):
    import station.games
    from station.games.sizhidao.rules import SiZhiDao as Rules

    class SiZhiDao(Rules):  # the game's rules, with the zone tuple under test
        zones = tuple(f"S{i}" for i in range(1, 8))

    monkeypatch.setitem(station.games.GAMES, "sizhidao", SiZhiDao)
    fits = _zones_file(tmp_path, [f"S{i}" for i in range(1, 8)], "sizhidao")
    cfg = SimpleNamespace(camera=SimpleNamespace(layout=str(fits)), table=SimpleNamespace(game="sizhidao"))
    assert set(load_table_camera_config(cfg).layout.zones) == set(SiZhiDao.zones)
    short = _zones_file(tmp_path, [f"S{i}" for i in range(1, 7)], "sizhidao")
    cfg.camera.layout = str(short)
    with pytest.raises(ConfigError, match="missing S7"):
        load_table_camera_config(cfg)
    # no layout file: the game's studio layout; this game declares none, so a file is needed
    cfg.camera.layout = None
    with pytest.raises(ConfigError, match="a sizhidao table's game declares no studio camera layout"):
        load_table_camera_config(cfg)
    # a game that declares one is filmed on it, its zones checked like a file's
    monkeypatch.setattr(SiZhiDao, "camera_layout", "tests.camera.test_camera_wiring:SEVEN_SEATS",
                        raising=False)
    assert set(load_table_camera_config(cfg).layout.zones) == set(SiZhiDao.zones)
    monkeypatch.setattr(SiZhiDao, "camera_layout", "tests.camera.test_camera_wiring:SIX_SEATS")
    with pytest.raises(ConfigError, match="the given layout 't'.*missing S7"):
        load_table_camera_config(cfg)
