"""The decisions the console offers are the ones the table takes: checked against the table
core itself, at every step of recorded shoes, by trying each action on a copy of the core."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from station.console.decisions import decisions
from station.core.inputs import Input, read_trace
from station.core.kernel import TableKernel as TableCore
from station.core.replay import settings_from_header
from station.core.view import public_view

TRACES = Path(__file__).resolve().parents[1] / "data" / "traces"
#: what the view cannot see: whether a fault's condition still holds, whether the camera
#: still sees cards in the zones (docs: station/console/decisions.py)
VIEW_BLIND = {"resume", "open_betting"}


def refused(core: TableCore, action: str, t_us: int) -> bool:
    trial = copy.deepcopy(core)
    kind = "dealer" if action in ("new_shoe", "open_betting") else "supervisor"
    trial.apply(Input(t_us, kind, action, None if kind == "dealer" else "sup1"))
    records, _, _ = trial.take_outputs()
    return any(r["type"] == "action_refused" for r in records)


@pytest.mark.parametrize("trace", ["order_fault", "mismatch_cancel", "clean_shoe"])
def test_offered_decisions_are_what_the_table_takes(trace: str) -> None:
    header, inputs = read_trace(TRACES / trace / "trace.jsonl")
    core = TableCore(settings_from_header(header))
    seen: dict[tuple[str, bool], int] = {}
    for i, inp in enumerate(inputs):
        if inp.kind == "end":
            break
        core.apply(inp)
        core.take_outputs()
        if i % 25 and inp.kind not in ("dealer", "supervisor"):
            continue  # every decision point, and a sample of the rest
        view = public_view(core)
        for d in decisions(view):
            table_refuses = refused(core, d["action"], inp.t_us)
            seen[(d["action"], d["allowed"])] = seen.get((d["action"], d["allowed"]), 0) + 1
            if d["action"] in VIEW_BLIND and d["allowed"]:
                continue  # offered: the table may still refuse, and says why
            assert d["allowed"] == (not table_refuses), (trace, i, view["state"], view["phase"], d)
            assert d["effect"]
            assert d["allowed"] or d["reason"]
    # the walk saw both sides of the main decisions
    for action in ("open_betting", "cancel_round", "end_shoe"):
        assert seen.get((action, True)) and seen.get((action, False)), (action, seen)


def test_a_healthy_round_says_what_cancel_does_and_end_shoe_is_not_offered() -> None:
    header, inputs = read_trace(TRACES / "clean_shoe" / "trace.jsonl")
    core = TableCore(settings_from_header(header))
    for inp in inputs:
        core.apply(inp)
        core.take_outputs()
        if core.proc.round is not None and core.proc.round.bets:
            break
    by = {d["action"]: d for d in decisions(public_view(core))}
    assert by["cancel_round"]["allowed"]
    assert "although nothing is wrong with it" in by["cancel_round"]["effect"]
    assert "refunded" in by["cancel_round"]["effect"]
    assert not by["end_shoe"]["allowed"] and "round is in progress" in by["end_shoe"]["reason"]
    assert not by["resume"]["allowed"] and by["resume"]["reason"] == "the table is not paused"
