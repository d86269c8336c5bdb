"""Request bodies of the console, read within bounds (`station.bounded_json`).

A console request is small: a login, or an action name (a game's action may carry a few
fields of its own, read by its presentation). Anything larger, deeper or longer than these bounds is refused
with a 4xx before a field of it is looked at.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from station.bounded_json import BodyError, Bounds, parse_json, read_body
from station.console.errors import ApiError

#: a login or an action is a few hundred bytes; the login form of a 32 MiB body is refused
#: before it is read
CONSOLE_BOUNDS = Bounds(max_bytes=8 * 1024, max_depth=4, max_string_chars=1024, max_items=16)


async def body_bytes(request: Request, bounds: Bounds = CONSOLE_BOUNDS) -> bytes:
    try:
        return await read_body(request.headers, request.stream(), bounds.max_bytes)
    except BodyError as e:
        raise ApiError(e.status, e.reason, reason=e.error) from None


async def json_object(request: Request, bounds: Bounds = CONSOLE_BOUNDS) -> dict[str, Any]:
    """The body as a JSON object, or ApiError (400/413) saying what is wrong with it."""
    raw = await body_bytes(request, bounds)
    try:
        body = parse_json(raw, bounds)
    except BodyError as e:
        raise ApiError(e.status, f"the request body must be a JSON object: {e.reason}",
                       reason=e.error) from None
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object", reason="bad_request")
    return body
