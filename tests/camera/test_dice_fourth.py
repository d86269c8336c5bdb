"""The dice reader held to the fourth renderer (tests/camera/fourth_dice: written on 6 Dec 2026
from CARD_FACES.md alone by someone who had not read the reader or the project's other
renderers). Its pictures were looked at the day it came (docs/camera.md, "A fourth
renderer"), so it is not a blind test. Each table is calibrated through `calibrate_dice`
(what `station camera calibrate --dice` runs) on two throws of that table, from a rough scale
(tests/camera/heldout_dice_figures.py).

The bar is never a wrong face; the floors are the dice in full view named when measured, on
its tables 0 (green felt, wooden walls) and 1 (a pale wall, the camera far to the side). On
table 1 the reader held many whole dice as `0` until the side turned from the camera was
allowed its rounded edge's shortfall (test_dice_far_side.py; the floors below sum to 267 of
336 dice before, 319 after); the translucent set's are still mostly `0` there (9 of 24). The renderer
and the reader are deterministic, so a floor at the measured figure is exact, not a
tolerance."""

from __future__ import annotations

import pytest

import tests.camera.fourth_dice as fourth
from firmware_bridge.camera.dice import DiceReader
from firmware_bridge.camera.dice_calibration import calibrate_dice
from tests.camera.heldout_dice_figures import CALIBRATION_SEEDS, NOMINAL_MM_PER_PX, _box, run_set

#: dice in full view named of 48 (tables 0 and 1, two throws each under six perturbations)
MEASURED = {
    "casino_gloss_white": 48,
    "ivory_matte_round": 48,
    "cream_flat_print": 48,
    "translucent_orange_red": 33,
    "jumbo_pip_soft_edge": 48,
    "small_pip_sharp_edge": 48,
    "aged_ivory_dark_red": 48,
}


@pytest.mark.slow  # ray-marched frames: about half a minute a set
@pytest.mark.parametrize("dice_set", sorted(MEASURED))
def test_fourth_renderers_dice_never_a_wrong_face_and_no_fewer_named_than_measured(dice_set):
    r = run_set(dice_set, throws=2, tables=2, renderer=fourth)
    assert r["wrong"] == 0, r["misses"]
    assert r["full"] == 48, r["per_table"]
    assert r["named"] >= MEASURED[dice_set], (r["named"], r["per_table"], r["misses"])


def _tray(dice_set: str, table: int, seed: int, perturbation: str):
    """The reader of `table`, calibrated as run_set does, and the crop of one of its trays."""
    crops = []
    for s in CALIBRATION_SEEDS:
        img, truth = fourth.render_dice_scene(dice_set, s, "sharp", table=table)
        x0, y0, x1, y1 = _box(truth, img)
        crops.append(img[y0:y1, x0:x1])
    cal = calibrate_dice(crops, 16.0 / NOMINAL_MM_PER_PX)
    img, truth = fourth.render_dice_scene(dice_set, seed, perturbation, table=table)
    x0, y0, x1, y1 = _box(truth, img)
    return DiceReader(die_px=cal.die_px, view=cal.view), img[y0:y1, x0:x1], truth["zones"]["DICE"]["expected"]


@pytest.mark.slow  # ray-marched frames
def test_small_pips_out_of_focus_on_a_dark_floor_are_read():
    # small_pip_sharp_edge, table 1: pips 2.15 mm across (7 px) on dice whose white runs to
    # their sharp outline, on a navy floor. The pips' depth was taken from the darkest spot a
    # little beyond the die's bright part, which there is the floor: out of focus the pips
    # (their centre 120 grey levels under the white, the floor 170) showed as spots under a
    # pip's least area at that cut, and both dice were `0`, "no pips".
    reader, crop, want = _tray("small_pip_sharp_edge", 1, 0, "blur")
    assert want == [3, 5]
    assert reader.read(crop) == want
