"""Fixed camera controls: exposure, gain, white balance, focus (a camera config's
`[controls]`), set through OpenCV's capture properties and read back.

Automatic exposure and white balance change the felt's colour under the studio lights, and the
recogniser's calibration is of one felt colour: a table camera runs on fixed controls. Each
control is set, then read back from the camera; what the camera reports is what the doctor and
the console show ("asked" beside "applied"), and a control the camera refused (a network
stream, a video file, a device without that control) says so rather than pretending.

    [controls]
    exposure = 156          # the driver's units (V4L2: 100 µs steps); sets manual exposure
    gain = 0
    white_balance_k = 4600  # kelvin; sets manual white balance
    focus = 30              # the driver's units; sets manual focus

V4L2's manual exposure is `CAP_PROP_AUTO_EXPOSURE = 1` (3 is auto): OpenCV passes the value
to the driver as is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2

from firmware_bridge.camera.layout import LayoutError

#: control -> (the property that fixes it, the property that turns its automatic mode off, the
#: value that means "manual" for that property, the range a value must lie in)
CONTROLS: dict[str, tuple[int, int | None, float, tuple[float, float]]] = {
    "exposure": (cv2.CAP_PROP_EXPOSURE, cv2.CAP_PROP_AUTO_EXPOSURE, 1.0, (-20.0, 100_000.0)),
    "gain": (cv2.CAP_PROP_GAIN, None, 0.0, (0.0, 1000.0)),
    "white_balance_k": (cv2.CAP_PROP_WB_TEMPERATURE, cv2.CAP_PROP_AUTO_WB, 0.0, (1500.0, 15000.0)),
    "focus": (cv2.CAP_PROP_FOCUS, cv2.CAP_PROP_AUTOFOCUS, 0.0, (0.0, 10_000.0)),
}


def parse_controls(data: Any, *, source: str) -> dict[str, float]:
    """A camera config's `[controls]`, checked: known names, numbers in range."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise LayoutError(f"{source}: [controls] must be a table")
    unknown = set(data) - set(CONTROLS)
    if unknown:
        raise LayoutError(f"{source}: [controls] unknown key(s) {', '.join(sorted(unknown))} "
                          f"({', '.join(CONTROLS)})")
    out: dict[str, float] = {}
    for name, value in data.items():
        lo, hi = CONTROLS[name][3]
        if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
            raise LayoutError(f"{source}: [controls] {name} = {value!r}: a number from {lo:g} to {hi:g}")
        out[name] = float(value)
    return out


@dataclass(frozen=True)
class Applied:
    """One control: what the config asked and what the camera reports after setting it."""

    asked: float
    reported: float | None  # None: the camera has no such property (reads back nothing)
    accepted: bool  # the capture took the set

    @property
    def holds(self) -> bool:
        # cameras round to their own steps: within 2% (or one unit) is the value asked
        return (self.accepted and self.reported is not None
                and abs(self.reported - self.asked) <= max(1.0, 0.02 * abs(self.asked)))

    def as_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "reported": self.reported, "accepted": self.accepted,
                "holds": self.holds}


def apply_controls(cap: cv2.VideoCapture, controls: dict[str, float]) -> dict[str, Applied]:
    """Turn each control's automatic mode off, set it, read it back."""
    out: dict[str, Applied] = {}
    for name, value in controls.items():
        prop, auto_prop, manual, _ = CONTROLS[name]
        if auto_prop is not None:
            cap.set(auto_prop, manual)
        accepted = bool(cap.set(prop, value))
        got = cap.get(prop)
        # OpenCV answers 0 (or -1) for a property the backend does not have
        reported = float(got) if accepted or got not in (0.0, -1.0) else None
        out[name] = Applied(value, reported, accepted)
    return out


def read_back(cap: cv2.VideoCapture) -> dict[str, float | None]:
    """What the camera reports for each control now (None: it reports nothing)."""
    out: dict[str, float | None] = {}
    for name, (prop, _, _, _) in CONTROLS.items():
        got = float(cap.get(prop))
        out[name] = None if got in (0.0, -1.0) and name != "gain" else got
    return out
