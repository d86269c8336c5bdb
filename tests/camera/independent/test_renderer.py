"""The independent renderer checked on its own pixels (no recogniser of the station is used):
its codes decode to its truth, its scale is the one asked for, side faces of dice show only
when the camera is off axis, a seed gives one picture, every perturbation changes it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from pyzbar import pyzbar

from tests.camera.independent import (
    DECK_STYLES,
    DICE_SETS,
    PERTURBATIONS,
    perturb,
    render_dice_tray,
    render_seat_scene,
    render_two_camera_scene,
    seat_calibration_stills,
    tray_calibration_stills,
)
from tests.camera.independent.dice import DIE_MM, FACE_NORMALS, Die

SHOWN = {"S2": {"up": ["7H", "TD", "KS", "AC"]}}
SEATS = {
    "S1": {"down": 3, "layout": "fan"},
    "S2": SHOWN["S2"],
    "S3": "folded",
    "S4": {"down": 2, "hand": True},
    # the front pair pushed far over the back pair: both codes of each back card covered
    "S5": {"up": ["2C", "9D", "QH", "4S"], "row_overlap_mm": 62},
    "S6": {"down": 1},
}


@pytest.fixture(scope="module")
def seat_scene():
    return render_seat_scene(SEATS, deck_style="emerald_logo", seed=5, tilt_deg=0.0)


def _decode(image, polygon_px, pad_px=24) -> set[str]:
    """What OpenCV's and ZBar's QR decoders read round one code (each misses a clean code now
    and then, on a crop's context; between them they read every one)."""
    p = np.asarray(polygon_px)
    x0, y0 = np.floor(p.min(axis=0)).astype(int) - pad_px
    x1, y1 = np.ceil(p.max(axis=0)).astype(int) + pad_px
    crop = image[max(y0, 0):y1, max(x0, 0):x1]
    text, _pts, _ = cv2.QRCodeDetector().detectAndDecode(crop)
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    zbar = {r.data.decode("utf-8") for r in pyzbar.decode(gray, symbols=[pyzbar.ZBarSymbol.QRCODE])}
    return ({text} if text else set()) | zbar


def test_every_code_in_full_view_decodes_to_the_truth(seat_scene):
    image, truth = seat_scene
    decoded = 0
    for seat, cards in truth["cards"].items():
        for card in cards:
            if card["face"] != "up":
                continue
            for code in card["codes"]:
                if code["in_view"]:
                    # among what the decoders read (a crop may also hold a neighbour's code)
                    assert card["qr_text"] in _decode(image, code["polygon_px"]), (seat, card["card"])
                    decoded += 1
    assert decoded >= 5
    assert all("/" in c["qr_text"] for c in truth["cards"]["S2"])  # a serialized deck


def test_the_truth_follows_the_sheet(seat_scene):
    _image, truth = seat_scene
    seats = truth["seats"]
    assert seats["S1"] == ["??"] * 3 and seats["S3"] == ["??"] * 4 and seats["S6"] == ["??"]
    assert seats["S7"] == []
    assert seats["S4"] is None  # under the dealer's hand
    assert sorted(seats["S2"]) == sorted(["7H", "TD", "KS", "AC"])
    assert sorted(seats["S5"]) == sorted(["2C", "9D", "XX", "XX"])
    assert set(truth["zones"]) == {f"S{i}" for i in range(1, 8)}


def test_a_card_measures_its_size_at_the_asked_scale():
    mm_per_px = 0.30
    views = render_two_camera_scene({"S3": {"down": 1}}, seed=2, groups=(("S3", "S4"),), tilt_deg=0.0,
                                    deck_style="midnight_flat", ss=2)
    image, truth = views[0]
    corners = np.asarray(truth["cards"]["S3"][0]["corners_px"])
    # the card from the picture: pixels far from the felt's colour, near where the card lies
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 30
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 30
    crop = image[y0:y1, x0:x1].astype(np.int32)
    felt = np.median(np.concatenate([crop[:8].reshape(-1, 3), crop[-8:].reshape(-1, 3)]), axis=0)
    mask = (np.abs(crop - felt).sum(axis=2) > 60).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    (_, _), (w, h), _ = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    short, long_ = sorted((w, h))
    assert short == pytest.approx(63 / mm_per_px, rel=0.02)
    assert long_ == pytest.approx(88 / mm_per_px, rel=0.02)
    assert truth["seats_in_view"] == ["S3", "S4"]


def _die_pixels(tilt_deg, seed=4):
    common = dict(seed=seed, tilt_deg=tilt_deg, tilt_azimuth_deg=30.0, tray_style="black", felt="green",
                  image_size=(640, 400), ss=2)
    with_die, truth = render_dice_tray("casino_ivory", [5], **common)
    without, _ = render_dice_tray("casino_ivory", [5], draw_dice=False, **common)
    seen = int((np.abs(with_die.astype(int) - without.astype(int)).sum(axis=2) > 40).sum())
    top = abs(cv2.contourArea(np.asarray(truth["dice"][0]["top_corners_px"], np.float32)))
    return seen, top, truth


def test_side_faces_show_only_when_the_camera_is_off_axis():
    seen0, top0, truth0 = _die_pixels(0.0)
    seen8, top8, truth8 = _die_pixels(8.0)
    # straight down only the near-nadir parallax of a die 16 mm tall shows (under 2 px)
    assert seen0 - top0 < 2.0 * 48 * 2
    assert max(truth0["dice"][0]["side_faces_px"].values(), default=0) < 2.0 * 48
    # 8° off axis a strip of about 16 mm * sin 8° = 6.7 px of side face shows
    assert seen8 - top8 > 4.0 * 48
    sides = truth8["dice"][0]["side_faces_px"]
    assert max(sides.values()) > 4.0 * 48
    assert 5 not in sides and 2 not in sides  # the top face and the face under it


def test_the_die_net_is_a_real_die():
    for v, n in FACE_NORMALS.items():
        assert np.allclose(FACE_NORMALS[7 - v], -n)
    # 1, 2, 3 counter-clockwise round their common corner, seen from outside
    n1, n2, n3 = FACE_NORMALS[1], FACE_NORMALS[2], FACE_NORMALS[3]
    assert np.dot(np.cross(n1, n2), n3) > 0
    for top in range(1, 7):
        d = Die(top, (0, 0), 17.0, 0.0)
        ups = [v for v, n, *_ in d.faces() if n[2] < -0.99]
        assert ups == [top]


def test_a_seed_gives_one_picture():
    a, ta = render_dice_tray("translucent", [2, 6], seed=11, arrangement="touching", image_size=(640, 360), ss=2)
    b, tb = render_dice_tray("translucent", [2, 6], seed=11, arrangement="touching", image_size=(640, 360), ss=2)
    c, _ = render_dice_tray("translucent", [2, 6], seed=12, arrangement="touching", image_size=(640, 360), ss=2)
    assert np.array_equal(a, b) and ta == tb
    assert not np.array_equal(a, c)


def test_a_die_partly_out_of_the_picture_reads_zero_and_a_hand_covers_the_tray():
    _img, truth = render_dice_tray("small_pips", [4, 1], seed=2, arrangement="outside", ss=2)
    first = truth["dice"][0]
    assert first["in_picture"] and not first["top_in_view"]
    assert sorted(truth["reading"]) == [0, 1]
    _img, truth = render_dice_tray("big_pips", [3, 3], seed=3, hand=True, image_size=(640, 400), ss=2)
    assert truth["reading"] is None


@pytest.mark.parametrize("name", sorted(PERTURBATIONS))
def test_each_perturbation_changes_the_picture(name):
    img, _ = render_dice_tray("worn_matte", [6], seed=1, image_size=(320, 180), ss=2)
    out = perturb(img, name, seed=3)
    assert out.shape == img.shape and out.dtype == np.uint8
    diff = np.abs(out.astype(int) - img.astype(int)).mean()
    if name == "sharp":
        assert diff == 0
    else:
        assert diff > 0.3, name
    with pytest.raises(ValueError, match="unknown perturbation"):
        perturb(img, "fog")


def test_calibration_stills_give_the_zones_in_order():
    stills = tray_calibration_stills(dice_set="rounded_cool", seed=6, image_size=(640, 400), ss=2)
    empty, dice = stills["empty"], stills["dice"]
    assert empty[1]["zones"] == dice[1]["zones"]  # one table, one camera
    assert empty[1]["reading"] == [] and sorted(dice[1]["reading"]) == [3, 5]
    poly = np.asarray(empty[1]["zones"]["DICE"])
    assert poly.shape == (4, 2)
    assert cv2.contourArea(poly.astype(np.float32), oriented=True) > 0  # TL, TR, BR, BL: clockwise on screen
    # the geometry only: the whole table at 0.6 mm/px on a 1080p picture
    seats = seat_calibration_stills(deck_style="red_lattice", seed=6, mm_per_px=0.6, image_size=(1920, 1080), ss=1)
    assert seats["empty"][1]["zones"] == seats["backs"][1]["zones"]
    assert list(seats["empty"][1]["zones"]) == [f"S{i}" for i in range(1, 8)]
    assert seats["backs"][1]["seats"]["S4"] == ["??"] * 4


def test_the_styles_on_offer():
    assert len(DICE_SETS) >= 6 and len(DECK_STYLES) >= 3
    backs = {s.back for s in DECK_STYLES.values()}
    assert backs == {"flat", "lattice", "logo"}


def test_the_batteries_are_the_same_from_the_same_seed_and_cover_everything():
    from tests.camera.independent.cases import dice_cases, seat_cases

    a, b = dice_cases(42, seed=1), dice_cases(42, seed=1)
    assert a == b and len({c.name for c in a}) == 42
    assert {c.dice_set for c in a} == set(DICE_SETS)
    assert {c.perturbation for c in a} == set(PERTURBATIONS)
    assert {c.arrangement for c in a} == {"free", "touching", "rim", "outside"}
    assert any(c.hand for c in a) and any(not c.dice for c in a)
    seats = seat_cases(12, seed=1)
    assert [c.name for c in seats] == [c.name for c in seat_cases(12, seed=1)]
    assert {c.deck_style for c in seats} == set(DECK_STYLES)
    img, truth = a[2].render(image_size=(480, 270), mm_per_px=1.2, ss=2)
    assert img.shape == (270, 480, 3) and truth["perturbation"] == a[2].perturbation


def test_each_dice_set_is_a_die_a_maker_could_sell():
    # pips inside the flat of the face, apart from each other, and at least 6 px across at
    # 0.33 mm/px (the sheet's floor)
    for ds in DICE_SETS.values():
        flat_half = DIE_MM / 2 - ds.edge_radius_mm
        assert ds.pip_offset_mm + ds.pip_mm / 2 <= flat_half + 1e-9, ds.name
        assert ds.pip_offset_mm - ds.pip_mm >= 0.3, ds.name
        assert ds.one_pip_mm / 2 <= flat_half and min(ds.pip_mm, ds.one_pip_mm) / 0.33 >= 6, ds.name
