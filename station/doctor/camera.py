"""The overhead camera: it opens and gives frames (rate, resolution, the controls it applied);
each zone's scale against CARD_FACES.md (at least 3 pixels per QR module); the felt and the
deck's back calibrated, and the felt in view still the calibrated one."""

from __future__ import annotations

import math
import time
from typing import Any

from station.doctor.result import Finding, failed, passed

#: CARD_FACES.md: "The camera must give each QR module at least 3 pixels"
MIN_PX_PER_MODULE = 3.0
#: frames must come at least at this share of the rate asked: below it the camera (USB
#: bandwidth, a stream's encoder) or the machine cannot keep up with the table
MIN_FPS_SHARE = 0.5


def cameras_of(cfg: Any) -> list[tuple[str, Any]]:
    """The table's cameras, each (name, camera config file loaded): one, or each camera of
    a rig (`camera.<name>`)."""
    from firmware_bridge.camera.rig import Rig
    from station.live.config import load_table_camera_config

    if not cfg.table.camera:
        return []
    cam = load_table_camera_config(cfg)
    if isinstance(cam, Rig):
        return [(f"camera.{name}", c) for name, c in cam.cameras.items()]
    return [("camera", cam)]


def grab(source: Any, frames: int, timeout_s: float) -> tuple[list[Any], float]:
    """Up to `frames` frames within `timeout_s`; and the frame rate they came at."""
    got: list[Any] = []
    times: list[float] = []
    deadline = time.monotonic() + timeout_s
    while len(got) < frames and time.monotonic() < deadline:
        r = source.read()
        if r is None:
            if getattr(source, "end", False):
                break
            time.sleep(0.01)
            continue
        got.append(r[1])
        times.append(time.monotonic())
    fps = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else 0.0
    return got, fps


def check_camera(name: str, cfg: Any, cam: Any, *, frames: int = 10, timeout_s: float = 8.0,
                 own_source: bool = False) -> tuple[list[Finding], Any]:
    """Open the camera as the station would; its findings and the last frame (or None).
    `own_source`: a camera of a rig, opened from its own config's [source]."""
    from firmware_bridge.camera.sources import SourceError, open_source
    from station.live.camera_feed import camera_source_spec

    spec = camera_source_spec(cfg, cam, in_rig=own_source)
    shown = spec if isinstance(spec, str) else (spec.get("spec") or spec.get("url")
                                                 or spec.get("device") or spec.get("kind"))
    try:
        source = open_source(spec, layout=cam.layout)
    except SourceError as e:
        return [failed(name, str(e), "plug the camera in, check [camera] source (the device "
                       "path, /dev/v4l/by-id/…, or the stream's URL) and that the station's user "
                       "is in the video group", source=str(shown))], None
    try:
        got, fps = grab(source, frames, timeout_s)
        controls = _controls(source)
    finally:
        source.close()
    if not got:
        return [failed(name, f"{shown} opened but gave no frame in {timeout_s:g} s",
                       "check the camera's power and cable, or the stream's address and "
                       "credentials", source=str(shown))], None
    frame = got[-1]
    h, w = frame.shape[:2]
    lay = cam.layout
    data = {"source": str(shown), "fps": round(fps, 1), "width": w, "height": h,
            "controls": controls}
    text = f"{shown}: {w}x{h} at {fps:.1f} frames/s; " + _controls_text(controls)
    if (w, h) != (lay.width, lay.height):
        return [failed(name, text + f"; the layout is {lay.width}x{lay.height}",
                       "set the camera's resolution to the layout's, or redraw the zones at the "
                       "camera's resolution", **data)], None
    refused = [k for k, v in (controls.get("applied") or {}).items() if not v["holds"]]
    if refused:
        return [failed(name, text, f"the camera did not apply {', '.join(refused)}: check "
                       "the values against `v4l2-ctl --list-ctrls`, or remove them from "
                       "[controls] for a camera that has no such control", **data)], frame
    want_fps = float(spec.get("fps") or 0) if isinstance(spec, dict) else 0.0
    if want_fps and fps < MIN_FPS_SHARE * want_fps:
        return [failed(name, text + f"; asked for {want_fps:g} frames/s",
                       "the camera or the machine cannot keep up: lower the resolution's cost "
                       "(USB bandwidth, MJPEG) or the frame rate", **data)], frame
    return [passed(name, text, **data)], frame


def _controls(source: Any) -> dict[str, Any]:
    import cv2

    applied = getattr(source, "controls_applied", None)
    prop = getattr(source, "property", None)
    if prop is None:
        return {"kind": type(source).__name__, "exposure": None}
    exposure = prop(cv2.CAP_PROP_EXPOSURE)
    auto = prop(cv2.CAP_PROP_AUTO_EXPOSURE)
    return {"kind": "capture", "exposure": exposure, "auto_exposure": auto,
            "applied": {k: v.as_dict() for k, v in (applied or {}).items()}}


def _controls_text(controls: dict[str, Any]) -> str:
    if controls.get("kind") != "capture":
        return "exposure: none (a synthetic or recorded source has no exposure control)"
    parts = [f"exposure {controls['exposure']:g} (auto-exposure property {controls['auto_exposure']:g})"]
    for k, v in (controls.get("applied") or {}).items():
        got = "nothing" if v["reported"] is None else f"{v['reported']:g}"
        parts.append(f"{k} asked {v['asked']:g}, camera reports {got}")
    return ", ".join(parts)


def module_px_seen(qr_polygons: list[tuple[tuple[float, float], ...]]) -> float | None:
    """Pixels per QR module of the codes seen: a version 1 symbol is 21 modules a side."""
    from firmware_bridge.camera.layout import QR_MODULES

    sides = []
    for poly in qr_polygons:
        if len(poly) < 4:
            continue
        for i in range(4):
            (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % 4]
            sides.append(math.hypot(x1 - x0, y1 - y0))
    if not sides:
        return None
    sides.sort()
    return sides[len(sides) // 2] / QR_MODULES


def check_scale(name: str, cam: Any, frame: Any) -> tuple[list[Finding], Any]:
    """Each zone's pixels per QR module: the layout's scale, and where a face-up card lies in
    the zone, the size of its codes in this frame. And the recogniser, for the calibration."""
    from firmware_bridge.camera.build import build_recogniser

    lay = cam.layout
    rec = build_recogniser(cam)
    readings: dict[str, Any] = {}
    if frame is not None:
        readings, _ = rec.read_still(frame)
    out: list[Finding] = []
    declared = lay.module_px
    for zone in lay.zone_names:
        view = rec.views.get(zone)
        seen = module_px_seen([q.polygon for q in view.qr]) if view is not None else None
        worst = min(declared, seen) if seen is not None else declared
        text = (f"{declared:.1f} px per QR module at {lay.mm_per_px:g} mm per pixel"
                + (f"; codes in view measure {seen:.1f}" if seen is not None else
                   "; no face-up card in view to measure")
                + (f"; reads {readings.get(zone)!r}" if frame is not None else "; no frame to read"))
        data = {"zone": zone, "px_per_module": round(declared, 2),
                "px_per_module_seen": round(seen, 2) if seen is not None else None,
                "reading": readings.get(zone)}
        if worst < MIN_PX_PER_MODULE:
            out.append(failed(f"{name} zone {zone}", text,
                              f"below {MIN_PX_PER_MODULE:g} px per module (CARD_FACES.md): bring "
                              "the camera closer, use a 4K camera, or give this zone's group of "
                              "zones a camera of its own", **data))
        else:
            out.append(passed(f"{name} zone {zone}", text, **data))
    return out, rec


def check_calibration(name: str, rec: Any, frame: Any) -> Finding:
    status = rec.status
    data = {k: status.get(k) for k in ("felt_calibrated", "back_calibrated", "felt_matches", "message")}
    measured = list(rec.felt_measured) if rec.felt_measured else None
    data["felt_measured_bgr"] = measured
    cal = rec.calibration
    if not status.get("felt_calibrated"):
        return failed(f"{name} calibration", "the felt is not calibrated ([calibration.felt] missing)",
                      "calibrate: a still of the empty felt and stills of face-down cards, "
                      "`station camera calibrate` (or the console's table setup)", **data)
    if not status.get("back_calibrated"):
        return failed(f"{name} calibration",
                      "the deck's back is not calibrated ([calibration.back] missing): every zone "
                      "with a face-down card would be held",
                      "lay one to three face-down cards apart, grab a still and run `station camera "
                      "calibrate` (or the console's table setup)", **data)
    if frame is None:
        return failed(f"{name} calibration", "felt and back calibrated; no frame to compare the felt with",
                      "fix the camera first", **data)
    if not status.get("felt_matches"):
        return failed(f"{name} calibration", status.get("message") or "the felt does not match",
                      "the felt or the camera's white balance changed since calibrating: fix the "
                      "white balance in [controls] and calibrate the felt again", **data)
    return passed(f"{name} calibration",
                  f"felt calibrated (B,G,R) {list(cal.felt.bgr)}, in view {measured}; back: "
                  f"{cal.back.describe()}", **data)


def check_cameras(cfg: Any) -> list[Finding]:
    from firmware_bridge.camera.layout import LayoutError
    from station.live.config import ConfigError

    if not cfg.table.camera:
        return [passed("camera", "no camera: [camera] enabled = false, the table runs degraded "
                                 "(the shoe alone validates hands)")]
    try:
        cams = cameras_of(cfg)
    except (ConfigError, LayoutError) as e:
        return [failed("camera", str(e), "fix the camera config file [camera] layout names")]
    out: list[Finding] = []
    for name, cam in cams:
        found, frame = check_camera(name, cfg, cam, own_source=name != "camera")
        out += found
        scale, rec = check_scale(name, cam, frame)
        out += scale
        out.append(check_calibration(name, rec, frame))
    return out
