"""The real browser the web-page tests drive: Debian's Chromium, headless, through Playwright
(installed by scripts/setup.sh when STATION_SETUP_BROWSER=1, as `./run.sh test` does).
Screenshots go to `artifacts/<folder>/` (git-ignored) for people to look at."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 15_000  # generous for a loaded two-core machine; every wait is for a condition
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


@contextmanager
def chromium() -> Iterator[Any]:
    """A launched headless Chromium; a missing one fails the test with how to get it."""
    if shutil.which("chromium") is None and not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: run the tests with ./run.sh test, which installs it")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def new_page(browser: Any, width: int, height: int, what: str) -> Iterator[Any]:
    """A page in a fresh context; when the test is done, any script error the page raised
    fails it (`what` names the page in that message)."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.set_default_timeout(WAIT_MS)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, f"{what} raised: {errors}"


def screenshot(page: Any, folder: str, name: str) -> None:
    out = ARTIFACTS / folder
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"{name}.png"), full_page=True)
