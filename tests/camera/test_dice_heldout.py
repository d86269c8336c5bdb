"""The dice reader on the held-out renderer (tests/camera/heldout): written from the card-face
sheet alone by somebody who never saw the reader, and never looked at while the reader was
changed. Each table is calibrated through `calibrate_dice` (what `station camera calibrate
--dice` runs) on two throws of that table, from a rough scale; then four throws are read under
each of the renderer's perturbations (tests/camera/heldout_dice_figures.py).

The bar is never a wrong face. The share of dice in full view named is held to what was
measured on the one run made (docs/camera.md, "Dice sets"): **below the 99% the station asks
for** on every set — the floors here are those measured figures, so a reader that gets worse
fails, and each floor is to be raised to 99 as the reader gets there.
"""

from __future__ import annotations

import pytest

from tests.camera.heldout_dice_figures import run_set

#: dice in full view named (%), measured on the one held-out run (Dec 2026): the floors, not the bar
MEASURED = {
    "casino_white": 95.24,
    "ivory_large_one": 75.0,  # `calibrate --dice` refused this table's stills: read at the rough scale
    "cool_white_small_pips": 90.0,
    "matte_round_edges": 66.67,
    "bright_glossy_sharp": 97.22,
    "warm_felt_dull_red": 70.83,
}


@pytest.mark.slow  # ray-marched frames: a few minutes a set
@pytest.mark.parametrize("dice_set", sorted(MEASURED))
def test_held_out_dice_never_a_wrong_face_and_no_fewer_named_than_measured(dice_set):
    r = run_set(dice_set, throws=4)
    assert r["wrong"] == 0, r["misses"]
    assert r["named_pct"] >= MEASURED[dice_set] - 0.01, (r["named_pct"], r["misses"])
