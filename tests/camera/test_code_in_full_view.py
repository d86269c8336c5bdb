"""When a decoded code is in full view (firmware_bridge/camera/stacking.py), on card places
given exactly: the one-code rule names a card from a code only when no other face-up card can
reach its modules. A neighbour's edge over the code's quiet zone hides no module; over its
modules, it may, and the code names nothing."""

from __future__ import annotations

import pytest

from firmware_bridge.camera.decoders import QrRead
from firmware_bridge.camera.layout import QR_MARGIN_RANGE_MM, QR_MODULES, QR_QUIET_MODULES, QR_WIDTH_MM
from firmware_bridge.camera.stacking import codes_in_full_view

MM_PER_PX = 0.25
CARD_MM = (63.0, 88.0)
MARGIN_MM = 4.0  # from the card's edge to the code's white square


def _codes(card: str, left_mm: float, top_mm: float) -> list[QrRead]:
    """The two codes of an upright card whose top-left corner lies at (left_mm, top_mm): the
    top-left one upright, the bottom-right one turned 180 degrees."""
    inset = MARGIN_MM + QR_WIDTH_MM / QR_MODULES * QR_QUIET_MODULES + QR_WIDTH_MM / 2
    w, h = CARD_MM
    at = [(left_mm + inset, top_mm + inset, 0.0), (left_mm + w - inset, top_mm + h - inset, 180.0)]
    return [QrRead(card, (x / MM_PER_PX, y / MM_PER_PX), turn, ()) for x, y, turn in at]


def _in_full_view(neighbour_right_edge_mm: float) -> bool:
    """Is the top-left code of a card at (0, 0) in full view, with a second card (both codes
    read) to its left whose right edge lies at `neighbour_right_edge_mm`? Which card lies on
    top is not seen (no picture is given)."""
    reads = _codes("7H", 0.0, 0.0) + _codes("QS", neighbour_right_edge_mm - CARD_MM[0], 0.0)
    clear = codes_in_full_view(reads, [1, 0, 3, 2], (CARD_MM[0] / MM_PER_PX, CARD_MM[1] / MM_PER_PX), MM_PER_PX,
                               QR_WIDTH_MM / MM_PER_PX, QR_WIDTH_MM / QR_MODULES * QR_QUIET_MODULES / MM_PER_PX,
                               QR_MARGIN_RANGE_MM)
    return clear[0]


def test_a_neighbour_far_from_the_code_leaves_it_in_full_view():
    assert _in_full_view(-5.0)


@pytest.mark.parametrize("edge_mm", [4.3, 4.6, 4.9])
def test_a_neighbour_over_the_quiet_zone_only_leaves_the_code_in_full_view(edge_mm):
    # the code's white square starts 4 mm in from the card's edge and its modules 2.1 mm further
    # (6.1 mm); a neighbour placed to 0.6 mm, kept 0.5 mm clear of them, may reach 5.0 mm
    assert _in_full_view(edge_mm)


@pytest.mark.parametrize("edge_mm", [5.2, 6.5, 10.0])
def test_a_neighbour_that_may_lie_on_the_modules_takes_the_code_out_of_full_view(edge_mm):
    assert not _in_full_view(edge_mm)
