"""Self-tests of the blind Si Zhi Dao renderer: its pictures and its own truth."""
import numpy as np
import pytest

from . import DECK_STYLES, PERTURBATIONS, render_seats_calibration, render_seats_frame
from .render import _build_scene

W, H = 3840, 2160
SHOWDOWN = ("jade_stripes", 0, 0)    # (style, seed, table): a showdown frame
DEALING = ("onyx_crest", 17, 1)       # a dealing frame with the dealer's hand


@pytest.fixture(scope="module")
def frames():
    out = {}
    out["show"] = render_seats_frame(SHOWDOWN[0], SHOWDOWN[1], "sharp", SHOWDOWN[2])
    out["show_again"] = render_seats_frame(SHOWDOWN[0], SHOWDOWN[1], "sharp", SHOWDOWN[2])
    out["show_dim"] = render_seats_frame(SHOWDOWN[0], SHOWDOWN[1], "dim", SHOWDOWN[2])
    out["deal"] = render_seats_frame(DEALING[0], DEALING[1], "jpeg", DEALING[2])
    out["calib"] = render_seats_calibration("violet_checker", 0)
    return out


def _all(frames):
    yield from (frames["show"], frames["show_dim"], frames["deal"])
    yield from frames["calib"].values()


def test_api():
    assert len(DECK_STYLES) >= 5
    assert PERTURBATIONS == ("sharp", "blur", "noise", "dim", "warm", "jpeg")
    with pytest.raises(ValueError):
        render_seats_frame("no_such_style", 1)


def test_shapes_and_zones(frames):
    for img, truth in _all(frames):
        assert img.shape == (H, W, 3) and img.dtype == np.uint8
        assert sorted(truth["zones"]) == [f"S{i}" for i in range(1, 8)]
        for name, z in truth["zones"].items():
            q = np.array(z["corners_px"], float)
            assert q.shape == (4, 2)
            assert q.min() >= 0 and q[:, 0].max() <= W - 1 and q[:, 1].max() <= H - 1
            w_mm, h_mm = z["size_mm"]
            assert w_mm >= 200 and h_mm >= 160
            # scale along every edge (mm of felt per pixel) and the renderer's own worst case
            for i, mm in enumerate((w_mm, h_mm, w_mm, h_mm)):
                px = np.linalg.norm(q[(i + 1) % 4] - q[i])
                assert mm / px <= 0.33
            assert z["mm_per_px_max"] <= 0.33
            e = z["expected"]
            if e is None:
                assert z["hand_over"]
                continue
            assert e == sorted(e)
            assert e == sorted(c["reading"] for c in z["cards"])
            assert len(e) <= 4


def test_seats_counter_clockwise(frames):
    # seen from above, S1..S7 go counter-clockwise round the dealer (the arc's centre)
    z = frames["show"][1]["zones"]
    c = np.array([np.mean(z[f"S{i}"]["corners_px"], axis=0) for i in range(1, 8)])
    centre = (c[0] + c[6]) / 2
    ang = np.unwrap(np.arctan2(c[:, 1] - centre[1], c[:, 0] - centre[0]))
    # image y points down, so counter-clockwise seen from above is decreasing atan2
    assert np.all(np.diff(ang) < 0)


def test_determinism(frames):
    a, ta = frames["show"]
    b, tb = frames["show_again"]
    assert np.array_equal(a, b) and ta == tb
    # another perturbation of the same scene: same truth, other pixels
    c, tc = frames["show_dim"]
    assert tc["zones"] == ta["zones"]
    assert c.mean() < a.mean()


def test_showdown_truth_and_codes_decode(frames):
    zxingcpp = pytest.importorskip("zxingcpp")
    import cv2
    img, truth = frames["show"]
    assert truth["kind"] == "showdown"
    n_checked = 0
    for name, z in truth["zones"].items():
        for c in z["cards"]:
            if not c["face_up"]:
                assert c["reading"] == "??"
                continue
            whole = [k for k in c["codes"] if k["whole"]]
            assert c["reading"] == (c["card"] if whole else "XX")
            for k in whole:
                assert k["text"].split("/")[0] == c["card"]
                src = np.float32(k["quiet_zone_corners_px"])
                M = cv2.getPerspectiveTransform(src, np.float32([[0, 0], [150, 0], [150, 150], [0, 150]]))
                crop = cv2.cvtColor(cv2.warpPerspective(img, M, (151, 151)), cv2.COLOR_BGR2GRAY)
                crop = cv2.copyMakeBorder(crop, 12, 12, 12, 12, cv2.BORDER_CONSTANT, value=255)
                got = [r.text for r in zxingcpp.read_barcodes(crop, formats=zxingcpp.BarcodeFormat.QRCode)]
                assert got == [k["text"]], (name, c["card"], k["position"], got)
                n_checked += 1
    assert n_checked >= 4


def test_dealing_truth(frames):
    img, truth = frames["deal"]
    assert truth["kind"] == "dealing"
    assert truth["hand_seat"] is not None
    assert truth["zones"][truth["hand_seat"]]["expected"] is None
    for name, z in truth["zones"].items():
        for c in z["cards"]:
            assert not c["face_up"] and c["reading"] == "??"
            assert c["visible_fraction"] >= 0.5       # every back shows at least half


def test_calibration(frames):
    st = frames["calib"]
    assert set(st) == {"empty_table", "one_back_per_seat"}
    e_img, e_tr = st["empty_table"]
    b_img, b_tr = st["one_back_per_seat"]
    for name in e_tr["zones"]:
        assert e_tr["zones"][name]["expected"] == []
        assert b_tr["zones"][name]["expected"] == ["??"]
        assert e_tr["zones"][name]["corners_px"] == b_tr["zones"][name]["corners_px"]
    assert not np.array_equal(e_img, b_img)


def test_scene_statistics():
    """Truth only (no pixels): the deal mix follows the sheet over many seeds."""
    kinds, hands, up_cards = set(), 0, 0
    for seed in range(24):
        _, _, cards, _, tr = _build_scene("navy_dots", seed, "sharp", 0)
        kinds.add(tr["kind"])
        hands += tr["hand_seat"] is not None
        for z in tr["zones"].values():
            if z["expected"] is None:
                continue
            n_down = sum(c["reading"] == "??" for c in z["cards"])
            assert n_down in (0, len(z["cards"]))
            for c in z["cards"]:
                if c["face_up"]:
                    up_cards += 1
                    assert c["reading"] == "XX" or any(k["whole"] for k in c["codes"])
                else:
                    assert c["visible_fraction"] >= 0.5
    assert kinds == {"dealing", "showdown"}
    assert 1 <= hands <= 14 and up_cards > 0


def test_last_resort_layouts_keep_the_rules(monkeypatch):
    """When no random layout of a seat passes, the tidy layout it falls back on must keep the
    same rules: inside the zone (+3 mm), no near-miss code, every back half shown, no XX."""
    from . import render as R
    from .styles import get_style
    from .table import get_table
    fits = R._fits
    for table in (0, 1):
        T = get_table(table)
        for name in DECK_STYLES:
            st = get_style(name)
            for zone in T.zones:
                for kind, n in (("up", 4), ("down", 1), ("down", 2), ("down", 3), ("down", 4)):
                    monkeypatch.setattr(R, "_fits", lambda *a: False)    # every random try fails
                    cards = R._place_seat(np.random.default_rng(0), zone, st, T.H,
                                          ["AS", "2H", "3D", "4C"][:n], kind)
                    monkeypatch.setattr(R, "_fits", fits)
                    assert fits(zone, cards, st), (table, name, zone.name, kind, n)
                    later, _ = R._later_polys(cards, st, T.H)
                    recs = R._seat_truth(cards, st, T.H, later)
                    assert R._seat_ok(recs, cards, kind), (table, name, zone.name, kind, n)
