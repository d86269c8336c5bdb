"""`station settle --game pokdeng`: the 17 seed examples and the recorded traces through the
real command line (a subprocess), and every kind of bad line."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from station.commands.settle import settle_lines, settler

DATA = Path(__file__).parents[1] / "data"
EXAMPLES = json.loads((DATA / "rules" / "pokdeng_examples.json").read_text("utf-8"))["examples"]
TRACES = DATA / "traces"
ROOT = Path(__file__).parents[2]


def station_settle(stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "station", "settle", "--game", "pokdeng"],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )


def example_round(ex: dict) -> dict:
    return {
        "round_id": ex["id"],
        "cards": {ex["position"]: ex["player"], "B": ex["banker"]},
        "bets": [{"account": "a1", "spot": ex["spot"], "amount": ex["amount"]}],
    }


def test_the_seventeen_seed_examples_through_the_command_line() -> None:
    stdin = "".join(json.dumps(example_round(ex)) + "\n" for ex in EXAMPLES).encode()
    proc = station_settle(stdin)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b""
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(answers) == 17
    for ex, ans in zip(EXAMPLES, answers, strict=True):
        assert ans["round_id"] == ex["id"]
        assert set(ans["results"]) == {ex["position"]}
        res = ans["results"][ex["position"]]
        assert res["rank"] == ex["player_rank"], ex["id"]
        if "outcome" in ex:
            assert (res["outcome"], res["multiplier"]) == (ex["outcome"], ex["multiplier"]), ex["id"]
        else:
            assert res["pair"] is True
        assert ans["bets"] == [
            {"account": "a1", "spot": ex["spot"], "amount": 100, "deducted": ex["deducted"], "returned": ex["returned"]}
        ], ex["id"]


def test_the_recorded_traces_through_the_command_line() -> None:
    rounds, want = [], []
    for expected in sorted(TRACES.glob("*/expected.json")):
        doc = json.loads(expected.read_text("utf-8"))
        hands = {h["round_id"]: h for h in doc["hands"]}
        for s in doc["settlements"]:
            h = hands[s["round_id"]]
            bets = [{k: b[k] for k in ("account", "spot", "amount")} for b in s["bets"]]
            rounds.append({"round_id": s["round_id"], "cards": h["cards"], "bets": bets})
            want.append((h["results"], s["bets"]))
    assert len(rounds) > 50
    proc = station_settle("".join(json.dumps(r) + "\n" for r in rounds).encode())
    assert proc.returncode == 0, proc.stderr.decode()[:2000]
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(answers) == len(rounds)
    for ans, (results, bets) in zip(answers, want, strict=True):
        got = {p: {k: r[k] for k in ("outcome", "multiplier", "pair")} for p, r in ans["results"].items()}
        assert got == results
        assert ans["bets"] == bets


def test_output_shape_for_a_full_table() -> None:
    line = {
        "cards": {"P1": ["AD", "KD"], "P2": ["10h", "q♥"], "P3": ["4c", "4s"], "P4": ["9C", "2D"], "P5": ["7S", "TC"], "B": ["6S", "4H"]},
        "bets": [
            {"account": "a1", "spot": "P1", "amount": 100},
            {"account": "a1", "spot": "P1PAIR", "amount": 100},
            {"account": "b2", "spot": "P3PAIR", "amount": 7, "note": "kept as given"},
        ],
    }
    proc = station_settle((json.dumps(line) + "\n").encode())
    assert proc.returncode == 0, proc.stderr.decode()
    ans = json.loads(proc.stdout)
    assert ans["results"]["P1"] == {"outcome": "win", "multiplier": 1, "pair": False, "rank": 7.5, "class": "lion_flush"}
    assert ans["results"]["P2"] == {"outcome": "win", "multiplier": 1, "pair": False, "rank": 7.2, "class": "ten_royal"}
    assert ans["results"]["P3"] == {"outcome": "win", "multiplier": 2, "pair": True, "rank": 8, "class": "points"}
    assert ans["results"]["P4"] == {"outcome": "win", "multiplier": 1, "pair": False, "rank": 1, "class": "points"}
    assert ans["results"]["P5"] == {"outcome": "win", "multiplier": 1, "pair": False, "rank": 7, "class": "points"}
    assert ans["bets"] == [
        {"account": "a1", "spot": "P1", "amount": 100, "deducted": 200, "returned": 300},
        {"account": "a1", "spot": "P1PAIR", "amount": 100, "deducted": 100, "returned": 0},
        {"account": "b2", "spot": "P3PAIR", "amount": 7, "note": "kept as given", "deducted": 7, "returned": 84},
    ]
    assert "round_id" not in ans


def test_a_bad_line_is_named_and_the_others_are_still_answered() -> None:
    good = {"cards": {"P1": ["2C", "3C"], "B": ["KS", "KH"]}, "bets": [{"account": "x", "spot": "P1", "amount": 10}]}
    stdin = (
        json.dumps(good) + "\n"
        + "{not json\n"
        + "\n"  # blank: skipped, but still counted in line numbers
        + json.dumps({"cards": {"P1": ["2C", "1C"], "B": ["KS", "KH"]}}) + "\n"
        + json.dumps(good) + "\n"
    ).encode() + b"\xff\xfe\n"
    proc = station_settle(stdin)
    assert proc.returncode == 1
    out = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    assert len(out) == 2 and out[0] == out[1]
    assert out[0]["bets"][0]["returned"] == 0  # 5 suited loses to banker royal: x2
    err = proc.stderr.decode()
    assert "line 2: not JSON" in err
    assert "line 4:" in err and "'1C'" in err
    assert "line 6: not UTF-8" in err
    assert "line 3" not in err and "line 1:" not in err and "line 5" not in err


def settle_one(obj: object) -> tuple[list[dict], str]:
    out, err = io.StringIO(), io.StringIO()
    text = obj if isinstance(obj, str) else json.dumps(obj)
    failed = settle_lines([text.encode()], out, err, settler("pokdeng"))
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    assert failed == (0 if answers else 1)
    return answers, err.getvalue()


def banker_and(**hands: list[str]) -> dict[str, list[str]]:
    return {**hands, "B": ["9S", "9H"]}


@pytest.mark.parametrize(
    "round_, message",
    [
        ([], "JSON object"),
        ("null", "JSON object"),
        ({"bets": []}, "no 'cards'"),
        ({"cards": {"P1": ["AS", "KS"]}}, "no banker"),
        ({"cards": [["AS", "KS"]]}, "'cards' must be an object"),
        ({"cards": banker_and(P6=["AS", "KS"])}, "P6"),
        ({"cards": banker_and(p1=["AS", "KS"])}, "p1"),
        ({"cards": banker_and(P1=["AS"])}, "exactly two cards"),
        ({"cards": banker_and(P1=["AS", "KS", "QS"])}, "exactly two cards"),
        ({"cards": banker_and(P1="AS KS")}, "list of two cards"),
        ({"cards": banker_and(P1=["AS", None])}, "not a card"),
        ({"cards": banker_and(P1=["AS", ""])}, "not a card"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": {}}, "'bets' must be a list"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bet": []}, "unknown round field"),
        ({"cards": banker_and(P1=["AS", "KS"]), "round_id": 7}, "round_id"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": ["P1"]}, "bet 1 must be an object"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P1"}]}, "lacks ['amount']"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "", "spot": "P1", "amount": 1}]}, "account"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": 5, "spot": "P1", "amount": 1}]}, "account"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P7", "amount": 1}]}, "no spot"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": 1, "amount": 1}]}, "spot must be"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P1", "amount": 0}]}, "positive integer"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P1", "amount": -5}]}, "positive integer"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P1", "amount": 1.5}]}, "positive integer"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P1", "amount": 100.0}]}, "positive integer"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P1", "amount": "100"}]}, "positive integer"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P1", "amount": True}]}, "positive integer"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P2", "amount": 1}]}, "no hand for P2"),
        ({"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P2PAIR", "amount": 1}]}, "no hand for P2"),
        (
            {"cards": banker_and(P1=["AS", "KS"]), "bets": [{"account": "a", "spot": "P1", "amount": 1, "returned": 4}]},
            "settlement output",
        ),
        ('{"cards": {"P1": ["AS", "KS"], "P1": ["2S", "3S"], "B": ["9S", "9H"]}}', "twice"),
        ("[1, 2", "not JSON"),
        ("NaN", "JSON object"),
    ],
)
def test_bad_rounds_are_refused_with_a_reason(round_: object, message: str) -> None:
    answers, err = settle_one(round_)
    assert answers == []
    assert err.startswith("line 1: ") and message in err, err


def test_a_ninth_copy_of_a_card_in_one_round_is_refused_eight_are_fine() -> None:
    eight = {"P1": ["5C", "5C"], "P2": ["5C", "5C"], "P3": ["5C", "5C"], "P4": ["5♣", "5c"], "B": ["KS", "2D"]}
    answers, err = settle_one({"cards": eight})
    assert err == "" and answers[0]["results"]["P4"]["class"] == "special_pair"
    nine = eight | {"P5": ["5C", "AH"]}
    answers, err = settle_one({"cards": nine})
    assert answers == [] and "5C" in err and "more than 8" in err


def test_a_round_without_bets_still_gets_results() -> None:
    answers, err = settle_one({"cards": {"P2": ["AS", "8S"], "B": ["6S", "TH"]}})
    assert err == ""
    assert answers == [
        {"results": {"P2": {"outcome": "win", "multiplier": 2, "pair": False, "rank": 9, "class": "points"}}, "bets": []}
    ]


def test_exit_status_is_zero_only_when_every_line_settled() -> None:
    ok = json.dumps({"cards": {"B": ["AS", "AS"]}}) + "\n"
    assert station_settle(ok.encode()).returncode == 0
    assert station_settle(b"").returncode == 0
    assert station_settle((ok + "oops\n").encode()).returncode == 1


def test_unknown_game_is_a_usage_error() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "station", "settle", "--game", "chess"],
        input=b"", capture_output=True, cwd=ROOT, timeout=60,
    )
    assert proc.returncode == 2 and b"chess" in proc.stderr
