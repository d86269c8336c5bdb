"""Layouts from config and the card-face notation of CARD_FACES.md."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest
from pyzbar import pyzbar

from firmware_bridge.camera import LayoutError, load_layout
from firmware_bridge.camera.faces import CardArtist, face_text, parse_face_text, qr_modules
from firmware_bridge.camera.layout import layout_from_dict
from station.games import get_game
from station.games.camera_zones import game_layout, game_layout_data, game_zones

REPO = Path(__file__).resolve().parents[2]


def default_layout():
    return game_layout("pokdeng")


def test_the_games_studio_layout_has_its_seven_zones_inside_the_frame():
    lay = default_layout()
    assert lay.game == "pokdeng"
    assert (lay.width, lay.height) == (1920, 1080)
    assert set(lay.zones) == set(get_game("pokdeng").zones)
    for z in lay.zones.values():
        x0, y0, x1, y1 = z.bbox
        assert 0 <= x0 < x1 <= 1920 and 0 <= y0 < y1 <= 1080
    assert lay.module_px >= 3.0  # CARD_FACES.md: at least 3 px per QR module
    assert lay.zone_at(*lay.zones["B"].centre) == "B"


def test_shipped_config_matches_the_games_studio_layout():
    assert load_layout(REPO / "config" / "camera_pokdeng_1080p.toml").zones == default_layout().zones


def test_the_bridge_has_no_table_of_its_own(tmp_path):
    """A layout comes from a file or from the caller: none is made up, none is read without
    the game it names when the station checks it, and a game without a studio layout says so."""
    from firmware_bridge.camera.config import load_camera_config

    with pytest.raises(LayoutError, match="no layout: name a camera config file"):
        load_camera_config(None, game_zones)
    p = tmp_path / "tuning_only.toml"
    p.write_text("[recogniser]\nstable_frames = 2\n", encoding="utf-8")
    with pytest.raises(LayoutError, match="no layout"):
        load_camera_config(p, game_zones)
    cfg = load_camera_config(p, game_zones, default=game_layout_data("pokdeng"))
    assert cfg.stable_frames == 2 and cfg.layout.zones == default_layout().zones
    data = game_layout_data("pokdeng")
    del data["layout"]["game"]
    assert layout_from_dict(data).game == ""  # a tool that knows no games
    with pytest.raises(LayoutError, match=r"\[layout\] game is missing"):
        layout_from_dict(data, game_zones=game_zones)
    from tests.core.toy_install import toy_game_installed

    with toy_game_installed(tmp_path / "site"), pytest.raises(
            LayoutError, match="game 'highcard' declares no camera layout: name a layout file"):
        game_layout("highcard")


def test_scaled_layout_for_the_demo():
    half = default_layout().scaled(0.5)
    assert (half.width, half.height) == (960, 540)
    assert half.mm_per_px == pytest.approx(0.6)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["zones"].pop("BURN"), "needs zones BURN"),
        (lambda d: d["zones"]["P1"].update(polygon=[[0, 0], [10, 0]]), "at least 3"),
        (lambda d: d["zones"]["P1"].update(polygon=[[0, 0], [3000, 0], [0, 10]]), "outside"),
        (lambda d: d["layout"].update(mm_per_px=0.6), "at least 3"),
        (lambda d: d["layout"].update(felt_bgr=[1, 2]), "felt_bgr"),
        (lambda d: d.pop("zones"), "no \\[zones"),
    ],
)
def test_bad_layouts_are_refused_with_the_reason(mutate, message):
    data = game_layout_data("pokdeng")
    mutate(data)
    with pytest.raises(LayoutError, match=message):
        layout_from_dict(data, source="test.toml", game_zones=game_zones)


def test_a_zone_kind_is_the_games_not_the_files():
    data = game_layout_data("pokdeng")
    data["zones"]["BURN"]["kind"] = "dice"
    # a tool that knows no games takes the file's word
    assert layout_from_dict(data).kind_of("BURN") == "dice"
    assert layout_from_dict(data).kind_of("B") == "cards"
    # the station holds it to the game's declaration
    with pytest.raises(LayoutError, match="zone BURN: kind 'dice', but a Pok Deng table's BURN holds cards"):
        layout_from_dict(data, game_zones=game_zones)
    data["zones"]["BURN"]["kind"] = 3
    with pytest.raises(LayoutError, match="zone BURN: kind must be a name"):
        layout_from_dict(data)


def test_unreadable_layout_file(tmp_path):
    with pytest.raises(LayoutError, match="cannot read"):
        load_layout(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[layout\nwidth=", encoding="utf-8")
    with pytest.raises(LayoutError, match="not valid TOML"):
        load_layout(bad)


@pytest.mark.parametrize(
    "text, card, code",
    [("7H", "7H", None), ("TD", "TD", None), ("7H/3-0417", "7H", "3-0417"), ("AS/X9", "AS", "X9")],
)
def test_face_texts_of_our_decks(text, card, code):
    f = parse_face_text(text)
    assert f is not None and (f.card, f.code) == (card, code)


@pytest.mark.parametrize("text", ["", "7h", "10H", "7X", "7H/", "7H/a,b", "HTTP://X", "7H 3", "7H/1/2", "1H"])
def test_other_texts_are_not_cards(text):
    assert parse_face_text(text) is None


def test_face_text_refuses_codes_the_shoe_could_not_carry():
    assert face_text("10h", "3-0417") == "TH/3-0417"
    with pytest.raises(ValueError):
        face_text("7H", "a,b")


def test_printed_symbols_are_version_1_and_decode_to_the_face_text():
    mods = qr_modules("7H/3-0417")
    assert mods.shape == (25, 25)  # 21 modules (version 1) + quiet zone of 2 each side
    face = CardArtist(0.30).face("7H", "3-0417")
    assert face.shape[:2] == (293, 210)  # 63 x 88 mm at 0.30 mm per pixel
    reads = pyzbar.decode(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY), symbols=[pyzbar.ZBarSymbol.QRCODE])
    assert sorted(r.data for r in reads) == [b"7H/3-0417", b"7H/3-0417"]
    assert sorted(r.orientation for r in reads) == ["DOWN", "UP"]  # the second turned 180°
    assert pyzbar.decode(cv2.cvtColor(CardArtist(0.30).back(), cv2.COLOR_BGR2GRAY)) == []
