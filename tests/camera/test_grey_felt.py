"""A felt of grey (CARD_FACES.md, "Table": "felt of one plain colour"; a grey has no hue to
tell it by, only its lightness). The felt is felt where it is grey of about its calibrated
lightness, measured round each zone (the light across a table is not even); what a card's
outline encloses is card (a face's code and black print average to the felt's grey at quarter
resolution). Held to the renderers written from the sheet alone (tests/camera/independent,
tests/camera/blind) and to the station's own (`granite`, `sage`), each table calibrated through
`station camera calibrate`. A grey too dark to tell from the cut card, or too light to tell
from a face's white, is refused with the reason."""

from __future__ import annotations

import dataclasses
import random
import tempfile
from pathlib import Path

import numpy as np
import pytest

import tests.camera.blind as blind
from firmware_bridge.camera import SyntheticCamera, TableScene, accuracy, colours
from firmware_bridge.camera.accuracy import score_zone
from firmware_bridge.camera.build import build_recogniser
from firmware_bridge.camera.calibration import CalibrationError, calibrate, learn_felt
from firmware_bridge.camera.config import load_camera_config
from firmware_bridge.camera.decks import GREY_FELT_STYLES, STYLES
from station.games.pokdeng.camera_accuracy import random_table
from tests.camera.heldout_seats import _zones, calibrated
from tests.camera.independent import seat_calibration_stills
from tests.camera.independent.cases import seat_cases
from tests.camera.independent_seats import read_case
from tests.camera.test_camera_backs import (
    POKDENG,
    _calibrated,
    _seats_scored,
    cut_card_face_and_hand_read_apart,
)


def _blind_table(style: str, table: int):
    with tempfile.TemporaryDirectory() as d:
        cam = calibrated(Path(d), style, table, blind)
    assert cam is not None, f"station camera calibrate refused {style} on table {table}"
    return build_recogniser(cam)


def test_the_grey_felt_styles_lie_on_grey_felt():
    for name in GREY_FELT_STYLES:
        felt = STYLES[name].felt_bgr
        assert felt is not None and colours.is_grey_felt(colours.felt_hsv(felt)), name


@pytest.mark.parametrize(("grey", "words"), [(40, "cut card"), (108, "white stock"), (150, "white stock")])
def test_a_grey_felt_too_dark_or_too_light_is_refused_with_the_reason(grey, words):
    rng = np.random.default_rng(1)
    felt = np.clip(np.full((540, 960, 3), grey, np.float32) + rng.normal(0, 3, (540, 960, 3)), 0, 255).astype(np.uint8)
    with pytest.raises(CalibrationError, match=words):
        learn_felt([felt])
    # a mid grey is a felt
    mid = np.full((540, 960, 3), (88, 86, 84), np.uint8)
    assert learn_felt([mid]).bgr == (88, 86, 84)


def test_somebody_elses_seats_on_a_grey_felt_are_calibrated_and_read(tmp_path):
    """tests/camera/independent's table of case 7 (a grey felt, midnight backs, warm light):
    `station camera calibrate` refused its felt before grey felts were read."""
    case = seat_cases(24, 0)[7]
    assert case.seed == 7 and case.deck_style == "midnight_flat" and case.perturbation == "warm"
    empty, _ = seat_calibration_stills(deck_style=case.deck_style, seed=case.seed)["empty"]
    assert colours.is_grey_felt(colours.felt_hsv(learn_felt([empty]).bgr))
    truth, seen, _, rec = read_case(case, tmp_path)
    verdicts = {s: score_zone(want, seen[s]) if want is not None else ("held" if seen[s] is None else "hand_not_seen")
                for s, want in truth.items()}
    assert set(verdicts.values()) <= {"correct", "held"}, {s: (truth[s], seen[s]) for s in truth}
    assert any(len(w or []) == 4 for w in truth.values())  # the case holds seats of four
    # warm light tints the grey felt; the gains undo it and the status still knows the felt
    assert rec.status["felt_matches"] is True


def test_a_seat_in_a_darker_part_of_a_grey_felt_is_felt_not_a_back():
    """tests/camera/blind's slate-grey table: S1, empty, lies where the light is a fifth
    dimmer than the table's middle; measured against the whole table's felt its grey was
    nearer the black back's dark grey than the felt's (two backs read in an empty seat)."""
    rec = _blind_table("dots_black", 5)
    img, truth = blind.render_seats_frame("dots_black", 0, perturbation="sharp", table=5)
    seen, _ = rec.read_still(img)
    assert _zones(truth)["S1"]["expected"] == [] and seen["S1"] == []
    assert _zones(truth)["S2"]["expected"] == ["??"] * 4 and seen["S2"] == ["??"] * 4


def test_a_showdown_with_court_panels_and_black_pips_on_a_grey_felt_is_no_hand():
    """The same table, a deck whose faces carry skin-coloured panels with black pips on them:
    the pips average to the felt's grey at quarter resolution, and the panels looked like a
    hand reaching in over felt (the seat was held as covered)."""
    rec = _blind_table("emblem_purple", 5)
    img, truth = blind.render_seats_frame("emblem_purple", 0, perturbation="sharp", table=5)
    seen, _ = rec.read_still(img)
    want = _zones(truth)["S6"]["expected"]
    assert sorted(want) == ["4D", "6S", "JH", "KC"] and sorted(seen["S6"]) == sorted(want)


@pytest.mark.parametrize("style", [*GREY_FELT_STYLES, "slate@95"])
def test_pokdeng_zones_on_a_grey_felt_are_read(tmp_path, capsys, layout, style):
    """`slate@95`: a plain mid-grey back (130) on a grey felt of 95: where the light within a
    zone was followed on every grey up to 1.8 times the felt's, the backs' grey was taken for
    lit felt and the cards for felt (two backs read as `[]`)."""
    if "@" in style:
        name, grey = style.split("@")
        style = dataclasses.replace(STYLES[name], felt_bgr=(int(grey),) * 3)
    felt, backs = accuracy.calibration_stills(layout, style)
    cam, learned = _calibrated(tmp_path, POKDENG, felt[0], backs[0], capsys)
    assert learned["written"] is True and learned["back"]["cards"] == 3
    assert colours.is_grey_felt(colours.felt_hsv(tuple(learned["felt"]["bgr"])))
    assert any("grey felt" in w and "glare" in w for w in learned["warnings"]), learned["warnings"]
    rec = build_recogniser(cam)
    results = accuracy.run_scenes(rec, cam.layout, style, ["clean", "blur", "dim", "warm", "jpeg"], 3, 5, random_table)
    for r in results:
        assert r.counts["wrong_identity"] == 0, r.examples
        assert r.counts["miscount"] == 0 and r.counts["correct"] == r.scored, (r.preset, r.examples)


def test_the_cut_card_a_face_and_the_hand_on_a_grey_felt(layout):
    cut_card_face_and_hand_read_apart(layout, "granite", ("clean", "noise", "dim"))


def _laid(layout, style, placements, preset: str = "clean", seed: int = 3):
    """A frame of the own renderer with cards laid by hand: (zone, what, dx_mm, dy_mm, angle)
    with `what` a face-up card, "BACK" or "CUT", placed from the zone's centre."""
    camera = SyntheticCamera(TableScene(layout.zone_names), layout, perturbations=preset, style=style, seed=seed)
    ren = camera.renderer
    img = ren.background()
    for zone, what, dx, dy, angle in placements:
        cx, cy = layout.zones[zone].centre
        tile = ren.artist.back() if what == "BACK" else ren.artist.cut() if what == "CUT" else ren.artist.face(what, None)
        ren.draw_card(img, tile, cx + dx / layout.mm_per_px, cy + dy / layout.mm_per_px, angle)
    return ren._camera_effects(img, camera.perturbations, random.Random(seed))


@pytest.mark.parametrize("grey", [70, 86, 100])
def test_a_card_laid_into_a_corner_of_its_zone_on_a_grey_felt_is_one_card(layout, grey):
    """Felt that the zone's painted outline and a card cut off between them is no hole in a
    card: it was taken for card, the blob grew and a face was counted twice (['QS', 'XX'])."""
    style = dataclasses.replace(STYLES["granite"], felt_bgr=(grey, grey, grey))
    felt, backs = accuracy.calibration_stills(layout, style)
    rec = build_recogniser(load_camera_config(POKDENG), calibration=calibrate(felt, backs, layout.mm_per_px))
    for dx, dy in ((18, 25), (-18, -25)):
        for what, want in (("QS", ["QS"]), ("BACK", ["??"])):
            zones, _ = rec.read_still(_laid(layout, style, [("B", what, dx, dy, -10)]))
            assert zones["B"] == want, (grey, what, dx, dy, zones["B"])


@pytest.mark.parametrize("grey", [62, 80, 100])
def test_the_cut_card_on_a_grey_felt_is_the_cut_card_and_an_empty_table_has_none(layout, grey):
    style = dataclasses.replace(STYLES["granite"], felt_bgr=(grey, grey, grey))
    felt, backs = accuracy.calibration_stills(layout, style)
    rec = build_recogniser(load_camera_config(POKDENG), calibration=calibrate(felt, backs, layout.mm_per_px))
    scene = TableScene(layout.zone_names, seed=1)
    scene.deal("P1", "9S")
    scene.deal("P2", "4D", face_up=True)
    scene.cut_card(True, "P4")
    for preset in ("clean", "noise", "dim", "warm", "blur"):
        zones, cut = rec.read_still(SyntheticCamera(scene, layout, perturbations=preset, style=style, seed=5).read()[1])
        assert zones["P4"] == ["CUT"] and cut, (grey, preset, zones)
        assert zones["P1"] == ["??"] and zones["P2"] == ["4D"] and zones["P5"] == [], (preset, zones)
    empty = SyntheticCamera(TableScene(layout.zone_names, seed=1), layout, perturbations="noise", style=style, seed=5)
    zones, cut = rec.read_still(empty.read()[1])
    assert not cut and all(v == [] for v in zones.values()), zones


def test_seats_on_a_grey_felt_are_counted_and_named(tmp_path, capsys):
    learned, rec, score = _seats_scored(tmp_path, capsys, "granite", 40)
    assert colours.is_grey_felt(colours.felt_hsv(tuple(learned["felt"]["bgr"])))
    assert score.counts["wrong_identity"] == 0 and score.counts["miscount"] == 0, score.examples


@pytest.mark.parametrize("bgr", [(110, 150, 200), (60, 80, 110)])
def test_a_felt_the_colour_of_skin_is_refused_it_would_hold_every_zone(bgr):
    """A tan felt, or a grey felt calibrated under a warm light (a white balance set too warm):
    learned as a coloured felt whose hue is the dealer's skin, every zone was held as covered by
    a hand. Refused, saying why and what to check."""
    with pytest.raises(CalibrationError, match="skin.*white balance"):
        learn_felt([np.full((540, 960, 3), bgr, np.uint8)])
    # a dark brown felt is darker than any skin the camera takes for a hand: a felt
    assert learn_felt([np.full((540, 960, 3), (13, 31, 51), np.uint8)]).bgr == (13, 31, 51)
