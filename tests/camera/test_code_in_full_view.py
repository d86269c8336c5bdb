"""When a decoded code is in full view (firmware_bridge/camera/stacking.py), on card places
given exactly: the one-code rule names a card from a code only when no other face-up card can
reach its white square, the symbol and the quiet zone the sheet prints round it. And a card
seen by one code is placed by its edges on the felt, also where the piece of picture round
the cards ends a few millimetres beyond them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from firmware_bridge.camera.decoders import QrRead
from firmware_bridge.camera.faces import qr_modules
from firmware_bridge.camera.layout import (
    QR_MARGIN_RANGE_MM,
    QR_MODULES,
    QR_QUIET_MODULES,
    QR_WIDTH_MM,
)
from firmware_bridge.camera.stacking import (
    card_margins,
    code_matrices,
    codes_in_full_view,
    edge_margins,
)

MM_PER_PX = 0.25
CARD_MM = (63.0, 88.0)
MARGIN_MM = 4.0  # from the card's edge to the code's white square
QUIET_MM = QR_WIDTH_MM / QR_MODULES * QR_QUIET_MODULES


def _codes(card: str, left_mm: float, top_mm: float) -> list[QrRead]:
    """The two codes of an upright card whose top-left corner lies at (left_mm, top_mm): the
    top-left one upright, the bottom-right one turned 180 degrees."""
    inset = MARGIN_MM + QUIET_MM + QR_WIDTH_MM / 2
    w, h = CARD_MM
    at = [(left_mm + inset, top_mm + inset, 0.0), (left_mm + w - inset, top_mm + h - inset, 180.0)]
    return [QrRead(card, (x / MM_PER_PX, y / MM_PER_PX), turn, ()) for x, y, turn in at]


def _in_full_view(neighbour_right_edge_mm: float) -> bool:
    """Is the top-left code of a card at (0, 0) in full view, with a second card (both codes
    read) to its left whose right edge lies at `neighbour_right_edge_mm`? Which card lies on
    top is not seen (no picture is given)."""
    reads = _codes("7H", 0.0, 0.0) + _codes("QS", neighbour_right_edge_mm - CARD_MM[0], 0.0)
    clear = codes_in_full_view(reads, [1, 0, 3, 2], (CARD_MM[0] / MM_PER_PX, CARD_MM[1] / MM_PER_PX), MM_PER_PX,
                               QR_WIDTH_MM / MM_PER_PX, QUIET_MM / MM_PER_PX, QR_MARGIN_RANGE_MM)
    return clear[0]


def test_a_neighbour_clear_of_the_white_square_leaves_the_code_in_full_view():
    # the white square starts 4 mm in from the card's edge; the neighbour, placed to 0.6 mm,
    # must stay 0.5 mm short of it
    assert _in_full_view(-5.0)
    assert _in_full_view(2.8)


@pytest.mark.parametrize("edge_mm", [4.3, 4.9, 5.2, 10.0])
def test_a_neighbour_that_may_lie_on_the_quiet_zone_or_the_modules_takes_the_code_out_of_full_view(edge_mm):
    # 4.3 and 4.9 mm: on the quiet zone only (the modules start at 6.1 mm). The sheet prints
    # the quiet zone as part of the code, and the independent renderer counts a card with a
    # neighbour there as covered: naming it would be a wrong identity there.
    assert not _in_full_view(edge_mm)


def _card_on_felt(width_mm: float, edge_beyond_mm: float) -> tuple[np.ndarray, QrRead]:
    """A piece of picture holding the top-left corner of an upright white card on darker felt,
    the card's top and left edges `edge_beyond_mm` inside the picture's own edges, and the
    card's top-left code (its modules drawn dark) read there."""
    px = 1.0 / MM_PER_PX
    size = int(round(width_mm * px))
    gray = np.full((size, size), 90, np.uint8)  # felt
    e = int(round(edge_beyond_mm * px))
    gray[e:, e:] = 235  # the card
    inset = MARGIN_MM + QUIET_MM + QR_WIDTH_MM / 2
    c = (edge_beyond_mm + inset) * px
    half = QR_WIDTH_MM / 2 * px
    gray[int(c - half):int(c + half), int(c - half):int(c + half)] = 40  # the symbol
    return gray, QrRead("7H", (c, c), 0.0, ())


@pytest.mark.parametrize("edge_beyond_mm", [2.5, 12.0])
def test_a_lone_codes_card_is_placed_by_its_edges_on_the_felt_even_near_the_pictures_edge(edge_beyond_mm):
    # The search for the edge runs 8 mm out from the white square, 4 mm beyond this card's
    # edge; with the picture ending 2.5 mm beyond the edge (the crop round a blob) the edge
    # was never measured, and the card's place was known only to the sheet's 2-6 mm margin.
    gray, read = _card_on_felt(60.0, edge_beyond_mm)
    top, left = edge_margins(gray, read, QR_WIDTH_MM / MM_PER_PX, QUIET_MM / MM_PER_PX, MM_PER_PX)
    assert top is not None and left is not None
    assert abs(top * MM_PER_PX - MARGIN_MM) <= 0.5 and abs(left * MM_PER_PX - MARGIN_MM) <= 0.5


def _twin_hidden(layout, overlap_mm: float, margin_mm: float = QR_MARGIN_RANGE_MM[0], picture: bool = False) -> bool:
    """A card seen by its top-left code alone, printed at `margin_mm`, and a second card, both
    of whose codes were read, lying to its right with its left edge `overlap_mm` into the
    square (symbol and quiet zone) where the first card's other code lies *for the sheet's
    smallest margin*: is that code covered? With `picture`, the first card's top and left
    edges show on the felt, so its margin is measured."""
    from firmware_bridge.camera import Recogniser

    rec = Recogniser(layout)
    mm = layout.mm_per_px
    side_mm = QR_WIDTH_MM + 2 * QUIET_MM
    pad_mm = 10.0  # felt round the first card's top-left corner
    inset = margin_mm + side_mm / 2
    lone = QrRead("7H", ((pad_mm + inset) / mm, (pad_mm + inset) / mm), 0.0, ())
    twin_x = pad_mm + CARD_MM[0] - (QR_MARGIN_RANGE_MM[0] + side_mm / 2)
    left = twin_x + side_mm / 2 - overlap_mm
    b_inset = MARGIN_MM + side_mm / 2
    b = [QrRead("QS", ((left + b_inset) / mm, (pad_mm + b_inset) / mm), 0.0, ()),
         QrRead("QS", ((left + CARD_MM[0] - b_inset) / mm, (pad_mm + CARD_MM[1] - b_inset) / mm), 180.0, ())]
    margins = (None, None)
    if picture:
        size = (int((pad_mm + 2 * CARD_MM[1]) / mm), int((pad_mm + 2 * CARD_MM[0]) / mm))
        gray = np.full(size, 90, np.uint8)  # felt
        p0 = int(pad_mm / mm)
        gray[p0:p0 + int(CARD_MM[1] / mm), p0:p0 + int(CARD_MM[0] / mm)] = 235  # the card
        c, h = lone.centre, QR_WIDTH_MM / 2 / mm
        gray[int(c[1] - h):int(c[1] + h), int(c[0] - h):int(c[0] + h)] = 40  # its code
        margins = card_margins(gray, lone, (0, 0), QR_WIDTH_MM / mm, QUIET_MM / mm, mm, QR_MARGIN_RANGE_MM)
    return rec._partner_hidden(lone, [lone, *b], [(1, 2)], None, None, margins)


@pytest.mark.parametrize("overlap_mm, hidden", [(1.5, True), (4.0, True), (0.55, False), (0.2, False), (-2.0, False)])
def test_a_twin_whose_quiet_zone_surely_lies_under_another_card_is_covered(layout, overlap_mm, hidden):
    # A card whose two codes were read is placed to 0.6 mm; 1.5 mm over the twin's quiet
    # zone it surely covers part of that code, which is then not in full view: the card is
    # named from its other code (before, only 2.6 mm or more counted, and the card was XX).
    # 0.55 mm is within the other card's own uncertainty: not surely covered.
    assert _twin_hidden(layout, overlap_mm) is hidden


def test_a_twin_is_looked_for_where_the_cards_measured_margin_puts_it(layout):
    # Printed at 6 mm, the card's other code lies 4 mm further in than at 2 mm: the other
    # card over the 2 mm place leaves it in full view. With the card's edges on the felt its
    # margin is measured and the code is not taken as covered; without them, any margin's
    # place covered is taken (the gap docs/camera.md names).
    # (3 mm over the 2 mm place: the measured margin adds its own 0.6 mm to the other card's,
    # and the picture is drawn to whole pixels)
    assert _twin_hidden(layout, 3.0, margin_mm=6.0, picture=True) is False
    assert _twin_hidden(layout, 3.0, margin_mm=2.0, picture=True) is True
    assert _twin_hidden(layout, 3.0, margin_mm=6.0, picture=False) is True


def _two_cards_near_a_code(order: str, edge_lines: bool = True, b_bottom_mm: float = 1.0, *,
                           b_codes: bool = False, edge_grey: int = 205, blur_px: float = 0.0,
                           b_frame_grey: int | None = None, qr_scale: float = 1.0,
                           b_frame_mm: tuple[float, float] = (3.0, 0.0), turn_deg: float = 0.0,
                           b_placed_beyond_mm: float = 0.0) -> bool:
    """A card (7H) seen by its top-left code alone, its top edge lying over the bottom of a
    second card (QS, both codes read) whose place covers `b_bottom_mm` of the first code's
    top quiet zone; the second card ends just beyond that code, so the stretch of the first
    card's edge over it is the code's own width. `order`: which card lies on top ("7H" or
    "QS"). With `edge_lines`, a card's edge over another shows as a thin line a little darker
    than the white, as a card's thickness and shadow make it; without, the cards are one
    white. `b_codes`: the second card's own codes printed on it (4 mm in); `edge_grey`: the
    line's grey on the cards' 235; `blur_px`: the picture then blurred; `b_frame_grey`: a thin
    frame printed on the second card (`b_frame_mm`: its inset from the card's edge and its
    width, 0 for a 1 px line); `qr_scale`: the symbol's size the reader expects from the
    layout, against the drawn one; `turn_deg`: the decoder's turn of the first code, a little
    off (its outline turned with it); `b_placed_beyond_mm`: the second card's codes read this
    much nearer the first code than they are drawn (its place misjudged: the table's scale a
    few per cent off there). Is the code in full view?"""
    px = 1.0 / MM_PER_PX
    side_mm = QR_WIDTH_MM + 2 * QUIET_MM
    a_left, a_top = 75.0, 95.0
    square_x, square_y = a_left + MARGIN_MM, a_top + MARGIN_MM  # the code's white square
    b_right, b_bottom = square_x + side_mm + 2.0, square_y + b_bottom_mm
    b_left, b_top = b_right - CARD_MM[0], b_bottom - CARD_MM[1]
    gray = np.full((int(200 * px), int(160 * px)), 90, np.uint8)  # felt

    def card(left: float, top: float, right: float, bottom: float) -> None:
        x0, y0, x1, y1 = (int(round(v * px)) for v in (left, top, right, bottom))
        gray[max(y0, 0):y1, max(x0, 0):x1] = 235
        if edge_lines:
            cv2.rectangle(gray, (x0, y0), (x1 - 1, y1 - 1), edge_grey, 1)

    def code(text: str, x_mm: float, y_mm: float, turned: bool = False) -> None:
        symbol = qr_modules(text)  # quiet zone of 2 modules included
        if turned:
            symbol = symbol[::-1, ::-1]
        n = int(round(side_mm * px))
        art = cv2.resize(symbol, (n, n), interpolation=cv2.INTER_NEAREST)
        x0, y0 = int(round(x_mm * px)), int(round(y_mm * px))
        cut_y, cut_x = max(0, -y0), max(0, -x0)
        gray[y0 + cut_y:y0 + n, x0 + cut_x:x0 + n] = np.where(art[cut_y:, cut_x:] > 0, 235, 40)

    a = (a_left, a_top, a_left + CARD_MM[0], a_top + CARD_MM[1])
    b = (b_left, b_top, b_right, b_bottom)
    for c in ((b, a) if order == "7H" else (a, b)):
        card(*c)
        if c is a:
            code("7H", square_x, square_y)
        else:
            if b_frame_grey is not None:
                inset, width = b_frame_mm
                f0, f1 = [int(round(v * px)) for v in (b_left + inset, b_top + inset)], \
                    [int(round(v * px)) for v in (b_right - inset, b_bottom - inset)]
                cv2.rectangle(gray, tuple(f0), tuple(f1), b_frame_grey, max(1, int(round(width * px))))
            if b_codes:
                code("QS", b_left + MARGIN_MM, b_top + MARGIN_MM)
                code("QS", b_right - MARGIN_MM - side_mm, b_bottom - MARGIN_MM - side_mm, turned=True)
    if blur_px:
        gray = cv2.GaussianBlur(gray, (0, 0), blur_px)
    centre = ((square_x + side_mm / 2) * px, (square_y + side_mm / 2) * px)
    inset = MARGIN_MM + side_mm / 2  # (the second card's codes, printed or not)
    # the decoder's outline of the symbol (its corners, top-left first, as zxing-cpp gives them)
    s0x, s0y, s1x, s1y = ((square_x + QUIET_MM) * px, (square_y + QUIET_MM) * px,
                          (square_x + side_mm - QUIET_MM) * px, (square_y + side_mm - QUIET_MM) * px)
    outline = np.array([(s0x, s0y), (s1x, s0y), (s1x, s1y), (s0x, s1y)])
    a = np.radians(turn_deg)
    outline = (outline - centre) @ np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]]) + centre
    reads = [QrRead("7H", centre, turn_deg % 360.0, tuple(map(tuple, outline))),
             QrRead("QS", ((b_left + inset) * px, (b_top + inset + b_placed_beyond_mm) * px), 0.0, ()),
             QrRead("QS", ((b_right - inset) * px, (b_bottom - inset + b_placed_beyond_mm) * px), 180.0, ())]
    clear = codes_in_full_view(reads, [-1, 2, 1], (CARD_MM[0] * px, CARD_MM[1] * px), MM_PER_PX,
                               QR_WIDTH_MM * px * qr_scale, QUIET_MM * px, QR_MARGIN_RANGE_MM, gray, (0, 0))
    return clear[0]


# A rule that would see a code clear from the picture (no line on its quiet zone, a card's
# edge seen beyond it) was tried on 5 Dec 2026 and not kept (docs/camera.md, "A code seen clear
# in the picture: tried and not kept"): in each of these pictures the other card lies on top
# of the code's quiet zone or within 1 mm of it, and a version of that rule named the card.
# They hold the one-code rule to XX there, whatever is tried next.


@pytest.mark.parametrize("b_bottom_mm", [1.0, 1.8, -0.3, -0.8])
def test_a_card_on_top_on_the_quiet_zone_or_within_a_millimetre_of_it_takes_the_code_out_of_full_view(b_bottom_mm):
    assert not _two_cards_near_a_code("QS", b_bottom_mm=b_bottom_mm)


def test_where_card_edges_do_not_show_which_card_lies_on_top_is_not_seen():
    # one white for both cards (a renderer that draws no line at a card's edge: the
    # independent one), the front card in fact on top: still not in full view
    assert not _two_cards_near_a_code("7H", edge_lines=False)


@pytest.mark.parametrize("b_bottom_mm", [-0.3, 1.0, 1.9])
def test_the_other_cards_own_code_beyond_is_no_sign_of_which_card_lies_on_top(b_bottom_mm):
    # its code's outer row of modules, straight and parallel beyond this code, passed for a
    # card's edge (the first version named the card in 32 of 80 such pictures)
    assert not _two_cards_near_a_code("QS", edge_lines=False, b_bottom_mm=b_bottom_mm, b_codes=True)
    assert not _two_cards_near_a_code("QS", b_bottom_mm=b_bottom_mm, b_codes=True)


@pytest.mark.parametrize("edge_grey, blur_px", [(205, 1.2), (205, 1.6), (205, 2.0), (205, 2.5), (220, 0.0), (220, 1.2)])
def test_a_faint_or_soft_edge_on_the_quiet_zone_takes_the_code_out_of_full_view(edge_grey, blur_px):
    # an edge under 10 grey levels on the quiet zone once softened, with the other card's
    # print beyond (the second version named the card at blurs of 2 and 2.5 px)
    assert not _two_cards_near_a_code("QS", edge_grey=edge_grey, blur_px=blur_px, b_codes=True)
    assert not _two_cards_near_a_code("QS", edge_grey=edge_grey, blur_px=blur_px)


@pytest.mark.parametrize("frame_grey", [150, 190, 220])
def test_a_frame_printed_on_the_card_on_top_is_no_edge(frame_grey):
    # a thin frame 3 mm inside the other card's edge, no line at the edge itself: faint
    # straight print beyond the code (the second version named the card in all 100 such)
    for b_bottom_mm in (-0.8, 0.5, 1.5):
        assert not _two_cards_near_a_code("QS", edge_lines=False, b_bottom_mm=b_bottom_mm, b_frame_grey=frame_grey)


# The order of two white cards told by the code's finder patterns: where the top rows of the
# code's symbol lie over the other card, its finders' rings show there only from the card on
# top (a card lying over them shows its own white). Share of the symbol over the other card
# at 5.6 mm: under a fifth, too little for a code to decode only from the card on top.
SYMBOL_TOP_MM = QUIET_MM  # from the white square's edge to the symbol's


@pytest.mark.parametrize("into_symbol_mm", [5.0, 6.0])
@pytest.mark.parametrize("edge_lines", [False, True])
def test_a_codes_finders_seen_over_the_other_card_put_its_card_on_top(into_symbol_mm, edge_lines):
    # (the finders' cores must lie over the other card too: from about 4.5 mm in)
    b_bottom = SYMBOL_TOP_MM + into_symbol_mm
    assert _two_cards_near_a_code("7H", edge_lines=edge_lines, b_bottom_mm=b_bottom)
    assert _two_cards_near_a_code("7H", edge_lines=edge_lines, b_bottom_mm=b_bottom, b_codes=True, blur_px=1.2)


@pytest.mark.parametrize("into_symbol_mm", [1.0, 3.5, 5.0])
@pytest.mark.parametrize("b_codes", [False, True])
def test_finders_under_the_other_card_leave_the_code_out_of_full_view(into_symbol_mm, b_codes):
    # the other card on top of the symbol's top rows: its white (or its own print) shows where
    # the finders would be; a decoder may still have read the code (error correction)
    b_bottom = SYMBOL_TOP_MM + into_symbol_mm
    for edge_lines in (False, True):
        assert not _two_cards_near_a_code("QS", edge_lines=edge_lines, b_bottom_mm=b_bottom, b_codes=b_codes)
        assert not _two_cards_near_a_code("QS", edge_lines=edge_lines, b_bottom_mm=b_bottom, b_codes=b_codes,
                                          blur_px=1.6)


@pytest.mark.parametrize("into_symbol_mm", [1.0, 2.2])
def test_a_row_or_two_of_modules_over_the_other_card_tells_no_order(into_symbol_mm):
    # 1 mm into the symbol: its outer row lies on the other card's edge; 2.2 mm: its outer
    # row over the other card, but within 1.25 modules of where that card is placed
    # (stacking.MODULES_OVER_INSET: a place a millimetre off would count modules beyond the
    # card's edge as over it)
    assert not _two_cards_near_a_code("7H", edge_lines=False, b_bottom_mm=SYMBOL_TOP_MM + into_symbol_mm)


@pytest.mark.parametrize("into_symbol_mm", [3.2, 4.0])
@pytest.mark.parametrize("blur_px", [0.0, 1.2])
def test_the_symbols_own_modules_over_the_other_card_put_its_card_on_top(into_symbol_mm, blur_px):
    # two or three rows of the symbol over the other card: too few for the finders' cores, but
    # the rows show the modules this code's text encodes to (the finders' dark rings and the light
    # separators and data between them), which no straight print line, nor the white or print
    # of a card lying over the code, shows (stacking.modules_over; the finder rule alone read
    # this card XX, and the old blind renderer's emblem_purple S7 with it)
    b_bottom = SYMBOL_TOP_MM + into_symbol_mm
    assert _two_cards_near_a_code("7H", edge_lines=False, b_bottom_mm=b_bottom, blur_px=blur_px)
    assert _two_cards_near_a_code("7H", edge_lines=False, b_bottom_mm=b_bottom, b_codes=True, blur_px=blur_px)
    # the other way round, the other card on top of those rows, stays out of full view
    assert not _two_cards_near_a_code("QS", edge_lines=False, b_bottom_mm=b_bottom, blur_px=blur_px)
    assert not _two_cards_near_a_code("QS", edge_lines=False, b_bottom_mm=b_bottom, b_codes=True, blur_px=blur_px)


@pytest.mark.parametrize("covered_mm", [SYMBOL_TOP_MM + 0.2, SYMBOL_TOP_MM + 0.5])
@pytest.mark.parametrize("misplaced_mm", [1.5, 1.75])
def test_a_card_on_top_placed_a_little_too_far_leaves_the_code_it_covers_out_of_full_view(covered_mm, misplaced_mm):
    # the second reader's case: the other card on top of the symbol's first row, its place
    # judged 1.5-1.75 mm further over the code than it lies (a scale 3-4% off at that seat):
    # the modules between its judged and its true edge show this code's pattern, and with
    # modules counted 0.75 of a module inside its place the covered code was named (2 mm and
    # more is beyond what MODULES_OVER_INSET holds)
    for blur_px in (0.0, 1.2):
        assert not _two_cards_near_a_code("QS", edge_lines=False, b_bottom_mm=covered_mm, blur_px=blur_px,
                                          b_placed_beyond_mm=misplaced_mm)


@pytest.mark.parametrize("text", ["7H", "TD", "AS", "7H/3-0417", "QC/1-0001", "2C/0-0042"])
def test_the_matrix_a_code_is_printed_as_is_among_those_its_text_may_encode_to(text):
    # what modules_over compares the picture with: the symbols of the project's own card art
    # (OpenCV's encoder), segno's and the qrcode package's (the independent renderer's)
    import qrcode

    from firmware_bridge.camera.faces import qr_modules

    matrices = code_matrices(text)
    opencv = qr_modules(text)[QR_QUIET_MODULES:-QR_QUIET_MODULES, QR_QUIET_MODULES:-QR_QUIET_MODULES] == 0
    q = qrcode.QRCode(version=1, error_correction=qrcode.constants.ERROR_CORRECT_M, border=0)
    q.add_data(text)
    q.make(fit=False)
    for printed in (opencv, np.array(q.get_matrix(), bool)):
        assert any((m == printed).all() for m in matrices)


@pytest.mark.parametrize("qr_scale", [0.95, 1.05])
def test_the_finders_are_found_through_the_symbols_own_corners(qr_scale):
    # the layout's scale is the table's average; a camera's perspective makes a code a few
    # per cent larger or smaller than that: module by module from the centre, the finders'
    # rings would be missed by half a module
    assert _two_cards_near_a_code("7H", edge_lines=False, b_bottom_mm=SYMBOL_TOP_MM + 5.0, qr_scale=qr_scale)
    assert not _two_cards_near_a_code("QS", edge_lines=False, b_bottom_mm=SYMBOL_TOP_MM + 5.0, qr_scale=qr_scale)


def test_a_frame_line_on_the_card_on_top_is_no_finders_outer_ring():
    # the second reader's case: the card on top has a dark frame line about 2 mm in from its
    # edge, lying along the first code's finders' outer row, its white stock beside it where
    # the finders' light row is; the decoder's turn a degree or two off. The outer rows alone
    # once passed for the finders (a wrong identity); the cores must show too.
    fired = []
    for inset in (1.8, 2.0, 2.2):
        for width in (0.7, 0.85, 1.0):
            for b_bottom in np.arange(4.2, 5.8, 0.1):
                for turn in (-2.4, 0.0, 2.0):
                    if _two_cards_near_a_code("QS", edge_lines=False, b_bottom_mm=float(b_bottom), b_frame_grey=40,
                                              b_frame_mm=(inset, width), turn_deg=turn):
                        fired.append((inset, width, round(float(b_bottom), 1), turn))
    assert fired == []
