"""The camera at a Wenzhou Pai Gow table: the synthetic camera renders the four doors and the
dice tray (two dice drawn as the dice reader's own suite draws them), the recogniser reads the
DICE zone through the dice reader and the doors through the card reader, and the camera's
observations, put in a trace beside the shoe's frames and the dealer's entry, replay through
the kernel to a validated hand (or, when the dealer mistypes the dice, to `dice_mismatch`)."""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path

import pytest

import station.core.replay as core_replay
from firmware_bridge.camera import Recogniser, SyntheticCamera, TableScene
from firmware_bridge.camera.build import build_recogniser, zone_readers
from firmware_bridge.camera.config import load_camera_config
from firmware_bridge.camera.layout import LayoutError, layout_from_dict
from station.games.camera_zones import game_zones
from station.games.paigow.rules import DICE_ZONE, deal_plan_for
from station.live.config import ConfigError, parse_config
from tests.camera.filmed import FilmedTrace

ROOT = Path(__file__).parents[2]
PAIGOW_CAMERA = ROOT / "config" / "camera_paigow_1080p.toml"
DOORS = ("BANKER", "SHUN", "CHU", "DAO")


@pytest.fixture(scope="module")
def cam():
    return load_camera_config(PAIGOW_CAMERA, game_zones)


def recogniser_for(cam, **kw) -> Recogniser:
    return build_recogniser(cam, **kw)


def settle(camera: SyntheticCamera, rec: Recogniser, frames: int = 6) -> dict:
    out = None
    for _ in range(frames):
        got = camera.read()
        if got is not None:
            out = rec.process(*got)
    return out


def test_a_pai_gow_scene_reports_its_doors_and_its_dice(cam) -> None:
    scene = TableScene(cam.layout.zone_names, zone_kinds=cam.layout.zone_kinds, seed=4)
    assert scene.snapshot() == {z: [] for z in (*DOORS, DICE_ZONE)}
    scene.throw_dice([1, 4])
    scene.deal("SHUN", "QH", face_up=True)
    snap = scene.snapshot()
    assert sorted(snap[DICE_ZONE]) == [1, 4] and snap["SHUN"] == ["QH"]
    scene.clear_dice()
    assert scene.snapshot()[DICE_ZONE] == []
    with pytest.raises(ValueError, match="1 to 6"):
        scene.throw_dice([0, 7])
    with pytest.raises(ValueError, match="no dice tray on this table"):
        TableScene(("P1", "B"), seed=1).throw_dice([3, 3])  # a table whose game has no tray
    # the tray is the zone of kind dice, whatever its name; a zone's name makes no tray
    tray = TableScene(("HAND", "CUP"), seed=1, zone_kinds={"CUP": "dice"})
    tray.throw_dice([2, 5])
    assert sorted(tray.snapshot()["CUP"]) == [2, 5] and tray.tray_zone == "CUP"
    with pytest.raises(ValueError, match="no dice tray"):
        TableScene(("HAND", DICE_ZONE), seed=1).throw_dice([2, 5])
    with pytest.raises(ValueError, match="one dice tray to a table"):
        TableScene(("A", "B"), zone_kinds={"A": "dice", "B": "dice"})


# the clean preset is in --quick; the perturbed ones are slow
@pytest.mark.parametrize("preset", ["clean", *(pytest.param(p, marks=pytest.mark.slow) for p in
                                              ("noise", "rotation", "dim", "warm", "glare", "jpeg", "combined"))])
def test_the_recogniser_reads_dice_and_doors_never_a_wrong_face(cam, preset) -> None:
    # the same scenes every run: str hash() changes from one process to the next
    rng = random.Random(zlib.crc32(preset.encode()))
    wrong, zero, read = 0, 0, 0
    for k in range(6):
        scene = TableScene(cam.layout.zone_names, zone_kinds=cam.layout.zone_kinds, seed=k)
        cards = ["QH", "2H", "8H", "4H", "TC", "6C", "4C", "JH"]
        rng.shuffle(cards)
        for door, c in zip(deal_plan_for((rng.randint(1, 6), rng.randint(1, 6))), cards[: rng.randint(0, 8)],
                           strict=False):
            scene.deal(door, c, face_up=True)
        faces = [rng.randint(1, 6), rng.randint(1, 6)]
        scene.throw_dice(faces)
        camera = SyntheticCamera(scene, cam.layout, perturbations={"preset": preset, "drop_rate": 0.0}, seed=k)
        got = settle(camera, recogniser_for(cam, stable_frames=2))
        truth = scene.snapshot()
        for door in DOORS:
            assert len(got[door]) == len(truth[door]), (preset, door, got[door], truth[door])
            assert all(c == "XX" or c in truth[door] for c in got[door]), (preset, door, got[door])
        seen, left = got[DICE_ZONE], list(truth[DICE_ZONE])
        assert len(seen) == 2, (preset, seen, left)
        for f in seen:
            if f == 0:
                zero += 1
            elif f in left:
                left.remove(f)
                read += 1
            else:
                wrong += 1
    assert wrong == 0
    if preset in ("clean", "noise", "rotation"):
        assert zero == 0, preset


def test_the_camera_config_carries_the_dice_edge(tmp_path, cam) -> None:
    assert cam.die_mm == 16.0 and cam.layout.game == "paigow"
    text = PAIGOW_CAMERA.read_text("utf-8")
    for bad, msg in (("die_mm = 16.0", "die_mm = 3"), ("die_mm = 16.0", "pips = 6")):
        p = tmp_path / "bad.toml"
        p.write_text(text.replace(bad, msg), "utf-8")
        with pytest.raises(LayoutError, match=r"\[dice\]"):
            load_camera_config(p)


def test_every_games_layout_needs_its_zones(cam) -> None:
    base = {"layout": {"game": "paigow"},
            "zones": {z: {"polygon": [[10, 10], [200, 10], [200, 200]]} for z in ("BANKER", "SHUN", "CHU", "DAO")}}
    with pytest.raises(LayoutError, match="Wenzhou Pai Gow layout .* needs zones DICE"):
        layout_from_dict(base, game_zones=game_zones)
    with pytest.raises(LayoutError, match="Si Zhi Dao layout .* needs zones S1"):
        layout_from_dict({**base, "layout": {"game": "sizhidao"}}, game_zones=game_zones)
    with pytest.raises(LayoutError, match="no game of the station"):
        layout_from_dict({**base, "layout": {"game": "baccarat"}}, game_zones=game_zones)
    # a tool that knows no games takes the zones as they are, each holding cards
    assert layout_from_dict(base).zone_kinds == {}


def _table(tmp_path, game: str, layout: Path | None) -> dict:
    cam = {"enabled": True, "source": "synthetic"}
    if layout is not None:
        cam["layout"] = str(layout)
    return {"table": {"name": "WZ-01" if game == "paigow" else "PD-01", "game": game},
            "storage": {"dir": str(tmp_path / "var")}, "camera": cam}


def test_a_table_config_checks_its_layout_against_its_game(tmp_path) -> None:
    cfg = parse_config(_table(tmp_path, "paigow", PAIGOW_CAMERA))
    assert cfg.table.game == "paigow"
    # no layout file: the game's studio layout, and a game that declares none needs a file
    assert parse_config(_table(tmp_path, "pokdeng", None)).camera.layout is None
    with pytest.raises(ConfigError, match="camera.layout: a paigow table's game declares no studio "
                                          "camera layout: name a camera config file"):
        parse_config(_table(tmp_path, "paigow", None))
    with pytest.raises(ConfigError, match="missing P1"):
        parse_config(_table(tmp_path, "pokdeng", PAIGOW_CAMERA))
    # the zones fit but the file says it is another game's
    other = tmp_path / "cam.toml"
    other.write_text(PAIGOW_CAMERA.read_text("utf-8").replace('game = "paigow"', 'game = "sizhidao"'), "utf-8")
    with pytest.raises(ConfigError):
        parse_config(_table(tmp_path, "paigow", other))


def test_only_a_dice_zone_gets_the_dice_reader(cam) -> None:
    from firmware_bridge.camera.config import load_camera_config as load

    assert cam.layout.zone_kinds == {DICE_ZONE: "dice"}  # the game declares it (PaiGow.zone_kinds)
    assert set(zone_readers(cam)) == {DICE_ZONE}
    assert zone_readers(load(ROOT / "config" / "camera_pokdeng_1080p.toml", game_zones)) == {}


# ---- a filmed Pai Gow round, replayed ---------------------------------------------------


class FilmedPaiGow(FilmedTrace):
    def __init__(self, cam, perturbations) -> None:
        super().__init__(
            TableScene(cam.layout.zone_names, zone_kinds=cam.layout.zone_kinds, seed=8), cam.layout,
            recogniser_for(cam, stable_frames=2),
            {"trace": 1, "table": "WZ-01", "game": "paigow", "camera": True,
             "settings": {"betting_seconds": 6}, "note": "filmed Pai Gow round"},
            perturbations=perturbations, camera_seed=6)

    def round(self, cards: list[str], dice: list[int], entered: list[list[int]]) -> None:
        self.line(dealer="open_betting")
        self.advance(0.5)
        self.line(bet={"account": "u1", "spot": "SHUN_WIN", "amount": 100})
        self.advance(6.5)
        self.scene.hand_over(DICE_ZONE)
        self.advance(0.5)
        self.scene.hand_over(None)
        self.scene.throw_dice(dice)
        self.advance(1.5)
        for faces in entered:
            self.line(dealer="dice", dice=faces)
            self.advance(6.0)
        self.advance(1.0)
        for door, c in zip(deal_plan_for(dice), cards, strict=True):
            self.shoe("CARD", c)
            self.advance(0.25)
            self.scene.deal(door, c, face_up=True)
            self.advance(0.75)
        self.advance(2.0)
        self.scene.clear_all()
        self.advance(2.0)

    def write(self, path: Path) -> Path:
        self.line(end=True)
        path.write_text("".join(json.dumps(x) + "\n" for x in self.lines), "utf-8")
        return path


@pytest.mark.slow
def test_a_filmed_pai_gow_shuffle_replays_with_the_cameras_dice(tmp_path, cam) -> None:
    tb = FilmedPaiGow(cam, {"preset": "combined", "drop_rate": 0.05, "occlusion": 0.0})
    tb.open_shoe()
    tb.round(["QH", "2H", "8H", "4H", "TC", "6C", "4C", "JH"], [3, 5], [[5, 3]])
    # round 2: the dealer types 6 for the 2; the tray shows 2 and 6: dice_mismatch; typed
    # again right, the supervisor resumes
    tb.line(dealer="open_betting")
    tb.advance(7.0)
    tb.scene.throw_dice([2, 6])
    tb.advance(1.5)
    tb.line(dealer="dice", dice=[6, 6])
    tb.advance(6.0)
    tb.line(dealer="dice", dice=[2, 6])
    tb.advance(1.0)
    tb.line(supervisor="resume", user="sup1")
    tb.advance(1.0)
    for door, c in zip(deal_plan_for([2, 6]), ["QD", "2D", "8D", "4D", "TS", "6S", "4S", "JD"], strict=True):
        tb.shoe("CARD", c)
        tb.advance(0.25)
        tb.scene.deal(door, c, face_up=True)
        tb.advance(0.75)
    tb.advance(2.0)
    records = core_replay.replay_records(tb.write(tmp_path / "filmed.jsonl"))
    of = lambda t: [r for r in records if r["type"] == t]  # noqa: E731
    assert [f["kind"] for f in of("fault")] == ["dice_mismatch"]
    assert [(d["dice"], d["first_door"]) for d in of("dice")] == [([5, 3], "DAO"), ([2, 6], "DAO")]
    hands = of("hand")
    assert [h["validated_by"] for h in hands] == [["shoe", "camera"]] * 2
    assert hands[0]["cards"]["DAO"] == ["QH", "TC"] and hands[1]["cards"]["DAO"] == ["QD", "TS"]
    assert [(e["rounds"], e["cards_out"]) for e in of("shoe_end")] == [(2, 16)]
    # the tray was read as dice (integers), and never as faces that were not thrown
    trays = [line["camera"][DICE_ZONE] for line in tb.lines[1:] if DICE_ZONE in line.get("camera", {})]
    assert [3, 5] in map(sorted, trays) and [2, 6] in map(sorted, trays)
    assert all(set(t) <= {0, 2, 3, 5, 6} for t in trays)


@pytest.mark.parametrize("felt_bgr", [(110, 60, 20), (40, 40, 120)])
def test_calibrate_looks_for_the_decks_backs_outside_the_dice_tray(tmp_path, capsys, cam, felt_bgr):
    """The tray's pad is about a card's size: on a felt of another colour than the pad (blue,
    or burgundy under a red deck) `station camera calibrate` took it for a lone face-down card
    and learned its green as the back (and on burgundy missed the red backs altogether, the
    felt's hue): the deck then read as another deck at the table."""
    import dataclasses

    from firmware_bridge.camera import accuracy
    from firmware_bridge.camera.decks import STYLES
    from tests.camera.test_camera_backs import _calibrated

    style = dataclasses.replace(STYLES["bordeaux"], felt_bgr=felt_bgr)
    felt, backs = accuracy.calibration_stills(cam.layout, style)
    calibrated, learned = _calibrated(tmp_path, PAIGOW_CAMERA, felt[0], backs[0], capsys)
    assert learned["back"]["cards"] == 3, learned  # the three cards, not the tray
    green = [c for c in learned["back"]["cells"] if 12 <= c[0] <= 20]  # hue 48-83: the tray's pad
    assert not green, learned
    assert not any("skin" in w or "shape" in w for w in learned["warnings"]), learned["warnings"]
    # and the deck is the table's deck: a door of its backs reads, no zone holds another deck
    scene = TableScene(cam.layout.zone_names, seed=3, zone_kinds=cam.layout.zone_kinds)
    scene.deal("CHU", "5S")
    scene.deal("CHU", "9D")
    scene.deal("BANKER", "KH", face_up=True)
    # (the config as written, loaded with the game's zone kinds as the station does)
    assert calibrated.layout.calibration is not None
    rec = build_recogniser(load_camera_config(tmp_path / PAIGOW_CAMERA.name, game_zones))
    frame = SyntheticCamera(scene, cam.layout, perturbations="clean", style=style, seed=5).read()[1]
    zones, _ = rec.read_still(frame)
    assert zones["CHU"] == ["??", "??"] and zones["BANKER"] == ["KH"], zones
    assert rec.status["unknown_back_zones"] == []
