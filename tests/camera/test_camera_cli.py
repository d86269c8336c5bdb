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
    assert "[layout] game is missing" in capsys.readouterr().err  # no game is assumed
    bad.write_text('[layout]\ngame = "pokdeng"\nwidth = 1920\nheight = 1080\n[zones.P1]\n'
                   'polygon = [[0,0],[10,0],[0,10]]\n')
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


def test_read_help_explains_the_output(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["camera", "read", "--help"])
    text = capsys.readouterr().out
    for words in ("null", "order within a zone carries no meaning", "cut_card", "ms", "XX", "??"):
        assert words in text


def test_calibrate_a_new_deck_from_stills_then_read_it(tmp_path, capsys):
    cfg = tmp_path / "camera_t7.toml"
    # the shipped config without its calibration: a table with a new deck set
    cfg.write_text(Path(CONFIG).read_text().split("# Learned by `station camera calibrate`")[0])
    felt, back, table = (str(tmp_path / n) for n in ("felt.png", "back.png", "table.png"))
    assert main(["camera", "render", "--style", "crest", "--empty", "--perturbations", "noise", "--out", felt]) == 0
    assert main(["camera", "render", "--style", "crest", "--backs", "3", "--perturbations", "noise", "--out", back]) == 0
    assert main(["camera", "render", "--style", "crest", "--seed", "21", "--out", table]) == 0
    truth = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert main(["camera", "read", "--config", str(cfg), table]) == 0
    before = json.loads(capsys.readouterr().out)
    assert "deck back not calibrated" in before["camera_status"]
    assert main(["camera", "calibrate", "--config", str(cfg), "--felt", felt, "--back", back]) == 0
    learned = json.loads(capsys.readouterr().out)
    assert learned["written"] is True and learned["back"]["cards"] == 3
    assert "patterned back" in learned["back_description"]
    text = cfg.read_text()
    assert "[calibration.back]" in text and "[zones.BURN]" in text and "[recogniser]" in text
    assert main(["camera", "read", "--config", str(cfg), table]) == 0
    after = json.loads(capsys.readouterr().out)
    assert {z: sorted(v) for z, v in after["zones"].items()} == {z: sorted(v) for z, v in truth["zones"].items()}
    assert "camera_status" not in after and after["ms"] > 0
    # calibrating again replaces the calibration, it does not add a second one
    assert main(["camera", "calibrate", "--config", str(cfg), "--felt", felt, "--back", back]) == 0
    assert cfg.read_text().count("[calibration.back]") == 1
    # a still of the empty felt is no back
    capsys.readouterr()
    assert main(["camera", "calibrate", "--config", str(cfg), "--felt", felt, "--back", felt]) == 2
    assert "no face-down card" in capsys.readouterr().err


def test_snapshot_prints_the_felt_the_back_and_zone_timings(tmp_path, capsys):
    out = tmp_path / "snap.png"
    assert main(["camera", "snapshot", "--config", CONFIG, "--out", str(out), "--frames", "3", "--raw"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["felt_calibrated_bgr"] == [40, 112, 34]
    assert all(abs(a - b) < 12 for a, b in zip(info["felt_measured_bgr"], info["felt_calibrated_bgr"], strict=True))
    assert "back" in info["back"] and info["camera_status"] is None
    assert set(info["zone_ms"]) == {"P1", "P2", "P3", "P4", "P5", "B", "BURN"}
    # --raw: the frame as the camera gave it, no zone outline drawn at the P1 corner
    b, g, r = (int(v) for v in cv2.imread(str(out))[16, 100])
    assert not (r > 200 and g > 150 and b < 80)


def test_read_reads_a_pai_gow_tray_with_the_dice_reader(tmp_path, capsys):
    """`read` builds the recogniser as the live camera does: the dice tray goes to the dice
    reader (it used to read [] whatever lay there)."""
    from firmware_bridge.camera.build import build_recogniser
    from firmware_bridge.camera.config import load_camera_config
    from firmware_bridge.camera.scene import TableScene
    from firmware_bridge.camera.synthetic import SyntheticCamera
    from station.games.camera_zones import game_zones

    paigow = str(REPO / "config" / "camera_paigow_1080p.toml")
    cam = load_camera_config(paigow, game_zones)
    scene = TableScene(cam.layout.zone_names, zone_kinds=cam.layout.zone_kinds, seed=3)
    scene.throw_dice([6, 4])
    scene.deal("SHUN", "QH", face_up=True)
    camera = SyntheticCamera(scene, cam.layout, perturbations="clean", seed=3)
    got = None
    while got is None:
        got = camera.read()
    img = tmp_path / "paigow.png"
    cv2.imwrite(str(img), got[1])
    assert main(["camera", "read", "--config", paigow, str(img)]) == 0
    line = json.loads(capsys.readouterr().out)
    assert sorted(line["zones"]["DICE"]) == [4, 6]
    assert line["zones"]["SHUN"] == ["QH"]
    # the same reading as the live camera's recogniser makes of the same frame
    live, _ = build_recogniser(cam).read_still(got[1])
    assert line["zones"] == live


def test_read_help_says_which_reader_reads_each_zone_kind(capsys):
    import pytest

    with pytest.raises(SystemExit):
        main(["camera", "read", "--help"])
    text = capsys.readouterr().out
    assert "cards  the card reader" in text and "dice   the dice reader" in text
