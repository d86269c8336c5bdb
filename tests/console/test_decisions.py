"""The decisions the table offers (`Procedure.decisions`, carried by the public view and
shown by the console) are exactly the ones it takes: checked against the table kernel
itself, at every step of recorded sessions of each game, by trying each action on a copy
of the kernel."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from station.console.decisions import decisions
from station.core.inputs import Input, read_trace
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.core.view import public_view

DATA = Path(__file__).resolve().parents[1] / "data"
DEALER = ("new_shoe", "open_betting", "dice")


def refused(core: TableKernel, action: str, t_us: int) -> bool:
    """Whether the table refuses the action now (raises when the kernel itself fails)."""
    trial = copy.deepcopy(core)
    kind = "dealer" if action in DEALER else "supervisor"
    extra = {"dice": [3, 4]} if action == "dice" else {}
    trial.apply(Input(t_us, kind, action, None if kind == "dealer" else "sup1", extra))
    records, _, _ = trial.take_outputs()
    return any(r["type"] == "action_refused" for r in records)


# a whole clean shoe and the long cancelled one are slow: each decision is tried on a copy of
# the kernel at every step (the shorter traces of each game stay in --quick)
SLOW = pytest.mark.slow
CASES = [("traces", "order_fault"), pytest.param("traces", "mismatch_cancel", marks=SLOW),
         pytest.param("traces", "clean_shoe", marks=SLOW), ("traces", "degraded_no_camera"),
         ("traces-paigow", "clean"), ("traces-paigow", "dice_mismatch_resume"),
         ("traces-paigow", "degraded_no_camera"),
         ("traces-sizhidao", "tie_once"), ("traces-sizhidao", "allin_layers")]


@pytest.mark.parametrize("folder,trace", CASES)
def test_offered_decisions_are_what_the_table_takes(folder: str, trace: str) -> None:
    header, inputs = read_trace(DATA / folder / trace / "trace.jsonl")
    core = TableKernel(settings_from_header(header))
    seen: dict[tuple[str, bool], int] = {}
    allowed_in: set[tuple[str, str]] = set()  # (action, table state) offered and taken
    for i, inp in enumerate(inputs):
        if inp.kind == "end":
            break
        core.apply(inp)
        core.take_outputs()
        if i % 7 and inp.kind not in ("dealer", "supervisor", "player"):
            continue  # every decision point, and a sample of the rest
        view = public_view(core)
        offered = decisions(view)
        assert [d["action"] for d in offered][:2] == ["new_shoe", "open_betting"]
        for d in offered:
            # the kernel never fails a decision: an exception here would stop the table's core
            table_refuses = refused(core, d["action"], inp.t_us)
            if d["allowed"]:
                allowed_in.add((d["action"], view["state"]))
            seen[(d["action"], d["allowed"])] = seen.get((d["action"], d["allowed"]), 0) + 1
            assert d["allowed"] == (not table_refuses), (trace, i, view["state"], view["phase"], d)
            assert d["effect"]
            assert d["allowed"] or d["reason"]
            assert d["role"] in ("dealer", "supervisor", None)
    # the walk saw both sides of the main decisions
    both = ("open_betting", "cancel_round", "confirm_shuffle") if header.game == "sizhidao" \
        else ("open_betting", "cancel_round", "end_shoe", "new_shoe")
    for action in both:
        assert seen.get((action, True)) and seen.get((action, False)), (action, seen)
    if header.game == "paigow":
        assert seen.get(("dice", True)) and seen.get(("dice", False)), seen
    if header.game == "sizhidao":
        # a game open while its next deal's deck is shuffled can be voided (PROCEDURE.md §7.9)
        assert ("cancel_round", "shuffling") in allowed_in, sorted(allowed_in)


def test_a_healthy_round_says_what_cancel_does_and_end_shoe_is_not_offered() -> None:
    header, inputs = read_trace(DATA / "traces" / "clean_shoe" / "trace.jsonl")
    core = TableKernel(settings_from_header(header))
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


def test_a_pot_game_speaks_of_games_and_says_who_can_pay_the_ante() -> None:
    header, inputs = read_trace(DATA / "traces-sizhidao" / "tie_once" / "trace.jsonl")
    core = TableKernel(settings_from_header(header))
    before_open: dict | None = None
    for inp in inputs:
        if inp.kind == "dealer" and inp.value == "open_betting" and before_open is None:
            before_open = {d["action"]: d for d in decisions(public_view(core))}
        core.apply(inp)
        core.take_outputs()
        if core.proc.sz.game is not None and core.proc.sz.deal() is not None:
            break
    assert before_open is not None and before_open["open_betting"]["allowed"]
    assert "ante" in before_open["open_betting"]["effect"]
    by = {d["action"]: d for d in decisions(public_view(core))}
    assert not by["open_betting"]["allowed"] and by["open_betting"]["reason"] == "a game is in progress"
    assert by["cancel_round"]["allowed"] and "every ante, bet and buy-in refunded" in by["cancel_round"]["effect"]
    assert by["close_table"]["reason"] == "a game is in progress"
