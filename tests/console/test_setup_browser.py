"""Table setup in a real Chromium at 1366 px: the technician moves a zone on the camera's
picture, sees its reading and its pixels per QR module change, saves; the camera config is
written (the previous one kept beside it) and the station's next reading uses the new zone,
without a restart. A dealer cannot open the page. Every change is in the audit log."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from firmware_bridge.camera.config import load_camera_config
from tests.browser import new_page, screenshot
from tests.console.console_page import login
from tests.console.setup_table import PASSWORD
from tests.waiting import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


def test_a_technician_moves_a_zone_saves_and_the_station_reads_with_it(setup_table, browser):
    rt, camera, _ = setup_table
    url = rt.console_url
    old = load_camera_config(camera).layout.zones
    dx_px = old["P2"].polygon[0][0] - old["P1"].polygon[0][0]  # P1 onto P2's box
    with new_page(browser, 1366, 768, what="the setup page") as page:
        login(page, url, "tech1", PASSWORD["tech1"])
        page.wait_for_url(re.compile(r"/$"))
        page.goto(url + "/setup")
        p1 = page.locator('#zones tr[data-zone="P1"]')
        p1.locator("td.reading").filter(has_text="empty").wait_for()
        page.locator('#zones tr[data-zone="P2"] td.reading').filter(has_text="7H").wait_for()
        # a card table: the felt and back stills, no dice tray (its layout has no dice zone)
        page.locator('button[data-still="dice"]').wait_for(state="hidden")
        assert page.locator('button[data-still="felt"]').is_visible()
        assert p1.locator("td.px").inner_text() == "3.49"
        assert p1.locator("td.seen").inner_text() == "–"  # no code in view to measure
        screenshot(page, "setup", "before")
        # laid out for 1366 px: nothing wider than the window
        assert page.evaluate("document.documentElement.scrollWidth") <= 1366
        # drag the whole zone by its inside, onto the card
        box = page.locator('polygon[data-zone="P1"]').bounding_box()
        svg = page.locator("#view").bounding_box()
        scale = svg["width"] / 1920
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + dx_px * scale / 2, y, steps=5)
        page.mouse.move(x + dx_px * scale, y, steps=5)
        page.mouse.up()
        p1.locator("td.reading").filter(has_text="7H").wait_for()
        seen = float(p1.locator("td.seen").inner_text())
        assert 3.0 <= seen <= 4.0, seen  # the card's codes measured in the moved zone
        screenshot(page, "setup", "moved")
        page.click("#save")
        page.locator("#saved").filter(has_text="the previous file is").wait_for()
        text = page.locator("#saved").inner_text()
        screenshot(page, "setup", "saved")

    new = load_camera_config(camera).layout.zones["P1"].polygon
    assert all(abs(nx - (ox + dx_px)) <= 4 and abs(ny - oy) <= 4
               for (nx, ny), (ox, oy) in zip(new, old["P1"].polygon, strict=True)), new
    previous = Path(re.search(r"the previous file is (\S+);", text).group(1))
    assert previous.parent == camera.parent and previous.name.startswith("camera_pd07.prev-")
    assert load_camera_config(previous).layout.zones["P1"].polygon == old["P1"].polygon
    # the running station took it (no round in play) and its next reading of P1 is the card
    wait_for(lambda: rt.camera.config_version == 1, 30, "the camera feed to take the new config")
    assert rt.camera.layout.zones["P1"].polygon == new
    wait_for(lambda: rt.camera.readings.get("P1") == ("7H",), 30,
             lambda: f"P1 read with its new corners (readings {rt.camera.readings})")
    audit = rt.console.server.config.app.state.console.audit.entries(table="PD-07")
    saved = [e for e in audit if e["action"] == "setup_save"]
    assert saved and saved[0]["user"] == "tech1" and saved[0]["role"] == "technician"
    assert saved[0]["outcome"] == "done" and previous.name in saved[0]["reason"]


def test_a_dealer_cannot_open_the_setup_page(setup_table, browser):
    rt, _, _ = setup_table
    url = rt.console_url
    with new_page(browser, 1366, 768, what="the setup page as a dealer") as page:
        login(page, url, "dealer1", PASSWORD["dealer1"])
        page.wait_for_url(re.compile(r"/$"))
        resp = page.goto(url + "/setup")
        assert resp.status == 403
        assert "table setup is for a technician" in page.content()
    with httpx.Client(base_url=url) as c:
        r = c.post("/api/login", json={"user": "dealer1", "password": PASSWORD["dealer1"]})
        csrf = r.json()["csrf"]
        assert c.get("/api/setup/PD-07").status_code == 403
        r = c.post("/api/setup/PD-07/save", json={"zones": {}}, headers={"x-csrf-token": csrf})
        assert r.status_code == 403
    refused = [e for e in rt.console.server.config.app.state.console.audit.entries(table=None)
               if e["outcome"] == "forbidden" and e["user"] == "dealer1"]
    assert refused, "the dealer's refusals are audited"
