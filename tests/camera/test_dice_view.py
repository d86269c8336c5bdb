"""The camera's view of the dice tray, learned at calibration (docs/camera.md, "Calibrating the
dice tray"), on the synthetic camera's trays (firmware_bridge/camera/dice_render.py) with one
camera per table: its foot fixed 150-900 mm from the tray's centre or straight above it, 1.7-1.9
m up, over a rim 20 mm high.

- `calibrate_dice` fits where the camera looks from on stills of two dice: a die's top face is
  seen shifted from its foot away from the point straight below the camera, by the dice's
  height over the camera's, so its side strips show on the near side. The fit predicts that
  shift over the tray to about a pixel.
- With it the reader knows the near side of every die, even one whose own strip a wall hides:
  a die under the wall on that side is `0`.
- Seen from straight above there is no near side: a whole die against the rim stays named.
- The view goes to the camera config's `[calibration.dice]` and from there to the reader.
"""

from __future__ import annotations

import math
import random
import tomllib
from dataclasses import replace

import numpy as np
import pytest

from firmware_bridge.camera.dice import _NEAR_LEAST, CameraView, DiceReader
from firmware_bridge.camera.dice_calibration import (
    DiceCalibration,
    best_runs,
    calibrate_dice,
    dice_calibration_from_dict,
    fit_view,
    write_dice_calibration,
)
from firmware_bridge.camera.dice_render import DICE_STRESS_PRESETS, DicePerturbations, render_tray
from firmware_bridge.camera.layout import LayoutError

NOMINAL_MM_PER_PX = 0.30
DIE_HEIGHT_MM = 16.0


def _still(foot_mm: tuple[float, float], camera_mm: float) -> DicePerturbations:
    """Stills of one table: two dice apart, a rim 20 mm high, the camera's foot and height fixed."""
    return DicePerturbations(noise_sigma=2.0, wall_mm=(20.0, 20.0), camera_foot_mm=foot_mm,
                             camera_mm=(camera_mm, camera_mm), mm_per_px=(0.30, 0.30), light_floor_rate=0.0)


def _table(seed: int, foot_mm: tuple[float, float], camera_mm: float, stills: int = 3) -> tuple[DiceCalibration, tuple[int, int]]:
    crops = [render_tray(random.Random(seed * 10 + i), [5, 2], _still(foot_mm, camera_mm)).image for i in range(stills)]
    h, w = crops[0].shape[:2]
    return calibrate_dice(crops, 16.0 / NOMINAL_MM_PER_PX), (w, h)


def _true_shift_px(foot_mm, camera_mm, size, x: float, y: float) -> np.ndarray:
    """The renderer's own geometry: the top face seen pushed away from the camera's foot by
    the die's height over the camera's (the zone's picture is centred on the tray)."""
    w, h = size
    nadir = np.array([w / 2 + foot_mm[0] / NOMINAL_MM_PER_PX, h / 2 + foot_mm[1] / NOMINAL_MM_PER_PX])
    return DIE_HEIGHT_MM / camera_mm * (np.array([x, y]) - nadir)


#: (seed, camera's foot from the tray's centre in mm, its height in mm): off axis in four directions
OFF_AXIS_TABLES = [
    (0, (-280.0, -606.0), 1780.0),
    (1, (769.0, 300.0), 1850.0),
    (2, (-403.0, 293.0), 1745.0),
    (5, (491.0, -261.0), 1810.0),
]


@pytest.mark.parametrize(("seed", "foot_mm", "camera_mm"), OFF_AXIS_TABLES)
def test_the_calibration_finds_where_the_camera_looks_from(seed, foot_mm, camera_mm):
    cal, size = _table(seed, foot_mm, camera_mm)
    assert cal.view is not None and cal.view.strips >= 4, cal
    w, h = size
    for x, y in ((0.15 * w, 0.5 * h), (0.85 * w, 0.5 * h), (0.5 * w, 0.15 * h), (0.5 * w, 0.85 * h)):
        want = _true_shift_px(foot_mm, camera_mm, size, x, y)
        got = np.array(cal.view.shift_px(x, y))
        # the shift (13-25 px here) to within 1.5 px: a strip's width to a fraction of a millimetre
        assert np.hypot(*(got - want)) <= 1.5, (x, y, got, want)
    # the nadir's side of the tray: its direction from the tray's centre within 10 degrees
    nadir = np.array([cal.view.nadir_x_px - w / 2, cal.view.nadir_y_px - h / 2])
    turn = math.degrees(math.atan2(nadir[1], nadir[0]) - math.atan2(foot_mm[1], foot_mm[0]))
    assert abs((turn + 180) % 360 - 180) <= 10, (nadir, foot_mm)


def test_a_camera_straight_above_shows_no_strip():
    cal, size = _table(7, (10.0, -5.0), 1800.0)
    assert cal.view is not None
    w, h = size
    for x, y in ((0.2 * w, 0.25 * h), (0.8 * w, 0.75 * h), (0.5 * w, 0.5 * h)):
        got = np.array(cal.view.shift_px(x, y))
        assert np.hypot(*(got - _true_shift_px((10.0, -5.0), 1800.0, size, x, y))) <= 1.0
        # under the least strip the reader holds a side to, anywhere in the tray
        assert np.hypot(*got) < _NEAR_LEAST * cal.die_px, (x, y, got)


def test_the_fit_leaves_out_a_die_that_disagrees_and_needs_three():
    truth = CameraView(-900.0, 1200.0, 0.009)
    pts = [(60.0, 50.0), (400.0, 60.0), (250.0, 190.0), (120.0, 170.0)]
    strips = [(p, truth.shift_px(*p)) for p in pts]
    strips[2] = (pts[2], (0.0, 0.0))  # a die against another: its strip not measured right
    view = fit_view(strips, 53.0)
    assert view is not None and view.strips == 3
    for p in pts:
        assert np.hypot(*(np.array(view.shift_px(*p)) - truth.shift_px(*p))) < 0.5
    assert fit_view(strips[:2], 53.0) is None


def test_the_view_is_kept_in_the_camera_config(tmp_path):
    cal = DiceCalibration(53.1, 4, 50.0, 56.0, CameraView(-812.35, 1430.5, 0.0091234, 4))
    again = dice_calibration_from_dict(cal.as_dict())
    assert again is not None and again.view is not None
    assert again.view.nadir_x_px == pytest.approx(-812.4) and again.view.strip_per_px == pytest.approx(0.009123)
    # an old config (die_px only): no view, the reader as before
    old = dice_calibration_from_dict({"die_px": 53.1, "dice": 4, "low_px": 50.0, "high_px": 56.0})
    assert old is not None and old.view is None
    # written into the camera config's [calibration.dice] and read back from it
    config = tmp_path / "camera.toml"
    config.write_text("[dice]\ndie_mm = 16.0\n", encoding="utf-8")
    write_dice_calibration(config, cal)
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert data["dice"]["die_mm"] == 16.0
    read = dice_calibration_from_dict(data["calibration"]["dice"])
    assert read is not None and read.view == again.view


@pytest.mark.parametrize("edit, says", [
    ({"strip_per_px": None}, "strip_per_px missing"),  # a partial view is never dropped quietly
    ({"strip_per_pixel": 0.009}, "unknown key"),  # nor a misspelt one
    ({"strip_per_px": float("nan")}, "a finite number"),
    ({"nadir_x_px": float("inf")}, "a finite number"),
    ({"strip_per_px": True}, "a finite number"),
    ({"strip_per_px": -0.009}, "more than 0"),
    ({"strip_per_px": 0.5}, "at most"),
    ({"nadir_x_px": -5.0e6}, "wider than"),
    ({"strips": -1}, "a count"),
])
def test_a_view_edited_wrong_is_refused_with_what_is_wrong(edit, says):
    good = DiceCalibration(53.1, 4, 50.0, 56.0, CameraView(-812.35, 1430.5, 0.0091234, 4)).as_dict()
    data = {**good, **edit}
    data = {k: v for k, v in data.items() if v is not None}
    with pytest.raises(LayoutError, match=says):
        dice_calibration_from_dict(data, source="camera.toml")


#: one off-axis table (the camera's foot 510 mm from the tray's centre, 1.81 m up) and throws of
#: the `hidden` class on it under a dark wall, one die against a wall
DARK_WALLS = replace(DICE_STRESS_PRESETS["hidden"], pale_rim_rate=0.0, mm_per_px=(0.30, 0.30))
OFF_AXIS = (5, (418.6, -295.4), 1807.5)


@pytest.fixture(scope="module")
def off_axis():
    seed, foot_mm, camera_mm = OFF_AXIS
    cal, _ = _table(seed, foot_mm, camera_mm)
    assert cal.view is not None
    throws = replace(DARK_WALLS, camera_foot_mm=foot_mm, camera_mm=(camera_mm, camera_mm))
    return cal, throws


def test_a_die_under_the_near_wall_is_zero_with_the_view(off_axis):
    """A strip of 0.2-0.5 mm of the top face under a dark wall on the camera's side (3-7 mm²)
    is not told from the die's own rounded edge by its outline alone (the reader without the
    view names these two); with the view, the die's near side is known, and there the wall,
    not the die's strip or the floor, lies at the top face's outline."""
    cal, throws = off_axis
    with_view, without = DiceReader(die_px=cal.die_px, view=cal.view), DiceReader(die_px=cal.die_px)
    for s, face in ((7, 2), (13, 5)):
        pic = render_tray(random.Random(70500 + s), 1, throws)
        assert pic.faces == [0] and pic.dice[0].face == face and pic.hidden_mm2[0] >= 3.0
        assert without.read(pic.image) == [face]
        assert with_view.read(pic.image) == [0], s


def test_dice_under_the_wall_are_zero_and_never_another_face(off_axis):
    cal, throws = off_axis
    reader = DiceReader(die_px=cal.die_px, view=cal.view)
    hidden = 0
    for s in range(20):
        pic = render_tray(random.Random(70500 + s), 1, throws)
        seen = reader.read(pic.image)
        assert seen in ([0], [pic.dice[0].face], []), (s, seen)  # never another face
        if pic.hidden_mm2[0] >= 3.0:
            hidden += 1
            assert seen in ([0], []), (s, pic.hidden_mm2, seen)
    assert hidden >= 3


def test_a_whole_die_against_the_rim_seen_from_straight_above_stays_named():
    """The rule of dice25 held such a die `0` (anything but the floor round a face): with the
    calibrated view the camera is overhead for every die, no side is near, and the rule does
    not apply."""
    foot_mm, camera_mm = (10.0, -5.0), 1800.0
    cal, _ = _table(7, foot_mm, camera_mm)
    reader = DiceReader(die_px=cal.die_px, view=cal.view)
    throws = replace(DARK_WALLS, wall_mm=(25.0, 25.0), camera_foot_mm=foot_mm, camera_mm=(camera_mm, camera_mm),
                     rim_turn_deg=4.0, rim_gap_mm=(0.1, 0.5))
    named = 0
    for s in range(12):
        pic = render_tray(random.Random(300 + s), 2, throws)
        assert pic.hidden_mm2 == [0.0, 0.0]
        seen = reader.read(pic.image)
        assert sorted(seen) == sorted(pic.faces), (s, seen)
        named += len(seen)
    assert named == 24


def test_saving_the_cards_calibration_from_the_console_keeps_the_trays(tmp_path):
    # the console's table setup saves zones and the cards' calibration through edited_text:
    # the tray's die size and view, from `calibrate --dice`, are not the cards' to replace
    from pathlib import Path

    from firmware_bridge.camera.config import load_camera_config
    from firmware_bridge.camera.config_write import save_camera_config

    config = tmp_path / "camera.toml"
    shipped = Path(__file__).resolve().parents[2] / "config" / "camera_paigow_1080p.toml"
    config.write_text(shipped.read_text(encoding="utf-8"), encoding="utf-8")
    cal = DiceCalibration(53.1, 4, 50.0, 56.0, CameraView(-812.35, 1430.5, 0.0091234, 4))
    write_dice_calibration(config, cal)
    before = load_camera_config(config)
    assert before.dice_calibration is not None and before.layout.calibration is not None
    zones = {name: [list(map(int, p)) for p in zone.polygon] for name, zone in before.layout.zones.items()}
    save_camera_config(config, zones, before.layout.calibration)
    after = load_camera_config(config)
    assert after.dice_calibration == before.dice_calibration
    assert after.layout.calibration == before.layout.calibration


@pytest.mark.parametrize("named, runs", [
    # a misreading at 0.70-0.85 of the size, none read between, the die's own size above
    ("222222000001222222222222", [(0, 5), (12, 23)]),
    # a size naming one die fewer inside the range does not part it
    ("0044434400", [(2, 7)]),
    ("000112111111222210000000", [(5, 15)]),
    # one die in all: any size naming none parts
    ("0110011100", [(1, 2), (5, 7)]),
    ("0000000000", []),
])
def test_the_calibration_measures_each_run_of_sizes_at_which_the_most_dice_read(named, runs):
    got = best_runs([int(c) for c in named])
    assert [(r[0], r[-1]) for r in got] == runs
    assert all(r == list(range(r[0], r[-1] + 1)) for r in got)
