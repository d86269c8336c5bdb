"""The README's main command: a whole simulated table — shoe simulator on a pty, synthetic
camera through the real recogniser, scripted dealer, bettors on the bet API, settlement and
the console — runs rounds to a clean ledger, and its console answers while it runs."""

from __future__ import annotations

import json

import pytest

from tests.live.demo_process import run_demo


@pytest.mark.slow
def test_demo_runs_a_table_you_can_watch(tmp_path):
    data = tmp_path / "demo"
    code, text, login_page = run_demo(
        "--rounds", "2", "--speed", "2", "--betting-seconds", "6", "--port", "0",
        "--decide-after", "2", "--seed", "9", "--data", str(data), "--password", "demo-password",
        "--clock", "virtual")
    assert b"password" in login_page.lower()
    assert code == 0, text
    summary = json.loads(text[text.index("{"):])
    assert summary["rounds_settled"] == 2 and summary["ledger_check"] == "clean"
    assert sorted(p.name for p in (data / "frames").iterdir()) == ["PD-01-S1-R1.png",
                                                                     "PD-01-S1-R2.png"]
    # the round's evidence pack holds the frame kept at validation, its zones drawn
    import subprocess
    import sys
    import zipfile

    import cv2
    import numpy as np

    from firmware_bridge.camera.overlay import ZONE_COLOUR

    kept = sorted(p.stem for p in (data / "frames").iterdir())[0]
    pack = tmp_path / "R1.zip"
    # the demo's key is named as a table's is: its key file beside its data folder
    key_file = tmp_path / "demo.journal_key"
    p = subprocess.run([sys.executable, "-m", "station", "dispute", kept, "--data",
                        str(data), "--key-file", str(key_file), "--out", str(pack)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["replay_equal"] is True
    with zipfile.ZipFile(pack) as z:
        png = z.read(f"frames/{kept}.png")
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert (img == np.array(ZONE_COLOUR, np.uint8)).all(axis=2).sum() > 500
    traces = sorted((data / "traces").glob("PD-01-S1-*.jsonl"))
    assert traces, "the shoe was not recorded as a trace"
    # the recorded shoe replays through the same core to the same hands
    from station.core.replay import replay_records

    hands = [r["round_id"] for r in replay_records(traces[0]) if r["type"] == "hand"]
    assert hands == ["PD-01-S1-R1", "PD-01-S1-R2"]
