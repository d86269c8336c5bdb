"""`station camera read / render / snapshot` as the studio engineer runs them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from station.cli import main

REPO = Path(__file__).resolve().parents[2]
CONFIG = str(REPO / "config" / "camera_pokdeng_1080p.toml")


def test_render_then_read_gives_the_truth(tmp_path, capsys):
    img = tmp_path / "table.png"
    assert main(["camera", "render", "--out", str(img), "--seed", "5", "--config", CONFIG]) == 0
    truth = json.loads(capsys.readouterr().out)
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"nope")
    assert main(["camera", "read", "--config", CONFIG, str(img), str(bad)]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[0]["image"] == str(img)
    assert {z: sorted(v) for z, v in lines[0]["zones"].items()} == {z: sorted(v) for z, v in truth["zones"].items()}
    assert lines[0]["cut_card"] == truth["cut_card"]
    assert lines[1] == {"image": str(bad), "error": "not an image OpenCV can read"}


def test_snapshot_draws_zones_on_the_frame(tmp_path, capsys):
    out = tmp_path / "snap.png"
    assert main(["camera", "snapshot", "--config", CONFIG, "--out", str(out), "--frames", "4"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["zones"] == {z: [] for z in ("P1", "P2", "P3", "P4", "P5", "B", "BURN")}
    img = cv2.imread(str(out))
    assert img.shape == (1080, 1920, 3)
    # the zone outline is drawn in amber at the P1 corner
    b, g, r = (int(v) for v in img[16, 100])
    assert r > 200 and g > 150 and b < 80


def test_bad_config_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "camera.toml"
    bad.write_text('[layout]\nwidth = 1920\nheight = 1080\n[zones.P1]\npolygon = [[0,0],[10,0],[0,10]]\n')
    assert main(["camera", "read", "--config", str(bad), "x.png"]) == 2
    assert "needs zones" in capsys.readouterr().err


def test_snapshot_of_a_single_still_shows_its_reading(tmp_path, capsys):
    folder = tmp_path / "stills"
    folder.mkdir()
    assert main(["camera", "render", "--out", str(folder / "a.png"), "--seed", "9", "--perturbations", "dim"]) == 0
    truth = json.loads(capsys.readouterr().out)
    out = tmp_path / "snap.png"
    assert main(["camera", "snapshot", "--source", str(folder), "--out", str(out)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert {z: sorted(v) for z, v in info["zones"].items()} == {z: sorted(v) for z, v in truth["zones"].items()}
    assert out.exists()


def test_snapshot_of_a_missing_camera_fails_clearly(tmp_path, capsys):
    assert main(["camera", "snapshot", "--source", "/dev/video97", "--out", str(tmp_path / "x.png")]) == 2
    assert "cannot open camera device" in capsys.readouterr().err
