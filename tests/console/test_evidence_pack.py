"""The console's round recall offers the round's evidence pack to supervisors, audited; a
dealer is refused (and that is audited too), and a pack that cannot be made is audited with
who asked, which round and why. The pack is the one `station dispute` makes: its frame is the
one the camera kept, its proof holds, its postings come from the ledger the table is
configured with (an SQLite file or PostgreSQL), and the recall page links it for a
supervisor only (Chromium, no script error)."""

from __future__ import annotations

import io
import json
import shutil
import uuid
import zipfile

import pytest
from playwright.sync_api import expect

from station.live.disk import MB, DiskLimits, DiskWatch
from tests.browser import chromium, new_page
from tests.console.conftest import PASSWORDS
from tests.console.console_page import login
from tests.console.test_api import T, _before, _png
from tests.settlement.backends import local_postgres  # noqa: F401 - the session's server

KEY = b"console-key-0123456789abcdef0123"


@pytest.mark.browser
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


def _audited_packs(con, sup) -> list[tuple]:
    entries = sup.get("/api/audit?limit=100").json()["entries"]
    return [(e["user"], e["round_id"], e["outcome"], e["reason"]) for e in entries
            if e["action"] == "evidence_pack"]


def test_a_pack_that_fails_is_audited_with_who_asked_which_round_and_why(make_table, serve,
                                                                          tmp_path) -> None:
    table = make_table("mismatch_cancel", signing_key=KEY)
    # the ledger the table is configured with cannot be read (not there)
    con = serve(table, ledgers={T: str(tmp_path / "gone" / "ledger.sqlite")})
    sup = con.client("sup1")
    table.feed(_before(115.0))
    r = sup.get(f"/api/tables/{T}/rounds/{T}-S1-R1/evidence.zip")
    assert r.status_code == 503 and "no such ledger" in r.json()["error"], r.text
    r = sup.get(f"/api/tables/{T}/rounds/{T}-S1-R9/evidence.zip")
    assert r.status_code == 404 and "not over" in r.json()["error"]
    packs = _audited_packs(con, sup)
    assert [(u, rid, o) for u, rid, o, _ in packs] == [("sup1", f"{T}-S1-R9", "error"),
                                                      ("sup1", f"{T}-S1-R1", "error")]
    assert "not over" in packs[0][3] and "no such ledger" in packs[1][3]


def test_the_pack_reads_the_postgresql_ledger_the_table_settles_in(make_table, serve,
                                                                    local_postgres) -> None:  # noqa: F811
    """A studio table's books are in PostgreSQL: the console's pack reads the postings and
    the newest checkpoint from the ledger URL the table is configured with."""
    from station.settlement.core import SettlementCore
    from station.settlement.outbox import DeliveryWorker
    from station.settlement.transport import InProcessTransport

    url = local_postgres.create_database(f"t_{uuid.uuid4().hex[:16]}")
    table = make_table("mismatch_cancel", signing_key=KEY)
    core = SettlementCore(url)
    worker = DeliveryWorker(table.station.journal.path, InProcessTransport(core))
    table.station.on_outbox = worker.wake
    worker.start()
    try:
        table.feed(_before(115.0))
        assert worker.drain(30)
        con = serve(table, ledgers={T: url})
        sup = con.client("sup1")
        r = sup.get(f"/api/tables/{T}/rounds/{T}-S1-R1/evidence.zip")
        assert r.status_code == 200, r.text
        with zipfile.ZipFile(io.BytesIO(r.content)) as z:
            ev = json.loads(z.read("evidence.json"))
        bets = [b for b in ev["bets"] if b["kind"] == "bet"]
        assert bets and all(b["in_ledger"] for b in ev["bets"])
        for b in ev["bets"]:
            assert b["postings"] and sum(p["amount"] for p in b["postings"]) == 0
            assert core.applied(b["key"], table=b["message"]["table"])
        assert ev["proof"]["chain"]["ledger_checkpoint"] is not None
        assert ev["proof"]["chain"]["through_round"] is True
        assert [p[2] for p in _audited_packs(con, sup)] == ["done"]
    finally:
        worker.stop()
        core.close()


def test_the_station_hands_its_console_the_ledger_it_is_configured_with(tmp_path) -> None:
    from station.live.config import parse_config
    from station.live.journal_key import make_key_file
    from station.runtime import start_runtime

    books = tmp_path / "books" / "PD-05.sqlite"
    books.parent.mkdir()
    cfg = parse_config({"table": {"name": "PD-05"}, "storage": {"dir": str(tmp_path / "var")},
                        "camera": {"enabled": False}, "recording": {"traces": False},
                        "settlement": {"ledger": str(books)}, "console": {"port": 0},
                        "journal": {"signing_key_file": str(make_key_file(tmp_path / "k.key"))}},
                       source="test")
    assert cfg.evidence_ledger == str(books)
    rt = start_runtime(cfg, with_bet_api=False)
    try:
        assert rt.console.server.config.app.state.console.ledgers == {"PD-05": str(books)}
    finally:
        rt.stop()
    # a table on the studio bus keeps no ledger: the studio's is named for its evidence
    bus = {"mode": "bus", "url": "nats://127.0.0.1:4222"}
    assert parse_config({"settlement": bus}).evidence_ledger is None
    pg = "postgresql://floor@10.0.0.5/studio"
    assert parse_config({"settlement": {**bus, "evidence_ledger": pg}}).evidence_ledger == pg


@pytest.mark.browser
def test_a_si_zhi_dao_games_recall_offers_every_deals_frame(make_table, serve, tmp_path) -> None:
    """A Si Zhi Dao table keeps one frame per deal (`<game id>-D<n>.png`): the game's recall
    lists every one of them, serves each, and shows each in Chromium with its deal; the
    evidence pack holds the same. Another game's frames (`SZ-01-G10-…`) are not the game's,
    and a name that is not one of its frames is not served."""
    table = make_table("traces-sizhidao/tie_once", signing_key=KEY)
    g1 = table.expected["games"][0]
    deals = [d["deal_id"] for d in g1["deals"]]
    assert len(deals) >= 2, "the recorded game has a tie: two deals"
    frames = tmp_path / "frames"
    frames.mkdir()
    pngs = {d: _png(4 + i, 3) for i, d in enumerate(deals)}
    for d, png in pngs.items():
        (frames / f"{d}.png").write_bytes(png)
    (frames / "SZ-01-G10-D1.png").write_bytes(_png(9, 9))
    con = serve(table, frames_dir=frames)
    sup = con.client("sup1")
    table.feed()
    rounds = {x["round_id"]: x for x in sup.get("/api/tables/SZ-01/rounds").json()["rounds"]}
    assert rounds["SZ-01-G1"]["frame"] is True
    assert all(x["frame"] is False for rid, x in rounds.items() if rid != "SZ-01-G1")
    rec = sup.get("/api/tables/SZ-01/rounds/SZ-01-G1").json()
    assert [f["name"] for f in rec["frames"]] == deals
    assert rec["frame"] is None  # a game keeps no frame of its own, only its deals'
    for f in rec["frames"]:
        r = sup.get(f["url"])
        assert r.status_code == 200 and r.headers["content-type"] == "image/png"
        assert r.content == pngs[f["name"]]
    for name in ("SZ-01-G10-D1", "SZ-01-G1", "..%2Fsecret"):
        assert sup.get(f"/api/tables/SZ-01/rounds/SZ-01-G1/frames/{name}.png").status_code == 404
    r = sup.get("/api/tables/SZ-01/rounds/SZ-01-G1/evidence.zip")
    assert r.status_code == 200
    with zipfile.ZipFile(io.BytesIO(r.content)) as z:
        ev = json.loads(z.read("evidence.json"))
        assert ev["frames"] == [f"frames/{d}.png" for d in deals]
        assert all(z.read(f"frames/{d}.png") == pngs[d] for d in deals)
    with chromium() as browser, new_page(browser, 1280, 900, "a Si Zhi Dao game's recall") as page:
        login(page, con.url, "sup1", PASSWORDS["sup1"])
        expect(page.locator("#who")).to_contain_text("sup1")
        page.evaluate("recall('SZ-01', 'SZ-01-G1')")
        expect(page.locator("#recall-id")).to_have_text("SZ-01-G1")
        expect(page.locator("#recall figure.recall-frame")).to_have_count(len(deals))
        for d in deals:
            fig = page.locator(f"#recall figure[data-frame='{d}']")
            expect(fig).to_contain_text(d)
            # the picture itself arrived and decoded (a broken image has no natural width)
            expect(fig.locator("img")).to_have_js_property("complete", True)
            assert fig.locator("img").evaluate("i => i.naturalWidth") == 4 + deals.index(d)
