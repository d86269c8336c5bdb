"""`station doctor`: it passes against the shoe simulator on a pty and the synthetic camera,
and each check fails for its real cause: the port absent, the simulator silent, the camera
missing, a zone too coarse, the back not calibrated, the felt changed, the disk nearly full,
settlement down, a port taken, a journal of another table."""

from __future__ import annotations

import json
import os
import pty
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.shoe.simulator import FaultPlan, ShoeSimulator
from station.doctor.camera import check_cameras
from station.doctor.clock import from_timedatectl
from station.doctor.disk import check_disk
from station.doctor.journal import check_journal
from station.doctor.ports import check_port
from station.doctor.settlement import check_settlement
from station.doctor.shoe import check_shoe
from station.live.config import parse_config
from station.live.journal_key import make_key_file
from tests.ports import free_port
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(240)

REPO = Path(__file__).resolve().parents[2]
CAMERA = REPO / "config" / "camera_pokdeng_1080p.toml"


def table_toml(tmp: Path, shoe_url: str, *, camera: str | None = None, source: str = "synthetic",
               settlement: str = "", console_port: int | None = None) -> Path:
    if camera is None:
        # the synthetic camera at 4 frames/s: a loaded two-core machine draws that many
        camera = str(camera_variant(tmp, "camera.toml", lambda t: t.replace("fps = 10", "fps = 4")))
    p = tmp / "table.toml"
    p.write_text(f"""
[table]
name = "PD-07"
[storage]
dir = "{tmp / 'var'}"
[shoe]
url = "{shoe_url}"
[camera]
enabled = true
source = "{source}"
layout = "{camera}"
fps = 5
{settlement}
[console]
port = {console_port or free_port()}
[bet_api]
port = {free_port()}
[journal]
signing_key_file = "{make_key_file(tmp / "keys" / "PD-07.key")}"
""")
    return p


def config(path: Path):
    import tomllib

    return parse_config(tomllib.loads(path.read_text()), source=str(path), base_dir=path.parent)


def camera_variant(tmp: Path, name: str, edit) -> Path:
    p = tmp / name
    p.write_text(edit(CAMERA.read_text()).replace("fps = 10", "fps = 4"))
    return p


def doctor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "station", "doctor", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=180)


@pytest.fixture
def sim():
    s = ShoeSimulator(seed=3)
    yield s
    s.close()


def test_a_ready_table_passes_every_check(tmp_path, sim):
    cfg = table_toml(tmp_path, sim.serve_pty())
    done = doctor("--config", str(cfg), "--json", "--listen", "1.5", "--accept", "clock")
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout)
    assert out["ok"] is True
    by = {f["check"]: f for f in out["findings"]}
    # every check ran; the clock is what this machine's OS says (taken on with --accept)
    assert {"disk", "clock", "console port", "bet API port", "journal", "settlement", "shoe",
            "camera", "camera calibration"} <= set(by)
    assert all(f["verdict"] == "pass" for c, f in by.items() if c != "clock"), by
    assert by["clock"]["verdict"] == "pass" or by["clock"]["accepted"]
    shoe = by["shoe"]["data"]
    assert shoe["gate"] in ("LOCKED", "UNLOCKED") and shoe["cards_out"] == 0 and shoe["led"] == "OFF"
    assert shoe["counters"]["bad_crc"] == 0 and shoe["counters"]["frames"] >= 1
    zones = [f for c, f in by.items() if c.startswith("camera zone ")]
    assert len(zones) == 7 and all(f["data"]["px_per_module"] >= 3 for f in zones)
    cam = by["camera"]["data"]
    assert (cam["width"], cam["height"]) == (1920, 1080) and cam["fps"] > 0


def test_the_terminal_table_and_the_exit_status_of_a_failing_check(tmp_path, sim):
    cfg = table_toml(tmp_path, sim.serve_pty())
    done = doctor("--config", str(cfg), "--listen", "1", "--min-free-gib", "1e9")
    assert done.returncode == 1
    assert re.search(r"^FAIL +disk +.*GiB free", done.stdout, re.M), done.stdout
    assert "to do: free space" in done.stdout
    # the shoe's HELLO (model, serial, firmware) leads the line when the doctor caught the
    # simulator's boot announcement, which depends on when the port opened
    assert re.search(r"^pass +shoe +(DS\S+ \S+ firmware \S+, )?answered STATUS", done.stdout,
                     re.M), done.stdout
    assert re.search(r"checks pass; \d+ to fix: disk", done.stdout), done.stdout


def test_a_configuration_that_cannot_be_read_is_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[table]\nname = 'PD-07'\n[camera]\nenabled = 'yes'\n")
    done = doctor("--config", str(bad))
    assert done.returncode == 2 and "camera.enabled" in done.stderr


# ---- the shoe -----------------------------------------------------------------------------

def test_shoe_port_absent(tmp_path):
    f = check_shoe(str(tmp_path / "serial" / "by-id" / "usb-shoe"), listen_s=0.5)
    assert f.verdict == "fail" and "cannot open the shoe" in f.details
    assert "plug the shoe" in f.action


def test_shoe_answering_then_silent():
    """The shoe simulator on a real pty answers STATUS; a port that opens where nothing answers
    (a shoe switched off behind its plugged-in adapter: a real pty whose other end nobody
    reads) fails with the action to take. Both are devices the test holds in hand (a simulator
    process stopped with SIGSTOP as the silent shoe passed the check in two of five runs on a
    loaded machine: what answered for it was not found, and a stopped process is no shoe)."""
    shoe = ShoeSimulator(seed=3)
    try:
        answering = check_shoe(shoe.serve_pty(), listen_s=0.5)
    finally:
        shoe.close()
    assert answering.verdict == "pass", answering.details
    master, slave = pty.openpty()
    try:
        silent = check_shoe(os.ttyname(slave), listen_s=0.5, answer_timeout_s=1.5)
        # what the doctor sent did reach the port: the check asked, and nobody answered
        sent = os.read(master, 4096)
    finally:
        os.close(master)
        os.close(slave)
    assert b",STATUS*" in sent, sent
    assert silent.verdict == "fail", silent.details
    assert "did not answer STATUS" in silent.details and "switch the shoe on" in silent.action


def test_sim_shoe_command_serves_a_pty_the_doctor_passes():
    """`station sim-shoe --pty` prints a device path the doctor's check answers on."""
    p = subprocess.Popen([sys.executable, "-m", "station", "sim-shoe", "--pty", "--no-deal"],
                         cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = p.stdout.readline().strip()
        assert os.path.exists(url), url
        answering = check_shoe(url, listen_s=0.5)
        assert answering.verdict == "pass", answering.details
    finally:
        p.kill()  # the simulator is the test's tool, not under test: no graceful stop awaited
        p.wait(timeout=30)


def test_shoe_link_dropping_frames_fails_on_its_counters():
    # a damaged cable: most frames fail their CRC
    noisy = ShoeSimulator(seed=5, faults=FaultPlan(bit_error_rate=0.05, seed=5))
    try:
        f = check_shoe(noisy.serve_pty(), listen_s=3, answer_timeout_s=6)
    finally:
        noisy.close()
    assert f.verdict == "fail", f.details
    assert f.data["counters"]["bad_crc"] > 0


# ---- the camera ---------------------------------------------------------------------------

def test_camera_missing(tmp_path):
    cfg = config(table_toml(tmp_path, "loop://", source="/dev/video9"))
    found = check_cameras(cfg)
    assert found[0].check == "camera" and found[0].verdict == "fail"
    assert "/dev/video9" in found[0].details and "plug the camera in" in found[0].action


def test_zone_too_coarse(tmp_path):
    coarse = camera_variant(tmp_path, "coarse.toml",
                            lambda t: t.replace("mm_per_px = 0.30", "mm_per_px = 0.40"))
    found = {f.check: f for f in check_cameras(config(table_toml(tmp_path, "loop://", camera=str(coarse))))}
    zones = [f for c, f in found.items() if c.startswith("camera zone ")]
    assert len(zones) == 7 and all(f.verdict == "fail" for f in zones)
    assert zones[0].data["px_per_module"] == pytest.approx(2.62, abs=0.01)
    assert "below 3 px per module" in zones[0].action


def test_back_not_calibrated(tmp_path):
    uncal = camera_variant(tmp_path, "uncal.toml", lambda t: t.split("[calibration.back]")[0])
    found = {f.check: f for f in check_cameras(config(table_toml(tmp_path, "loop://", camera=str(uncal))))}
    cal = found["camera calibration"]
    assert cal.verdict == "fail" and "back is not calibrated" in cal.details
    assert found["camera"].verdict == "pass"


def test_felt_no_longer_matching(tmp_path):
    """The camera sees another felt (the blue felt of the `stripes` style) than the green one
    the config was calibrated on."""
    blue = camera_variant(tmp_path, "blue.toml", lambda t: t.replace(
        'perturbations = "clean"', 'perturbations = "clean"\nstyle = "stripes"'))
    found = {f.check: f for f in check_cameras(config(table_toml(tmp_path, "loop://", camera=str(blue))))}
    cal = found["camera calibration"]
    assert cal.verdict == "fail" and "the felt measures" in cal.details, cal.details


def test_a_face_up_card_is_measured_in_its_zone(tmp_path):
    """A zone holding a face-up card: the size of its codes in the frame, in px per module."""
    from firmware_bridge.camera import SyntheticCamera, TableScene
    from firmware_bridge.camera.config import load_camera_config
    from station.doctor.camera import check_scale

    cam = load_camera_config(CAMERA)
    scene = TableScene(cam.layout.zone_names, zone_kinds=cam.layout.zone_kinds, seed=2)
    scene.deal("P3", "7H")
    scene.reveal("P3")
    got = None
    source = SyntheticCamera(scene, cam.layout, seed=1)
    while got is None:
        got = source.read()
    found, _ = check_scale("camera", cam, got[1])
    p3 = next(f for f in found if f.check == "camera zone P3")
    assert p3.data["reading"] == ["7H"]
    # 22 mm of code over 21 modules at 0.30 mm/px: 3.5 px; the decoder's corners within 15%
    assert p3.data["px_per_module_seen"] == pytest.approx(3.49, rel=0.15)


# ---- the machine, the data ----------------------------------------------------------------

def test_disk_nearly_full_by_threshold(tmp_path):
    f = check_disk(tmp_path / "var", min_free_gib=1e9)
    assert f.verdict == "fail" and "needs 1e+09 GiB" in f.details
    assert check_disk(tmp_path / "var", min_free_gib=0.0, min_free_share=0.0).verdict == "pass"


def test_clock_from_what_timedatectl_says():
    assert from_timedatectl("Timezone=UTC\nNTP=yes\nNTPSynchronized=yes\n") is True
    assert from_timedatectl("NTP=no\nNTPSynchronized=no\n") is False
    assert from_timedatectl("") is None


def test_port_taken():
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
        s.listen()
        f = check_port("console", "console", "127.0.0.1", port)
    assert f.verdict == "fail" and f"127.0.0.1:{port}" in f.details and "[console] port" in f.action
    assert check_port("console", "console", "127.0.0.1", port).verdict == "pass"


def test_journal_of_the_table_another_table_and_not_a_journal(tmp_path):
    from station.core.inputs import TraceHeader
    from station.core.journal import Journal

    path = tmp_path / "journal.sqlite"
    assert check_journal(path, "PD-07", "pokdeng").verdict == "pass"  # none yet: made at start
    j = Journal(path, TraceHeader("PD-07", "pokdeng", True, {}, "test"))
    j.close()
    ok = check_journal(path, "PD-07", "pokdeng")
    assert ok.verdict == "pass" and ok.data["quick_check"] == "ok"
    other = check_journal(path, "PD-08", "pokdeng")
    assert other.verdict == "fail" and "is table PD-07" in other.details
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    assert check_journal(junk, "PD-07", "pokdeng").verdict == "fail"


def test_settlement_remote_up_and_down(tmp_path, monkeypatch):
    from station.live.http import serve_app
    from station.settlement.core import SettlementCore
    from station.settlement.service import make_settlement_app

    monkeypatch.setenv("DOCTOR_TEST_SECRET", "s3cret")
    port = free_port()
    remote = f'[settlement]\nmode = "remote"\nurl = "http://127.0.0.1:{port}"\nsecret_env = "DOCTOR_TEST_SECRET"'
    cfg = config(table_toml(tmp_path, "loop://", settlement=remote))
    down = check_settlement(cfg, timeout_s=2)
    assert down.verdict == "fail" and "does not answer" in down.details
    core = SettlementCore(tmp_path / "ledger.sqlite")
    served = serve_app(make_settlement_app(core, "s3cret"), "127.0.0.1", port, name="settlement")
    try:
        up = wait_for(lambda: (f := check_settlement(cfg, timeout_s=2)).verdict == "pass" and f,
                      what="the settlement service to answer")
        assert "answers ok" in up.details
    finally:
        served.stop()
        core.close()


def test_settlement_bus_down(tmp_path):
    bus = f'[settlement]\nmode = "bus"\nurl = "nats://127.0.0.1:{free_port()}"'
    f = check_settlement(config(table_toml(tmp_path, "loop://", settlement=bus)), timeout_s=1)
    assert f.verdict == "fail" and "not reachable" in f.details and "nats-server" in f.action


def test_settlement_embedded_ledger(tmp_path):
    from station.settlement.core import SettlementCore

    cfg = config(table_toml(tmp_path, "loop://"))
    assert check_settlement(cfg).data["exists"] is False
    cfg.data_dir.mkdir(parents=True)
    SettlementCore(cfg.ledger_path).close()
    f = check_settlement(cfg)
    assert f.verdict == "pass" and f.data["exists"] is True
    cfg.ledger_path.write_bytes(b"\0garbage" * 512)
    assert check_settlement(cfg).verdict == "fail"


def test_disk_nearly_full_on_a_real_small_filesystem(tmp_path):
    """A 64 MiB tmpfs as storage.dir: free, then filled to 2 MiB."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mnt)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        assert check_disk(mnt / "var", min_free_gib=0.01).verdict == "pass"
        with open(mnt / "filler", "wb") as f:
            f.write(b"\0" * (62 * 1024 * 1024))
        full = check_disk(mnt / "var", min_free_gib=0.01)
        assert full.verdict == "fail" and full.data["free_bytes"] < 3 * 1024 * 1024
        assert "free space" in full.action
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_settlement_bus_up(tmp_path):
    from station.studio.servers import LocalNats

    server = LocalNats(port=free_port()).start()
    try:
        bus = f'[settlement]\nmode = "bus"\nurl = "{server.url}"'
        f = check_settlement(config(table_toml(tmp_path, "loop://", settlement=bus)), timeout_s=5)
        assert f.verdict == "pass", f.details
        assert "JetStream on" in f.details
    finally:
        server.close()
