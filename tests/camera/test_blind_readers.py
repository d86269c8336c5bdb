"""The camera's readers held to the blind renderer (tests/camera/blind: written from
CARD_FACES.md alone by someone who read none of the recognisers, the project's renderers or
their thresholds; nothing in a reader was chosen on its pictures until 5 Dec 2026, when its
dice and then its seats were looked at: tests/camera/blind_dice and blind_seats took over as
the renderers nobody tuning the readers looks at). Each table is calibrated as
at a real table: the seats through `station camera calibrate` from its own stills, the dice
through `calibrate_dice` on two throws (tests/camera/heldout_seats.py and
heldout_dice_figures.py, `--renderer blind`, give the full figures).

These hold the readers to what was measured on 2026-12-04 (docs/camera.md, "Against the blind
renderer"): never a wrong identity on a seat, never a die in full view named with another
face, a deck whose back calibrate refuses never read as some other deck, and at least as many
seats and dice read right as then. The bars of the issue (99.5% of seat states, 99% of dice)
are far from met here, and these floors only keep what is read from getting worse."""

from __future__ import annotations

import numpy as np
import pytest

from firmware_bridge.camera.accuracy import score_zone
from firmware_bridge.camera.build import build_recogniser
from tests.camera import blind
from tests.camera.heldout_dice_figures import run_set
from tests.camera.heldout_seats import SEATS, _zones, calibrated, sharp_frame_verdicts

pytestmark = pytest.mark.slow

#: seats of seven read right on the frame of seed 0, sharp, table 0, as measured on
#: 2026-12-04 after print on a face stopped being taken for the dealer's hand (docs/camera.md,
#: "Print on a face is no hand"; on all perturbations together 327 of 402)
SEATS_MEASURED = {"lattice_red": 6, "emblem_purple": 6, "plaid_grey": 4, "waves_navy": 5, "dots_black": 5}
#: decks calibrate must refuse (none since dots_black calibrates)
SEATS_REFUSED: set[str] = set()
#: dice in full view named with their face, table 0, two throws under every perturbation
#: (pearl_dark_red was 24 before the whole-square check of 2026-12-04, 8 with it; 24 again
#: since the renderer's truth turns a die with a 3 or 4 up as it lies, 2026-12-05: its
#: unturned square let a throw place those dice into each other, docs/camera.md)
DICE_MEASURED = {"white_bright_red": 24, "ivory_dull_red": 12, "pearl_dark_red": 24,
                 "translucent_white": 10, "cream_big_pips": 0}
# (translucent_white was 0 before pips on the rounded edge's shade were taken as pips, on the
# 5th of Dec 2026: from then on the blind renderer's dice were looked at, docs/camera.md
# "Pips on the rounded edge"; its seats too, the same day: tests/camera/blind_seats is the
# seats renderer nobody tuning the reader looks at)


@pytest.mark.parametrize("style", sorted(SEATS_MEASURED) + sorted(SEATS_REFUSED))
def test_blind_seats_are_never_misnamed_and_read_at_the_measured_level(tmp_path, style):
    rows = sharp_frame_verdicts(tmp_path, style, blind)
    if style in SEATS_REFUSED:
        assert rows is None
        return
    assert rows is not None
    verdicts = []
    for s, want, got, verdict in rows:
        verdicts.append(verdict)
        assert verdict != "wrong_identity", f"{style} {s}: truth {want}, read {got}"
    assert verdicts.count("correct") >= SEATS_MEASURED[style], f"{style}: {verdicts}"


@pytest.mark.parametrize("dice_set", sorted(DICE_MEASURED))
def test_blind_dice_are_never_misnamed_and_read_at_the_measured_level(dice_set):
    figures = run_set(dice_set, throws=2, tables=1, renderer=blind)
    assert figures["wrong"] == 0, figures["misses"]
    assert figures["named"] >= DICE_MEASURED[dice_set], figures["misses"]



def test_dice_whose_pips_lie_on_the_rounded_edge_are_calibrated_and_read():
    """ivory_dull_red at table 1 (2 mm rounded edges, pips 4.8 mm apart, about 0.26 mm per
    pixel): the corner pips lie on the rounded edges' shade, ringed by the face's white on the
    inside only. Before, no die was found there and `calibrate --dice` refused the table; the
    calibration now measures the die within a tenth of its size and the still reads."""
    from firmware_bridge.camera.dice import DiceReader
    from firmware_bridge.camera.dice_calibration import calibrate_dice
    from tests.camera.heldout_dice_figures import CALIBRATION_SEEDS, NOMINAL_MM_PER_PX, _box

    crops, truths = [], []
    for seed in CALIBRATION_SEEDS:
        img, truth = blind.render_dice_scene("ivory_dull_red", seed, "sharp", table=1)
        x0, y0, x1, y1 = _box(truth, img)
        crops.append(img[y0:y1, x0:x1])
        truths.append(truth)
    cal = calibrate_dice(crops, 16.0 / NOMINAL_MM_PER_PX)
    pip_mm = blind.DICE_SETS["ivory_dull_red"].pip_mm
    true_px = 16.0 * float(np.mean([d["pip_diameter_px"] for d in truths[0]["dice"]])) / pip_mm
    assert abs(cal.die_px / true_px - 1.0) < 0.1, (cal.die_px, true_px)
    reader = DiceReader(die_px=cal.die_px, view=cal.view)
    assert sorted(reader.read(crops[0])) == truths[0]["zones"]["DICE"]["expected"] == [4, 6]


def test_a_die_touching_another_is_measured_across_its_free_axis():
    """translucent_white at table 1: the camera, off axis, sees a strip of side face beside
    each top face, and on the calibration stills one die touches another: its outline runs
    on into the other die on one side and takes in the strip on the opposite one. Measured
    as the middle two of its four sides, that die came out 79 px for 62.1, too far off to
    count, and the table was measured on its other die alone, 67.5 (9 % large). A die whose
    outline runs on is now measured across the axis along which nothing does (61.0), and
    the table comes out 64.0."""
    from firmware_bridge.camera.dice_calibration import calibrate_dice
    from tests.camera.heldout_dice_figures import CALIBRATION_SEEDS, NOMINAL_MM_PER_PX, _box

    crops, sides = [], []
    for seed in CALIBRATION_SEEDS:
        img, truth = blind.render_dice_scene("translucent_white", seed, "sharp", table=1)
        x0, y0, x1, y1 = _box(truth, img)
        crops.append(img[y0:y1, x0:x1])
        for d in truth["dice"]:
            c = np.array(d["top_face_corners_px"])
            sides.extend(np.hypot(*(c - np.roll(c, 1, axis=0)).T))
    cal = calibrate_dice(crops, 16.0 / NOMINAL_MM_PER_PX)
    assert abs(cal.die_px / float(np.mean(sides)) - 1.0) < 0.06, (cal.die_px, float(np.mean(sides)))


def test_a_dim_felt_in_the_backs_hue_is_no_card(tmp_path):
    """waves_navy at table 0 (a navy back on a blue felt), seed 0 taken at a fifth of the
    light in linear terms with the sensor's noise at that level: in the picture's darker
    corner a fifth of the felt's pixels come out nearer the back's colours than the felt's,
    and two empty seats read one and two face-down cards before. Those blobs are mostly the
    felt's own colour and show no back's pattern, face or black: no card. Seats holding
    cards keep them (their counts may be short in such light; no card is named wrongly)."""
    cam = calibrated(tmp_path, "waves_navy", 0, blind)
    img, truth = blind.render_seats_frame("waves_navy", 0, perturbation="sharp", table=0)
    rng = np.random.default_rng(0)
    lin = (img.astype(np.float32) / 255.0) ** 2.2 * 0.18
    lin += rng.normal(0.0, 1.0, lin.shape).astype(np.float32) * np.sqrt(lin * 0.002 + 0.00002)
    dim = (np.clip(lin, 0.0, 1.0) ** (1 / 2.2) * 255.0).round().astype(np.uint8)
    seen, _ = build_recogniser(cam).read_still(dim)
    empty = [s for s in SEATS if _zones(truth)[s]["expected"] == []]
    assert len(empty) >= 2
    for s in SEATS:
        want = _zones(truth)[s]["expected"]
        if want == []:
            assert seen[s] == [], (s, seen[s])
        elif want is not None:
            assert seen[s], (s, want, seen[s])  # cards do not vanish
            assert score_zone(want, seen[s]) != "wrong_identity", (s, want, seen[s])


def test_the_shadow_beside_a_showdown_is_no_card(tmp_path):
    # plaid_grey, seat S6: four face-up cards, each named from its codes; the renderer's drop
    # shadow along the lower card's edge (85 x 23 mm, darker than the felt, so in the blob)
    # lies beyond every card the codes place, and was once counted as a fifth card, XX
    cam = calibrated(tmp_path, "plaid_grey", 0, blind)
    img, truth = blind.render_seats_frame("plaid_grey", 0, perturbation="sharp", table=0)
    seen, _ = build_recogniser(cam).read_still(img)
    assert seen["S6"] == sorted(_zones(truth)["S6"]["expected"]) == ["4C", "5D", "6S", "AH"]


@pytest.mark.parametrize("style, seed", [("lattice_red", 1), ("plaid_grey", 0)])
def test_showdowns_in_a_fifth_of_the_light_are_read_from_their_codes(tmp_path, style, seed):
    """The frame taken with a fifth of the light (the picture's grey levels a fifth, with the
    sensor's noise): the felt's red channel measures 5 of 27, and the light's gain was taken
    from it as though it measured at least 8, so every face came out a bluish grey, no face's
    white, and each of these showdowns read as an empty seat. A channel measured at a few grey
    levels now sets its own gain (`colours.light_gains`). Every face-up card is read (named,
    or `XX` where its codes are covered); none is named wrongly."""
    cam = calibrated(tmp_path, style, 0, blind)
    img, truth = blind.render_seats_frame(style, seed, perturbation="sharp", table=0)
    rng = np.random.default_rng(seed)
    dim = np.clip(img.astype(np.float32) * 0.2 + rng.normal(0.0, 3.0, img.shape), 0, 255).astype(np.uint8)
    seen, _ = build_recogniser(cam).read_still(dim)
    showdowns = [s for s in SEATS if (_zones(truth)[s]["expected"] or ["??"])[0] != "??"]
    assert len(showdowns) >= 5
    named = 0
    for s in showdowns:
        want = _zones(truth)[s]["expected"]
        assert seen[s] is not None and len(seen[s]) == len(want), (s, want, seen[s])
        assert score_zone(want, seen[s]) != "wrong_identity", (s, want, seen[s])
        named += sum(code != "XX" for code in seen[s])
    assert named >= 3 * len(showdowns), (style, {s: seen[s] for s in showdowns})

