"""The fourth (independent) seats renderer: determinism, truth against the picture, calibration
stills, names."""

import json

import cv2
import numpy as np
import pytest
import zxingcpp

from tests.camera.fourth_seats import (
    DECK_STYLES,
    PERTURBATIONS,
    render_seats_calibration,
    render_seats_frame,
)
from tests.camera.fourth_seats.scene import make_round
from tests.camera.fourth_seats.table import get_table

W, H = 3840, 2160


def _decode_at(img, corners, pad=14):
    q = np.asarray(corners)
    x0, y0 = np.floor(q.min(0) - pad).astype(int)
    x1, y1 = np.ceil(q.max(0) + pad).astype(int)
    crop = np.ascontiguousarray(img[max(y0, 0):y1, max(x0, 0):x1])
    res = zxingcpp.read_barcodes(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), formats=zxingcpp.BarcodeFormat.QRCode)
    return [r.text for r in res]


def _check_truth_shape(img, truth):
    assert img.shape == (H, W, 3) and img.dtype == np.uint8
    json.dumps(truth)  # plain JSON types
    assert truth["kind"] == "seats"
    assert 0.28 <= truth["mm_per_px"] <= 0.33
    assert list(truth["zones"]) == [f"S{i}" for i in range(1, 8)]
    for name, z in truth["zones"].items():
        zc = np.asarray(z["corners_px"])
        assert zc.shape == (4, 2)
        assert (zc >= 0).all() and (zc[:, 0] < W).all() and (zc[:, 1] < H).all(), name
        for c in z["cards"]:
            cc = np.asarray(c["corners_px"])
            assert cc.shape == (4, 2)
            assert (cc >= 0).all() and (cc[:, 0] < W).all() and (cc[:, 1] < H).all(), name
            assert 0.0 <= c["visible_fraction"] <= 1.0
            side = np.linalg.norm(cc[1] - cc[0]) * truth["mm_per_px"]
            assert 55 < side < 72, side  # 63 mm
        st, exp = z["state"], z["expected"]
        if st == "covered":
            assert exp is None
        elif st == "empty":
            assert exp == [] and z["cards"] == []
        elif st in ("dealt", "folded"):
            assert exp == ["??"] * len(z["cards"]) and 1 <= len(exp) <= 4
            assert all(not c["face_up"] and c["visible_fraction"] >= 0.49 for c in z["cards"])
        else:
            assert st == "shown" and len(exp) == 4 and exp == sorted(exp)
            assert exp == sorted(c["card"] if any(k["whole"] for k in c["codes"]) else "XX" for c in z["cards"])


def _seed_with_hand(style, table):
    t = get_table(table)
    for seed in range(200):
        r = make_round(style, seed, t, "showdown")
        if r.hand is not None and r.seats[r.hand.seat]["cards"]:
            return seed
    raise AssertionError("no hand in 200 rounds")


def test_deterministic_and_hand_covers_its_seat():
    seed = _seed_with_hand("royal_logo", 1)
    a, ta = render_seats_frame("royal_logo", seed, "jpeg", table=1, phase="showdown")
    b, tb = render_seats_frame("royal_logo", seed, "jpeg", table=1, phase="showdown")
    assert np.array_equal(a, b) and ta == tb
    _check_truth_shape(a, ta)
    seat = ta["meta"]["hand"]["seat"]
    assert ta["zones"][seat]["expected"] is None and ta["zones"][seat]["state"] == "covered"
    r1 = make_round("royal_logo", seed + 1, get_table(1), "showdown")
    r0 = make_round("royal_logo", seed, get_table(1), "showdown")
    assert [c.card for s in r0.seats.values() for c in s["cards"]] != [c.card for s in r1.seats.values() for c in s["cards"]]


def test_sharp_frame_codes_decode_where_the_truth_says():
    img, truth = render_seats_frame("sunburst", 5, "sharp", table=2, phase="showdown")
    _check_truth_shape(img, truth)
    n = 0
    for name, z in truth["zones"].items():
        if z["expected"] is None:
            continue
        for c in z["cards"]:
            for k in c.get("codes", []):
                if k["whole"]:
                    assert c["qr_text"] in _decode_at(img, k["corners_px"]), (name, c["qr_text"])
                    assert c["qr_text"].split("/")[0] == c["card"]
                    n += 1
    assert n >= 4
    # a face-down card shows no code
    for z in truth["zones"].values():
        for c in z["cards"]:
            if not c["face_up"] and c["visible_fraction"] > 0.99:
                assert _decode_at(img, c["corners_px"], pad=4) == []


def test_deal_frame_counts_and_backs():
    img, truth = render_seats_frame("noir", 11, "sharp", table=0, phase="deal")
    _check_truth_shape(img, truth)
    assert truth["meta"]["phase"] == "deal"
    for z in truth["zones"].values():
        assert all(not c["face_up"] for c in z["cards"])
        assert len(z["cards"]) <= 4


def test_calibration_stills():
    st = render_seats_calibration("stripes_navy", 0)
    assert set(st) == {"empty_table", "one_back_per_seat"}
    e_img, e = st["empty_table"]
    b_img, b = st["one_back_per_seat"]
    _check_truth_shape(e_img, e)
    _check_truth_shape(b_img, b)
    for name in e["zones"]:
        assert e["zones"][name]["expected"] == [] and e["zones"][name]["state"] == "empty"
        assert e["zones"][name]["corners_px"] == b["zones"][name]["corners_px"]  # the same table
        bz = b["zones"][name]
        assert bz["expected"] == ["??"] and bz["state"] == "dealt" and len(bz["cards"]) == 1
        assert not bz["cards"][0]["face_up"] and bz["cards"][0]["visible_fraction"] > 0.99
    # the two stills differ only where the cards lie (and their shadows)
    mask = np.zeros((H, W), np.uint8)
    for z in b["zones"].values():
        cv2.fillConvexPoly(mask, np.round(np.asarray(z["cards"][0]["corners_px"])).astype(np.int32), 255)
    near = cv2.dilate(mask, np.ones((41, 41), np.uint8)) > 0
    diff = np.abs(e_img.astype(np.int16) - b_img.astype(np.int16)).max(2)
    assert np.median(diff[~near]) <= 6
    assert diff[mask > 0].mean() > 20


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="lattice_red"):
        render_seats_frame("no_such_deck", 1)
    with pytest.raises(ValueError, match="jpeg"):
        render_seats_frame("lattice_red", 1, "fog")
    with pytest.raises(ValueError, match="showdown"):
        render_seats_frame("lattice_red", 1, phase="river")
    with pytest.raises(ValueError, match="plain_cyan"):
        render_seats_calibration("nope")
    assert len(DECK_STYLES) >= 6
    assert PERTURBATIONS == ("sharp", "blur", "noise", "dim", "warm", "jpeg")
