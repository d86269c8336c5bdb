"""`station demo --game paigow`: a whole simulated Wenzhou Pai Gow table — the shoe
simulator with the 32-card deck on a pty, the synthetic camera rendering the doors and the dice
tray through the real recogniser and dice reader, the scripted Pai Gow dealer, bettors on the
six spots through the bet API, settlement into the ledger — runs rounds to a clean ledger; its
recorded shuffles replay through the kernel to the same hands."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from station.core.replay import replay_records
from tests.live.demo_process import run_demo


def run_paigow_demo(tmp_path, *extra: str, rounds: int = 3) -> tuple[dict, str]:
    data = tmp_path / "demo"
    code, text, _ = run_demo(
        "--game", "paigow", "--rounds", str(rounds),
        "--speed", "3", "--betting-seconds", "5", "--port", "0", "--decide-after", "1",
        "--seed", "9", "--data", str(data), "--password", "demo-password", "--clock", "virtual",
        *extra)
    assert code == 0, text
    assert "WZ-01 (Wenzhou Pai Gow)" in text
    return json.loads(text[text.index("{"):]), str(data)


@pytest.mark.slow
def test_the_pai_gow_demo_runs_rounds_to_a_clean_ledger(tmp_path) -> None:
    summary, data = run_paigow_demo(tmp_path)
    assert summary["rounds_settled"] == 3 and summary["ledger_check"] == "clean"
    assert summary["problems"] == [] and summary["bets"]["accepted"] > 0
    from pathlib import Path

    frames = sorted(p.name for p in (Path(data) / "frames").iterdir())
    assert frames[:3] == ["WZ-01-S1-R1.png", "WZ-01-S1-R2.png", "WZ-01-S2-R1.png"]
    traces = sorted((Path(data) / "traces").glob("WZ-01-S1-*.jsonl"))
    assert traces, "the shuffle was not recorded as a trace"
    records = replay_records(traces[0])
    hands = [r for r in records if r["type"] == "hand"]
    assert [h["round_id"] for h in hands] == ["WZ-01-S1-R1", "WZ-01-S1-R2"]
    assert all(h["validated_by"] == ["shoe", "camera"] for h in hands)
    # the dice were known by the dealer's entry and the camera's tray together
    assert [d["round_id"] for d in records if d["type"] == "dice"] == ["WZ-01-S1-R1", "WZ-01-S1-R2"]
    assert [(e["rounds"], e["cards_out"]) for e in records if e["type"] == "shoe_end"] == [(2, 16)]


@pytest.mark.slow
def test_the_pai_gow_demo_puts_right_a_mistyped_die_and_a_card_on_the_wrong_door(tmp_path) -> None:
    summary, _ = run_paigow_demo(tmp_path, "--faults", "mistype_dice,misplace", "--fault-rate", "0.6",
                                   rounds=3)
    assert summary["rounds_settled"] == 3 and summary["ledger_check"] == "clean"
    kinds = {k for k, _ in summary["decisions"]}
    assert kinds & {"dice_mismatch", "order"}, summary["decisions"]
    assert all(d == "resume" for k, d in summary["decisions"] if k in ("dice_mismatch", "order"))


def test_an_unknown_fault_for_the_game_is_refused(tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "station", "demo", "--game", "paigow", "--faults",
                           "early_turn", "--data", str(tmp_path / "d")], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "early_turn" in proc.stderr
