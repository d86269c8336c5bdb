"""The dice reader held to tests/camera/blind_dice: a third dice renderer, written from
CARD_FACES.md alone by a helper who saw none of the reader, its thresholds or the other
renderers (3-D rounded dice with drilled pips, round and square trays with rims of 6-42 mm,
light floors, one to four lights, hands over the tray). Nobody tuning the reader has looked at
its pictures; its first run (5 Dec 2026, docs/camera.md "Dice sets") named 557 of 600 dice
in full view on three tables, none wrongly.

Each table is calibrated as at a real table (`calibrate_dice` on two throws, from a rough
scale); the figures below are table 0, two throws under each of the six studio conditions,
as measured that day. They keep what is read from getting worse; the bar (99% of dice in full
view) is not met here."""

from __future__ import annotations

import pytest

from tests.camera import blind_dice
from tests.camera.heldout_dice_figures import run_set

pytestmark = pytest.mark.slow

#: dice in full view named with their face, table 0, two throws under every condition (of 24)
MEASURED = {"ivory_classic": 18, "cool_gloss_sharp": 21, "translucent_cream": 22,
            "matte_small_pips": 18, "worn_rounded_brown": 18}


@pytest.mark.parametrize("dice_set", sorted(MEASURED))
def test_dice_of_a_renderer_nobody_tuned_on_are_never_misnamed(dice_set):
    figures = run_set(dice_set, throws=2, tables=1, renderer=blind_dice)
    assert figures["wrong"] == 0, figures["misses"]
    assert figures["named"] >= MEASURED[dice_set], figures["misses"]


def test_every_set_is_measured():
    assert set(MEASURED) == set(blind_dice.DICE_SETS)
