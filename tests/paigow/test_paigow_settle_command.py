"""`station settle --game paigow` through the real command line (a subprocess): the worked
examples of RULES.md §2.6, the recorded traces' validated hands, per-account limits answered
`conflict`, and bad lines."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from station.commands.settle import settle_lines, settler

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
EXAMPLES = json.loads((HERE / "paigow_examples.json").read_text("utf-8"))["examples"]
TRACES = ROOT / "tests" / "data" / "traces-paigow"


def station_settle(stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "station", "settle", "--game", "paigow"],
        input=stdin, capture_output=True, cwd=ROOT, timeout=60,
    )


def example_round(ex: dict) -> dict:
    door = ex["spot"].split("_")[0]
    return {
        "round_id": ex["id"],
        "cards": {"BANKER": ex["banker"], door: ex["door"]},
        "bets": [{"account": "a1", "spot": ex["spot"], "amount": ex["amount"]}],
    }


def test_the_eight_worked_examples_through_the_command_line() -> None:
    proc = station_settle("".join(json.dumps(example_round(ex)) + "\n" for ex in EXAMPLES).encode())
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b""
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(answers) == 8
    for ex, ans in zip(EXAMPLES, answers, strict=True):
        door = ex["spot"].split("_")[0]
        assert ans["round_id"] == ex["id"]
        assert list(ans["results"]) == ["BANKER", door]
        assert ans["results"]["BANKER"]["hand"] == ex["banker_hand"]
        assert ans["results"][door]["hand"] == ex["door_hand"]
        assert ans["results"][door]["outcome"] == ex["outcome"]
        assert ans["bets"] == [
            {"account": "a1", "spot": ex["spot"], "amount": 1000, "deducted": 1000, "returned": ex["returned"]}
        ], ex["id"]


def test_a_whole_round_in_the_issue_format() -> None:
    line = {
        "cards": {"BANKER": ["8H", "8D"], "SHUN": ["QH", "9H"], "CHU": ["QD", "7C"], "DAO": ["TC", "9D"]},
        "bets": [
            {"account": "a1", "spot": "SHUN_WIN", "amount": 1000},
            {"account": "a1", "spot": "CHU_WIN", "amount": 999},
            {"account": "a1", "spot": "DAO_LOSE", "amount": 15},
        ],
    }
    proc = station_settle((json.dumps(line) + "\n").encode())
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout) == {
        "results": {
            "BANKER": {"hand": "pair_man", "points": 6},
            "SHUN": {"outcome": "lose", "hand": "heaven_nine_king", "points": 1},
            "CHU": {"outcome": "lose", "hand": "heaven_nine", "points": 9},
            "DAO": {"outcome": "lose", "hand": "points", "points": 9},
        },
        "bets": [
            {"account": "a1", "spot": "SHUN_WIN", "amount": 1000, "deducted": 1000, "returned": 0},
            {"account": "a1", "spot": "CHU_WIN", "amount": 999, "deducted": 999, "returned": 0},
            {"account": "a1", "spot": "DAO_LOSE", "amount": 15, "deducted": 15, "returned": 28},
        ],
    }


def test_the_recorded_traces_validated_hands_through_the_command_line() -> None:
    rounds, want = [], []
    for expected in sorted(TRACES.glob("*/expected.json")):
        doc = json.loads(expected.read_text("utf-8"))
        hands = {h["round_id"]: h for h in doc["hands"]}
        for s in doc["settlements"]:
            h = hands[s["round_id"]]
            bets = [{k: b[k] for k in ("account", "spot", "amount")} for b in s["bets"]]
            rounds.append({"round_id": s["round_id"], "cards": h["cards"], "bets": bets})
            want.append((h["results"], s["bets"]))
    assert len(rounds) >= 12
    proc = station_settle("".join(json.dumps(r) + "\n" for r in rounds).encode())
    assert proc.returncode == 0, proc.stderr.decode()[:2000]
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(answers) == len(rounds)
    for ans, (results, bets) in zip(answers, want, strict=True):
        assert ans["results"] == results
        assert ans["bets"] == bets


def settle(*lines: object) -> tuple[list[dict], str, int]:
    out, err = io.StringIO(), io.StringIO()
    raw = [(x if isinstance(x, str) else json.dumps(x)).encode() + b"\n" for x in lines]
    failed = settle_lines(raw, out, err, settler("paigow"))
    return [json.loads(x) for x in out.getvalue().splitlines()], err.getvalue(), failed


CARDS = {"BANKER": ["TS", "6H"], "SHUN": ["3S", "7H"], "CHU": ["QH", "7C"], "DAO": ["2H", "7D"]}


def test_bets_breaking_the_account_limits_are_refused_conflict_and_deduct_nothing() -> None:
    bets = [
        {"account": "a1", "spot": "SHUN_LOSE", "amount": 100, "ref": "b1"},
        {"account": "a1", "spot": "CHU_LOSE", "amount": 100, "ref": "b2"},  # 2nd LOSE door
        {"account": "a1", "spot": "SHUN_WIN", "amount": 100},  # WIN and LOSE on SHUN
        {"account": "a1", "spot": "CHU_WIN", "amount": 100},
        {"account": "a1", "spot": "DAO_WIN", "amount": 100},
        {"account": "a1", "spot": "SHUN_LOSE", "amount": 50},  # more on a held spot: fine
        {"account": "a2", "spot": "CHU_LOSE", "amount": 100},  # another account: its own limits
        {"account": "a2", "spot": "SHUN_WIN", "amount": 100},
        {"account": "a2", "spot": "CHU_WIN", "amount": 100},
    ]
    [ans], err, failed = settle({"cards": CARDS, "bets": bets})
    assert failed == 0 and err == ""
    # SHUN 0 vs banker 6: lose; CHU heaven nine: win; DAO earth nine: win
    assert [b.get("refused") for b in ans["bets"]] == [None, "conflict", "conflict", None, None, None, None, None, "conflict"]
    assert ans["bets"][1] == {"account": "a1", "spot": "CHU_LOSE", "amount": 100, "ref": "b2", "refused": "conflict"}
    assert [b.get("returned") for b in ans["bets"]] == [193, None, None, 199, 199, 96, 0, 0, None]
    assert ans["bets"][0]["ref"] == "b1"


def test_a_refused_bet_does_not_count_for_the_limits() -> None:
    bets = [
        {"account": "a1", "spot": "SHUN_WIN", "amount": 100},
        {"account": "a1", "spot": "SHUN_LOSE", "amount": 100},  # refused
        {"account": "a1", "spot": "CHU_LOSE", "amount": 100},  # so this LOSE is the first
    ]
    [ans], _, _ = settle({"cards": CARDS, "bets": bets})
    assert [b.get("refused") for b in ans["bets"]] == [None, "conflict", None]


@pytest.mark.parametrize(
    "line, message",
    [
        ("not json", "not JSON"),
        ({"cards": {"SHUN": ["3S", "7H"]}}, "no BANKER"),
        ({"cards": {"BANKER": ["KS", "6H"]}}, "KS is not one of the 32"),
        ({"cards": {"BANKER": ["TS", "6H"], "SHUN": ["TS", "7H"]}}, "TS dealt twice"),
        ({"cards": {"BANKER": ["TS", "6H"], "B": ["3S", "7H"]}}, "no hand"),
        ({"cards": {"BANKER": ["TS"]}}, "exactly two"),
        ({"cards": {"BANKER": ["TS", "ZZ"]}}, "not a card"),
        ({"cards": {"BANKER": ["TS", "6H"]}, "bets": [{"account": "a", "spot": "SHUN_WIN", "amount": 1}]}, "no hand for SHUN"),
        ({"cards": CARDS, "bets": [{"account": "a", "spot": "BANKER_WIN", "amount": 1}]}, "no spot"),
        ({"cards": CARDS, "bets": [{"account": "a", "spot": "SHUN_WIN", "amount": 0}]}, "bad amount"),
        ({"cards": CARDS, "bets": [{"account": "a", "spot": "SHUN_WIN", "amount": 1.5}]}, "bad amount"),
        ({"cards": CARDS, "bets": [{"account": "", "spot": "SHUN_WIN", "amount": 1}]}, "account"),
        ({"cards": CARDS, "bets": [{"account": "a", "spot": "SHUN_WIN"}]}, "lacks"),
        ({"cards": CARDS, "bets": [{"account": "a", "spot": "SHUN_WIN", "amount": 1, "refused": "x"}]}, "settlement output"),
        ({"cards": CARDS, "extra": 1}, "unknown round field"),
        ('{"cards": {"BANKER": ["TS", "6H"], "BANKER": ["QH", "QD"]}}', "twice"),
    ],
)
def test_a_bad_line_is_named_and_the_others_are_still_answered(line: object, message: str) -> None:
    good = {"round_id": "ok", "cards": CARDS}
    answers, err, failed = settle(good, line, good)
    assert failed == 1
    assert [a["round_id"] for a in answers] == ["ok", "ok"]
    assert err.startswith("line 2: ") and message in err, err


def test_a_bad_line_through_the_command_line_exits_1() -> None:
    proc = station_settle(b'{"cards": {"BANKER": ["KS", "6H"]}}\n\n' + json.dumps({"cards": CARDS}).encode() + b"\n")
    assert proc.returncode == 1
    assert b"line 1:" in proc.stderr and b"KS" in proc.stderr
    assert len(proc.stdout.splitlines()) == 1
