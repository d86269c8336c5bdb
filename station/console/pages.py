"""The console's pages: templates filled in safely, and the headers every answer carries."""

from __future__ import annotations

import html
from pathlib import Path

from starlette.responses import HTMLResponse, Response

TEMPLATES = Path(__file__).parent / "templates"


def security_headers(resp: Response) -> Response:
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["X-Frame-Options"] = "DENY"
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["Content-Security-Policy"] = (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "frame-ancestors 'none'; form-action 'self'")
    resp.headers["Cache-Control"] = "no-store"
    return resp


def page(name: str, *, trusted: dict[str, str] | None = None, **text: str) -> HTMLResponse:
    """A template with `{{name}}` filled in: `text` values are escaped (they may hold what a
    visitor typed), `trusted` ones (markup the console drew itself) are not."""
    page = (TEMPLATES / name).read_text(encoding="utf-8")
    for k, v in (trusted or {}).items():
        page = page.replace("{{" + k + "}}", v)
    for k, v in text.items():
        page = page.replace("{{" + k + "}}", html.escape(v))
    return HTMLResponse(page)

