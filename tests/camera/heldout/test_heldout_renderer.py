"""The held-out renderer itself: the same seed gives the same picture, the truth agrees with
the pixels (QR codes decoded by zxing-cpp from the rendered frame, pips sampled where the truth
puts them), and sizes and scales are the ones CARD_FACES.md asks of the camera."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
import zxingcpp

from tests.camera.heldout import (
    DECK_STYLES,
    DICE_SETS,
    PERTURBATIONS,
    perturb,
    render_dice_calibration,
    render_dice_scene,
    render_seats_calibration,
    render_seats_frame,
)
from tests.camera.heldout.__main__ import main as cli_main
from tests.camera.heldout.dice_scene import DIE_MM

#: face -> (pips on the four diagonal spots, pip in the centre, pips on the four edge midpoints)
PIP_SIGNATURE = {1: (0, 1, 0), 2: (2, 0, 0), 3: (2, 1, 0), 4: (4, 0, 0), 5: (4, 1, 0), 6: (4, 0, 2)}


@pytest.fixture(scope="module")
def showdown_frame():
    return render_seats_frame("blue_logo_serial", 2, "sharp", table=1, phase="showdown")


@pytest.fixture(scope="module")
def deal_frame():
    return render_seats_frame("green_dots_on_green", 2, "sharp", table=2, phase="deal")


def test_same_seed_same_picture_other_seed_other_picture():
    a, ta = render_dice_scene("casino_white", 7, "noise")
    b, tb = render_dice_scene("casino_white", 7, "noise")
    c, _ = render_dice_scene("casino_white", 8, "noise")
    assert np.array_equal(a, b) and ta == tb
    assert not np.array_equal(a, c)


def test_seat_frames_are_deterministic(showdown_frame):
    img, truth = render_seats_frame("blue_logo_serial", 2, "sharp", table=1, phase="showdown")
    assert np.array_equal(img, showdown_frame[0]) and truth == showdown_frame[1]


def _face_sampler(img, top_corners_px):
    """Map die-face millimetres (centre 0, +-8) to pixels through the truth's top corners and
    return the mean colour of a 3x3 patch there."""
    half = DIE_MM / 2
    src = np.float32([[-half, -half], [half, -half], [half, half], [-half, half]])
    H = cv2.getPerspectiveTransform(src, np.float32(top_corners_px))

    def at(u, v):
        x, y = cv2.perspectiveTransform(np.float32([[[u, v]]]), H)[0, 0]
        x, y = int(round(x)), int(round(y))
        return img[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).astype(float).mean(0)
    return at


@pytest.mark.parametrize("set_name", sorted(DICE_SETS))
def test_dice_pixels_show_the_true_face(set_name):
    ds = DICE_SETS[set_name]
    g = ds.pip_spacing_mm
    seen = 0
    for seed in range(2):
        img, truth = render_dice_scene(set_name, seed, "sharp")
        assert img.shape == (1080, 1920, 3)
        assert truth["mm_per_px_at_tray"] <= 0.33
        zone = truth["zones"]["DICE"]
        faces = []
        for die in zone["dice"]:
            assert die["pip_diameter_px"] >= 6, "the sheet asks 6 pixels across a pip"
            faces.append(die["face"] if die["in_full_view"] else 0)
            if not die["in_full_view"]:
                continue
            at = _face_sampler(img, die["top_face_corners_px"])
            body = np.median([at(su * g, sv * g / 2) for su in (-1, 1) for sv in (-1, 1)], 0)

            def kind(c, body=body):
                b, gr, r = c
                if r - max(gr, b) > 45:
                    return "red"
                return "dark" if c.sum() < 0.55 * body.sum() else "body"
            diag = [kind(at(su * g, sv * g)) for su in (-1, 1) for sv in (-1, 1)]
            mids = [kind(at(*p)) for p in ((g, 0), (-g, 0), (0, g), (0, -g))]
            centre = kind(at(0, 0))
            pip = "red" if die["face"] in (1, 4) else "dark"
            got = (sum(k == pip for k in diag), int(centre == pip), sum(k == pip for k in mids))
            assert got == PIP_SIGNATURE[die["face"]], (seed, die, diag, centre, mids)
            assert all(k in (pip, "body") for k in diag + mids + [centre])
            seen += 1
        if zone["expected"] is not None:
            assert zone["expected"] == sorted(faces)
    assert seen >= 1


def test_dice_tray_calibration_still_matches_its_table():
    still, truth = render_dice_calibration("matte_round_edges", table=1)
    _, scene = render_dice_scene("matte_round_edges", 4, "sharp", table=1)
    assert still.shape == (1080, 1920, 3)
    assert truth["zones"]["DICE"]["corners_px"] == scene["zones"]["DICE"]["corners_px"]
    assert truth["zones"]["DICE"]["expected"] == []


def test_perturbations_keep_the_frame_and_change_it():
    base, _ = render_dice_scene("cool_white_small_pips", 2, "sharp")
    blurred, _ = render_dice_scene("cool_white_small_pips", 2, "blur")
    assert blurred.shape == base.shape and not np.array_equal(blurred, base)
    assert set(PERTURBATIONS) >= {"sharp", "blur", "noise", "dim", "warm", "jpeg"}
    out = {}
    for name in PERTURBATIONS:
        out[name] = perturb.apply(name, base, np.random.default_rng(1))
        assert out[name].shape == base.shape and out[name].dtype == np.uint8
        assert np.array_equal(out[name], base) == (name == "sharp"), name
    assert out["dim"].mean() < 0.5 * base.mean()

    def red_over_blue(img):
        return img[..., 2].mean() / max(img[..., 0].mean(), 1)
    assert red_over_blue(out["warm"]) > 1.3 * red_over_blue(base)
    assert cv2.Laplacian(out["blur"], cv2.CV_32F).var() < 0.5 * cv2.Laplacian(base, cv2.CV_32F).var()


def _decode_quad(img, quad_px):
    q = np.asarray(quad_px)
    x0, y0 = np.floor(q.min(0)).astype(int) - 6
    x1, y1 = np.ceil(q.max(0)).astype(int) + 6
    crop = img[max(y0, 0):y1, max(x0, 0):x1]
    big = cv2.resize(crop, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    return zxingcpp.read_barcodes(big, formats=zxingcpp.BarcodeFormat.QRCode)


def _check_zones(truth):
    assert truth["image_size_px"] == [3840, 2160]
    assert sorted(truth["zones"]) == [f"S{i}" for i in range(1, 8)]
    for seat, z in truth["zones"].items():
        assert z["size_mm"][0] >= 200 and z["size_mm"][1] >= 160
        assert z["max_mm_per_px"] <= 0.33
        c = np.array(z["corners_px"])
        assert np.all(c >= 0) and np.all(c < [3840, 2160]), seat
        assert len(z["cards"]) <= 4


def test_every_shown_card_decodes_from_a_whole_code(showdown_frame):
    img, truth = showdown_frame
    assert img.shape == (2160, 3840, 3)
    _check_zones(truth)
    shown = [z for z in truth["zones"].values() if z["state"] == "shown"]
    assert shown, "the showdown frame shows at least one seat"
    covered = [z for z in truth["zones"].values() if z["state"].startswith("covered")]
    assert covered and all(z["expected"] is None for z in covered)
    for z in shown:
        assert len(z["cards"]) == 4 and all(c["face_up"] for c in z["cards"])
        assert z["expected"] == sorted(c["card"] for c in z["cards"])
        for card in z["cards"]:
            assert any(card["codes_whole"]), card
            assert card["qr_text"].split("/")[0] == card["card"]
            for whole, quad in zip(card["codes_whole"], card["code_corners_px"], strict=True):
                if not whole:
                    continue
                reads = _decode_quad(img, quad)
                assert [r.text for r in reads] == [card["qr_text"]], (card["card"], reads)
                assert reads[0].extra["Version"] == "1" and reads[0].ec_level == "M"


def test_dealt_seats_show_half_of_every_back_and_no_code(deal_frame):
    img, truth = deal_frame
    _check_zones(truth)
    dealt = [z for z in truth["zones"].values() if z["state"] == "dealt"]
    assert dealt
    for z in dealt:
        assert 1 <= len(z["cards"]) <= 4
        assert z["expected"] == ["??"] * len(z["cards"])
        assert all(not c["face_up"] and c["visible_fraction"] >= 0.5 for c in z["cards"])
        assert _decode_quad(img, z["corners_px"]) == []


def test_seat_calibration_stills_share_the_frames_zones(showdown_frame):
    stills = render_seats_calibration("blue_logo_serial", table=1)
    assert set(stills) == {"empty_table", "one_back_per_seat"}
    zones = showdown_frame[1]["zones"]
    for img, truth in stills.values():
        assert img.shape == (2160, 3840, 3)
        assert {s: z["corners_px"] for s, z in truth["zones"].items()} == \
            {s: z["corners_px"] for s, z in zones.items()}


def test_styles_and_sets_are_as_many_as_asked():
    assert len(DICE_SETS) >= 5 and len(DECK_STYLES) >= 3


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="unknown dice set"):
        render_dice_scene("no_such_set", 0)
    with pytest.raises(ValueError, match="unknown deck style"):
        render_seats_frame("no_such_style", 0)
    with pytest.raises(ValueError, match="unknown perturbation"):
        render_dice_scene("casino_white", 0, "smeared")


def test_command_writes_pictures_and_truth(tmp_path, monkeypatch):
    monkeypatch.setattr("tests.camera.heldout.__main__.DICE_SETS",
                        {k: DICE_SETS[k] for k in list(DICE_SETS)[:2]})
    assert cli_main(["--out", str(tmp_path), "--seeds", "1", "--no-seats"]) == 0
    pngs = sorted(tmp_path.glob("*.png"))
    assert len(pngs) == 4
    for png in pngs:
        truth = json.loads(png.with_suffix(".json").read_text())
        assert cv2.imread(str(png)).shape[:2][::-1] == tuple(truth["image_size_px"])
