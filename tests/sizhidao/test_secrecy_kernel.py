"""The secrecy sweep on the table kernel (PROCEDURE.md §7.10): the three recorded traces are
applied input by input, and after each one the console's public view (the dealer's and the
supervisor's too), every player's view and every record made so far are searched for the
cards of each seat whose showdown has not begun. Only the owner's view and its own `private`
records may name them; the owner's view does, from the read on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from station.core.inputs import read_trace
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.core.view import public_view
from station.games.sizhidao.views import player_view
from tests.sizhidao.expected_check import (
    check_records_keep_secrets,
    check_views_keep_secrets,
    live_secrets,
)

TRACES = Path(__file__).parents[1] / "data" / "traces-sizhidao"


@pytest.mark.parametrize("name", ["clean_session", "tie_once", "allin_layers"])
def test_no_viewer_but_the_owner_sees_a_card_before_its_showdown(name: str) -> None:
    expected = json.loads((TRACES / name / "expected.json").read_text("utf-8"))
    secrets = expected["secrets"]
    header, inputs = read_trace(TRACES / name / "trace.jsonl")
    kernel = TableKernel(settings_from_header(header))
    accounts = sorted({p["account"] for p in expected["private"]})
    records: list[dict] = []
    checks, owner_saw = 0, set()
    for inp in inputs:
        kernel.apply(inp)
        made, _messages, _commands = kernel.take_outputs()
        records.extend(made)
        t = inp.t_us / 1e6
        live = live_secrets(secrets, t)
        if not live:
            continue
        timers = {n: us / 1e6 for n, us in kernel.timers.items()}
        views = {None: public_view(kernel)}
        views.update({a: player_view(kernel.proc.sz, a, timers) for a in accounts})
        checks += check_views_keep_secrets(t, views, live, owner_saw)
    assert checks > 1000
    assert len(owner_saw) == len(secrets)
    assert check_records_keep_secrets(records, secrets) > 100
