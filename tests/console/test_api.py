"""The console's HTTP API over live tables fed recorded traces: logins, roles, CSRF,
decisions through the journaled input path with an audit trail, recall, roads, metrics, the
event stream, and clear JSON errors."""

from __future__ import annotations

import json
import sqlite3
import threading
import zlib
from pathlib import Path
from typing import Any

import httpx

from station.metrics import CAMERA_FPS, RECOGNITION_LATENCY, REGISTRY
from tests.waiting import wait_for

T = "PD-01"


def _before(t: float):
    return lambda inp: inp.t_us >= t * 1_000_000


def _journal_inputs(path: Path, kind: str) -> list[dict[str, Any]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        lines = [json.loads(x) for (x,) in conn.execute("SELECT line FROM inputs ORDER BY seq")]
    finally:
        conn.close()
    return [x for x in lines if kind in x]


def test_everything_needs_a_login(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    assert con.url.startswith("http://127.0.0.1:")  # the default: this machine only
    c = con.client()
    for path in ("/api/session", "/api/tables", f"/api/tables/{T}", f"/api/tables/{T}/rounds",
                 f"/api/tables/{T}/roads", f"/api/tables/{T}/rounds/{T}-S1-R1", "/api/audit",
                 "/api/events", f"/api/tables/{T}/events"):
        r = c.get(path)
        assert r.status_code == 401, path
        assert r.headers["content-type"].startswith("application/json")
        assert "log in" in r.json()["error"]
    r = c.post(f"/api/tables/{T}/actions", json={"action": "resume"})
    assert r.status_code == 401
    # the page sends a stranger to the login form
    r = c.get("/", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login"
    assert "Log in" in c.get("/login").text


def test_login_form_session_cookie_and_logout(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    c = con.client()
    r = c.post("/login", data={"user": "sup1", "password": "wrong password"}, follow_redirects=False)
    assert r.status_code == 401 and "Wrong user name or password" in r.text
    r = c.post("/login", data={"user": "nobody", "password": "whatever1"}, follow_redirects=False)
    assert r.status_code == 401
    r = c.post("/login", data={"user": "sup1", "password": "floor-sup-pass"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    page = c.get("/")
    assert page.status_code == 200 and 'class="state-diagram"' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    s = c.get("/api/session").json()
    assert s["user"] == "sup1" and s["role"] == "supervisor" and "resume" in s["actions"]
    # a forged cookie is nobody
    forged = httpx.Client(base_url=con.url, cookies={"station_console": c.cookies["station_console"][:-4] + "abcd"})
    assert forged.get("/api/session").status_code == 401
    # logging out needs the CSRF token, and ends the session
    assert c.post("/api/logout").status_code == 403
    assert c.post("/api/logout", headers={"X-CSRF-Token": s["csrf"]}).status_code == 200
    assert c.get("/api/session").status_code == 401
    audit = con.console.audit.entries()
    # refused requests are audited too: the forged cookie (401), logout without its token
    # (403), and the session asked for after logging out (401)
    assert [(a["user"], a["outcome"]) for a in audit[::-1]] == [
        ("sup1", "login_failed"), ("nobody", "login_failed"), ("sup1", "login"),
        ("-", "unauthorized"), ("sup1", "bad_csrf"), ("sup1", "logout"), ("-", "unauthorized")]


def test_sessions_expire(make_table, serve) -> None:
    # the sessions' own clock, moved by hand: a loaded machine's slow login is no expiry
    now = [1_000_000.0]
    table = make_table("order_fault")
    con = serve(table, session_ttl=0.5, session_clock=lambda: now[0])
    c = con.client("sup1")
    assert c.get("/api/session").status_code == 200
    now[0] += 0.49
    assert c.get("/api/tables").status_code == 200
    now[0] += 0.02  # the session's time ran out half a second after the login
    r = c.get("/api/tables")
    assert r.status_code == 401 and "expired" in r.json()["error"]


def test_resume_order_fault_csrf_roles_refusal_and_audit(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    sup, dealer = con.client("sup1"), con.client("dealer1")
    # the card lands in the wrong zone at 65.0 s: feed up to just after the fault
    table.feed(_before(65.05))
    v = sup.get(f"/api/tables/{T}").json()
    assert v["paused"] and v["state"] == "paused"
    [f] = v["faults"]
    assert f["kind"] == "order" and f["round_id"] == f"{T}-S1-R2" and f["since"] == 65.0
    assert f["meaning"] and "resume" in f["options"]

    # no CSRF token, or a wrong one: refused before the table hears of it
    r = sup.post(f"/api/tables/{T}/actions", json={"action": "resume"})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    r = sup.post(f"/api/tables/{T}/actions", json={"action": "resume"}, headers={"X-CSRF-Token": dealer.csrf})
    assert r.status_code == 403
    # the dealer may not decide a fault
    r = con.act(dealer, T, "resume")
    assert r.status_code == 403 and "supervisor" in r.json()["error"]
    assert _journal_inputs(table.station.journal.path, "supervisor") == [
        {"t": 21.0, "supervisor": "confirm_shuffle", "user": "sup1"}]

    # the zone is still wrong: the table refuses and the console says why
    r = con.act(sup, T, "resume")
    assert r.status_code == 409
    body = r.json()
    assert body["outcome"] == "refused" and "deal order" in body["reason"]
    assert body["view"]["paused"]

    # the dealer corrects the zone (the trace's camera lines), then the supervisor resumes
    table.feed(_before(69.6))
    table.at(69.6)
    r = con.act(sup, T, "resume")
    assert r.status_code == 200, r.text
    assert r.json()["outcome"] == "done" and r.json()["records"] == ["resumed"]
    assert not r.json()["view"]["paused"] and r.json()["view"]["state"] == "betting"
    # through the journaled input path, under the supervisor's name
    sup_inputs = _journal_inputs(table.station.journal.path, "supervisor")
    assert [(x["supervisor"], x["user"]) for x in sup_inputs] == [
        ("confirm_shuffle", "sup1"), ("resume", "sup1"), ("resume", "sup1")]
    resumed = table.station.journal.records_of_type("resumed")
    assert [(x["round_id"], x["user"]) for x in resumed] == [(f"{T}-S1-R2", "sup1")]

    # a second resume now: the table is not paused
    r = con.act(sup, T, "resume")
    assert r.status_code == 409 and r.json()["reason"] == "the table is not paused"

    audit = sup.get("/api/audit", params={"table": T}).json()["entries"]
    rows = [(a["user"], a["action"], a["outcome"], a["round_id"]) for a in audit[::-1]]
    assert rows == [
        ("dealer1", "resume", "forbidden", f"{T}-S1-R2"),
        ("sup1", "resume", "refused", f"{T}-S1-R2"),
        ("sup1", "resume", "done", f"{T}-S1-R2"),
        ("sup1", "resume", "refused", f"{T}-S1-R2"),
    ]
    assert "deal order" in audit[-2]["reason"]
    assert all(a["at"] > 0 for a in audit)
    # the audit log is for supervisors
    assert dealer.get("/api/audit").status_code == 403

    # the round finishes and its recall names the fault and the decision
    table.feed(_before(88.0))
    rec = sup.get(f"/api/tables/{T}/rounds/{T}-S1-R2").json()
    assert rec["status"] == "settled"
    assert rec["cards"] == table.expected["hands"][1]["cards"]
    assert [f["kind"] for f in rec["faults"]] == ["order"]
    assert rec["decisions"] == [{"t": 69.6, "action": "resume", "user": "sup1"}]
    assert [a["outcome"] for a in rec["audit"]][::-1] == ["forbidden", "refused", "done", "refused"]
    exp = table.expected["settlements"][1]
    assert rec["bets"] == exp["bets"]
    assert rec["totals"]["returned"] == sum(b["returned"] for b in exp["bets"])
    assert rec["totals"]["deducted"] == sum(b["deducted"] for b in exp["bets"])


def test_dealer_actions_go_through_the_table(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    dealer, sup = con.client("dealer1"), con.client("sup1")
    # before anything: no shoe, so the dealer's open_betting is refused with the reason
    r = con.act(dealer, T, "open_betting")
    assert r.status_code == 409 and r.json()["reason"] == "no shoe in play"
    r = con.act(dealer, T, "new_shoe")
    assert r.status_code == 200 and r.json()["records"] == ["shoe_start"]
    assert r.json()["view"]["state"] == "shuffling"
    # the supervisor may not deal, the dealer may not confirm the shuffle
    assert con.act(sup, T, "new_shoe").status_code == 403
    assert con.act(dealer, T, "confirm_shuffle").status_code == 403
    r = con.act(sup, T, "confirm_shuffle")
    assert r.status_code == 200
    assert table.station.view["shoe"]["confirmed"] is True


def test_cancel_round_refunds_and_recall_keeps_unrevealed_cards_secret(make_table, serve, tmp_path) -> None:
    table = make_table("mismatch_cancel")
    frames = tmp_path / "frames"
    frames.mkdir()
    png = _png(4, 3)
    (frames / f"{T}-S1-R1.png").write_bytes(png)
    con = serve(table, frames_dir=frames)
    sup = con.client("sup2")
    table.feed(_before(109.1))
    table.at(109.1)
    v = sup.get(f"/api/tables/{T}").json()
    assert v["paused"] and [f["kind"] for f in v["faults"]] == ["card_mismatch"]
    assert v["faults"][0]["cancel_only"] is False
    # a round in progress cannot be recalled
    r = sup.get(f"/api/tables/{T}/rounds/{T}-S1-R3")
    assert r.status_code == 404 and "not over" in r.json()["error"]
    r = con.act(sup, T, "cancel_round")
    assert r.status_code == 200 and r.json()["records"] == ["round_cancelled"]
    table.feed(_before(115.0))
    rounds = sup.get(f"/api/tables/{T}/rounds").json()["rounds"]
    assert [(x["round_id"], x["status"]) for x in rounds] == [
        (f"{T}-S1-R3", "cancelled"), (f"{T}-S1-R2", "settled"), (f"{T}-S1-R1", "settled")]
    assert rounds[2]["frame"] is True and rounds[1]["frame"] is False
    rec = sup.get(f"/api/tables/{T}/rounds/{T}-S1-R3").json()
    assert rec["status"] == "cancelled" and rec["cards"] is None and rec["results"] is None
    assert rec["cancelled"]["reason"] == "card_mismatch" and rec["cancelled"]["user"] == "sup2"
    [exp] = table.expected["cancelled"]
    assert rec["bets"] == exp["refunds"]
    assert rec["totals"]["returned"] == rec["totals"]["deducted"] > 0
    assert rec["totals"]["house_net"] == 0
    assert rec["decisions"] == [{"t": 109.1, "action": "cancel_round", "user": "sup2"}]
    assert rec["frame"] is None
    # the camera frame at validation, when the camera kept one
    rec1 = sup.get(f"/api/tables/{T}/rounds/{T}-S1-R1").json()
    assert rec1["frame"] == f"/api/tables/{T}/rounds/{T}-S1-R1/frame.png"
    r = sup.get(rec1["frame"])
    assert r.status_code == 200 and r.headers["content-type"] == "image/png" and r.content == png
    assert sup.get(f"/api/tables/{T}/rounds/{T}-S1-R2/frame.png").status_code == 404
    # round ids are checked, not used as paths
    assert sup.get(f"/api/tables/{T}/rounds/..%2F..%2Fetc").status_code in (400, 404)
    r = sup.get(f"/api/tables/{T}/rounds/XX-S1-R1")
    assert r.status_code == 400 and "PD-01-S1-R7" in r.json()["error"]


def test_bad_requests_get_clear_json_errors(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    sup = con.client("sup1")
    h = {"X-CSRF-Token": sup.csrf}
    r = sup.post(f"/api/tables/{T}/actions", content=b"not json", headers=h)
    assert r.status_code == 400 and "JSON" in r.json()["error"]
    r = sup.post(f"/api/tables/{T}/actions", json=["resume"], headers=h)
    assert r.status_code == 400
    r = sup.post(f"/api/tables/{T}/actions", json={"action": "deal_faster"}, headers=h)
    assert r.status_code == 400 and "unknown action" in r.json()["error"] and "resume" in r.json()["error"]
    r = sup.post("/api/tables/PD-99/actions", json={"action": "resume"}, headers=h)
    assert r.status_code == 404 and "PD-99" in r.json()["error"]
    r = sup.get("/api/nothing-here")
    assert r.status_code == 404 and r.json()["error"].startswith("no such API path")
    r = sup.delete(f"/api/tables/{T}")
    assert r.status_code == 405 and "error" in r.json()
    r = sup.get(f"/api/tables/{T}/roads", params={"shoe": "one"})
    assert r.status_code == 400
    r = sup.post("/api/login", json={"user": "sup1"})
    assert r.status_code == 400 and "password" in r.json()["error"]
    r = sup.post("/api/login", json={"user": "sup1", "password": "nope-nope"})
    assert r.status_code == 401 and r.json()["error"] == "wrong user name or password"


def _independent_bead(cards: list[str], outcome: str) -> tuple[str, bool, bool]:
    """RULES.md §1.8 read directly: ring for suited or any 7.x class, dot for a pair."""
    (r1, s1), (r2, s2) = cards
    faces = {"J", "Q", "K"}
    royal = r1 in faces and r2 in faces
    ten_royal = {r1, r2} & {"T"} and len({r1, r2} & faces) == 1
    special_pair = r1 == r2 and r1 in {"A", "5", "6", "T"}
    return outcome, bool(s1 == s2 or royal or ten_royal or special_pair), r1 == r2


def test_bead_roads_follow_the_settled_rounds(make_table, serve) -> None:
    table = make_table("clean_shoe")
    con = serve(table)
    sup = con.client("sup1")
    table.feed()
    exp_hands = table.expected["hands"]
    body = sup.get(f"/api/tables/{T}/roads").json()
    assert body["shoe"] == 1 and body["rounds"] == len(exp_hands) == 30
    assert list(body["roads"]) == ["P1", "P2", "P3", "P4", "P5"]
    for p, rd in body["roads"].items():
        want = [_independent_bead(h["cards"][p], h["results"][p]["outcome"]) for h in exp_hands]
        got = [(b["outcome"], b["ring"], b["pair"]) for b in rd["beads"]]
        assert got == want, p
        svg = rd["svg"]
        assert svg.startswith("<svg") and svg.count('class="bead ') == 30
        # columns of six, top to bottom then left to right
        import re

        centres = [(float(x), float(y)) for x, y in re.findall(r'class="body" cx="([\d.]+)" cy="([\d.]+)"', svg)]
        assert len(centres) == 30
        for i, (x, y) in enumerate(centres):
            col, row = divmod(i, 6)
            assert (x, y) == (col * 26 + 13, row * 26 + 13)
        assert svg.count('class="ring"') == sum(w[1] for w in want)
        assert svg.count('class="pair"') == sum(w[2] for w in want)
        colours = re.findall(r'class="body" cx="[\d.]+" cy="[\d.]+" r="[\d.]+" fill="(#\w+)"', svg)
        assert colours == [{"win": "#1f6fd1", "lose": "#8a8f98", "tie": "#2e9e4f"}[w[0]] for w in want]
    # some road must have every feature, or this test proves little
    all_beads = [b for rd in body["roads"].values() for b in rd["beads"]]
    assert {b["outcome"] for b in all_beads} == {"win", "lose", "tie"}
    assert any(b["ring"] for b in all_beads) and any(b["pair"] for b in all_beads)


def test_metrics_and_health_hooks(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    sup = con.client("sup1")
    table.feed(_before(65.05))
    text = httpx.get(con.url + "/metrics").text
    assert 'station_faults_total{kind="order",table="PD-01"} 1' in text
    assert 'station_table_paused{table="PD-01"} 1' in text
    assert 'station_rounds_settled_total{table="PD-01"} 1' in text
    assert 'station_table_state{state="paused",table="PD-01"} 1' in text
    assert '# TYPE station_faults_total counter' in text
    frames = table.station.view["link"]["counters"]["frames"]
    assert f'station_shoe_link_events_total{{counter="frames",table="PD-01"}} {frames}' in text
    assert "station_input_latency_seconds_count" in text
    # the camera and settlement parts set their figures in the shared registry (one per
    # process: a camera feed of an earlier test in this worker may have left its figures for
    # PD-01, which a feed keeps when it stops, so they are cleared first)
    REGISTRY.gauge(CAMERA_FPS, "camera frames per second").values.clear()
    REGISTRY.summary(RECOGNITION_LATENCY, "frame to zone reading").values.clear()
    REGISTRY.gauge(CAMERA_FPS, "camera frames per second").set(24.5, table="PD-01")
    REGISTRY.summary(RECOGNITION_LATENCY, "frame to zone reading").observe(0.0315, table="PD-01")
    try:
        _check_hooks(con, sup, table)
    finally:
        REGISTRY.gauge(CAMERA_FPS).values.clear()
        REGISTRY.summary(RECOGNITION_LATENCY).values.clear()


def _check_hooks(con, sup, table) -> None:
    frames = table.station.view["link"]["counters"]["frames"]
    text = httpx.get(con.url + "/metrics").text
    assert 'station_camera_fps{table="PD-01"} 24.5' in text
    assert 'station_recognition_latency_seconds_count{table="PD-01"} 1' in text
    h = sup.get(f"/api/tables/{T}").json()["health"]
    assert h["camera"]["fps"] == 24.5 and h["camera"]["recognition_latency_ms"] == 31.5
    assert h["shoe"]["up"] is True and h["shoe"]["frames"] == frames
    assert h["shoe"]["frames_per_s"] is not None and h["shoe"]["frames_per_s"] > 0
    # every metric line parses as `name{labels} value`
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            float(value)


def test_link_loss_shows_in_health(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    sup = con.client("sup1")
    table.feed(_before(30.0))
    # the shoe goes silent: 4 s later the link is lost (the table's own timer, on its clock)
    table.clock.t += 4.0
    wait_for(lambda: not table.station.view["link"]["up"], 10,
             "the table's own timer to declare the silent link lost")
    v = sup.get(f"/api/tables/{T}").json()
    assert v["health"]["shoe"]["up"] is False
    assert [f["kind"] for f in v["faults"]] == ["link_lost"]
    assert v["health"]["shoe"]["last_frame_age_s"] >= 3.0


def test_event_stream_pushes_each_change(make_table, serve) -> None:
    table = make_table("order_fault")
    con = serve(table)
    sup = con.client("sup1")
    table.feed(_before(64.0))
    got: list[dict[str, Any]] = []
    ready = threading.Event()

    def listen() -> None:
        with sup.stream("GET", f"/api/tables/{T}/events") as s:
            assert s.headers["content-type"].startswith("text/event-stream")
            event = None
            for line in s.iter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "view":
                    got.append(json.loads(line[6:]))
                    ready.set()
                    if got[-1]["paused"]:
                        return

    th = threading.Thread(target=listen, daemon=True)
    th.start()
    assert ready.wait(10)
    assert not got[0]["paused"]
    table.feed(_before(65.05))
    th.join(15)
    assert not th.is_alive(), "the pause never reached the event stream"
    assert got[-1]["faults"][0]["kind"] == "order"
    assert got[-1]["version"] == table.station.view["version"]


def _png(w: int, h: int) -> bytes:
    """A real (tiny, grey) PNG, as the camera would write."""
    raw = b"".join(b"\x00" + b"\x80" * w for _ in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (len(data).to_bytes(4, "big") + kind + data
                + zlib.crc32(kind + data).to_bytes(4, "big"))

    ihdr = w.to_bytes(4, "big") + h.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))
