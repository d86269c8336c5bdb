"""A camera config's `[controls]`: checked when read, set when the capture opens, read back;
a capture that cannot take a control says so (never reported as applied)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from firmware_bridge.camera.config import load_camera_config
from firmware_bridge.camera.controls import parse_controls
from firmware_bridge.camera.layout import LayoutError
from firmware_bridge.camera.sources import _Capture, open_source
from station.games.camera_zones import game_layout_data, game_zones


def test_controls_are_read_and_checked(tmp_path):
    p = tmp_path / "cam.toml"
    p.write_text('[source]\nkind = "device"\ndevice = 0\n[controls]\nexposure = 156\ngain = 0\n'
                 'white_balance_k = 4600\nfocus = 30\n')
    # a file of the source and its tuning only: the layout is the one its caller gives
    with pytest.raises(LayoutError, match="no layout"):
        load_camera_config(p)
    studio = game_layout_data("pokdeng")
    assert load_camera_config(p, game_zones, default=studio).controls == {
        "exposure": 156.0, "gain": 0.0, "white_balance_k": 4600.0, "focus": 30.0}
    with pytest.raises(LayoutError, match="unknown key.*iso"):
        parse_controls({"iso": 400}, source="cam.toml")
    with pytest.raises(LayoutError, match="white_balance_k = 90"):
        parse_controls({"white_balance_k": 90}, source="cam.toml")
    with pytest.raises(LayoutError, match="exposure = True"):
        parse_controls({"exposure": True}, source="cam.toml")


def test_a_capture_that_has_no_such_controls_reports_them_not_held(tmp_path):
    """A recorded video opened through the capture: OpenCV's file backend takes no exposure or
    white balance; the source says what the camera reported, not what was asked."""
    video = tmp_path / "table.avi"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    for i in range(5):
        w.write(np.full((240, 320, 3), 40 + i, np.uint8))
    w.release()
    cap = _Capture(str(video), what="stream", reopen=False,
                   controls={"exposure": 156.0, "white_balance_k": 4600.0})
    try:
        assert set(cap.controls_applied) == {"exposure", "white_balance_k"}
        assert not any(a.holds for a in cap.controls_applied.values())
        assert cap.read() is not None  # the frames still come
    finally:
        cap.close()


def test_open_source_carries_the_controls_to_the_capture(tmp_path):
    video = tmp_path / "t.avi"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    w.write(np.zeros((48, 64, 3), np.uint8))
    w.release()
    # a stream spec with controls, as `camera_source_spec` builds it from [controls]
    src = open_source({"spec": f"file://{video}", "controls": {"gain": 3.0}})
    try:
        assert list(src.controls_applied) == ["gain"]  # type: ignore[attr-defined]
    finally:
        src.close()
