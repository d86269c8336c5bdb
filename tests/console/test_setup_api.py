"""The table setup's API as a technician uses it between shoes: stills from the live camera
(the empty felt, face-down cards, the dice tray), calibrate, save the camera config with the
calibration (the previous one kept), bad zones refused with nothing written."""

from __future__ import annotations

from contextlib import closing

import httpx
import pytest

from firmware_bridge.camera.config import load_camera_config
from tests.console.setup_table import PASSWORD
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(240)


def tech(url: str) -> tuple[httpx.Client, dict[str, str]]:
    c = httpx.Client(base_url=url, timeout=60)
    r = c.post("/api/login", json={"user": "tech1", "password": PASSWORD["tech1"]})
    assert r.status_code == 200, r.text
    return c, {"x-csrf-token": r.json()["csrf"]}


def test_stills_calibrate_and_save_with_the_calibration(setup_table):
    rt, camera, scene = setup_table
    c, h = tech(rt.console_url)
    with closing(c):
        info = c.get("/api/setup/PD-07").json()
        zones = info["zones"]
        # a card table's layout has no zone of kind dice: no dice tray still is offered or taken
        assert info["still_kinds"] == ["felt", "back"]
        r = c.post("/api/setup/PD-07/stills", json={"kind": "dice"}, headers=h)
        assert r.status_code == 400 and "felt, back at this table" in r.json()["error"], r.text
        scene.clear_all()
        wait_for(lambda: rt.camera.readings.get("P2") == (), 30, "the camera to see the empty felt")
        r = c.post("/api/setup/PD-07/calibrate", json={}, headers=h)
        assert r.status_code == 409 and "capture" in r.json()["error"]
        assert c.post("/api/setup/PD-07/stills", json={"kind": "felt"}, headers=h).status_code == 200
        for zone in ("P1", "P3", "P5"):
            scene.deal(zone, "2C")  # face down, lying apart
        wait_for(lambda: rt.camera.readings.get("P5") == ("??",), 30, "the face-down cards in view")
        r = c.post("/api/setup/PD-07/stills", json={"kind": "back"}, headers=h)
        assert r.json()["stills"] == {"felt": 1, "back": 1, "dice": 0}
        r = c.post("/api/setup/PD-07/calibrate", json={}, headers=h)
        assert r.status_code == 200, r.text
        cal = r.json()
        assert cal["calibration"]["back"]["cards"] == 3 and "back" in cal["back"]
        bad = {**zones, "P1": [[0, 0], [5000, 0], [5000, 10]]}
        r = c.post("/api/setup/PD-07/save", json={"zones": bad}, headers=h)
        assert r.status_code == 400 and "inside the 1920x1080 frame" in r.json()["error"]
        before = camera.read_text()
        r = c.post("/api/setup/PD-07/save", json={"zones": {"P1": zones["P1"]}}, headers=h)
        assert r.status_code == 400 and camera.read_text() == before
        r = c.post("/api/setup/PD-07/save", json={"zones": zones}, headers=h)
        assert r.status_code == 200 and r.json()["calibration_saved"] is True
    saved = load_camera_config(camera)
    assert saved.layout.calibration.back.cards == 3
    assert saved.layout.calibration.felt.bgr == tuple(cal["calibration"]["felt"]["bgr"])
    assert "[source]" in camera.read_text() and "[recogniser]" in camera.read_text()  # kept
    wait_for(lambda: rt.camera.config_version == 1, 30, "the feed to take the calibration")
    audit = [e["action"] for e in rt.console.server.config.app.state.console.audit.entries(table="PD-07")]
    assert {"setup_still_felt", "setup_still_back", "setup_calibrate", "setup_save"} <= set(audit)
