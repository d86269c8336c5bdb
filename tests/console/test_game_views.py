"""The public view's game parts the console draws, on the table kernel: a Pai Gow door is in
the view only once the camera has confirmed it, with its hand and points; a Si Zhi Dao deal
says which deal of the game it is and who bought into it."""

from __future__ import annotations

import json
from pathlib import Path

from station.core.inputs import read_trace
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.core.view import public_view
from tests.console.test_secrecy import PaiGowOracle

DATA = Path(__file__).resolve().parents[1] / "data"


def test_a_pai_gow_door_is_shown_once_confirmed_with_its_hand_and_points() -> None:
    folder = DATA / "traces-paigow" / "clean"
    expected = json.loads((folder / "expected.json").read_text())
    header, inputs = read_trace(folder / "trace.jsonl")
    kernel = TableKernel(settings_from_header(header))
    oracle = PaiGowOracle(expected, float(header.settings.get("betting_seconds", 15)), True)
    hands = {h["round_id"]: h for h in expected["hands"]}
    seen_waiting = seen_shown = 0
    for inp in inputs:
        kernel.apply(inp)
        kernel.take_outputs()
        if inp.kind == "end":
            break
        oracle.feed(inp)
        r = public_view(kernel)["round"]
        if r is None:
            continue
        h = hands[r["round_id"]]
        for door, d in r["doors"].items():
            assert d["dealt"] == r["dealt"][door]
            if d["confirmed"]:
                assert oracle.cur is not None and door in oracle.cur["confirmed"], (inp.t, door)
                assert d["cards"] == h["cards"][door]
                assert (d["hand"], d["points"]) == (h["results"][door]["hand"], h["results"][door]["points"])
                assert r["revealed"][door] == d["cards"]
                seen_shown += 1
            else:
                assert d["cards"] is None and d["hand"] is None and door not in r["revealed"]
                seen_waiting += d["dealt"] > 0
        if r["finished"]:
            assert all(d["confirmed"] for d in r["doors"].values())
        if r["dice"] is not None:
            assert r["dice_entry"] == r["dice"] and sorted(r["dice_tray"]) == sorted(r["dice"])
    assert seen_waiting > 20 and seen_shown > 100


def test_a_si_zhi_dao_deal_says_its_number_and_buy_ins() -> None:
    folder = DATA / "traces-sizhidao" / "tie_once"
    expected = json.loads((folder / "expected.json").read_text())
    header, inputs = read_trace(folder / "trace.jsonl")
    kernel = TableKernel(settings_from_header(header))
    deals: dict[str, dict] = {}
    for inp in inputs:
        kernel.apply(inp)
        kernel.take_outputs()
        if inp.kind == "end":
            break
        g = public_view(kernel)["sizhidao"]["game"]
        if g and g["deal"]:
            deals[g["deal"]["deal_id"]] = {**g["deal"], "tie_rounds": g["tie_rounds"]}
    for game in expected["games"]:
        for n, d in enumerate(game["deals"], 1):
            got = deals[d["deal_id"]]
            assert got["number"] == n and got["tie_rounds"] == n - 1
            assert got["buy_ins"] == {b["seat"]: b["amount"] for b in d["buy_ins"] if "amount" in b}
