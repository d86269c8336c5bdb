"""The blind renderer itself: the same arguments give the same picture, and its truth says what
the picture shows (codes decode where the truth puts them, a code called whole really is clear of
every other card, zones are as large and as finely seen as the card-face sheet asks, a die's top
face is where the truth says)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
import zxingcpp

from tests.camera.blind import (DECK_STYLES, DICE_SETS, PERTURBATIONS, render_dice_calibration, render_dice_scene,
                                render_seats_calibration, render_seats_frame)
from tests.camera.blind.cards import qr_matrix
from tests.camera.blind.seats import SEATS, seat_table


def _decode(img: np.ndarray, quad) -> list[str]:
    q = np.array(quad)
    x0, y0 = np.floor(q.min(0)).astype(int) - 6
    x1, y1 = np.ceil(q.max(0)).astype(int) + 6
    crop = img[max(0, y0):y1, max(0, x0):x1]
    return [r.text for r in zxingcpp.read_barcodes(crop, formats=zxingcpp.BarcodeFormat.QRCode)]


def _overlap(a, b) -> float:
    return float(cv2.intersectConvexConvex(np.float32(a), np.float32(b))[0])


def test_the_api_names_what_the_held_out_api_names():
    assert PERTURBATIONS == ("sharp", "blur", "noise", "dim", "warm", "jpeg")
    assert len(DICE_SETS) >= 4 and len(DECK_STYLES) >= 4
    with pytest.raises(ValueError, match="unknown perturbation"):
        render_dice_scene(next(iter(DICE_SETS)), 0, "fog")
    with pytest.raises(ValueError, match="unknown deck style"):
        render_seats_frame("no-such-deck", 0)


def test_codes_are_version_1_error_correction_m_with_the_card_text():
    m = qr_matrix("7H/3-0417", None)
    assert m.shape == (21, 21)
    patch = np.kron(1 - m, np.ones((8, 8), np.uint8)) * 255
    patch = cv2.copyMakeBorder(patch, 32, 32, 32, 32, cv2.BORDER_CONSTANT, value=255)
    (r,) = zxingcpp.read_barcodes(patch, formats=zxingcpp.BarcodeFormat.QRCode)
    assert r.text == "7H/3-0417" and r.symbology_identifier.startswith("]Q")
    assert r.ec_level == "M"


def test_dice_are_deterministic_and_differ_by_seed():
    name = next(iter(DICE_SETS))
    a, ta = render_dice_scene(name, 3, "noise", table=1)
    b, tb = render_dice_scene(name, 3, "noise", table=1)
    c, _ = render_dice_scene(name, 4, "noise", table=1)
    assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3
    assert np.array_equal(a, b) and ta == tb
    assert not np.array_equal(a, c)
    assert json.loads(json.dumps(ta)) == ta  # the truth is plain data, written beside samples


def test_dice_truth_matches_the_picture():
    seen_zero = seen_none = seen_empty = rim_hides = 0
    for table in range(6):
        for name in list(DICE_SETS)[:2]:
            for seed in range(4):
                img, truth = render_dice_scene(name, seed, "sharp", table=table)
                zone = truth["zones"]["DICE"]
                exp = zone["expected"]
                seen_none += exp is None
                seen_empty += exp == []
                seen_zero += bool(exp) and 0 in exp
                for d in zone["dice"]:
                    rim_hides += d["rim_hides_top"]
                    assert d["pip_diameter_px"] >= 6.0  # the sheet's floor
                    top = np.array(d["top_face_corners_px"])
                    assert _overlap(top, zone["corners_px"]) > 0.99 * cv2.contourArea(np.float32(top))
                    if d["in_full_view"]:
                        # the die's top face is bright plastic where the truth puts it (pips and all)
                        m = np.zeros(img.shape[:2], np.uint8)
                        cv2.fillConvexPoly(m, np.round(top).astype(np.int32), 1)
                        assert img[m > 0].mean() > 100, (name, seed, table)
                if exp is not None:
                    assert exp == sorted(d["face"] if d["in_full_view"] else 0 for d in zone["dice"])
    assert seen_zero and seen_none and seen_empty and rim_hides


def test_dice_calibration_is_the_empty_tray_of_the_same_table():
    img, truth = render_dice_calibration(next(iter(DICE_SETS)), table=2)
    _, throw = render_dice_scene(next(iter(DICE_SETS)), 1, table=2)
    assert truth["zones"]["DICE"]["expected"] == []
    assert truth["zones"]["DICE"]["corners_px"] == throw["zones"]["DICE"]["corners_px"]


@pytest.mark.parametrize("table", [0, 1, 2])
def test_seat_zones_are_large_enough_fine_enough_and_apart(table):
    t = seat_table(table)
    assert t.zone_size_mm[0] >= 200 and t.zone_size_mm[1] >= 160
    _, truth = render_seats_calibration(next(iter(DECK_STYLES)), table)["empty_table"]
    zones = truth["zones"]
    for s in SEATS:
        assert zones[s]["max_mm_per_px"] <= 0.33
        c = np.array(zones[s]["corners_px"])
        assert (c >= 0).all() and (c[:, 0] < 3840).all() and (c[:, 1] < 2160).all()
        assert zones[s]["expected"] == []
        for o in SEATS:
            if o > s:
                assert _overlap(zones[s]["corners_px"], zones[o]["corners_px"]) <= 0
    # S1 to S7 run round the arc: neighbours are nearer each other than S1 is to S7
    cen = {s: np.mean(zones[s]["corners_px"], 0) for s in SEATS}
    steps = [np.linalg.norm(cen[a] - cen[b]) for a, b in zip(SEATS, SEATS[1:])]
    assert max(steps) < np.linalg.norm(cen["S1"] - cen["S7"])


def test_seats_are_deterministic():
    style = next(iter(DECK_STYLES))
    a, ta = render_seats_frame(style, 5, "jpeg", table=0)
    b, tb = render_seats_frame(style, 5, "jpeg", table=0)
    assert a.shape == (2160, 3840, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and ta == tb
    assert json.loads(json.dumps(ta)) == ta


@pytest.mark.parametrize("style", sorted(DECK_STYLES))
def test_a_whole_code_decodes_where_the_truth_puts_it_and_is_clear_of_every_card(style):
    decoded = 0
    shown_seats = 0
    for seed in range(3):
        img, truth = render_seats_frame(style, seed, "sharp", table=seed % 2, phase="showdown")
        for s, z in truth["zones"].items():
            cards = z["cards"]
            if z["state"] == "shown":
                shown_seats += 1
                assert len(cards) == 4 and all(c["face_up"] for c in cards)
                assert all(any(c["codes_whole"]) for c in cards)  # the sheet: each shows one whole code
                assert z["expected"] == sorted(c["card"] for c in cards)
            if z["expected"] is None:
                assert z["state"].startswith("covered")
            for i, c in enumerate(cards):
                if not c["face_up"]:
                    continue
                assert c["qr_text"].split("/")[0] == c["card"]
                for whole, quad in zip(c["codes_whole"], c["code_corners_px"]):
                    if not whole:
                        continue
                    for later in cards[i + 1:]:
                        assert _overlap(quad, later["corners_px"]) <= 0.5
                    if seed < 2 and decoded < 6:
                        assert c["qr_text"] in _decode(img, quad), (style, seed, s, c["card"])
                        decoded += 1
    assert shown_seats and decoded


@pytest.mark.parametrize("style", sorted(DECK_STYLES)[:2])
def test_dealt_cards_each_show_half_their_back(style):
    counts = set()
    for seed in range(3):
        _, truth = render_seats_frame(style, seed, "sharp", table=1, phase="dealing")
        for z in truth["zones"].values():
            if z["state"] == "dealt":
                counts.add(len(z["cards"]))
                assert z["expected"] == ["??"] * len(z["cards"])
                assert all(c["visible_fraction"] >= 0.5 for c in z["cards"])
                assert z["layout"] in ("row", "fan")
    assert counts <= {1, 2, 3, 4} and counts


def test_calibration_stills_show_one_back_per_seat_on_the_same_table():
    stills = render_seats_calibration(sorted(DECK_STYLES)[1], table=1)
    (empty, te), (backs, tb) = stills["empty_table"], stills["one_back_per_seat"]
    for s in SEATS:
        assert te["zones"][s]["corners_px"] == tb["zones"][s]["corners_px"]
        assert tb["zones"][s]["expected"] == ["??"]
        c = np.array(tb["zones"][s]["cards"][0]["corners_px"])
        x, y = np.round(c.mean(0)).astype(int)
        # the back covers the felt there
        assert np.abs(backs[y - 5:y + 5, x - 5:x + 5].astype(int) - empty[y - 5:y + 5, x - 5:x + 5].astype(int)).mean() > 8


@pytest.mark.parametrize("face", range(1, 7))
def test_a_dies_footprint_is_turned_as_the_die_whatever_face_is_up(face):
    """The truth's top face (and the footprint the throws are placed by) turns with the die.
    A 3 or 4 up stands the die's x axis upright; its turn was read from that axis alone, so
    every such die had an unturned square in the truth, and "in full view" was judged on it."""
    from tests.camera.blind.dice import Die, _die_rotation, footprint
    rng = np.random.default_rng(face)
    for yaw in (0.3, 0.7, 1.2):
        d = Die(face, 10.0, -5.0, _die_rotation(face, yaw, rng))
        sq = footprint(d)
        side = sq[1] - sq[0]
        turn = float(np.arctan2(side[1], side[0]))
        assert min(abs((turn - yaw + np.pi / 4) % (np.pi / 2) - np.pi / 4), 1.0) < 1e-6, (face, yaw, turn)
        # the top face the renderer draws: the die's corners with the upright axis at the top
        up = int(np.argmax(np.abs(d.R[2])))
        axes = [j for j in range(3) if j != up]
        corners = np.array([[d.x, d.y] + (d.R[:2, axes[0]] * a + d.R[:2, axes[1]] * b) * 8.0
                            for a in (-1, 1) for b in (-1, 1)])
        assert _overlap(cv2.convexHull(np.float32(corners))[:, 0], sq) == pytest.approx(256.0, abs=1e-3)
