"""`station demo` started again on the data folder of a demo that ran before (README: after a
crash or a stop the station re-applies its journal and carries on): the journal says shoe 1 is
in play, but the shoe simulator comes back from its reboot empty. The floor ends that shoe, a
new one is shuffled and loaded, and the round asked for is settled to a clean ledger (before,
the dealer opened a round on the empty shoe and waited for a card that never came)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.live.demo_process import run_demo

ARGS = ("--rounds", "1", "--speed", "5", "--port", "0", "--seed", "9",
        "--password", "demo-password", "--clock", "virtual")


def _summary(text: str) -> dict:
    return json.loads(text[text.index("{"):])


@pytest.mark.slow
def test_the_demo_carries_on_from_its_journal_on_a_second_start(tmp_path):
    data = tmp_path / "demo"
    code, text, _ = run_demo(*ARGS, "--data", str(data))
    assert code == 0, text
    assert _summary(text)["ledger_check"] == "clean"

    code, text, _ = run_demo(*ARGS, "--data", str(data))
    assert code == 0, text
    summary = _summary(text)
    assert summary["problems"] == [] and summary["ledger_check"] == "clean", summary
    # the shoe the journal held in play could not be dealt from: the floor ended it
    assert ["shoe_not_loaded", "end_shoe"] in summary["decisions"], summary["decisions"]

    db = sqlite3.connect(f"file:{data / 'journal.sqlite'}?mode=ro", uri=True)
    try:
        rows = [json.loads(r) for (r,) in db.execute(
            "SELECT record FROM records WHERE type IN ('shoe_end', 'hand') ORDER BY seq")]
    finally:
        db.close()
    assert [(r["type"], r.get("round_id") or r.get("shoe")) for r in rows] == [
        ("hand", "PD-01-S1-R1"), ("shoe_end", 1), ("hand", "PD-01-S2-R1")], rows
