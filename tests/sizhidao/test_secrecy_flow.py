"""Secrecy per viewer (PROCEDURE.md §7.10) on the game driven by the recorded traces: after
every input, no record but the owner's own `private` ones, no public view and no other
player's view names a card of a seat before that seat's showdown begins; and the owner's
view shows its own cards from the read on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from station.games.sizhidao.views import player_view, public_view
from tests.sizhidao.expected_check import (
    check_records_keep_secrets,
    check_views_keep_secrets,
    live_secrets,
    tokens,
)
from tests.sizhidao.flow_harness import FlowDriver

TRACES = Path(__file__).parents[1] / "data" / "traces-sizhidao"


@pytest.mark.parametrize("name", ["clean_session", "tie_once", "allin_layers"])
def test_no_card_reaches_anyone_but_its_owner_before_its_showdown(name: str) -> None:
    expected = json.loads((TRACES / name / "expected.json").read_text("utf-8"))
    secrets = expected["secrets"]
    lines = [json.loads(x) for x in (TRACES / name / "trace.jsonl").read_text("utf-8").splitlines()]
    driver = FlowDriver(lines[0])
    accounts = sorted({p["account"] for p in expected["private"]})
    seen_records = 0
    checks = 0
    owner_saw = set()
    revealed = set()
    for obj in lines[1:]:
        if obj.get("end"):
            break
        driver.line(obj)
        t = obj["t"]
        live = live_secrets(secrets, t)
        new = driver.port.records[seen_records:]
        seen_records = len(driver.port.records)
        check_records_keep_secrets(new, secrets)
        shown = [
            s for s in secrets if s["public_t"] is not None and s["public_t"] <= t < s["until_t"]
        ]
        public_now = tokens(public_view(driver.game))
        for s in shown:
            if set(s["cards"]) <= public_now:
                revealed.add((s["deal_id"], s["seat"]))
        if not live:
            continue
        views = {None: public_view(driver.game)}
        views.update({a: player_view(driver.game, a) for a in accounts})
        checks += check_views_keep_secrets(t, views, live, owner_saw)
    assert checks > 1000
    assert len(owner_saw) == len(secrets)
    # the shown-down hands do become public at their showdown (the sweep can see cards)
    assert revealed == {(s["deal_id"], s["seat"]) for s in secrets if s["public_t"] is not None}
