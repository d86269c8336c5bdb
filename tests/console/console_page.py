"""Steps on the console's pages that the browser tests share: log in, name a card as the
console shows it, keep a screenshot under artifacts/console/."""

from __future__ import annotations

import re
from typing import Any

from tests.browser import screenshot

SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def login(page: Any, url: str, user: str, password: str) -> None:
    page.goto(url + "/")
    page.wait_for_url(re.compile(r"/login$"))
    page.fill("#user", user)
    page.fill("#password", password)
    page.click("#login-button")


def as_shown(card: str) -> str:
    """`TH` as the console prints it: `10♥`."""
    return ("10" if card[0] == "T" else card[0]) + SUITS[card[1]]


def shot(page: Any, name: str) -> None:
    screenshot(page, "console", name)
