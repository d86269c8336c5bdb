"""Frame sources behind one interface: folder, video file, HTTP stream, synthetic, errors."""

from __future__ import annotations

import functools
import http.server
import threading

import cv2
import numpy as np
import pytest

from firmware_bridge.camera import (
    ImageFolderSource,
    Recogniser,
    SourceError,
    SyntheticCamera,
    TableScene,
    VideoFileSource,
    open_source,
)


def test_folder_source_reads_images_in_name_order_and_skips_broken_ones(tmp_path, layout, render):
    scene = TableScene(layout.zone_names, seed=2)
    scene.deal("P1", "5S", face_up=True)
    cv2.imwrite(str(tmp_path / "b.png"), render(scene, layout))
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((10, 10, 3), np.uint8))
    (tmp_path / "c.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "notes.txt").write_text("ignored")
    src = open_source(str(tmp_path))
    assert isinstance(src, ImageFolderSource)
    t0, f0 = src.read()
    t1, f1 = src.read()
    assert (t0, f0.shape) == (0.0, (10, 10, 3)) and t1 == pytest.approx(0.1)
    assert src.read() is None and src.end
    assert [p.name for p in src.skipped] == ["c.jpg"]
    zones, _ = Recogniser(layout).read_still(f1)
    assert zones["P1"] == ["5S"]


def test_video_file_source_gives_file_time(tmp_path, layout):
    scene = TableScene(layout.zone_names, seed=3)
    cam = SyntheticCamera(scene, layout, perturbations="clean", seed=1)
    path = tmp_path / "round.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (layout.width, layout.height))
    assert writer.isOpened()
    for i in range(4):
        if i == 2:
            scene.deal("B", "9C")
        writer.write(cam.read()[1])
    writer.release()
    src = open_source(str(path))
    assert isinstance(src, VideoFileSource)
    times, frames = [], []
    while (got := src.read()) is not None:
        times.append(got[0])
        frames.append(got[1])
    src.close()
    assert len(frames) == 4 and times == sorted(times) and times[-1] == pytest.approx(0.3, abs=0.05)
    zones, _ = Recogniser(layout).read_still(frames[-1])
    assert zones["B"] == ["??"]


def test_http_stream_source(tmp_path, layout):
    scene = TableScene(layout.zone_names, seed=4)
    cam = SyntheticCamera(scene, layout, perturbations="clean", seed=1)
    path = tmp_path / "live.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (layout.width, layout.height))
    for _ in range(3):
        writer.write(cam.read()[1])
    writer.release()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        src = open_source(f"http://127.0.0.1:{server.server_address[1]}/live.avi")
        got = None
        for _ in range(20):
            got = src.read()
            if got is not None:
                break
        src.close()
    finally:
        server.shutdown()
    assert got is not None and got[1].shape == (1080, 1920, 3)


def test_synthetic_source_from_a_spec_drops_frames_as_told(layout):
    scene = TableScene()  # laid out as the layout it is filmed through says
    src = open_source({"kind": "synthetic", "perturbations": {"preset": "clean", "drop_rate": 0.5}, "seed": 3},
                      layout=layout, scene=scene)
    assert scene.zones == layout.zone_names
    got = [src.read() for _ in range(40)]
    dropped = sum(g is None for g in got)
    assert 8 <= dropped <= 32
    assert all(g[1].shape == (1080, 1920, 3) for g in got if g is not None)


def test_clock_is_injectable(layout):
    ticks = iter([10.0, 10.5])
    src = open_source("synthetic", layout=layout, clock=lambda: next(ticks))
    assert src.read()[0] == 10.0 and src.read()[0] == 10.5


@pytest.mark.parametrize(
    "spec, message",
    [
        ("/no/such/file.mp4", "no such video file"),
        ({"kind": "radar"}, "unknown frame source kind"),
        ({"kind": "stream", "url": "camera"}, "needs a url"),
        ({"kind": "synthetic", "perturbations": "foggy"}, "no perturbation preset"),
        ({"kind": "synthetic"}, "a synthetic camera films a table: give its layout"),
    ],
)
def test_bad_source_specs_are_refused(spec, message):
    with pytest.raises((SourceError, ValueError), match=message):
        open_source(spec)


def test_empty_folder_is_refused(tmp_path):
    with pytest.raises(SourceError, match="holds no images"):
        open_source(str(tmp_path))


def test_missing_device_is_refused():
    with pytest.raises(SourceError, match="cannot open camera device"):
        open_source("/dev/video99")
