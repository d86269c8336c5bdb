"""The Si Zhi Dao game (seats, antes, deals, betting, arranging, showdown, layers, buy-ins,
settlement) driven straight from the three recorded traces: every decision it makes equals
the traces' expected outcomes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sizhidao.flow_harness import run_trace

TRACES = Path(__file__).parents[1] / "data" / "traces-sizhidao"
NAMES = ["clean_session", "tie_once", "allin_layers"]


def of(records, type_):
    return [r for r in records if r["type"] == type_]


@pytest.mark.parametrize("name", NAMES)
def test_the_game_decides_as_expected(name: str) -> None:
    expected = json.loads((TRACES / name / "expected.json").read_text("utf-8"))
    records, balances = run_trace(TRACES / name / "trace.jsonl")
    games = of(records, "game_open")
    assert [(g["game_id"], g["leader"], g["players"], g["ante"]) for g in games] == [
        (g["game_id"], g["leader"], g["players"], g["ante"]) for g in expected["games"]
    ]
    deals = {r["deal_id"]: r for r in of(records, "deal_open")}
    for g in expected["games"]:
        for d in g["deals"]:
            did = d["deal_id"]
            assert deals[did]["contestants"] == d["contestants"], did
            assert deals[did]["deal_plan"] == d["deal_plan"], did
            actions = [
                {k: r[k] for k in ("t", "account", "seat", "action", "amount", "total", "auto")}
                for r in of(records, "player_action")
                if r["deal_id"] == did and r["action"] in ("bet", "call", "raise", "fold", "all_in")
            ]
            assert [{**a, "t": round(a["t"], 3)} for a in actions] == d["actions"], did
            shows = [r for r in of(records, "showdown") if r["deal_id"] == did]
            if d["showdown"] is None:
                assert shows == []
            else:
                assert len(shows) == 1 and shows[0]["seats"] == d["showdown"], did
                assert round(shows[0]["t"], 3) == d["showdown_t"], did
            layers = [r for r in of(records, "layers") if r["deal_id"] == did]
            assert len(layers) == 1 and layers[0]["layers"] == d["layers"], did
            buy_ins = [
                {
                    k: v
                    for k, v in r.items()
                    if k not in ("type", "deal_id") and not (k == "auto" and v is False)
                }
                for r in of(records, "buy_in")
                if r["deal_id"] == did
            ]
            assert [{**b, "t": round(b["t"], 3)} for b in buy_ins] == d["buy_ins"], did
        settled = [r for r in of(records, "game_settled") if r["game_id"] == g["game_id"]]
        if g.get("settled"):
            s = g["settled"]
            assert len(settled) == 1
            assert settled[0]["payouts"] == s["payouts"]
            assert settled[0]["pot"] == s["pot"]
            assert settled[0]["bets"] == s["bets"]
    got_private = [
        (round(r["t"], 3), r["deal_id"], r["account"], r["seat"], r["cards"])
        for r in of(records, "private")
    ]
    assert got_private == [
        (p["t"], p["deal_id"], p["account"], p["seat"], p["cards"]) for p in expected["private"]
    ]
    assert [(r["account"], r["seat"]) for r in of(records, "seated")] == [
        (x["account"], x["seat"]) for x in expected["seated"]
    ]
    assert [(r["account"], r["seat"]) for r in of(records, "left")] == [
        (x["account"], x["seat"]) for x in expected["left"]
    ]
    assert of(records, "action_refused") == []
    assert balances == expected["balances"]
