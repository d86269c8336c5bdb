"""The console's API over a live Pai Gow and a live Si Zhi Dao table fed recorded traces:
which panel each gets, the game's decisions with their reasons, Pai Gow's bead road per door
and the banker's hands, Si Zhi Dao's results history, the rounds list and recall of both, a
game cancelled through the console."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest


def _view(sup, name: str) -> dict[str, Any]:
    return sup.get(f"/api/tables/{name}").json()


def test_pai_gow_panel_roads_banker_history_rounds_and_recall(make_table, serve) -> None:
    table = make_table("traces-paigow/clean")
    con = serve(table)
    sup = con.client("sup1")
    exp = table.expected
    table.feed_until_view(lambda v: (v.get("round") or {}).get("betting_open") is True)
    v = _view(sup, "WZ-01")
    assert v["panel"] == "paigow" and v["game"] == "paigow"
    by = {d["action"]: d for d in v["decisions"]}
    assert [d["action"] for d in v["decisions"]] == [
        "new_shoe", "open_betting", "dice", "confirm_shuffle", "resume", "cancel_round",
        "end_shoe", "close_table"]
    # the dice entry is the dealer's (the Pai Gow panel's dice control sends it)
    assert by["dice"]["role"] == "dealer" and not by["dice"]["allowed"]
    assert "betting is still open" in by["dice"]["reason"]
    assert by["open_betting"]["role"] == "dealer" and by["open_betting"]["reason"] == "a round is in progress"
    assert by["cancel_round"]["role"] == "supervisor" and by["cancel_round"]["allowed"]
    # no door has a card before the deal, and the round says how many are out
    assert all(d["cards"] is None for d in v["round"]["doors"].values())
    # after the close, before the dice: the dealer's entry is awaited
    v = table.feed_until_view(lambda v: (v.get("round") or {}).get("betting_open") is False)
    assert {d["action"]: d for d in v["decisions"]}["dice"]["allowed"] in (True, False)
    table.feed()
    hands = exp["hands"]

    body = sup.get("/api/tables/WZ-01/roads").json()
    assert body["panel"] == "paigow" and body["rounds"] == len(hands) == 6
    assert list(body["roads"]) == ["SHUN", "CHU", "DAO"]
    for door, rd in body["roads"].items():
        assert [(b["round_id"], b["outcome"], b["hand"], b["points"]) for b in rd["beads"]] == [
            (h["round_id"], h["results"][door]["outcome"], h["results"][door]["hand"],
             h["results"][door]["points"]) for h in hands]
        assert rd["svg"].count('class="bead ') == len(hands)
    assert [(b["round_id"], b["cards"], b["hand"], b["points"]) for b in body["banker"]] == [
        (h["round_id"], h["cards"]["BANKER"], h["results"]["BANKER"]["hand"],
         h["results"]["BANKER"]["points"]) for h in reversed(hands)]
    for b, h in zip(body["banker"], reversed(hands), strict=True):
        assert b["beat"] == [d for d in ("SHUN", "CHU", "DAO") if h["results"][d]["outcome"] == "lose"]
    # one shuffle's roads when asked
    two = sup.get("/api/tables/WZ-01/roads", params={"shoe": "2"}).json()
    assert two["rounds"] == 2 and [b["round_id"] for b in two["roads"]["SHUN"]["beads"]] == [
        "WZ-01-S2-R1", "WZ-01-S2-R2"]

    rounds = sup.get("/api/tables/WZ-01/rounds").json()["rounds"]
    assert [x["round_id"] for x in rounds] == [h["round_id"] for h in reversed(hands)]
    first = rounds[-1]
    assert first["results"] == {"BANKER": hands[0]["results"]["BANKER"]["hand"],
                                **{d: hands[0]["results"][d]["outcome"] for d in ("SHUN", "CHU", "DAO")}}
    rec = sup.get(f"/api/tables/WZ-01/rounds/{hands[3]['round_id']}").json()
    assert rec["cards"] == hands[3]["cards"] and rec["results"] == hands[3]["results"]
    assert rec["dice"] == hands[3]["dice"] and rec["first_door"] == hands[3]["first_door"]
    settled = exp["settlements"][3]
    assert rec["totals"]["bets"] == len(settled["bets"])
    # the view of the round just settled carries its hand
    v = _view(sup, "WZ-01")
    assert v["result"]["round_id"] == hands[-1]["round_id"] and v["result"]["cards"] == hands[-1]["cards"]


def test_pai_gow_without_a_camera_shows_the_doors_once_the_hand_is_validated(make_table, serve) -> None:
    table = make_table("traces-paigow/degraded_no_camera")
    con = serve(table)
    sup = con.client("sup1")
    hand1 = table.expected["hands"][0]
    v = table.feed_until_view(lambda v: (v.get("round") or {}).get("cards_dealt", 0) >= 7)
    assert v["degraded"] and all(d["cards"] is None for d in v["round"]["doors"].values())
    assert not _view(sup, "WZ-01")["result"]
    table.feed_until_view(lambda v: v.get("rounds_settled", 0) >= 1)
    v = _view(sup, "WZ-01")
    assert v["result"]["cards"] == hand1["cards"] and v["result"]["validated_by"] == ["shoe"]


def test_si_zhi_dao_results_history_rounds_and_recall(make_table, serve) -> None:
    table = make_table("traces-sizhidao/tie_once")
    con = serve(table)
    sup = con.client("sup1")
    exp = table.expected
    table.feed_until_view(lambda v: bool((v.get("sizhidao") or {}).get("game")))
    v = _view(sup, "SZ-01")
    assert v["panel"] == "sizhidao"
    assert "dice" not in {d["action"] for d in v["decisions"]}
    # a game in progress is not over: no recall yet
    r = sup.get("/api/tables/SZ-01/rounds/SZ-01-G1")
    assert r.status_code == 404 and "not over" in r.json()["error"]
    r = sup.get("/api/tables/SZ-01/rounds/SZ-01-S1-R1")
    assert r.status_code == 400 and "SZ-01-G3" in r.json()["error"]
    table.feed()
    body = sup.get("/api/tables/SZ-01/roads").json()
    assert body["panel"] == "sizhidao" and body["roads"] == {}
    want = []
    for g in reversed(exp["games"]):
        seat_of = {a: s for s, a in g["players"].items()}
        want.append({"game_id": g["game_id"], "status": "settled", "pot": g["settled"]["pot"],
                     "tie_rounds": len(g["deals"]) - 1, "players": len(g["players"]),
                     "winners": [{"seat": seat_of[a], "account": a, "amount": n}
                                 for a, n in g["settled"]["payouts"].items()]})
    got = [{k: x[k] for k in ("game_id", "status", "pot", "tie_rounds", "players", "winners")}
           for x in body["results"]]
    assert got == want
    # the view's own results history agrees
    hist = _view(sup, "SZ-01")["sizhidao"]["history"]
    assert [(h["game_id"], h["pot"], h["tie_rounds"]) for h in hist] == [
        (w["game_id"], w["pot"], w["tie_rounds"]) for w in reversed(want)]
    rounds = sup.get("/api/tables/SZ-01/rounds").json()["rounds"]
    assert [(x["round_id"], x["status"], x["pot"]) for x in rounds] == [
        (g["game_id"], "settled", g["settled"]["pot"]) for g in reversed(exp["games"])]
    g1 = exp["games"][0]
    rec = sup.get("/api/tables/SZ-01/rounds/SZ-01-G1").json()
    assert rec["status"] == "settled" and rec["players"] == g1["players"]
    assert rec["payouts"] == g1["settled"]["payouts"] and rec["tie_rounds"] == len(g1["deals"]) - 1
    for d, e in zip(rec["deals"], g1["deals"], strict=True):
        assert d["deal_id"] == e["deal_id"] and d["contestants"] == e["contestants"]
        assert d["showdown"] == e["showdown"] and d["layers"] == e["layers"]
        assert [{**{k: v for k, v in b.items() if k != "deal_id" and not (k == "auto" and v is False)},
                 "t": round(b["t"], 3)} for b in d["buy_ins"]] == e["buy_ins"]


def test_a_si_zhi_dao_game_cancelled_through_the_console(make_table, serve) -> None:
    table = make_table("traces-sizhidao/tie_once")
    con = serve(table)
    sup = con.client("sup1")
    v = table.feed_until_view(lambda v: ((((v.get("sizhidao") or {}).get("game") or {}).get("deal")
                                          or {}).get("phase")) == "betting")
    by = {d["action"]: d for d in v["decisions"]}
    assert by["cancel_round"]["allowed"]
    table.at(table.inputs[table.pos].t_us / 1e6)
    r = con.act(sup, "SZ-01", "cancel_round")
    assert r.status_code == 200, r.text
    assert "round_cancelled" in r.json()["records"]
    after = r.json()["view"]
    assert after["sizhidao"]["game"] is None
    assert after["sizhidao"]["history"][-1]["cancelled"] == "supervisor"
    body = sup.get("/api/tables/SZ-01/roads").json()
    [res] = body["results"]
    assert res["status"] == "cancelled" and res["reason"] == "supervisor" and res["pot"] > 0
    rec = sup.get("/api/tables/SZ-01/rounds/SZ-01-G1").json()
    assert rec["status"] == "cancelled" and rec["cancelled"]["reason"] == "supervisor"
    # who cancelled it: the audit log, beside the game's records
    assert [(a["user"], a["action"], a["outcome"]) for a in rec["audit"]] == [
        ("sup1", "cancel_round", "done")]
    assert sum(b["amount"] for b in rec["bets"]) == res["pot"]


def _journal_lines(path: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [json.loads(x) for (x,) in conn.execute("SELECT line FROM inputs ORDER BY seq")]
    finally:
        conn.close()


def _post(con, c, body: Any) -> Any:
    return c.post("/api/tables/WZ-01/actions", json=body, headers={"X-CSRF-Token": c.csrf})


BAD_DICE = [
    {"action": "dice"},  # no faces
    {"action": "dice", "dice": None},
    {"action": "dice", "dice": [4]},
    {"action": "dice", "dice": [4, 5, 6]},
    {"action": "dice", "dice": [0, 4]},
    {"action": "dice", "dice": [4, 7]},
    {"action": "dice", "dice": ["4", "5"]},
    {"action": "dice", "dice": [True, 4]},
    {"action": "dice", "dice": [4.0, 5]},
    {"action": "dice", "dice": {"a": 4, "b": 5}},
    {"action": "dice", "dice": "4,5"},
]


@pytest.mark.parametrize("entered", ["trace's faces", "corrected after refusals"])
def test_the_dealer_enters_the_pai_gow_dice_from_the_console(make_table, serve, entered) -> None:
    table = make_table("traces-paigow/clean")
    con = serve(table)
    dealer, sup = con.client("dealer1"), con.client("sup1")
    # the trace's own dice line is not fed: the dealer enters it through the console
    line = table.feed(lambda inp: inp.kind == "dealer" and inp.value == "dice")
    assert line is not None and line.extra["dice"]
    table.pos += 1
    table.at(line.t_us / 1e6)
    v = _view(sup, "WZ-01")
    assert {d["action"]: d for d in v["decisions"]}["dice"]["allowed"]
    journal = table.station.journal.path
    before = _journal_lines(journal)
    audit_before = len(con.console.audit.entries(table="WZ-01"))
    bad = [*BAD_DICE, {"action": "dice", "dice": [4, 5], "user": "x"},
           {"action": "open_betting", "dice": [4, 5]}]
    if entered == "corrected after refusals":
        for body in bad:
            r = _post(con, dealer, body)
            assert r.status_code == 400, (body, r.text)
            assert "dice" in r.json()["error"] or "unknown fields" in r.json()["error"], r.json()
        assert _journal_lines(journal) == before  # nothing reached the table
        assert len(con.console.audit.entries(table="WZ-01")) == audit_before
        # a supervisor may not enter the dice: 403 (kept as a forbidden attempt), nothing
        # submitted either
        assert _post(con, sup, {"action": "dice", "dice": line.extra["dice"]}).status_code == 403
        assert _journal_lines(journal) == before
    r = _post(con, dealer, {"action": "dice", "dice": line.extra["dice"]})
    assert r.status_code == 200, r.text
    assert r.json()["outcome"] == "done"
    dealer_lines = [x for x in _journal_lines(journal)[len(before):] if "dealer" in x]
    assert dealer_lines == [{"t": dealer_lines[0]["t"], "dealer": "dice", "dice": line.extra["dice"]}]
    (entry, *_) = con.console.audit.entries(table="WZ-01")
    assert (entry["user"], entry["role"], entry["action"], entry["outcome"]) == (
        "dealer1", "dealer", "dice", "done")
    assert entry["round_id"] == "WZ-01-S1-R1"
    # a second entry once the dice are known is the table's refusal (409), journaled
    table.feed(lambda inp: inp.kind == "shoe" and "CARD" in str(inp.value))
    again = _post(con, dealer, {"action": "dice", "dice": line.extra["dice"]})
    assert again.status_code == 409 and again.json()["reason"] == "dice_known"
    # the round goes on: the doors are dealt from the dice, the hand as recorded
    table.feed()
    hands = table.station.journal.records_of_type("hand")
    exp = table.expected["hands"]
    assert [(h["round_id"], h["dice"], h["first_door"], h["cards"]) for h in hands] == [
        (h["round_id"], h["dice"], h["first_door"], h["cards"]) for h in exp]
