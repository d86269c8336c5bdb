"""A recall frame is whole or absent: written to a temporary name, flushed, renamed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from station.live import camera_feed
from station.live.camera_feed import write_frame


def frame() -> np.ndarray:
    rng = np.random.default_rng(3)
    return rng.integers(0, 255, size=(540, 960, 3), dtype=np.uint8)


def test_a_frame_lands_whole_and_private(tmp_path: Path) -> None:
    import cv2

    path = tmp_path / "PD-01-S1-R7.png"
    write_frame(path, frame())
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    back = cv2.imread(str(path))
    assert back is not None and back.shape == (540, 960, 3) and (back == frame()).all()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_frame_that_could_not_be_placed_leaves_nothing(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "PD-01-S1-R8.png"
    seen: list[bytes] = []

    def failing_replace(src, dst):
        # at the moment of the rename the whole picture is on disk under its temporary name
        seen.append(Path(src).read_bytes())
        raise OSError("disk gone")

    monkeypatch.setattr(camera_feed.os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_frame(path, frame())
    assert list(tmp_path.iterdir()) == []  # neither a half frame nor the temporary file
    assert seen and seen[0].startswith(b"\x89PNG") and seen[0].rstrip().endswith(b"IEND\xaeB`\x82")
    assert os.path.basename(path) not in os.listdir(tmp_path)
