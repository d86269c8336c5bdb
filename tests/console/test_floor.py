"""The console on the floor, in the real browser (Debian's Chromium through Playwright): every
position of a dealt round, the banker's included, inside its panel at the common screen
sizes; decisions offered with reasons; the paused-betting note; an old answer clears; and the
overhead camera's latest picture with its zones, through the real camera feed (synthetic
camera, real recogniser), showing no identity the table has not revealed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.console.console_page import login, shot
from tests.waiting import wait_for

pytestmark = pytest.mark.browser

SCREENS = [(1366, 768), (1600, 900), (1920, 1080)]


def _before(t: float):
    return lambda inp: inp.t_us >= t * 1_000_000


@pytest.fixture
def viewport() -> tuple[int, int]:
    return SCREENS[0]


OUTSIDE = """() => {
  const panel = document.querySelector('section.round').getBoundingClientRect();
  const page = document.documentElement.clientWidth;
  const out = [];
  if (panel.right > page + 0.5) out.push(`the round panel ends at ${panel.right} of ${page}`);
  for (const pos of document.querySelectorAll('#positions .pos')) {
    const r = pos.getBoundingClientRect();
    if (r.left < panel.left - 0.5 || r.right > panel.right + 0.5)
      out.push(`${pos.dataset.position} at ${r.left}..${r.right} outside ${panel.left}..${panel.right}`);
    for (const c of pos.querySelectorAll('.card')) {
      const k = c.getBoundingClientRect();
      if (k.left < r.left - 0.5 || k.right > r.right + 0.5 || k.width < 20)
        out.push(`${pos.dataset.position} card ${c.dataset.card || 'back'} at ${k.left}..${k.right} outside ${r.left}..${r.right}`);
    }
  }
  return out;
}"""


def test_every_position_of_a_dealt_round_fits_its_panel_at_every_common_screen(make_table, serve, page) -> None:
    from playwright.sync_api import expect

    table = make_table("clean_shoe")
    con = serve(table)
    first = table.expected["hands"][0]
    table.feed(lambda inp: inp.kind == "dealer" and table.station.view.get("rounds_settled", 0) >= 1)
    login(page, con.url, "sup1", "floor-sup-pass")
    expect(page.locator("#countdown")).to_have_text("settled")
    expect(page.locator('#positions .pos[data-position="B"] [data-card]')).to_have_count(len(first["cards"]["B"]))
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(300)
        assert page.locator("#positions .pos").count() == 6
        problems = page.evaluate(OUTSIDE)
        assert problems == [], (width, problems)
        shot(page, f"10-round-{width}")


def test_decisions_offered_say_why_not_and_old_answers_clear(make_table, serve, page) -> None:
    from playwright.sync_api import expect

    table = make_table("order_fault")
    con = serve(table)
    table.feed(_before(40.0))  # round 1 is open for bets
    login(page, con.url, "sup1", "floor-sup-pass")
    buttons = page.locator("#action-buttons button")
    expect(buttons).to_have_count(5)
    # inside a healthy round: Cancel round is offered and says what it does; End shoe is not
    expect(page.locator('#action-buttons button[data-action="cancel_round"]')).to_be_enabled()
    expect(page.locator('#action-buttons [data-why="cancel_round"]')).to_contain_text(
        "although nothing is wrong with it")
    expect(page.locator('#action-buttons button[data-action="end_shoe"]')).to_be_disabled()
    expect(page.locator('#action-buttons [data-why="end_shoe"]')).to_have_text(
        "not now: a round is in progress: cancel it or finish it")
    expect(page.locator('#action-buttons button[data-action="resume"]')).to_be_disabled()
    # round 2's order fault pauses the table: resume is offered, and its refusal (the zone is
    # not put right yet) is shown, then clears once the table moves on
    table.feed(_before(65.05))
    alert = page.locator('#alerts .alert[data-kind="order"]')
    expect(alert).to_be_visible()
    expect(alert.locator('button[data-action="end_shoe"]')).to_have_count(0)
    alert.locator('button[data-action="resume"]').click()
    expect(page.locator("#action-message")).to_contain_text("refused")
    table.feed(_before(69.6))
    table.at(69.6)
    page.locator('#alerts .alert button[data-action="resume"]').click()
    expect(page.locator("#action-message")).to_have_text("PD-01 · Resume: done")
    table.feed(_before(80.0))  # the round goes on: the answer was about a moment now past
    expect(page.locator("#action-message")).to_have_text("", timeout=15_000)


def test_the_round_panel_says_bets_are_not_taken_while_paused(make_table, serve, page) -> None:
    from playwright.sync_api import expect

    table = make_table("order_fault")
    con = serve(table)
    table.feed(_before(40.0))  # betting is open in round 1
    login(page, con.url, "sup1", "floor-sup-pass")
    expect(page.locator("#countdown")).to_contain_text("betting closes in")
    expect(page.locator("#round-note")).to_be_hidden()
    # the supervisor pauses nothing by hand; a link loss does: the clock runs on with no frame
    view = table.station.view
    assert view["round"]["betting_open"]
    table.at(40.0 + table.station.settings.link_lost_seconds + 1.0)
    table.station.submit("tick", True)
    expect(page.locator("#badge-paused")).to_be_visible()
    expect(page.locator("#round-note")).to_contain_text("No bets are taken while the table is paused")
    expect(page.locator("#countdown")).to_have_text("betting paused")


def test_the_camera_view_shows_zones_and_no_unrevealed_identity(tmp_path: Path, users, page) -> None:
    """A real camera feed (synthetic camera rendering a table scene, the real recogniser) on
    a live station; a card face up in P3 before any reveal must not be readable anywhere."""
    from playwright.sync_api import expect

    from firmware_bridge.camera.recogniser import Recogniser
    from firmware_bridge.camera.scene import TableScene
    from firmware_bridge.camera.sources import open_source
    from station.console import make_console_app, serve_console, stop_console
    from station.core.settings import TableSettings
    from station.games.camera_zones import game_layout
    from station.live.camera_feed import CameraFeed
    from station.live.table_station import TableStation

    station = TableStation(TableSettings(table="PD-01", game="pokdeng", camera=True),
                           tmp_path / "journal.sqlite")
    station.start()
    layout = game_layout("pokdeng")
    scene = TableScene(layout.zone_names, seed=3)
    scene.deal("P1", "7H")
    scene.deal("P2", "KS")
    scene.deal("P3", "QD", face_up=True)
    source = open_source({"kind": "synthetic", "fps": 6}, layout=layout, scene=scene)
    feed = CameraFeed(station, source, Recogniser(layout)).start()
    app = make_console_app([station], users=users, secret="floor-secret-" + "z" * 20,
                           audit_path=tmp_path / "audit.sqlite")
    server, thread, url = serve_console(app)
    try:
        login(page, url, "sup1", "floor-sup-pass")
        view = page.locator("#camera-view")
        expect(view).to_be_visible(timeout=30_000)
        expect(page.locator("#camera-zones polygon")).to_have_count(len(layout.zones))
        expect(page.locator('#camera-readings li[data-zone="P1"]')).to_contain_text("1 face down", timeout=30_000)
        expect(page.locator('#camera-readings li[data-zone="P3"]')).to_contain_text(
            "face up (shown once the table reveals it)")
        text = page.locator("#camera-panel").inner_text()
        assert not re.search(r"\bQD\b|Q♦", text), text
        # the picture refreshes a few times a second
        first = page.locator("#camera-img").get_attribute("src")
        page.wait_for_timeout(1500)
        assert page.locator("#camera-img").get_attribute("src") != first
        box = view.bounding_box()
        assert box and box["width"] > 300
        shot(page, "11-camera")
        # nor can the face-up P3 card be read off the picture itself: its zone is pixelated
        import cv2
        import numpy as np
        import zxingcpp

        from station.camera_view import LATEST

        pic = wait_for(lambda: LATEST.get("PD-01"), 10, "the camera's latest picture of PD-01")
        img = cv2.imdecode(np.frombuffer(pic.jpeg, np.uint8), cv2.IMREAD_COLOR)
        big = cv2.resize(img, (layout.width, layout.height), interpolation=cv2.INTER_CUBIC)
        x0, y0, x1, y1 = layout.zones["P3"].bbox
        assert zxingcpp.read_barcodes(big[y0:y1, x0:x1]) == []
    finally:
        stop_console(server, thread)
        feed.stop()
        station.stop()


def test_an_uncalibrated_deck_back_is_said_on_the_camera_panel(tmp_path: Path, users, page) -> None:
    """A camera whose deck back was never calibrated reads no face-down card as anything,
    and the console says why (docs/camera.md: calibrating a new deck)."""
    import dataclasses

    from playwright.sync_api import expect

    from firmware_bridge.camera.recogniser import Recogniser
    from firmware_bridge.camera.scene import TableScene
    from firmware_bridge.camera.sources import open_source
    from station.console import make_console_app, serve_console, stop_console
    from station.core.settings import TableSettings
    from station.games.camera_zones import game_layout
    from station.live.camera_feed import CameraFeed
    from station.live.table_station import TableStation

    station = TableStation(TableSettings(table="PD-01", game="pokdeng", camera=True),
                           tmp_path / "journal.sqlite")
    station.start()
    layout = dataclasses.replace(game_layout("pokdeng"), calibration=None)
    scene = TableScene(layout.zone_names, seed=4)
    scene.deal("P1", "7H")
    source = open_source({"kind": "synthetic", "fps": 6}, layout=layout, scene=scene)
    feed = CameraFeed(station, source, Recogniser(layout)).start()
    app = make_console_app([station], users=users, secret="floor-secret-" + "y" * 20,
                           audit_path=tmp_path / "audit.sqlite")
    server, thread, url = serve_console(app)
    try:
        login(page, url, "sup1", "floor-sup-pass")
        expect(page.locator("#camera-view")).to_be_visible(timeout=30_000)
        note = page.locator("#camera-note")
        expect(note).to_contain_text("deck back not calibrated", timeout=30_000)
        expect(note).to_contain_text("station camera calibrate")
    finally:
        stop_console(server, thread)
        feed.stop()
        station.stop()
