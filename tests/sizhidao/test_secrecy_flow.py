"""Secrecy per viewer (PROCEDURE.md §7.10) on the game driven by the recorded traces: after
every input, no record but the owner's own `private` ones, no public view and no other
player's view names a card of a seat before that seat's showdown begins; and the owner's
view shows its own cards from the read on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from station.games.sizhidao.views import player_view, public_view
from tests.sizhidao.flow_harness import FlowDriver

TRACES = Path(__file__).parents[1] / "data" / "traces-sizhidao"


def tokens(obj) -> set[str]:
    out: set[str] = set()

    def walk(x):
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, list | tuple):
            for v in x:
                walk(v)

    walk(obj)
    return out


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
        live = [
            s
            for s in secrets
            if s["from_t"] <= t
            and (s["public_t"] is None or t < s["public_t"])
            and t < s["until_t"]
        ]
        new = driver.port.records[seen_records:]
        seen_records = len(driver.port.records)
        for rec in new:
            for s in secrets:
                public = s["public_t"] is not None and rec["t"] >= s["public_t"]
                if not (s["from_t"] <= rec["t"] < s["until_t"]) or public:
                    continue
                if rec["type"] == "private" and rec["account"] == s["account"]:
                    continue
                assert not set(s["cards"]) & tokens(rec), (rec, s["seat"])
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
        for s in live:
            for viewer, view in views.items():
                named = set(s["cards"]) & tokens(view)
                if viewer == s["account"]:
                    if named:
                        owner_saw.add((s["deal_id"], s["seat"]))
                    continue
                assert not named, (t, viewer, s["seat"], s["deal_id"])
                checks += 1
    assert checks > 1000
    assert len(owner_saw) == len(secrets)
    # the shown-down hands do become public at their showdown (the sweep can see cards)
    assert revealed == {(s["deal_id"], s["seat"]) for s in secrets if s["public_t"] is not None}
