"""Self-checks of the fourth, independent dice-tray renderer (whole file well under 15 s)."""
import functools
import json

import cv2
import numpy as np
import pytest

from tests.camera.fourth_dice import DICE_SETS, PERTURBATIONS, render_dice_scene
from tests.camera.fourth_dice import render as R


@functools.cache
def _scene(set_name, seed, pert="sharp", table=2):
    return render_dice_scene(set_name, seed, pert, table)


def test_api_shape():
    assert len(DICE_SETS) >= 6
    assert PERTURBATIONS == ("sharp", "blur", "noise", "dim", "warm", "jpeg")


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="casino_gloss_white"):
        render_dice_scene("no_such_set", 1)
    with pytest.raises(ValueError, match="sharp"):
        render_dice_scene("casino_gloss_white", 1, "fisheye")


def test_deterministic():
    a, ta = render_dice_scene("cream_flat_print", 17, "noise", 3)
    b, tb = render_dice_scene("cream_flat_print", 17, "noise", 3)
    assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3
    assert np.array_equal(a, b)
    assert ta == tb
    json.dumps(ta)


def _inside(poly, pt):
    return cv2.pointPolygonTest(np.float32(poly).reshape(-1, 1, 2), (float(pt[0]), float(pt[1])), False) >= 0


@pytest.mark.parametrize("set_name,seed,table", [
    ("casino_gloss_white", 900, 2), ("aged_ivory_dark_red", 901, 2),
    ("small_pip_sharp_edge", 900, 3), ("translucent_orange_red", 901, 4)])
def test_calibration_stills_and_geometry(set_name, seed, table):
    img, truth = _scene(set_name, seed, "sharp", table)
    assert truth["kind"] == "dice"
    assert 0.24 <= truth["mm_per_px"] <= 0.33
    dice = truth["dice"]
    assert len(dice) == 2 and truth["hand"] == "none"
    assert all(d["in_full_view"] and not d["touching"] for d in dice)
    assert truth["zones"]["DICE"]["expected"] == sorted(d["face"] for d in dice)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(float)
    floor = np.median(gray)
    zone = truth["zones"]["DICE"]["corners_px"]
    for d in dice:
        assert 1 <= d["face"] <= 6
        assert d["pip_diameter_px"] >= 6
        c = np.array(d["centre_px"])
        assert _inside(zone, c)
        corners = np.array(d["top_face_corners_px"])
        assert np.allclose(corners.mean(0), c, atol=1.0)
        side = np.linalg.norm(corners[1] - corners[0])
        assert abs(side * truth["mm_per_px"] - 16.0) < 2.0
        for k in corners:
            p = c + 0.75 * (k - c)          # just inside the corner: plastic, beyond any pip
            v = gray[int(round(p[1])), int(round(p[0]))]
            assert v > 100 and v > floor + 30, (d, p, v)


def test_faces_pips_visible():
    # the number of dark blobs on the top face equals the face value on a clean still
    img, truth = _scene("casino_gloss_white", 900, "sharp", 2)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    for d in truth["dice"]:
        poly = np.array(d["top_face_corners_px"])
        c = poly.mean(0)
        inner = (c + 0.82 * (poly - c)).astype(np.int32)
        mask = np.zeros(gray.shape, np.uint8)
        cv2.fillConvexPoly(mask, inner, 255)
        dark = ((gray < 110) & (mask > 0)).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
        blobs = [s for s in stats[1:] if s[cv2.CC_STAT_AREA] >= 12]
        assert len(blobs) == d["face"], (d, len(blobs))


def test_perturbations_change_picture():
    base, tbase = _scene("ivory_matte_round", 900, "sharp", 2)
    for pert in PERTURBATIONS[1:]:
        img, truth = _scene("ivory_matte_round", 900, pert, 2)
        assert img.shape == base.shape
        assert truth["zones"] == tbase["zones"] and truth["dice"] == tbase["dice"]
        assert np.abs(img.astype(int) - base.astype(int)).mean() > 0.8, pert
    dim, _ = _scene("ivory_matte_round", 900, "dim", 2)
    assert dim.mean() < 0.8 * base.mean()
    warm, _ = _scene("ivory_matte_round", 900, "warm", 2)
    assert warm[..., 2].mean() - warm[..., 0].mean() > base[..., 2].mean() - base[..., 0].mean() + 10


def test_throws_vary():
    # the throw alone (no rendering): mostly two dice, sometimes one or none, touching, hands
    tb = R._table(0)
    st = DICE_SETS["jumbo_pip_soft_edge"]
    counts, hands, touching = {}, set(), 0
    for seed in range(150):
        dice, hand, _ = R._throw(seed, tb, st)
        counts[len(dice)] = counts.get(len(dice), 0) + 1
        hands.add(hand)
        touching += any(d["touching"] for d in dice)
    assert counts.get(2, 0) > 90 and counts.get(1, 0) > 0 and counts.get(0, 0) > 0
    assert hands == {"none", "partial", "full"}
    assert touching > 10


def test_cut_and_covered_truth():
    # table 4's frame edge cuts the tray; a hand scene reports 0 or None
    img, truth = _scene("cream_flat_print", 4, "sharp", 4)
    h, w = img.shape[:2]
    for d in truth["dice"]:
        inside = all(0 <= x <= w - 1 and 0 <= y <= h - 1 for x, y in d["top_face_corners_px"])
        if not inside:
            assert not d["in_full_view"]
    exp = truth["zones"]["DICE"]["expected"]
    assert exp == sorted(d["face"] if d["in_full_view"] else 0 for d in truth["dice"])
    for x, y in truth["zones"]["DICE"]["corners_px"]:
        assert 0 <= x <= w - 1 and 0 <= y <= h - 1
