"""Table setup on the console, for the `technician` (docs/operator.md, "Bringing up a new
table"): each camera's live picture with its zones; a zone's corners moved and its reading and
pixels per QR module seen at once; the stills `calibrate` needs (the empty felt, face-down
cards, the dice tray) captured from the live camera; calibration run; the camera config saved
(the previous file kept beside it) and taken by the running station from the next frame with
no round in play.

Only a technician opens these pages and calls these APIs; every change (a still, a
calibration, a save) and every refusal is written to the audit log like a decision. The
picture here is the camera's own, unmasked (a technician must see the cards to place the
zones): it is served only while no round is in play.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from station.console.auth import client_address, console_of, need_csrf, need_session, session_of
from station.console.bodies import json_object
from station.console.errors import ApiError
from station.console.pages import page

ROLE = "technician"
STILL_KINDS = {"felt": "the empty felt", "back": "face-down cards lying apart", "dice": "the dice tray"}
MAX_STILLS = 8  # per kind: calibrate wants one felt and a few back stills
PICTURE_WIDTH_PX = 1280


@dataclass
class SetupTarget:
    """What the setup of one table works on: its camera feed and its camera config file."""

    table: str
    feed: Any  # station.live.camera_feed.CameraFeed
    camera_path: Path | None  # the table config's [camera] layout (None: the embedded layout)
    stills_dir: Path
    game_zones: tuple[str, ...]
    stills: dict[str, list[Path]] = field(default_factory=lambda: {k: [] for k in STILL_KINDS})
    calibration: Any = None  # the last calibration run, saved with the next save
    lock: threading.Lock = field(default_factory=threading.Lock)


def attach(app: Any, target: SetupTarget) -> None:
    """Make the table's setup available on this console (the runtime calls it)."""
    targets = getattr(app.state, "setup_targets", None)
    if targets is None:
        targets = app.state.setup_targets = {}
    targets[target.table] = target


def routes() -> list[Route]:
    return [
        Route("/setup", setup_page),
        Route("/api/setup", api_targets),
        Route("/api/setup/{table}", api_camera),
        Route("/api/setup/{table}/frame.jpg", api_frame),
        Route("/api/setup/{table}/preview", api_preview, methods=["POST"]),
        Route("/api/setup/{table}/stills", api_still, methods=["POST"]),
        Route("/api/setup/{table}/calibrate", api_calibrate, methods=["POST"]),
        Route("/api/setup/{table}/save", api_save, methods=["POST"]),
    ]


# ---------------------------------------------------------------------- access
def _technician(request: Request) -> Any:
    s = need_session(request)
    if s.role != ROLE:
        console_of(request).refusals.write(
            client_address(request), user=s.user, role=s.role,
            action=f"{request.method} {request.url.path}", outcome="forbidden",
            reason=f"table setup is for a technician; you are logged in as {s.role}")
        raise ApiError(403, f"table setup is for a technician; you are logged in as {s.role}",
                       outcome="forbidden")
    return s


def _target(request: Request) -> SetupTarget:
    name = request.path_params["table"]
    console_of(request).table(name)  # 404 for a table this console does not run
    t = (getattr(request.app.state, "setup_targets", None) or {}).get(name)
    if t is None or t.feed is None:
        raise ApiError(404, f"table {name} has no camera to set up (degraded mode)")
    return t


def _no_round_in_play(request: Request, t: SetupTarget) -> None:
    r = (console_of(request).table(t.table).station.view or {}).get("round")
    if r and not r.get("finished"):
        raise ApiError(409, f"round {r.get('round_id')} is in play: set the table up between "
                            "rounds or shoes")


def _audit(request: Request, s: Any, t: SetupTarget, action: str, outcome: str,
           reason: str | None = None) -> None:
    console_of(request).audit.write(user=s.user, role=s.role, table=t.table, action=action,
                                    outcome=outcome, reason=reason)


# ---------------------------------------------------------------------- the page
async def setup_page(request: Request) -> Response:
    s = session_of(request)
    if s is None:
        return RedirectResponse("/login", status_code=303)
    try:
        _technician(request)
    except ApiError as e:
        resp = page("login.html", message=e.message + ".")
        resp.status_code = 403
        return resp
    return page("setup.html")


async def api_targets(request: Request) -> Response:
    from starlette.responses import JSONResponse

    s = _technician(request)
    targets = getattr(request.app.state, "setup_targets", None) or {}
    return JSONResponse({"user": s.user, "role": s.role, "csrf": s.csrf,
                         "tables": [n for n, t in targets.items() if t.feed is not None]})


def _still_kinds(t: SetupTarget) -> list[str]:
    """The stills this table's camera can use: a dice tray only where its layout has a zone
    of kind dice (the game declares it), never at a card game's table."""
    return [k for k in STILL_KINDS if k != "dice" or t.feed.layout.tray_zone is not None]


def _layout_json(t: SetupTarget) -> dict[str, Any]:
    lay = t.feed.layout
    return {"table": t.table, "width": lay.width, "height": lay.height,
            "mm_per_px": lay.mm_per_px, "px_per_module": round(lay.module_px, 2),
            "zones": {n: [list(map(int, p)) for p in z.polygon] for n, z in lay.zones.items()},
            "camera_config": str(t.camera_path) if t.camera_path else None,
            "config_version": t.feed.config_version, "pending_reload": t.feed.pending_reload,
            "controls": t.feed.controls_applied, "status": t.feed.status,
            "stills": {k: len(v) for k, v in t.stills.items()},
            "still_kinds": _still_kinds(t),
            "calibration": t.calibration.as_dict() if t.calibration is not None else None}


async def api_camera(request: Request) -> Response:
    from starlette.responses import JSONResponse

    _technician(request)
    return JSONResponse(_layout_json(_target(request)))


def _frame(t: SetupTarget) -> Any:
    frame = t.feed.watched.last_frame
    if frame is None:
        raise ApiError(404, f"no frame from table {t.table}'s camera yet")
    return frame


async def api_frame(request: Request) -> Response:
    import cv2

    _technician(request)
    t = _target(request)
    _no_round_in_play(request, t)
    frame = _frame(t)
    h, w = frame.shape[:2]
    k = min(1.0, PICTURE_WIDTH_PX / w)
    small = cv2.resize(frame, (int(w * k), int(h * k)), interpolation=cv2.INTER_AREA) if k < 1 else frame
    ok, jpeg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise ApiError(500, "could not encode the camera's frame")
    return Response(jpeg.tobytes(), media_type="image/jpeg")


# ---------------------------------------------------------------------- zones
def _zones_of(body: dict[str, Any], t: SetupTarget) -> dict[str, list[list[int]]]:
    zones = body.get("zones")
    lay = t.feed.layout
    if not isinstance(zones, dict) or set(zones) != set(lay.zones):
        raise ApiError(400, f"send every zone of the layout: {', '.join(lay.zones)}")
    out: dict[str, list[list[int]]] = {}
    for name, pts in zones.items():
        if (not isinstance(pts, list) or not 3 <= len(pts) <= 32
                or not all(isinstance(p, list) and len(p) == 2 and all(
                    isinstance(v, int | float) and not isinstance(v, bool) for v in p) for p in pts)):
            raise ApiError(400, f"zone {name}: a polygon of 3 to 32 [x, y] points")
        pts_i = [[int(round(x)), int(round(y))] for x, y in pts]
        if not all(0 <= x <= lay.width and 0 <= y <= lay.height for x, y in pts_i):
            raise ApiError(400, f"zone {name}: every corner inside the {lay.width}x{lay.height} frame")
        out[name] = pts_i
    return out


def _layout_with(t: SetupTarget, zones: dict[str, list[list[int]]]) -> Any:
    from dataclasses import replace

    from firmware_bridge.camera.layout import Zone

    lay = t.feed.layout
    return replace(lay, zones={n: Zone(n, tuple((float(x), float(y)) for x, y in zones[n]))
                               for n in lay.zones})


def _preview(t: SetupTarget, zones: dict[str, list[list[int]]]) -> dict[str, Any]:
    """Read the last frame with these zones: each zone's reading and its pixels per QR module
    (the layout's scale, and the codes in view where a face-up card lies in the zone)."""
    from firmware_bridge.camera.recogniser import Recogniser
    from station.doctor.camera import MIN_PX_PER_MODULE, module_px_seen

    frame = _frame(t)
    lay = _layout_with(t, zones)
    old = t.feed.watched.recogniser
    rec = Recogniser(lay, decoder=old.decoder, calibration=t.calibration or old.calibration)
    readings, cut = rec.read_still(frame)
    out = {}
    for name in lay.zones:
        view = rec.views.get(name)
        seen = module_px_seen([q.polygon for q in view.qr]) if view is not None else None
        worst = min(lay.module_px, seen) if seen is not None else lay.module_px
        out[name] = {"reading": readings.get(name), "px_per_module": round(lay.module_px, 2),
                     "px_per_module_seen": round(seen, 2) if seen is not None else None,
                     "ok": worst >= MIN_PX_PER_MODULE}
    return {"zones": out, "cut_card": cut, "status": rec.status}


async def api_preview(request: Request) -> Response:
    from starlette.responses import JSONResponse

    s = _technician(request)
    need_csrf(request, s)
    t = _target(request)
    _no_round_in_play(request, t)
    zones = _zones_of(await json_object(request), t)
    return JSONResponse(await anyio.to_thread.run_sync(_preview, t, zones))


# ---------------------------------------------------------------------- stills, calibrate
async def api_still(request: Request) -> Response:
    import cv2
    from starlette.responses import JSONResponse

    from station.private_files import private_dir

    s = _technician(request)
    need_csrf(request, s)
    t = _target(request)
    _no_round_in_play(request, t)
    body = await json_object(request)
    kind = body.get("kind")
    if kind not in _still_kinds(t):
        raise ApiError(400, f"kind: one of {', '.join(_still_kinds(t))} at this table")
    frame = _frame(t).copy()
    with t.lock:
        if len(t.stills[kind]) >= MAX_STILLS:
            t.stills[kind].pop(0)
        private_dir(t.stills_dir)
        path = t.stills_dir / f"{kind}-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{len(t.stills[kind])}.png"
        if not cv2.imwrite(str(path), frame):
            raise ApiError(500, f"could not write {path}")
        t.stills[kind].append(path)
        counts = {k: len(v) for k, v in t.stills.items()}
    extra: dict[str, Any] = {}
    if kind == "dice":
        # what the camera reads on the still, so the technician sees the tray's faces
        readings, _ = t.feed.watched.recogniser.read_still(frame)
        extra["readings"] = readings
    _audit(request, s, t, f"setup_still_{kind}", "done", reason=path.name)
    return JSONResponse({"kind": kind, "what": STILL_KINDS[kind], "still": path.name,
                         "stills": counts, **extra})


async def api_calibrate(request: Request) -> Response:
    import cv2
    from starlette.responses import JSONResponse

    from firmware_bridge.camera.calibration import CalibrationError, calibrate

    s = _technician(request)
    need_csrf(request, s)
    t = _target(request)
    with t.lock:
        felt, back = list(t.stills["felt"]), list(t.stills["back"])
    if not felt or not back:
        raise ApiError(409, "capture a still of the empty felt and one of face-down cards first")

    def run() -> Any:
        load = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in felt + back]
        return calibrate(load[:len(felt)], load[len(felt):], t.feed.layout.mm_per_px,
                         ignore=t.feed.layout.places_without_cards())

    try:
        cal = await anyio.to_thread.run_sync(run)
    except CalibrationError as e:
        _audit(request, s, t, "setup_calibrate", "refused", reason=str(e))
        raise ApiError(422, f"calibration refused: {e}") from None
    t.calibration = cal
    _audit(request, s, t, "setup_calibrate", "done",
           reason=f"{len(felt)} felt and {len(back)} back stills")
    return JSONResponse({"calibration": cal.as_dict(), "back": cal.back.describe(),
                         "warnings": list(cal.warnings), "saved": False})


# ---------------------------------------------------------------------- save
async def api_save(request: Request) -> Response:
    from starlette.responses import JSONResponse

    from firmware_bridge.camera.config_write import save_camera_config
    from firmware_bridge.camera.layout import LayoutError

    s = _technician(request)
    need_csrf(request, s)
    t = _target(request)
    if t.camera_path is None:
        raise ApiError(409, "the table reads the embedded layout: set [camera] layout to a camera "
                            "config file of its own first")
    zones = _zones_of(await json_object(request), t)

    def save() -> tuple[Any, Path]:
        # the zones are the layout's own (checked above), so still exactly the game's
        return save_camera_config(t.camera_path, zones, t.calibration)

    try:
        cam, previous = await anyio.to_thread.run_sync(save)
    except LayoutError as e:
        _audit(request, s, t, "setup_save", "refused", reason=str(e))
        raise ApiError(422, f"the camera config was not saved: {e}") from None
    t.feed.reload(cam)
    with_cal = t.calibration is not None
    t.calibration = None
    _audit(request, s, t, "setup_save", "done",
           reason=f"{t.camera_path} ({'zones and calibration' if with_cal else 'zones'}); "
                  f"previous kept as {previous.name}")
    return JSONResponse({"saved": str(t.camera_path), "previous": str(previous),
                         "calibration_saved": with_cal,
                         "applies": "from the next frame with no round in play"})
