"""Saving a camera config edited at the table (the console's table setup): the zones' new
corners and a new calibration written into the file, everything else kept as it was
(comments, [source], [controls], [recogniser]), and the previous file kept beside it.

The new text is checked by loading it before it replaces the file, and it replaces it by a
rename: a station that reads the file meanwhile sees the old one or the new one, whole."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

from firmware_bridge.camera.calibration import Calibration, toml_text
from firmware_bridge.camera.config import CameraConfig, load_camera_config
from firmware_bridge.camera.layout import LayoutError

_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*(#.*)?$")
_POLYGON = re.compile(r"^(\s*polygon\s*=\s*)(\[.*\])(\s*(#.*)?)$")
_CAL_COMMENT = ("# Learned by `station camera calibrate`", "# cards of the deck set in use")


def polygon_text(points: list[tuple[int, int]] | list[list[int]]) -> str:
    return "[" + ", ".join(f"[{int(x)}, {int(y)}]" for x, y in points) + "]"


def edited_text(text: str, zones: dict[str, list[list[int]]], calibration: Calibration | None) -> str:
    """`text` with each named zone's `polygon` replaced (a zone not in the file is an error:
    the zones are the game's) and, with `calibration`, its `[calibration.*]` tables replaced."""
    out: list[str] = []
    section = None
    done: set[str] = set()
    skipping = False
    for line in text.splitlines():
        m = _SECTION.match(line)
        if m:
            section = m.group(1).strip()
            # the cards' calibration is replaced; the dice tray's (`calibrate --dice`) is not theirs
            skipping = calibration is not None and section.startswith("calibration") \
                and section != "calibration.dice"
        if calibration is not None and (skipping or line.startswith(_CAL_COMMENT)):
            continue
        if section and section.startswith("zones."):
            name = section[len("zones."):].strip().strip('"')
            pm = _POLYGON.match(line)
            if pm and name in zones:
                line = pm.group(1) + polygon_text(zones[name]) + (pm.group(3) or "")
                done.add(name)
        out.append(line)
    missing = set(zones) - done
    if missing:
        raise LayoutError(f"the camera config has no [zones.<name>] polygon for {', '.join(sorted(missing))}")
    if calibration is not None:
        while out and not out[-1].strip():
            out.pop()
        out += ["", *toml_text(calibration).rstrip("\n").splitlines()]
    return "\n".join(out) + "\n"


def save_camera_config(path: str | Path, zones: dict[str, list[list[int]]],
                       calibration: Calibration | None = None) -> tuple[CameraConfig, Path]:
    """Write the zones (and calibration) into the camera config at `path`; the previous file
    is kept as `<name>.prev-<UTC time>.toml`. Returns the new config, loaded, and where the
    previous one went. A text that does not load is refused and nothing changes."""
    p = Path(path)
    new = edited_text(p.read_text(encoding="utf-8"), zones, calibration)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    tmp = p.with_name(f".{p.name}.{os.getpid()}.new")
    tmp.write_text(new, encoding="utf-8")
    try:
        cam = load_camera_config(tmp)  # refuses zones outside the frame, a bad calibration...
        previous = p.with_name(f"{p.stem}.prev-{stamp}{p.suffix}")
        n = 1
        while previous.exists():
            previous = p.with_name(f"{p.stem}.prev-{stamp}-{n}{p.suffix}")
            n += 1
        shutil.copy2(p, previous)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, p)
    finally:
        tmp.unlink(missing_ok=True)
    return cam, previous
