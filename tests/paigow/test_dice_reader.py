"""The dice reader on rendered trays: every face at every turn, empty trays on every felt,
touching dice, side strips, dice out of focus, wrong pip colours, dice cut by the zone's edge;
and a sample of the accuracy suite. Zero wrong faces is the bar everywhere."""

from __future__ import annotations

import random
from dataclasses import replace

import cv2
import numpy as np
import pytest

from firmware_bridge.camera.dice import DiceReader
from firmware_bridge.camera.dice_accuracy import run, score_tray, totals
from firmware_bridge.camera.dice_render import (
    DICE_PRESETS,
    FELTS,
    DiceLook,
    DicePerturbations,
    dice_perturbations_from,
    render_tray,
)

CLEAN = DicePerturbations(noise_sigma=1.0, vary_look=False, vary_felt=False)


@pytest.mark.parametrize("face", range(1, 7))
def test_every_face_at_every_turn(face: int) -> None:
    reader = DiceReader(0.30)
    for k in range(12):
        rng = random.Random(face * 100 + k)
        pic = render_tray(rng, [face], CLEAN)
        assert reader.read(pic.image) == [face], (face, pic.dice[0].angle_deg)


def test_two_dice_are_listed_left_to_right() -> None:
    for seed in range(10):
        pic = render_tray(random.Random(seed), [3, 5], CLEAN)
        got = DiceReader(0.30).read(pic.image)
        assert got == pic.faces  # the truth is left to right as well


@pytest.mark.parametrize("felt", FELTS)
def test_an_empty_tray_is_an_empty_list_on_every_felt(felt: tuple[int, int, int]) -> None:
    for seed in range(8):  # each a random pad and rim
        rng = random.Random(seed)
        pic = render_tray(rng, 0, DicePerturbations(noise_sigma=6.0, glare=40.0))
        # the renderer draws its own felt: paint ours outside the tray as well
        img = pic.image.copy()
        outside = np.all(pic.image == pic.image[0, 0], axis=2)
        img[outside] = felt
        assert DiceReader(pic.mm_per_px).read(img) == []
        assert DiceReader(pic.mm_per_px).read(pic.image) == []


def test_a_die_out_of_focus_is_zero_never_a_guess() -> None:
    blurred = DicePerturbations(noise_sigma=2.0, defocus_rate=1.0, defocus_px=(3.5, 6.0))
    zeros = 0
    for seed in range(40):
        pic = render_tray(random.Random(seed), 1, blurred)
        got = DiceReader(pic.mm_per_px).read(pic.image)
        assert got in ([], [0], pic.faces), (seed, pic.faces, got)
        zeros += got != pic.faces
    assert zeros >= 30  # that blurred, nearly every die is not read


def test_side_strips_never_give_their_faces() -> None:
    tilted = DicePerturbations(tilt_mm=4.0, noise_sigma=2.0)
    read = 0
    for seed in range(40):
        pic = render_tray(random.Random(seed), 2, tilted)
        got = DiceReader(pic.mm_per_px).read(pic.image)
        assert score_tray(pic.faces, got) in ("correct", "zero"), (seed, pic.faces, got)
        read += sum(1 for f in got if f)
    assert read >= 60  # of 80 dice


def test_touching_dice() -> None:
    touching = DicePerturbations(touching_rate=1.0, noise_sigma=3.0)
    read = 0
    for seed in range(40):
        pic = render_tray(random.Random(seed), 2, touching)
        got = DiceReader(pic.mm_per_px).read(pic.image)
        assert score_tray(pic.faces, got) in ("correct", "zero"), (seed, pic.faces, got)
        read += sum(1 for f in got if f)
    assert read >= 64


@pytest.mark.parametrize("face, colour", [(4, "black"), (1, "black"), (5, "red"), (6, "red"), (2, "red")])
def test_a_face_in_the_wrong_colour_is_zero(face: int, colour: str) -> None:
    # a die not of the sheet (4 in black, 5 in red): its pattern alone is not trusted
    look = DiceLook()
    look = replace(look, red_bgr=look.black_bgr) if colour == "black" else replace(look, black_bgr=look.red_bgr)
    for seed in range(5):
        pic = render_tray(random.Random(seed), [face], CLEAN, look=look)
        assert DiceReader(0.30).read(pic.image) == [0]


def test_a_die_cut_by_the_zones_edge_is_not_read() -> None:
    for seed in range(20):
        pic = render_tray(random.Random(seed), [6], CLEAN)
        x = int(round(pic.image.shape[1] / 2 + pic.dice[0].x_mm / pic.mm_per_px))
        crop = pic.image[:, : x + 5]  # the zone ends across the die
        assert DiceReader(0.30).read(crop) in ([], [0])


def test_a_covered_die_is_never_named_wrongly() -> None:
    covered = DicePerturbations(cover_rate=1.0)
    for seed in range(40):
        pic = render_tray(random.Random(seed), 2, covered)
        got = DiceReader(pic.mm_per_px).read(pic.image)
        assert score_tray(pic.faces, got) != "wrong_face", (seed, pic.faces, got)


def test_the_reader_follows_the_camera_scale() -> None:
    for mm_per_px in (0.25, 0.33, 0.45):
        p = replace(CLEAN, mm_per_px=(mm_per_px, mm_per_px))
        for seed in range(6):
            pic = render_tray(random.Random(seed), 2, p)
            assert DiceReader(mm_per_px).read(pic.image) == pic.faces
    # told the wrong scale, dice are not dice of 16 mm: nothing is named
    pic = render_tray(random.Random(1), [5, 2], CLEAN)
    assert all(f == 0 for f in DiceReader(0.20).read(pic.image))


def test_bad_input_fails_clearly() -> None:
    with pytest.raises(ValueError, match="BGR"):
        DiceReader(0.3).read(np.zeros((50, 50), np.uint8))
    with pytest.raises(ValueError, match="6 pixels"):
        DiceReader(0.9)
    with pytest.raises(ValueError, match="plausible"):
        DiceReader(5.0)


def test_perturbations_as_data() -> None:
    assert dice_perturbations_from("touching").touching_rate == 1.0
    assert dice_perturbations_from({"preset": "dim", "noise_sigma": 9.0}).noise_sigma == 9.0
    with pytest.raises(ValueError, match="unknown"):
        dice_perturbations_from({"wobble": 1})
    with pytest.raises(ValueError, match="no dice preset"):
        dice_perturbations_from("foggy")
    a = render_tray(random.Random(4), 2, "combined")
    b = render_tray(random.Random(4), 2, "combined")
    assert np.array_equal(a.image, b.image) and a.faces == b.faces


@pytest.mark.slow  # the accuracy suite's sample, a preset per test (each is seeded on its own,
@pytest.mark.parametrize("preset", list(DICE_PRESETS))  # so the workers share the presets out)
def test_the_accuracy_suite_sample(preset: str) -> None:
    cv2.setNumThreads(1)
    results = run([preset], trays=40, seed=11)
    assert [r.preset for r in results] == [preset]
    (d,) = [r.as_dict() for r in results]
    assert totals(results)["wrong_face"] == 0, [r.examples for r in results if r.counts["wrong_face"]]
    floor = {"defocus": 40, "combined": 50, "covered": 5, "touching": 85}.get(preset, 95)
    assert d["correct_pct"] >= floor, (preset, d)


def test_the_stress_preset_gives_zeros_not_wrong_faces() -> None:
    [r] = run(["stress"], trays=60, seed=2)
    assert r.counts["wrong_face"] == 0, r.examples
