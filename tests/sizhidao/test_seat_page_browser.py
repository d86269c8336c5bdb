"""The seat page in a real browser (Debian's Chromium, headless, driven by Playwright) against a
live `TableStation` and its player API over HTTP: a person plays seat S1 — sits, sees its own
cards from the read on and nobody else's, bets, arranges inside the 10 s countdown (a refused
arrangement says why), buys in to the tie round — while the other seats act through the
platform's API. The page never holds the platform's key: it acts with its seat token."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import httpx
import pytest

from station.games.sizhidao.script import SzTraceScript
from tests.browser import chromium, new_page, screenshot
from tests.sizhidao.live_table import KEY, LiveTable
from tests.sizhidao.staged_games import BEATEN, TIE1, TIE2, TIE3
from tests.waiting import wait_for

pytestmark = pytest.mark.browser

HANDS = {"S1": BEATEN, "S2": TIE1, "S3": TIE2, "S4": TIE3}


@pytest.fixture
def page():
    with chromium() as browser, new_page(browser, 1100, 1000, what="the seat page") as pg:
        yield pg


def _shot(page, name: str) -> None:
    screenshot(page, "sizhidao", name)


def test_a_person_plays_a_seat_in_the_browser(tmp_path, page) -> None:
    from playwright.sync_api import expect

    live = LiveTable(tmp_path / "journal.sqlite").start()
    try:
        s = SzTraceScript(table="SZ-07")
        for acc in "abcd":
            s.wallet(acc, 10_000)
        n = live.feed(s)
        # the platform asks the table for a's seat link; the key stays with the platform
        r = httpx.post(f"{live.url}/v1/players/a/seat-token",
                       headers={"authorization": f"Bearer {KEY}"})
        assert r.status_code == 200
        link = live.url + r.json()["page"]
        assert KEY not in link
        # the page's own clock stands for the whole test: every countdown it shows moves with
        # the station's time alone, which the test moves (the page never counts on its own)
        page.clock.install()
        page.clock.pause_at(datetime.now() + timedelta(minutes=1))
        # a wrong token is told so
        page.goto(live.url + "/seat/#t=not-a-token")
        expect(page.locator("#status")).to_contain_text("not valid")

        page.goto(link)
        expect(page.locator("#status")).to_have_text("connected")
        assert "#t=" not in page.url  # the token leaves the address bar
        expect(page.locator("#you-seat")).to_have_text("(not seated)")
        page.select_option("#sit-seat", "S1")
        page.click("#sit")
        expect(page.locator("#you-seat")).to_have_text("at S1")
        assert live.station.core.proc.sz.seating.seats == {"S1": "a"}
        for acc, seat in (("b", "S2"), ("c", "S3"), ("d", "S4")):
            assert live.post({"account": acc, "action": "sit", "seat": seat}).status_code == 200
        expect(page.locator("#seats tbody tr")).to_have_count(4)

        s.wait(1).dealer("open_betting").wait(1).shuffle().deal(HANDS, leader="S1")
        n = live.feed(s, n)
        # its own cards, and the others' as counts only
        expect(page.locator("#your-cards .card")).to_have_text(BEATEN)
        expect(page.locator("#seats")).to_contain_text("4 face down")
        html = page.content()
        assert not any(re.search(rf"\b{c}\b", html) for c in TIE1 + TIE2 + TIE3)
        assert KEY not in html

        # its turn: the opening decision is a bet
        expect(page.locator("#bet-panel")).to_be_visible()
        expect(page.locator("#raise")).to_be_disabled()
        page.fill("#amount", "300")
        page.click("#bet")
        expect(page.locator("#answer")).to_have_text("bet: done")
        expect(page.locator("#bet-panel")).to_be_hidden()
        assert live.station.core.balances["a"] == 9700
        for acc in "bcd":
            assert live.post({"account": acc, "action": "call"}).status_code == 200

        # arranging, with its countdown; a front above the back is refused with its reason
        expect(page.locator("#arrange-panel")).to_be_visible()
        expect(page.locator("#arrange-clock")).to_have_text(re.compile(r"^(10\.0|\d\.\d) s$"))
        _shot(page, "arranging")
        def shown() -> float:
            return float(page.locator("#arrange-clock").inner_text().split()[0])

        first = shown()
        live.clock.t += 1.3  # the station's time moves on; its stream tells the page
        page.locator('#arrange-cards .card[data-card="7H"]').click()  # a pick does not reset it
        page.locator('#arrange-cards .card[data-card="7H"]').click()
        wait_for(lambda: shown() < first - 1.0, 15,
                 lambda: f"the countdown to run on from {first} s (shows {shown()} s)")
        assert abs(first - shown() - 1.3) < 0.11, (first, shown())  # by the station's 1.3 s
        page.locator('#arrange-cards .card[data-card="8D"]').click()
        page.locator('#arrange-cards .card[data-card="TC"]').click()  # 8 + 0 = 8 front, 11 -> 1 back
        expect(page.locator("#front-shown")).to_have_text("8D TC")
        page.click("#arrange")
        expect(page.locator("#answer")).to_have_text("arrange refused: front_above_back")
        page.locator('#arrange-cards .card[data-card="8D"]').click()  # unpick
        page.locator('#arrange-cards .card[data-card="4C"]').click()  # 4 + 0 = 4 front, 15 -> 5 back
        expect(page.locator("#arrange-cards .card.front")).to_have_count(2)
        page.click("#arrange")
        expect(page.locator("#answer")).to_have_text("arrange: done")
        expect(page.locator("#arrange-panel")).to_be_hidden()
        arranged = [r for r in live.records if r["type"] == "player_action"
                    and r["action"] == "arrange"]
        assert [(r["account"], r["auto"]) for r in arranged] == [("a", False)]

        # the others are arranged automatically at the end of the 10 s; the showdown
        s.at_least(live.clock.t + 10.5).reveal(HANDS).clear()
        n = live.feed(s, n)
        expect(page.locator("#seats")).to_contain_text("9H")  # shown down: public now
        showdown = next(r for r in live.records if r["type"] == "showdown")
        assert sorted(showdown["seats"]["S1"]["front"]) == ["4C", "TC"]

        # S2 S3 S4 tie: a, beaten, may buy in for half the carried pot
        expect(page.locator("#buyin-panel")).to_be_visible()
        expect(page.locator("#price")).to_have_text("600")
        expect(page.locator("#layers")).to_contain_text("1200 (S1 S2 S3 S4): tied S2 S3 S4")
        expect(page.locator("#buyin-clock")).to_have_text(re.compile(r"^\d+\.\d s$"))
        _shot(page, "buy-in")
        page.click("#buy_in")
        expect(page.locator("#answer")).to_have_text("buy_in: done")
        expect(page.locator("#buyin-panel")).to_be_hidden()
        (buy,) = [r for r in live.records if r["type"] == "buy_in"]
        assert (buy["account"], buy["amount"], buy["deal_id"]) == ("a", 600, "SZ-07-G1-D2")

        # the tie round: a new deal, a's new cards reach its page
        d2 = {"S1": "AS AD AC AH".split(), "S2": "2C 3C 4H 5H".split(),
              "S3": "6C 7S 8S 9S".split(), "S4": "2D 3D 4D 5D".split()}
        s.wait(1).shuffle().deal(d2, leader="S1")
        live.feed(s, n)
        # the new deal's cards reach the page one read at a time: wait for all four
        expect(page.locator("#your-cards .card")).to_have_text(d2["S1"])
        html = page.content()
        assert not any(re.search(rf"\b{c}\b", html) for k in ("S2", "S3", "S4") for c in d2[k])
        _shot(page, "tie-round")
    finally:
        live.stop()
