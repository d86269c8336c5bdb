"""Counting a row or fan of backs by the cards' edges (back_count.count_by_edges): a back whose
colour runs on from card to card (no white border to part them) still shows each card's edge
and the frame printed along it. Drawn here as a camera sees it at 0.3 mm per pixel: flat
navy backs with a thin gold frame 3 mm in from the edge, no border of another colour, each
card laid on the one before."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from firmware_bridge.camera import back_count
from firmware_bridge.camera.decks import BackDesign, paint_back
from firmware_bridge.camera.layout import CARD_H_MM, CARD_W_MM

MM_PER_PX = 0.3
CARD_PX = (CARD_W_MM / MM_PER_PX, CARD_H_MM / MM_PER_PX)
FELT = (40, 112, 34)
NAVY = (140, 60, 30)
GOLD = (60, 170, 210)


def _card(img: np.ndarray, mask: np.ndarray, cx: float, cy: float, turn_deg: float, lattice: bool,
          frame: tuple[int, int, int] = GOLD) -> None:
    w, h = CARD_PX
    tile = np.zeros((int(h), int(w), 3), np.uint8)
    tile[:] = NAVY
    inset = int(3 / MM_PER_PX)
    cv2.rectangle(tile, (inset, inset), (int(w) - inset, int(h) - inset), frame, 2, cv2.LINE_AA)
    if lattice:  # thin gold lines all over, 4 mm apart
        step = int(4 / MM_PER_PX)
        for k in range(-int(h), int(w) + int(h), step):
            cv2.line(tile, (k, 0), (k + int(h), int(h)), GOLD, 2, cv2.LINE_AA)
            cv2.line(tile, (k, int(h)), (k + int(h), 0), GOLD, 2, cv2.LINE_AA)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), turn_deg, 1.0)
    m[:, 2] += [cx - w / 2, cy - h / 2]
    size = (img.shape[1], img.shape[0])
    warped = cv2.warpAffine(tile, m, size, flags=cv2.INTER_LINEAR)
    cover = cv2.warpAffine(np.full((int(h), int(w)), 255, np.uint8), m, size, flags=cv2.INTER_LINEAR) > 127
    img[cover] = warped[cover]
    mask[cover] = 1


def _row(n: int, step_mm: float, fan_deg: float = 0.0, lattice: bool = False, frame: tuple[int, int, int] = GOLD):
    img = np.zeros((700, 1100, 3), np.uint8)
    img[:] = FELT
    mask = np.zeros(img.shape[:2], np.uint8)
    for k in range(n):
        j = k - (n - 1) / 2
        _card(img, mask, 550 + j * step_mm / MM_PER_PX, 350 + 4 * j * j, 8 + j * fan_deg, lattice, frame)
    noise = np.random.default_rng(n).normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), mask


def _rows_of(tile: np.ndarray, n: int, step_mm: float, fan_deg: float = 0.0):
    """A row or fan of `n` cards printed with `tile` (a back's picture at MM_PER_PX), laid as
    `_row` lays them."""
    img = np.zeros((800, 1400, 3), np.uint8)
    img[:] = FELT
    mask = np.zeros(img.shape[:2], np.uint8)
    h, w = tile.shape[:2]
    size = (img.shape[1], img.shape[0])
    for k in range(n):
        j = k - (n - 1) / 2
        m = cv2.getRotationMatrix2D((w / 2, h / 2), 8 + j * fan_deg, 1.0)
        m[:, 2] += [700 + j * step_mm / MM_PER_PX - w / 2, 400 + 4 * j * j - h / 2]
        warped = cv2.warpAffine(tile, m, size, flags=cv2.INTER_LINEAR)
        cover = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, size, flags=cv2.INTER_LINEAR) > 127
        img[cover] = warped[cover]
        mask[cover] = 1
    noise = np.random.default_rng(n).normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), mask


@pytest.mark.parametrize(("n", "step_mm", "fan_deg"), [(1, 0, 0), (2, 40, 0), (3, 34, 0), (4, 33, 0), (4, 45, 0),
                                                        (3, 40, 10), (4, 36, 12)])
def test_a_row_or_fan_of_borderless_backs_is_counted_by_the_cards_edges(n, step_mm, fan_deg):
    img, mask = _row(n, step_mm, fan_deg)
    gains = np.ones(3, np.float32)
    assert back_count.count_by_edges(img, mask, gains, CARD_PX, MM_PER_PX) == n


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_frame_as_light_as_the_back_but_of_another_colour_still_shows_the_cards_edges(n):
    # a red frame on the navy ground, of the same grey: a line looked for in grey alone is not
    # there (a back's rays of two colours ran the cards' edge shadows into them this way, on
    # the fourth renderer's sunburst deck); each colour channel shows it
    red = (20, 30, 140)
    grey = cv2.cvtColor(np.array([[NAVY, red]], np.uint8), cv2.COLOR_BGR2GRAY)[0]
    assert abs(int(grey[0]) - int(grey[1])) < back_count.LINE_LEVEL / 2
    img, mask = _row(n, 34, frame=red)
    assert back_count.count_by_edges(img, mask, np.ones(3, np.float32), CARD_PX, MM_PER_PX) == n


def _pinstripes(ground: tuple[int, int, int], ink: tuple[int, int, int], pitch_mm: float, across: bool) -> np.ndarray:
    """A back of thin lines (0.5 mm) `pitch_mm` apart along the card's length, and with
    `across` also along its width (a plaid), no border."""
    w, h = (round(v) for v in CARD_PX)
    tile = np.zeros((h, w, 3), np.uint8)
    tile[:] = ground
    step = pitch_mm / MM_PER_PX
    for x in np.arange(step / 2, w, step):
        cv2.line(tile, (int(x), 0), (int(x), h), ink, 2, cv2.LINE_AA)
    for y in np.arange(step / 2, h, step) if across else ():
        cv2.line(tile, (0, int(y)), (w, int(y)), ink, 2, cv2.LINE_AA)
    return tile


@pytest.mark.parametrize(("n", "step_mm", "fan_deg"), [(2, 63, 0), (2, 45, 0), (3, 40, 0), (3, 42, 18), (4, 40, 0)])
def test_lines_of_one_hue_on_another_printed_on_the_back_are_no_cards_edges(n, step_mm, fan_deg):
    # thin red lines 12 or 16 mm apart on the navy ground, as grey as it: grey sees no line,
    # the red channel sees the print; its lines lie closer than two cards' edges can, and
    # grey's answer stands (looked at in the channels alone, these rows read one or two too many)
    red = (20, 30, 140)
    for pitch_mm in (12.0, 16.0):
        for across in (False, True):
            img, mask = _rows_of(_pinstripes(NAVY, red, pitch_mm, across), n, step_mm, fan_deg)
            got = back_count.count_by_edges(img, mask, np.ones(3, np.float32), CARD_PX, MM_PER_PX)
            assert got is None or got <= n, (pitch_mm, across, got)


def test_a_back_patterned_with_fine_lines_all_over_is_left_to_its_colours():
    img, mask = _row(3, 40, lattice=True)
    assert back_count.count_by_edges(img, mask, np.ones(3, np.float32), CARD_PX, MM_PER_PX) is None


def test_the_edges_need_half_a_card_between_them():
    # a card laid over the one before by less than the sheet allows (each shows at least half)
    # is not told from it: the parting lines come closer than EDGE_GAP of a card's width
    img, mask = _row(2, 0.3 * CARD_W_MM)
    assert back_count.count_by_edges(img, mask, np.ones(3, np.float32), CARD_PX, MM_PER_PX) == 1
    assert math.isclose(back_count.EDGE_GAP, 0.4)


@pytest.mark.parametrize(("n", "step_mm", "fan_deg"), [(2, 40, 0), (3, 34, 0), (4, 33, 0), (2, 40, 20), (3, 38, 20),
                                                        (4, 36, 18)])
def test_a_fan_is_counted_by_its_cards_turns_on_the_outline_a_row_is_left_to_the_others(n, step_mm, fan_deg):
    # at quarter resolution, as the recogniser sees the blob: each card of a fan shows a
    # stretch of its outer edge turned its own way; a row's cards all lie one way (1)
    _, mask = _row(n, step_mm, fan_deg)
    quarter = cv2.resize(mask, (mask.shape[1] // 4, mask.shape[0] // 4), interpolation=cv2.INTER_AREA)
    assert back_count.count_by_outline(quarter, CARD_PX[0] / 4) == (n if fan_deg else 1)


def test_a_fan_cut_off_by_the_zones_edge_gains_no_card_from_that_edge():
    # the zone's edge, straight and turned its own way (about 50 degrees here, no card's), cuts
    # a corner off the blob: that straight run is no card's edge
    _, mask = _row(3, 38, 20)
    quarter = cv2.resize(mask, (mask.shape[1] // 4, mask.shape[0] // 4), interpolation=cv2.INTER_AREA)
    h, w = quarter.shape
    zone = np.zeros_like(quarter)
    cv2.fillPoly(zone, [np.array([[0, 0], [w, 0], [w, h], [130, h], [0, h - 156]], np.int32)], 1)
    cut = quarter & zone
    assert np.count_nonzero(quarter) > np.count_nonzero(cut)
    assert back_count.count_by_outline(cut, CARD_PX[0] / 4) == 4  # the zone's edge not known
    assert back_count.count_by_outline(cut, CARD_PX[0] / 4, zone) == 3


def _printed_row(design, steps_mm: list[float], drop_mm: list[float]):
    """A row of backs painted by the project's renderer (decks.paint_back), each card laid on
    the one before `steps_mm` further along and `drop_mm` lower, with sensor noise."""
    tile = paint_back(design, MM_PER_PX)
    img = np.zeros((700, 1300, 3), np.uint8)
    img[:] = FELT
    mask = np.zeros(img.shape[:2], np.uint8)
    x = 200.0
    for step, drop in zip([0.0, *steps_mm], [0.0, *drop_mm], strict=True):
        x += step / MM_PER_PX
        y0 = int(200 + drop / MM_PER_PX)
        img[y0 : y0 + tile.shape[0], int(x) : int(x) + tile.shape[1]] = tile
        mask[y0 : y0 + tile.shape[0], int(x) : int(x) + tile.shape[1]] = 1
    noise = np.random.default_rng(len(steps_mm)).normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), mask


@pytest.mark.parametrize(("steps_mm", "drop_mm"), [([38.0], [1.0]), ([35.0, 41.0], [-1.5, 2.0]),
                                                   ([33.5, 36.0, 39.5], [1.2, -2.0, 0.7])])
def test_a_row_of_dotted_backs_with_no_border_is_counted_where_the_dots_start_afresh(steps_mm, drop_mm):
    # black with grey dots on a staggered grid, nothing at the cards' edges: the colours part
    # nothing and no line crosses the row, but each card's dots start at its own edge
    design = BackDesign("dots", (18, 18, 18), (140, 140, 140), border_mm=0.0, step_mm=6.0, line_mm=1.2,
                        square_grid=False)
    img, mask = _printed_row(design, steps_mm, drop_mm)
    gains = np.ones(3, np.float32)
    assert back_count.count_by_edges(img, mask, gains, CARD_PX, MM_PER_PX) == 1
    assert back_count.count_by_phase(img, mask, gains, CARD_PX, MM_PER_PX) == len(steps_mm) + 1


def test_an_emblem_in_a_dotted_back_is_no_seam_and_a_flat_back_has_no_pattern():
    # dots all over and a crest in the middle of each card: where the crest lies the dots do
    # not repeat, over far more than a pitch; a flat back repeats nothing at all
    crest = BackDesign("logo", (92, 40, 16), (215, 215, 220), border_mm=0.0, step_mm=3.5, line_mm=0.45)
    img, mask = _printed_row(crest, [36.0, 40.0], [0.0, 0.0])
    gains = np.ones(3, np.float32)
    assert back_count.count_by_phase(img, mask, gains, CARD_PX, MM_PER_PX) in (None, 1, 2, 3)
    one, one_mask = _printed_row(crest, [], [])
    assert back_count.count_by_phase(one, one_mask, gains, CARD_PX, MM_PER_PX) in (None, 1)
    flat = BackDesign("flat", (126, 128, 130), (126, 128, 130), border_mm=0.0)
    img, mask = _printed_row(flat, [36.0, 40.0], [0.0, 0.0])
    assert back_count.count_by_phase(img, mask, gains, CARD_PX, MM_PER_PX) is None
