"""Reading a request body from outside the station, within bounds, before anything looks at it.

Every HTTP part of the station (the console, the bet API, the settlement service) reads its
bodies here, so that a hostile or careless client gets a 4xx that says why — never a 500, and
never a body read whole before its size is known:

- **size**: the declared `Content-Length` is checked first, then the bytes are counted as they
  arrive (a chunked body cannot slip past the limit); over the limit is **413**;
- **syntax**: not UTF-8 JSON is **400**; so are `NaN`, `Infinity` and `-Infinity`, which
  Python's parser accepts but JSON does not (a time or an amount of NaN is not a number);
- **shape**: nesting deeper than `max_depth`, a string (or object key) longer than
  `max_string_chars`, or a list/object of more than `max_items` entries is **400** (a body
  nested past the parser's own recursion limit is refused the same way, not a 500).

What each field means, and its own bounds (amounts, refs, names), is the endpoint's check.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

#: defaults for a small request (a login, an action, a bet)
MAX_BODY_BYTES = 64 * 1024
MAX_DEPTH = 16
MAX_STRING_CHARS = 4096
MAX_ITEMS = 10_000


class BodyError(Exception):
    """A body refused before use: `status` (400 or 413), a short `error` code and a `reason`."""

    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason


@dataclass(frozen=True)
class Bounds:
    max_bytes: int = MAX_BODY_BYTES
    max_depth: int = MAX_DEPTH
    max_string_chars: int = MAX_STRING_CHARS
    max_items: int = MAX_ITEMS


DEFAULT = Bounds()


async def read_body(headers: Any, stream: AsyncIterator[bytes], max_bytes: int) -> bytes:
    """The body's bytes, or BodyError(413) as soon as it is known to be over `max_bytes`."""
    declared = headers.get("content-length")
    if declared is not None:
        declared = declared.strip()
        if not declared.isdigit():
            raise BodyError(400, "bad_request", "Content-Length is not a number of bytes")
        if int(declared) > max_bytes:
            raise BodyError(413, "too_large", f"a request here is at most {max_bytes} bytes")
    chunks, size = [], 0
    async for chunk in stream:
        size += len(chunk)
        if size > max_bytes:
            raise BodyError(413, "too_large", f"a request here is at most {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(body: bytes, bounds: Bounds = DEFAULT) -> Any:
    """`body` as JSON within `bounds`, or BodyError(400) naming what is wrong."""
    if len(body) > bounds.max_bytes:
        raise BodyError(413, "too_large", f"a request here is at most {bounds.max_bytes} bytes")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BodyError(400, "bad_json", "the body is not UTF-8 text") from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise BodyError(400, "too_deep", f"JSON nested deeper than {bounds.max_depth} levels") from None
    except ValueError as exc:
        raise BodyError(400, "bad_json", f"the body is not valid JSON ({exc})") from None
    _check_shape(value, bounds)
    return value


def _check_shape(value: Any, bounds: Bounds) -> None:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if len(item) > bounds.max_string_chars:
                raise BodyError(400, "too_long", f"a string is longer than {bounds.max_string_chars} characters")
        elif isinstance(item, dict | list):
            if depth > bounds.max_depth:
                raise BodyError(400, "too_deep", f"JSON nested deeper than {bounds.max_depth} levels")
            if len(item) > bounds.max_items:
                raise BodyError(400, "too_many", f"a list or object holds more than {bounds.max_items} entries")
            if isinstance(item, dict):
                for k, v in item.items():
                    if len(k) > bounds.max_string_chars:
                        raise BodyError(400, "too_long",
                                        f"a key is longer than {bounds.max_string_chars} characters")
                    stack.append((v, depth + 1))
            else:
                stack.extend((v, depth + 1) for v in item)


async def read_json(request: Any, bounds: Bounds = DEFAULT) -> Any:
    """A Starlette request's body as bounded JSON."""
    body = await read_body(request.headers, request.stream(), bounds.max_bytes)
    return parse_json(body, bounds)
