"""Self-test of the blind dice renderer (not of any reader)."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from . import DICE_SETS, PERTURBATIONS, render_dice_scene
from .common import H, W
from .dice_sets import FACE_LAYOUT, SIZE_MM, face_of_axis
from .tables import get_table
from .throws import CALIBRATION_SEEDS, make_throw

HERE = Path(__file__).resolve().parent


def _digest(img):
    return hashlib.sha256(np.ascontiguousarray(img).tobytes()).hexdigest()


def test_public_interface():
    assert PERTURBATIONS == ("sharp", "blur", "noise", "dim", "warm", "jpeg")
    assert 4 <= len(DICE_SETS) <= 8
    for name in DICE_SETS:
        assert isinstance(name, str)


def test_frame_and_truth_format():
    img, truth = render_dice_scene(next(iter(DICE_SETS)), 3, "sharp", 0)
    assert img.dtype == np.uint8 and img.shape == (H, W, 3)
    zone = truth["zones"]["DICE"]
    assert set(zone) >= {"corners_px", "expected"}
    corners = zone["corners_px"]
    assert len(corners) == 4 and all(len(c) == 2 for c in corners)
    exp = zone["expected"]
    assert exp is None or (isinstance(exp, list) and all(isinstance(e, int) and 0 <= e <= 6
                                                         for e in exp))


def test_deterministic_within_process_after_cache_clear():
    from . import _clean
    a, ta = render_dice_scene("ivory_classic", 17, "noise", 1)
    _clean.cache_clear()
    get_table.cache_clear()
    b, tb = render_dice_scene("ivory_classic", 17, "noise", 1)
    assert _digest(a) == _digest(b)
    assert ta == tb


def test_deterministic_across_processes():
    code = ("import sys, hashlib; sys.path.insert(0, %r); "
            "from blind_dice import render_dice_scene; "
            "img, t = render_dice_scene('matte_small_pips', 5, 'jpeg', 2); "
            "print(hashlib.sha256(img.tobytes()).hexdigest(), t['zones']['DICE']['expected'])"
            % str(HERE.parent))
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={"PYTHONHASHSEED": str(s), "PATH": ""}).stdout
            for s in (1, 2)]
    assert outs[0] == outs[1]
    img, t = render_dice_scene("matte_small_pips", 5, "jpeg", 2)
    assert outs[0].split()[0] == _digest(img)


def test_perturbations_keep_the_throw():
    truths = []
    digests = set()
    for p in PERTURBATIONS:
        img, t = render_dice_scene("worn_rounded_brown", 6, p, 3)
        truths.append((t["zones"], [d["center_px"] for d in t["dice"]]))
        digests.add(_digest(img))
    assert all(tr == truths[0] for tr in truths)
    assert len(digests) == len(PERTURBATIONS)


@pytest.mark.parametrize("table", range(8))
def test_zone_polygon_inside_image_and_around_dice(table):
    img, truth = render_dice_scene("cool_gloss_sharp", 900, "sharp", table)
    poly = np.array(truth["zones"]["DICE"]["corners_px"])
    assert (poly[:, 0] >= 0).all() and (poly[:, 0] <= W - 1).all()
    assert (poly[:, 1] >= 0).all() and (poly[:, 1] <= H - 1).all()
    import cv2
    for d in truth["dice"]:
        assert cv2.pointPolygonTest(poly.astype(np.float32), tuple(d["center_px"]), True) > 20


def test_pips_at_least_six_pixels():
    # worst case by construction: smallest pip at the coarsest scale
    smallest = min(s.pip_diameter_mm for s in DICE_SETS.values())
    assert smallest / 0.33 >= 6.0
    for table in range(12):
        tbl = get_table(table)
        assert 0.24 <= tbl.mm_per_px <= 0.33
    for name in DICE_SETS:
        for table in (0, 3):
            _, truth = render_dice_scene(name, 901, "sharp", table)
            for d in truth["dice"]:
                assert d["pip_px"] >= 6.0


@pytest.mark.parametrize("name", list(DICE_SETS))
def test_calibration_seeds_two_whole_dice(name):
    dset = DICE_SETS[name]
    for table in range(20):
        tbl = get_table(table)
        for seed in CALIBRATION_SEEDS:
            th = make_throw(tbl, dset, seed)
            assert th.hand_mode == "none" and not th.capsules
            assert len(th.expected) == 2 and all(1 <= e <= 6 for e in th.expected)


def test_expected_is_left_to_right():
    for table in range(6):
        tbl = get_table(table)
        for seed in range(30):
            th = make_throw(tbl, DICE_SETS["ivory_classic"], seed)
            xs = [i["center_px"][0] for i in th.info]
            assert xs == sorted(xs)
            if th.expected is not None:
                assert len(th.expected) == len(th.dice) <= 2


def test_throw_mix_has_the_cases():
    seen = set()
    for table in range(12):
        tbl = get_table(table)
        for seed in range(40):
            th = make_throw(tbl, DICE_SETS["translucent_cream"], seed)
            e = th.expected
            if e is None:
                seen.add("covered")
            elif e == []:
                seen.add("empty")
            elif len(e) == 1:
                seen.add("one")
            if e and 0 in e:
                seen.add("zero")
            if e and any(x > 0 for x in e):
                seen.add("read")
            seen.add(th.layout)
    assert {"covered", "empty", "one", "zero", "read", "free", "face", "corner",
            "wall"} <= seen


def _top_pips_world(die, dset):
    fmap = face_of_axis(dset.chirality)
    (k, sg), = [key for key, v in fmap.items() if v == die.face]
    ku, kv = (k + 1) % 3, (k + 2) % 3
    pts = []
    for iu, iv in FACE_LAYOUT[die.face]:
        p = np.zeros(3)
        p[k] = sg * SIZE_MM / 2
        p[ku] = iu * dset.pip_spacing_mm
        p[kv] = iv * dset.pip_spacing_mm
        pts.append(die.center + die.R @ p)
    # plain plastic: points between pips
    plain = []
    for iu, iv in ((0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)):
        p = np.zeros(3)
        p[k] = sg * SIZE_MM / 2
        p[ku] = iu * dset.pip_spacing_mm * 1.35
        p[kv] = iv * dset.pip_spacing_mm * 1.35
        plain.append(die.center + die.R @ p)
    return np.array(pts), np.array(plain)


@pytest.mark.parametrize("name,table,seed", [("ivory_classic", 0, 900), ("cool_gloss_sharp", 1, 901),
                                             ("translucent_cream", 2, 900),
                                             ("matte_small_pips", 3, 901),
                                             ("worn_rounded_brown", 4, 900)])
def test_rendered_top_face_matches_truth(name, table, seed):
    """The top face drawn is the face in the truth: darker (or redder) at its pip centres
    than on its plain plastic."""
    img, truth = render_dice_scene(name, seed, "sharp", table)
    tbl = get_table(table)
    dset = DICE_SETS[name]
    th = make_throw(tbl, dset, seed)
    f = img.astype(np.float32)

    def sample(P):
        u, v, _ = tbl.cam.project(P)
        out = []
        for a, b in zip(u, v):
            x, y = int(round(a - 0.5)), int(round(b - 0.5))
            out.append(f[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(0))
        return np.array(out)

    for die in th.dice:
        pips, plain = _top_pips_world(die, dset)
        ps, pl = sample(pips), sample(plain)
        plain_lum = pl.mean(1).min()
        for c in ps:
            b, g, r = c
            if die.face in (1, 4):
                assert r / max(g, 1) > 1.4 or c.mean() < 0.7 * plain_lum
            else:
                assert c.mean() < 0.7 * plain_lum


def _rendered_dice(tbl, dset, n_seeds):
    """Every die of the throws of seeds 0..n_seeds-1 on a table (throws with no dice skipped),
    with its throw's render context: yields (seed, throw, ctx, die index, die, info)."""
    from . import render as R
    for seed in range(n_seeds):
        th = make_throw(tbl, dset, seed)
        if not th.dice:
            continue
        ctx = R.Ctx(tbl, dset, th)
        for di, (die, info) in enumerate(zip(th.dice, th.info)):
            yield seed, th, ctx, di, die, info


def test_truth_visibility_agrees_with_the_rendered_geometry():
    """A die is 0 exactly when some point of its top face is not the first thing the camera
    ray through that point's pixel meets."""
    from . import render as R
    from .throws import top_face_points
    n_hidden = 0
    for name in ("ivory_classic", "worn_rounded_brown"):
        dset = DICE_SETS[name]
        for table in (1, 3, 8, 11):
            tbl = get_table(table)
            for _seed, th, ctx, di, die, info in _rendered_dice(tbl, dset, 15):
                pts = top_face_points(die, dset.edge_radius_mm)
                u, v, _ = tbl.cam.project(pts)
                g = R.intersect_all(ctx, u, v)
                seen = (g["obj"] == 100 + di) & (np.linalg.norm(g["P"] - pts, axis=1) < 1.5)
                assert bool(seen.all()) == info["visible"]
                if th.expected is not None:
                    assert (th.expected[di] == 0) == (not info["visible"])
                n_hidden += not info["visible"]
    assert n_hidden > 0


def _rounded_corner_points(die, r):
    """World points of the top face's four rounded corners, out to 45 degrees from the top."""
    ca, sa = np.cos(die.yaw), np.sin(die.yaw)
    ex, ey = np.array([ca, sa, 0.0]), np.array([-sa, ca, 0.0])
    hf = SIZE_MM / 2 - r
    pts = []
    for th in np.radians(np.linspace(7.5, 45.0, 6)):
        z = die.center[2] + SIZE_MM / 2 - r * (1 - np.cos(th))
        for phi in np.radians(np.linspace(0.0, 90.0, 13)):
            for sx in (-1, 1):
                for sy in (-1, 1):
                    a = sx * (hf + r * np.sin(th) * np.cos(phi))
                    b = sy * (hf + r * np.sin(th) * np.sin(phi))
                    pts.append(np.array([die.center[0], die.center[1], z]) + a * ex + b * ey)
    return np.array(pts)


@pytest.mark.parametrize("name,table", [("matte_small_pips", 7), ("worn_rounded_brown", 4)])
def test_a_die_in_full_view_shows_its_rounded_corners(name, table):
    """The top face counted for 'in full view' takes in its rounded border out to 45 degrees
    at the corners too: a rim or hand hiding only a rounded corner leaves the die not in full
    view (such near-misses are not generated)."""
    from . import render as R
    dset = DICE_SETS[name]
    tbl = get_table(table)
    for seed, _th, ctx, di, die, info in _rendered_dice(tbl, dset, 40):
        if not info["visible"]:
            continue
        pts = _rounded_corner_points(die, dset.edge_radius_mm)
        u, v, _ = tbl.cam.project(pts)
        g = R.intersect_all(ctx, u, v)
        dist = np.linalg.norm(pts - tbl.cam.C, axis=1)
        hit = np.linalg.norm(g["P"] - tbl.cam.C, axis=1)
        seen = (g["obj"] == 100 + di) & (hit > dist - 0.05)
        assert seen.all(), (seed, di)
