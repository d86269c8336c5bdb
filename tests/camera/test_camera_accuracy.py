"""The accuracy suite on a sample (the full run is `station camera accuracy`, docs/camera.md):
no wrong identity at all, and at least 99.5% of zone states exactly right."""

from __future__ import annotations

import pytest

from firmware_bridge.camera import accuracy
from firmware_bridge.camera.synthetic import PRESETS

# the default game's own random tables (its hands and burn card), on its studio layout
from station.games.pokdeng.camera_accuracy import random_table


@pytest.mark.slow  # every perturbation, rendered and read
@pytest.mark.parametrize("decoder, frames", [("auto", 10), ("zbar", 4)])
def test_accuracy_bounds_on_every_perturbation(layout, decoder, frames):
    results = accuracy.run(list(PRESETS), frames=frames, seed=7, layout=layout, decoder=decoder,
                            scene_for=random_table)
    total = accuracy.totals(results)
    report = "\n".join(str(r.as_dict()) + "".join("\n    " + e for e in r.examples) for r in results)
    assert total["wrong_identity"] == 0, report
    assert total["correct_pct"] >= 99.5, report
    assert total["zone_states"] >= frames * len(PRESETS) * 7 * 0.8
    # the sample did exercise face-up reading and the held (covered) path
    assert sum(r.counts["correct"] for r in results) > 0
    assert any(r.counts["held"] for r in results if r.preset == "occlusion")


def test_scoring_rules():
    assert accuracy.score_zone(["7H", "??"], ["??", "7H"]) == "correct"
    assert accuracy.score_zone(["7H", "??"], ["??", "XX"]) == "xx"
    assert accuracy.score_zone(["7H", "??"], ["??", "7D"]) == "wrong_identity"
    assert accuracy.score_zone(["7H", "7H"], ["7H", "7H"]) == "correct"
    assert accuracy.score_zone(["7H", "8H"], ["7H", "7H"]) == "wrong_identity"
    assert accuracy.score_zone(["??", "??"], ["??"]) == "miscount"
    assert accuracy.score_zone(["??"], None) == "held"


def test_pictures_too_poor_to_read_give_xx_never_another_card(layout):
    # beyond any studio table: heavy blur, noise, glare, dim warm light, JPEG at 35
    results = accuracy.run(["stress"], frames=8, seed=3, layout=layout, scene_for=random_table)
    total = accuracy.totals(results)
    assert total["wrong_identity"] == 0, results[0].examples
    assert total["xx"] > 0  # the sample really was too poor to read everywhere
