"""The recogniser on rendered tables: counts, sides, identities, XX, the cut card, the
dealer's hand, stability and the cost-saving change detection."""

from __future__ import annotations

import numpy as np
import pytest

from firmware_bridge.camera import Recogniser, SyntheticCamera

HANDS = ("P1", "P2", "P3", "P4", "P5", "B")


@pytest.fixture
def read(render):
    def _read(recogniser, scene, layout, **kw):
        zones, cut = recogniser.read_still(render(scene, layout, **kw))
        return {z: sorted(v) if v is not None else None for z, v in zones.items()}, cut

    return _read



def test_empty_table_reads_empty(recogniser, scene, layout, read, render):
    zones, cut = read(recogniser, scene, layout)
    assert zones == {z: [] for z in layout.zones}
    assert cut is False


def test_face_down_deal_counts_one_and_two_cards(recogniser, scene, layout, read, render):
    for z in HANDS:
        scene.deal(z, "7H")
    zones, _ = read(recogniser, scene, layout)
    assert all(zones[z] == ["??"] for z in HANDS)
    for z in HANDS[:3]:
        scene.deal(z, "8C")
    zones, _ = read(recogniser, scene, layout, perturbations="noise")
    assert [zones[z] for z in HANDS] == [["??", "??"]] * 3 + [["??"]] * 3


def test_revealed_hands_are_named_from_their_qr(recogniser, scene, layout, read, render):
    cards = {"P1": ("TC", "TS"), "P2": ("TH", "4C"), "P3": ("4D", "4H"), "P4": ("5C", "QD"), "P5": ("7S", "6S"), "B": ("9C", "7C")}
    for z, (a, b) in cards.items():
        scene.deal(z, a)
        scene.deal(z, b)
    scene.deal("BURN", "2D", face_up=True)
    for z in cards:
        scene.reveal(z)
    zones, _ = read(recogniser, scene, layout, perturbations="rotation")
    assert zones == {**{z: sorted(v) for z, v in cards.items()}, "BURN": ["2D"]}


def test_half_revealed_zone_and_serialized_codes(recogniser, scene, layout, read, render):
    scene.deal("P2", "KS", code="3-0417")
    scene.deal("P2", "QH", code="3-0418")
    scene.turn_card("P2", 0, face_up=True)
    zones, _ = read(recogniser, scene, layout)
    # the printed code is the shoe's business; the camera reports the card
    assert zones["P2"] == ["??", "KS"]


def test_two_copies_of_one_card_are_two_cards(recogniser, scene, layout, read, render):
    scene.deal("P4", "4H", face_up=True)
    scene.deal("P4", "4H", face_up=True)
    zones, _ = read(recogniser, scene, layout)
    assert zones["P4"] == ["4H", "4H"]


def test_misprinted_card_is_unreadable_never_guessed(recogniser, scene, layout, read, render):
    scene.deal("P1", "9D", face_up=True, misprint="9H")
    scene.deal("P3", "2S", face_up=True)
    scene.deal("P3", "JD", face_up=True, misprint="JH")  # on top: both its symbols in view
    zones, _ = read(recogniser, scene, layout)
    assert zones["P1"] == ["XX"]
    assert zones["P3"] == ["2S", "XX"]


def test_foreign_qr_text_is_unreadable(recogniser, scene, layout, read, render):
    frame = render(scene, layout)
    # a promotional QR code printed on a card-sized white sheet lying in P5
    import cv2

    from firmware_bridge.camera.faces import qr_modules

    sheet = np.full((293, 210, 3), 243, np.uint8)
    sym = cv2.resize(qr_modules("HTTP://PROMO"), (87, 87), interpolation=cv2.INTER_NEAREST)
    sheet[6:93, 6:93] = sym[:, :, None]
    sheet[-93:-6, -93:-6] = sym[::-1, ::-1, None]
    x, y = (int(v) for v in layout.zones["P5"].centre)
    frame[y - 146 : y + 147, x - 105 : x + 105] = sheet
    zones, _ = recogniser.read_still(frame)
    assert zones["P5"] == ["XX"]


def test_cut_card_in_a_zone_and_beside_the_shoe(recogniser, scene, layout, read, render):
    scene.cut_card(True, "BURN")
    zones, cut = read(recogniser, scene, layout, perturbations="dim")
    assert zones["BURN"] == ["CUT"] and cut is True
    scene.cut_card(True, None)
    zones, cut = read(recogniser, scene, layout)
    assert cut is True and all(v == [] for v in zones.values())
    scene.cut_card(False)
    assert read(recogniser, scene, layout)[1] is False


def test_dealer_hand_covers_a_zone_which_is_not_read(recogniser, scene, layout, read, render):
    scene.deal("P3", "5D")
    scene.hand_over("P3")
    zones, _ = read(recogniser, scene, layout)
    assert zones["P3"] is None  # held: nothing is read under the hand
    assert zones["P1"] == []


def test_stable_state_changes_only_after_a_few_equal_frames(layout, scene, read, render):
    rec = Recogniser(layout, stable_frames=3)
    cam = SyntheticCamera(scene, layout, perturbations="clean", seed=5)
    states = [rec.process(*cam.read()) for _ in range(3)]
    assert states[:2] == [None, None]
    assert states[2] == {z: [] for z in layout.zones}
    scene.deal("P1", "AS", face_up=True)
    after = [rec.process(*cam.read())["P1"] for _ in range(5)]
    # frame 1: the zone differs from the frame before, so it is still moving and not read;
    # frames 2-4 read it; the third equal reading makes it the zone's state
    assert after == [[], [], [], ["AS"], ["AS"]]


def test_hand_passing_holds_the_zone_state(layout, scene, read, render):
    rec = Recogniser(layout, stable_frames=2)
    scene.deal("B", "3C")
    cam = SyntheticCamera(scene, layout, perturbations="clean", seed=6)
    for _ in range(3):
        state = rec.process(*cam.read())
    assert state["B"] == ["??"]
    scene.hand_over("B")
    for _ in range(4):
        assert rec.process(*cam.read())["B"] == ["??"]
    scene.reveal("B")
    scene.hand_over(None)
    for _ in range(3):
        state = rec.process(*cam.read())
    assert state["B"] == ["3C"]


def test_steady_frames_reuse_readings(layout, scene, read, render):
    rec = Recogniser(layout, stable_frames=2)
    cam = SyntheticCamera(scene, layout, perturbations="noise", seed=7)
    scene.deal("P2", "8S", face_up=True)
    rec.process(*cam.read())
    first = rec.zones_read
    assert first == len(layout.zones)
    for _ in range(5):
        rec.process(*cam.read())
    assert rec.zones_read == first  # nothing changed: no zone read again
    scene.deal("P5", "9S")
    rec.process(*cam.read())  # P5 changed since the last frame: moving, wait
    assert rec.zones_read == first
    state = [rec.process(*cam.read()) for _ in range(3)][-1]
    assert rec.zones_read == first + 1  # only the zone where the card landed, once
    assert state["P5"] == ["??"] and state["P2"] == ["8S"]


def test_wrong_frame_size_is_a_clear_error(recogniser):
    with pytest.raises(ValueError, match="calibrated for 1920x1080"):
        recogniser.process(0.0, np.zeros((720, 1280, 3), np.uint8))
    with pytest.raises(ValueError, match="colour"):
        recogniser.process(0.0, np.zeros((1080, 1920), np.uint8))


def test_zxing_decoder_reads_the_same(layout, scene, read, render):
    rec = Recogniser(layout, decoder="zxing")
    scene.deal("P1", "QD", face_up=True)
    scene.deal("P1", "KH", face_up=True)
    zones, _ = read(rec, scene, layout, perturbations="blur")
    assert zones["P1"] == ["KH", "QD"]


def test_unknown_decoder_is_refused(layout):
    with pytest.raises(ValueError, match="no QR decoder"):
        Recogniser(layout, decoder="ean13")


def test_cut_card_beside_the_shoe_is_noticed_on_steady_zones(layout, scene):
    rec = Recogniser(layout, stable_frames=2)
    cam = SyntheticCamera(scene, layout, perturbations="noise", seed=8)
    for _ in range(3):
        rec.process(*cam.read())
    assert rec.cut_card_visible is False
    scene.cut_card(True)  # outside every zone: no zone changes
    flags = []
    for _ in range(3):
        rec.process(*cam.read())
        flags.append(rec.cut_card_visible)
    assert flags[-1] is True and rec.stable == {z: [] for z in layout.zones}
    scene.cut_card(False)
    for _ in range(2):
        rec.process(*cam.read())
    assert rec.cut_card_visible is False


def test_half_resolution_demo_mode(layout, scene):
    half = layout.scaled(0.5)
    scene.deal("P1", "6H")
    scene.deal("P1", "AD")
    scene.reveal("P1")
    scene.deal("B", "2C")
    cam = SyntheticCamera(scene, half, perturbations="noise", seed=2)
    zones, _ = Recogniser(half).read_still(cam.read()[1])
    assert sorted(zones["P1"]) == ["6H", "AD"] and zones["B"] == ["??"] and zones["P3"] == []


def test_the_lights_gain_is_each_channels_own_down_to_a_few_grey_levels():
    """A felt of (B,G,R) = (123, 75, 27) seen with a fifth of the light measures (25, 15, 5):
    its red was taken as at least 8 (a gain of 3.4 where the light's is 5), so faces came out a
    bluish grey. A felt of (38, 33, 104) under a tungsten lamp the camera was not balanced for
    measures (12, 23, 105): its blue needs a gain of 3.2. Each channel measured at 4 grey
    levels or more now sets its own gain; one darker than that (a level or two, its own gain
    anything) is held within a factor of four of the gain the other channels show."""
    from firmware_bridge.camera.colours import light_gains

    felt = np.array([123.0, 75.0, 27.0])
    dim = light_gains(felt, np.array([25.0, 15.0, 5.0]))
    assert np.allclose(dim, 5.0, rtol=0.1), dim
    warm = light_gains(felt, np.array([80.0, 72.0, 30.0]))
    assert np.allclose(warm, felt / np.array([80.0, 72.0, 30.0])), warm
    wine = np.array([38.0, 33.0, 104.0])
    tungsten = light_gains(wine, np.array([12.0, 23.0, 105.0]))
    assert np.allclose(tungsten, wine / np.array([12.0, 23.0, 105.0])), tungsten
    # a channel all but black: not a gain of 27 from one grey level, but four times the light's
    black_red = light_gains(felt, np.array([25.0, 15.0, 1.0]))
    assert np.allclose(black_red[:2], [4.92, 5.0], atol=0.01) and black_red[2] == pytest.approx(4 * 198 / 40)
    # nothing measurable (a picture all but black): no channel taken as under 8 levels
    assert np.allclose(light_gains(felt, np.array([3.0, 2.0, 0.0])), felt / 8.0)
