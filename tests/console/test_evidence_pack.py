"""The console's round recall offers the round's evidence pack to supervisors, audited; a
dealer is refused (and that is audited too). The pack is the one `station dispute` makes:
its frame is the one the camera kept, its proof holds, and the recall page links it for a
supervisor only (Chromium, no script error)."""

from __future__ import annotations

import io
import json
import shutil
import zipfile

from playwright.sync_api import expect

from station.live.disk import MB, DiskLimits, DiskWatch
from tests.browser import chromium, new_page
from tests.console.conftest import PASSWORDS
from tests.console.console_page import login
from tests.console.test_api import T, _before, _png

KEY = b"console-key-0123456789abcdef0123"


def test_supervisors_get_the_pack_dealers_do_not_and_both_are_audited(make_table, serve,
                                                                       tmp_path) -> None:
    table = make_table("mismatch_cancel", signing_key=KEY)
    frames = tmp_path / "frames"
    frames.mkdir()
    png = _png(4, 3)
    (frames / f"{T}-S1-R1.png").write_bytes(png)
    con = serve(table, frames_dir=frames)
    sup, dealer = con.client("sup2"), con.client("dealer1")
    table.feed(_before(109.1))
    table.at(109.1)
    assert con.act(sup, T, "cancel_round").status_code == 200
    table.feed(_before(115.0))
    r = dealer.get(f"/api/tables/{T}/rounds/{T}-S1-R1/evidence.zip")
    assert r.status_code == 403 and "supervisors" in r.json()["error"]
    r = sup.get(f"/api/tables/{T}/rounds/{T}-S1-R1/evidence.zip")
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        ev = json.loads(z.read("evidence.json"))
        assert z.read(f"frames/{T}-S1-R1.png") == png
        assert "index.html" in z.namelist()
    assert ev["round_id"] == f"{T}-S1-R1" and ev["proof"]["replay_equal"] is True
    assert ev["proof"]["chain"]["through_round"] is True
    assert [r["type"] for r in ev["result"]][:2] == ["hand", "settlement"]
    # the cancelled round's pack holds the supervisor's decision, from the audit log too
    r = sup.get(f"/api/tables/{T}/rounds/{T}-S1-R3/evidence.zip")
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        ev3 = json.loads(z.read("evidence.json"))
    assert [(d["action"], d["user"]) for d in ev3["decisions"] if d["by"] == "supervisor"] == [
        ("cancel_round", "sup2")]
    assert [(a["user"], a["action"], a["outcome"]) for a in ev3["audit"]
            if a["action"] == "cancel_round"] == [("sup2", "cancel_round", "done")]
    entries = sup.get("/api/audit?limit=50").json()["entries"]
    packs = [(e["user"], e["outcome"]) for e in entries if e["action"] == "evidence_pack"]
    assert sorted(packs) == sorted([("dealer1", "forbidden"), ("sup2", "done"), ("sup2", "done")])
    # the device panel shows the disk's free space, "low" below the warning level
    huge = shutil.disk_usage(tmp_path).total // MB + 1
    table.station.disk = DiskWatch(tmp_path, T, DiskLimits(free_warn_mb=huge, free_floor_mb=0))
    table.feed(_before(130.0))
    with chromium() as browser:
        for who, offered in (("sup2", True), ("dealer1", False)):
            with new_page(browser, 1280, 900, f"recall as {who}") as page:
                login(page, con.url, who, PASSWORDS[who])
                expect(page.locator("#who")).to_contain_text(who)
                page.evaluate(f"recall({json.dumps(T)}, {json.dumps(T + '-S1-R1')})")
                expect(page.locator("#recall-id")).to_have_text(T + "-S1-R1")
                expect(page.locator("#recall")).to_contain_text("Camera at validation")
                assert (page.locator("#evidence-pack").count() == 1) is offered
                expect(page.locator("#h-disk")).to_contain_text("GB — low")
