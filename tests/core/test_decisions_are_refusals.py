"""The decisions a screen offers are judged by the checks the table refuses with: for every
game, in the states a table passes through before its first round, each supervisor decision
the console shows as refused is refused by the kernel in the same words, and each it shows
as allowed is taken."""

from __future__ import annotations

import copy

import pytest

from station.core.inputs import Input
from station.core.kernel import TableKernel
from station.core.settings import TableSettings
from station.games.decisions import SUPERVISOR

TABLES = {"pokdeng": "PD-01", "paigow": "WZ-01", "sizhidao": "SZ-01"}


def _answer(k: TableKernel, action: str) -> str | None:
    """What the table says to `action` now, on a copy (None: taken)."""
    probe = copy.deepcopy(k)
    probe.take_outputs()
    probe.apply(Input(probe.now_us + 1, "supervisor", action, user="sup"))
    refused = [r for r in probe.take_outputs()[0] if r["type"] == "action_refused"]
    return refused[0]["reason"] if refused else None


def _check(k: TableKernel) -> list[str]:
    offered = {d["action"]: d for d in k.proc.decisions()}
    seen = []
    for action in SUPERVISOR:
        d = offered[action]
        answer = _answer(k, action)
        assert d["reason"] == answer, (k.state, action, d["reason"], answer)
        assert d["allowed"] == (answer is None), (k.state, action)
        seen.append(f"{k.state}:{action}:{answer}")
    return seen


@pytest.mark.parametrize("game", sorted(TABLES))
def test_the_console_and_the_table_refuse_in_the_same_words(game: str) -> None:
    k = TableKernel(TableSettings(table=TABLES[game], game=game))
    seen = _check(k)  # idle: nothing to cancel, end or confirm
    k.apply(Input(1_000_000, "dealer", "new_shoe"))
    seen += _check(k)  # a new shoe waits for its shuffle check
    assert any(s.endswith(":None") for s in seen), seen  # some decision was taken, too
    assert f"idle:cancel_round:no {k.proc.round_word} in progress" in seen
