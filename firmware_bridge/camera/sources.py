"""Frame sources: where the recogniser's pictures come from, behind one interface.

    read()  -> (t, frame) | None     t in seconds on the source's clock; None = no frame now
    close()

`open_source(spec)` picks one from a string or a config dict:

| spec | source |
|---|---|
| `0`, `2`, `/dev/video0`, `{"kind": "device", "device": 0}` | a camera device (V4L2) |
| `rtsp://…`, `http://…`, `https://…` | a network stream (the studio's IP cameras) |
| a directory | a folder of still images, in name order |
| any other path | a video file |
| `synthetic`, `{"kind": "synthetic", "perturbations": "dim", "fps": 5}` | the synthetic camera |

A device or a stream spec may carry `"controls": {"exposure": 156, ...}` (a camera config's
`[controls]`, `controls.py`): set when the camera opens (and reopens), read back into
`controls_applied`.

A live source that loses its camera reopens it (and returns None meanwhile): the table core
notices missing observations (`camera_lost`) from the absence of heartbeats, so a source
never invents frames.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from firmware_bridge.camera.controls import Applied, apply_controls
from firmware_bridge.camera.layout import Layout
from firmware_bridge.camera.scene import TableScene
from firmware_bridge.camera.synthetic import SyntheticCamera, perturbations_from

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


class SourceError(RuntimeError):
    """A frame source that cannot be opened; the message says which and why."""


class FrameSource(Protocol):
    def read(self) -> tuple[float, np.ndarray] | None: ...

    def close(self) -> None: ...


class _Capture:
    """An OpenCV VideoCapture (device, file or stream)."""

    def __init__(self, target: int | str, *, what: str, width: int | None = None, height: int | None = None,
                 fps: float | None = None, reopen: bool = True, clock: Callable[[], float] = time.monotonic,
                 controls: dict[str, float] | None = None) -> None:
        self.target = target
        self.controls = dict(controls or {})
        self.controls_applied: dict[str, Applied] = {}
        self.what = what
        self._size = (width, height)
        self._fps = fps
        self._reopen = reopen
        self._clock = clock
        self._cap = self._open()
        if not self._cap.isOpened():
            raise SourceError(f"cannot open {what} {target!r}")
        self._failures = 0
        self._next_retry = 0.0

    def _open(self) -> cv2.VideoCapture:
        cap = cv2.VideoCapture(self.target)
        w, h = self._size
        if w and h and isinstance(self.target, int | str) and self.what == "camera device":
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, w)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, h)
        if self._fps and self.what == "camera device":
            cap.set(cv2.CAP_PROP_FPS, self._fps)
        if self.controls and cap.isOpened():
            # after every (re)open: a replugged camera comes back on its automatic modes
            self.controls_applied = apply_controls(cap, self.controls)
        return cap

    def property(self, prop: int) -> float:
        """An OpenCV capture property as the camera reports it now (0 when it has none)."""
        return float(self._cap.get(prop))

    def read(self) -> tuple[float, np.ndarray] | None:
        ok, frame = self._cap.read()
        if ok and frame is not None:
            self._failures = 0
            return self._clock(), frame
        self._failures += 1
        if self._reopen and self._failures >= 5 and time.monotonic() >= self._next_retry:
            # a camera unplugged or a stream dropped: try again, at most once a second
            self._next_retry = time.monotonic() + 1.0
            self._cap.release()
            self._cap = self._open()
        return None

    def close(self) -> None:
        self._cap.release()


class VideoFileSource:
    """A recorded video. Frame time is the position in the file, so a recording of a round
    replays with its own timing; `end` is True once the file is exhausted."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._cap = cv2.VideoCapture(str(self.path))
        if not self._cap.isOpened():
            raise SourceError(f"cannot open video file {self.path} (missing or not a video OpenCV can read)")
        self.end = False

    def read(self) -> tuple[float, np.ndarray] | None:
        ok, frame = self._cap.read()
        if not ok or frame is None:
            self.end = True
            return None
        return float(self._cap.get(cv2.CAP_PROP_POS_MSEC)) / 1000.0, frame

    def close(self) -> None:
        self._cap.release()


class ImageFolderSource:
    """Still images in a folder, in name order, one per read; frame time is index / fps. An
    image that cannot be read is skipped with its name in `skipped` (nothing is lost silently)."""

    def __init__(self, folder: str | Path, fps: float = 10.0, loop: bool = False) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"image folder {self.folder} does not exist")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"image folder {self.folder} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self.fps = fps
        self.loop = loop
        self._i = 0
        self._n = 0
        self.skipped: list[Path] = []
        self.end = False

    def read(self) -> tuple[float, np.ndarray] | None:
        while True:
            if self._i >= len(self.files):
                if not self.loop:
                    self.end = True
                    return None
                self._i = 0
            path = self.files[self._i]
            self._i += 1
            frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if frame is None:
                self.skipped.append(path)
                continue
            t = self._n / self.fps
            self._n += 1
            return t, frame

    def close(self) -> None:
        self.end = True


def open_source(
    spec: str | int | dict,
    *,
    layout: Layout | None = None,
    scene: TableScene | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> FrameSource:
    """Open the frame source a config names (see the module doc for the forms)."""
    if isinstance(spec, int):
        spec = {"kind": "device", "device": spec}
    controls = spec.get("controls") if isinstance(spec, dict) else None
    if isinstance(spec, dict) and "kind" not in spec and "spec" in spec:
        spec = spec["spec"]  # `source = "rtsp://…"` in a camera config
    if isinstance(spec, str):
        s = spec.strip()
        if s == "synthetic":
            spec = {"kind": "synthetic"}
        elif s.isdigit() or s.startswith("/dev/video"):
            spec = {"kind": "device", "device": int(s) if s.isdigit() else s}
        elif "://" in s:
            spec = {"kind": "stream", "url": s}
        elif os.path.isdir(s):
            spec = {"kind": "folder", "path": s}
        else:
            spec = {"kind": "file", "path": s}
    if not isinstance(spec, dict):
        raise SourceError(f"a frame source is a string or a table, not {type(spec).__name__}")
    controls = controls or spec.get("controls")
    kind = spec.get("kind")
    if kind == "synthetic":
        perturbations = perturbations_from(spec.get("perturbations"))
        if layout is None:
            raise SourceError("a synthetic camera films a table: give its layout")
        return SyntheticCamera(
            scene if scene is not None else TableScene(),
            layout,
            perturbations=perturbations,
            seed=int(spec.get("seed", 0)),
            fps=spec.get("fps"),
            clock=clock,
            style=spec.get("style"),
        )
    if kind == "device":
        dev = spec.get("device", 0)
        # the capture size the layout's pixels are in (a studio camera's 1080p without one)
        width, height = (layout.width, layout.height) if layout is not None else (1920, 1080)
        return _Capture(dev, what="camera device", width=int(spec.get("width", width)),
                        height=int(spec.get("height", height)), fps=spec.get("fps"), clock=clock,
                        controls=controls)
    if kind == "stream":
        url = spec.get("url")
        if not isinstance(url, str) or "://" not in url:
            raise SourceError(f"stream source needs a url such as rtsp://camera/stream, got {url!r}")
        return _Capture(url, what="stream", clock=clock, controls=controls)
    if kind == "folder":
        return ImageFolderSource(spec["path"], fps=float(spec.get("fps", 10.0)), loop=bool(spec.get("loop", False)))
    if kind == "file":
        path = Path(spec["path"])
        if not path.exists():
            raise SourceError(f"no such video file or image folder: {path}")
        return VideoFileSource(path)
    raise SourceError(f"unknown frame source kind {kind!r} (device, stream, folder, file, synthetic)")
