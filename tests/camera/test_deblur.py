"""Undoing a soft picture (firmware_bridge/camera/deblur.py) on a real QR code of our notation,
decoded by the recogniser's own decoder: a code blurred past what the decoder reads is read
again once its blur is undone; a sharp picture is not deblurred at all."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from firmware_bridge.camera.deblur import SOFT_MIN_PX, blur_width_px, deblurred_views, wiener
from firmware_bridge.camera.decoders import make_decoder
from firmware_bridge.camera.press_art import qr_matrix

MODULE_PX = 3.3  # 1 mm modules at 0.30 mm per pixel


def _card_code(text: str) -> np.ndarray:
    """A code of `text` on a card's white, black on white, as the camera sees it at 4K."""
    matrix = qr_matrix(text)  # with its quiet zone of two modules
    side = matrix.shape[0]
    big = cv2.resize(matrix, (side * 10, side * 10), interpolation=cv2.INTER_NEAREST)
    px = int(round(side * MODULE_PX))
    code = cv2.resize(big, (px, px), interpolation=cv2.INTER_AREA)
    card = np.full((px + 80, px + 80), 235, np.uint8)
    card[40 : 40 + px, 40 : 40 + px] = code
    return cv2.GaussianBlur(card, (0, 0), 0.5)  # the lens's own softness


def _texts(gray: np.ndarray) -> set[str]:
    return {r.text for r in make_decoder("zxing").decode(gray)}


def test_a_sharp_picture_is_not_deblurred():
    sharp = _card_code("7H")
    assert "7H" in _texts(sharp)
    assert blur_width_px(sharp) < SOFT_MIN_PX
    assert list(deblurred_views(sharp)) == []


@pytest.mark.parametrize("sigma_px", [2.0, 2.5])
def test_a_code_too_soft_to_decode_is_read_once_its_blur_is_undone(sigma_px):
    soft = cv2.GaussianBlur(_card_code("QS/3-0417"), (0, 0), sigma_px)
    assert _texts(soft) == set()  # past what the decoder reads
    assert blur_width_px(soft) >= SOFT_MIN_PX
    read = set()
    for make_view in deblurred_views(soft):
        view, scale = make_view()
        assert view.shape == soft.shape and scale == 1.0  # same pixels: the code stays where it is
        read |= _texts(view)
    assert read == {"QS/3-0417"}


def test_the_filter_keeps_a_flat_picture_flat():
    flat = np.full((64, 80), 200, np.uint8)
    assert np.abs(wiener(flat, 2.0, 1e-3).astype(int) - 200).max() <= 1
