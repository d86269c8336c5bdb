"""The console's HTTP routes: each turns one request into calls on the model (`Console`).

Pages, the JSON API and /metrics. Login and logout are `station.console.auth`'s, the event
streams `station.console.streams`'. Every decision goes through `TableStation.submit`, the
same journaled input path the table's other inputs take, and is written to the audit log with
the person who took it and what the table answered.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)

from station.camera_view import LATEST
from station.console.auth import client_address, console_of, need_csrf, need_session, session_of
from station.console.bodies import json_object
from station.console.diagram import diagrams
from station.console.errors import ApiError
from station.console.pages import page, security_headers
from station.console.panels import page_parts, panel_file, presentation, roads
from station.console.users import ROLE_ACTIONS
from station.frames_kept import ids_with_frames
from station.games.presentation import ActionBodyError
from station.live.table_station import StationStopped
from station.metrics import render_tables

log = logging.getLogger("station.console")


async def index(request: Request) -> Response:
    if session_of(request) is None:
        return RedirectResponse("/login", status_code=303)
    c = console_of(request)
    games = [c.game_of(n) for n in c.tables]
    return page("console.html", trusted={"diagram": diagrams(games), **page_parts(games)})


async def game_file(request: Request) -> Response:
    """A file of a game's console panel, from the game's package (its script, styles)."""
    need_session(request)
    game = request.path_params["game"]
    c = console_of(request)
    # only the games of this console's tables: their panels are on its page, no other's
    found = panel_file(game, request.path_params["name"]) if game in {
        c.game_of(n) for n in c.tables} else None
    if found is None:
        raise HTTPException(404, "no such file of a game's panel")
    path, media = found
    return FileResponse(path, media_type=media)


async def api_session(request: Request) -> Response:
    s = need_session(request)
    c = console_of(request)
    return JSONResponse({"user": s.user, "role": s.role, "csrf": s.csrf, "expires": s.expires,
                         "actions": sorted(c.role_actions.get(s.role, ())), "tables": list(c.tables)})


async def api_tables(request: Request) -> Response:
    need_session(request)
    return JSONResponse({"tables": console_of(request).all_views()})


async def api_table(request: Request) -> Response:
    need_session(request)
    return JSONResponse(console_of(request).table_view(request.path_params["table"]))


async def api_action(request: Request) -> Response:
    """A dealer or supervisor decision, through the table's journaled input path."""
    c = console_of(request)
    s = need_session(request)
    need_csrf(request, s)
    name = request.path_params["table"]
    t = c.table(name)
    body = await json_object(request)
    action = body.get("action")
    allowed = c.table_actions[name]  # the kernel's and this table's game's, never another's
    every = frozenset().union(*allowed.values())
    if not isinstance(action, str) or action not in every:
        shown = repr(action)[:80] if isinstance(action, str) else type(action).__name__
        raise ApiError(400, f"unknown action {shown}: one of {', '.join(sorted(every))}")
    pres = presentation(c.game_of(name))
    try:
        # what the action carries beside its name, as its game reads it (a dice entry's faces)
        extra = pres.action_body(action, body)
    except ActionBodyError as e:
        raise ApiError(400, str(e), **({"reason": e.reason} if e.reason else {})) from None
    round_id = pres.round_in_view(t.station.view)
    decided = c.own.counter("station_console_actions_total", "console actions by outcome")
    if action not in allowed.get(s.role, ()):
        who = " or ".join(f"the {r}" for r, acts in allowed.items() if action in acts)
        reason = f"{action} is for {who}; you are logged in as {s.role}"
        c.refusals.write(client_address(request), user=s.user, role=s.role, table=name,
                         action=action, round_id=round_id, outcome="forbidden", reason=reason)
        decided.inc(table=name, action=action, outcome="forbidden")
        raise ApiError(403, reason, outcome="forbidden")
    # the kernel's list says which line it is, never a game's: a game's action is a dealer line
    kind = "supervisor" if action in ROLE_ACTIONS["supervisor"] else "dealer"
    # supervisor lines carry the user (TRACES.md); dealer lines do not — the audit log names
    # the dealer who pressed the button
    user = s.user if kind == "supervisor" else None
    try:
        records = await anyio.to_thread.run_sync(
            lambda: t.station.submit(kind, action, user, extra=extra))
    except (StationStopped, TimeoutError) as e:
        c.audit.write(user=s.user, role=s.role, table=name, action=action, round_id=round_id,
                      outcome="error", reason=str(e))
        raise ApiError(503, f"the table did not answer: {e}") from None
    refused = next((x for x in records if x["type"] == "action_refused"), None)
    types = [x["type"] for x in records]
    outcome = "refused" if refused else "done"
    reason = refused["reason"] if refused else None
    entry = c.audit.write(user=s.user, role=s.role, table=name, action=action, round_id=round_id,
                          outcome=outcome, reason=reason, records=types)
    decided.inc(table=name, action=action, outcome=outcome)
    body_out = {"outcome": outcome, "action": action, "reason": reason, "records": types,
                "audit_id": entry["id"], "view": c.table_view(name)}
    if refused:
        body_out["error"] = f"the table refused {action}: {reason}"
        return JSONResponse(body_out, status_code=409)
    return JSONResponse(body_out)


async def api_rounds(request: Request) -> Response:
    need_session(request)
    c = console_of(request)
    name = request.path_params["table"]
    out = []
    pres = presentation(c.game_of(name))
    with_frames = ids_with_frames(c.frames_dir)  # one listing of the folder for every round
    for rid, rec in c.finished_rounds(name).items():
        item: dict[str, Any] = {"round_id": rid, "t": rec["t"],
                                "status": "cancelled" if rec["type"] == "round_cancelled" else "settled"}
        if rec["type"] != "round_cancelled":
            # what the game shows of it: each position's outcome, say, or a pot's payouts
            item.update(pres.finished_item(rec))
        else:
            item["reason"] = rec.get("reason")
            m = re.search(r"-S(\d+)-R(\d+)$", rid)
            if m:
                item["shoe"], item["round"] = int(m.group(1)), int(m.group(2))
        item["frame"] = rid in with_frames
        out.append(item)
    out.reverse()
    return JSONResponse({"table": name, "rounds": out})


async def api_round(request: Request) -> Response:
    need_session(request)
    c = console_of(request)
    return JSONResponse(c.recall(request.path_params["table"], request.path_params["round_id"]))


async def api_frame(request: Request) -> Response:
    need_session(request)
    c = console_of(request)
    name, rid = request.path_params["table"], request.path_params["round_id"]
    c.recall(name, rid)  # the same checks: this table's round, and over
    frame = request.path_params.get("frame")  # one of its deals' (a game's), or its own
    p = c.frame_path(rid, frame)
    if p is None:
        raise ApiError(404, f"no camera frame {frame or rid} was kept for {rid}")
    return FileResponse(p, media_type="image/png")


async def api_evidence(request: Request) -> Response:
    """The round's evidence pack (station/dispute/): for supervisors, audited whatever comes
    of it: refused, made, or failed (`error`, and why)."""
    s = need_session(request)
    c = console_of(request)
    name, rid = request.path_params["table"], request.path_params["round_id"]

    def audit(outcome: str, reason: str | None = None) -> None:
        c.audit.write(user=s.user, role=s.role, table=name, action="evidence_pack",
                      round_id=rid, outcome=outcome, reason=reason)

    if s.role != "supervisor":
        reason = "the evidence pack is for supervisors"
        audit("forbidden", reason)
        raise ApiError(403, reason, outcome="forbidden")
    try:
        body = await _evidence_pack(c, name, rid)
    except ApiError as e:
        audit("error", e.message)
        raise
    except Exception as e:  # noqa: BLE001 - any failure is audited, then answered
        log.exception("table %s: the evidence pack of %s failed", name, rid)
        reason = f"the pack could not be made: {type(e).__name__}: {e}"
        audit("error", reason)
        raise ApiError(503, reason) from None
    audit("done")
    return Response(body, media_type="application/zip", headers={
        "Content-Disposition": f'attachment; filename="{rid}.zip"'})


async def _evidence_pack(c: Any, name: str, rid: str) -> bytes:
    """The zip, from the table's journal, the ledger the table is configured with (a file or
    PostgreSQL), the frames folder and the audit log."""
    c.recall(name, rid)  # the same checks: this table's round, and over
    journal = c.table(name).station.journal
    if journal.signing_key is None:
        raise ApiError(503, "this table signs no checkpoints: make the pack with "
                            "`station dispute` and the table's key")
    import io

    from station.dispute.pack import write_pack

    buf = io.BytesIO()
    ledger = c.ledgers.get(name)
    await anyio.to_thread.run_sync(lambda: write_pack(
        journal.path, rid, journal.signing_key, ledger, buf, frames_dir=c.frames_dir,
        audit_path=c.audit.path, key_source=f"table {name}'s own signing key"))
    return buf.getvalue()


async def api_camera(request: Request) -> Response:
    need_session(request)
    return JSONResponse(console_of(request).camera(request.path_params["table"]))


async def api_camera_jpeg(request: Request) -> Response:
    need_session(request)
    c = console_of(request)
    name = request.path_params["table"]
    c.table(name)
    pic = LATEST.get(name)
    if pic is None:
        raise ApiError(404, f"no camera picture of table {name} yet")
    # masked by the camera feed: every zone the table has not revealed is pixelated
    return Response(pic.jpeg, media_type="image/jpeg")


async def api_roads(request: Request) -> Response:
    """The table's road or results history, as its game draws it (its presentation's
    `Road`); a game that declares none answers an empty one."""
    need_session(request)
    c = console_of(request)
    name = request.path_params["table"]
    view = c.table(name).station.view
    shoe_q = request.query_params.get("shoe")
    shoe = None
    if shoe_q is not None:
        if not shoe_q.isdigit():
            raise ApiError(400, "shoe must be a shoe number, e.g. ?shoe=1")
        shoe = int(shoe_q)
    current = (view.get("shoe") or {}).get("number")
    body = roads(c.game_of(name), c.game_records(name),
                 list(view.get("positions", [])), shoe, current)
    return JSONResponse({"table": name, "panel": presentation(c.game_of(name)).panel, **body})


async def api_audit(request: Request) -> Response:
    s = need_session(request)
    if s.role != "supervisor":
        raise ApiError(403, "the audit log is for supervisors")
    c = console_of(request)
    table = request.query_params.get("table")
    if table is not None:
        c.table(table)
    try:
        limit = min(max(int(request.query_params.get("limit", "100")), 1), 1000)
    except ValueError:
        raise ApiError(400, "limit must be a number") from None
    return JSONResponse({"entries": c.audit.entries(table=table, limit=limit)})


async def metrics(request: Request) -> Response:
    c = console_of(request)
    views = [t.station.view for t in c.tables.values() if t.station.view]
    text = render_tables(views) + c.registry.render() + c.own.render()
    return PlainTextResponse(text, media_type="text/plain; version=0.0.4")


# ---------------------------------------------------------------------- errors
async def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return security_headers(JSONResponse({"error": exc.message, **exc.extra}, status_code=exc.status))


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/") or request.url.path == "/metrics":
        msg = {404: "no such API path", 405: "this method is not allowed here"}.get(
            exc.status_code, exc.detail)
        return JSONResponse({"error": f"{msg}: {request.method} {request.url.path}"},
                            status_code=exc.status_code)
    return PlainTextResponse(str(exc.detail), status_code=exc.status_code)


class SecurityHeaders:
    """Security headers on every response (pure ASGI: does not buffer the event streams)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with(message: Any) -> None:
            if message["type"] == "http.response.start":
                probe = Response()
                security_headers(probe)
                headers = list(message.get("headers", []))
                have = {k.lower() for k, _ in headers}
                for k, v in probe.headers.raw:
                    if k not in have and k != b"content-length" and k != b"content-type":
                        headers.append((k, v))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with)


