"""`station settle --game sizhidao` through the real command line: the worked examples of
RULES.md §3.9, sent arrangements, a player left alone, and bad lines that fail alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def station_settle(lines: list[object | str]) -> subprocess.CompletedProcess[str]:
    stdin = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    return subprocess.run(
        [sys.executable, "-m", "station", "settle", "--game", "sizhidao"],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def auto(front: str, back: str, fc: str, bc: str) -> dict:
    return {
        "front": front.split(),
        "back": back.split(),
        "front_class": fc,
        "back_class": bc,
        "auto": True,
    }


Z1 = {
    "hands": {
        "S1": "AS AD KH QC".split(),
        "S3": "9S QD 5H 5C".split(),
        "S5": "TS 4D 6H 2C".split(),
    },
    "put_in": {"S1": 300, "S3": 300, "S5": 300},
}
Z1_OUT = {
    "showdown": {
        "S1": auto("KH QC", "AS AD", "luosuo", "pair"),
        "S3": auto("9S QD", "5H 5C", "points", "pair"),
        "S5": auto("TS 4D", "6H 2C", "points", "points"),
    },
    "layers": [{"amount": 900, "contestants": ["S1", "S3", "S5"], "winner": "S1", "tied": []}],
    "payouts": {"S1": 900},
    "carried": 0,
}
Z2 = {
    "hands": {
        "S1": "9H QS 3D 3C".split(),
        "S2": "JH KD 2S 2H".split(),
        "S4": "8C AC 7D 7S".split(),
    },
    "put_in": {"S1": 500, "S2": 500, "S4": 500},
}
Z2_OUT = {
    "showdown": {
        "S1": auto("9H QS", "3D 3C", "points", "pair"),
        "S2": auto("JH KD", "2S 2H", "luosuo", "pair"),
        "S4": auto("8C AC", "7D 7S", "points", "pair"),
    },
    "layers": [
        {
            "amount": 1500,
            "contestants": ["S1", "S2", "S4"],
            "winner": None,
            "tied": ["S1", "S2", "S4"],
        }
    ],
    "payouts": {},
    "carried": 1500,
}
Z3 = {
    "hands": {
        "S2": "KS KH 4C 5D".split(),
        "S3": "AH AC 9D JC".split(),
        "S6": "QH QD 9C TD".split(),
        "S7": "2D 7C 3H 6S".split(),
    },
    "folded": ["S7"],
    "put_in": {"S2": 1000, "S3": 400, "S6": 1000, "S7": 200},
}
Z3_OUT = {
    "showdown": {
        "S2": auto("4C 5D", "KS KH", "points", "pair"),
        "S3": auto("9D JC", "AH AC", "points", "pair"),
        "S6": auto("9C TD", "QH QD", "points", "pair"),
    },
    "layers": [
        {"amount": 1400, "contestants": ["S2", "S3", "S6"], "winner": "S3", "tied": []},
        {"amount": 1200, "contestants": ["S2", "S6"], "winner": "S2", "tied": []},
    ],
    "payouts": {"S3": 1400, "S2": 1200},
    "carried": 0,
}
Z4 = {
    "hands": {
        "S6": "KS KD KC KH".split(),
        "S1": "AS AD AC QH".split(),
        "S2": "QS QD JH JC".split(),
    },
    "put_in": {"S1": 100, "S2": 100, "S6": 100},
}


def test_the_worked_examples_of_rules_3_9() -> None:
    proc = station_settle([Z1, Z2, Z3, Z4])
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert answers[:3] == [Z1_OUT, Z2_OUT, Z3_OUT]
    z4 = answers[3]
    assert (
        z4["showdown"]["S6"]["front_class"]
        == z4["showdown"]["S6"]["back_class"]
        == "four_of_a_kind"
    )
    assert z4["layers"][0]["winner"] == "S6" and z4["payouts"] == {"S6": 300}


def test_a_sent_arrangement_is_kept_and_others_are_arranged_automatically() -> None:
    deal = {**Z1, "arranged": {"S1": {"front": ["QC", "KH"], "back": ["AD", "AS"]}}}
    proc = station_settle([deal])
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["showdown"]["S1"] == {
        "front": ["QC", "KH"],
        "back": ["AD", "AS"],
        "front_class": "luosuo",
        "back_class": "pair",
        "auto": False,
    }
    assert out["showdown"]["S3"]["auto"] is True


def test_a_player_left_alone_is_never_shown() -> None:
    deal = {
        "hands": {"S1": "AS AD KH QC".split()},
        "folded": ["S3", "S5"],
        "put_in": {"S1": 400, "S3": 100, "S5": 250},
    }
    out = json.loads(station_settle([deal]).stdout)
    assert out == {
        "showdown": {},
        "layers": [{"amount": 750, "contestants": ["S1"], "winner": "S1", "tied": []}],
        "payouts": {"S1": 750},
        "carried": 0,
    }


def test_bad_lines_are_named_on_standard_error_and_the_others_still_answered() -> None:
    front_above = {**Z1, "arranged": {"S1": {"front": ["AS", "AD"], "back": ["KH", "QC"]}}}
    not_its_cards = {**Z1, "arranged": {"S3": {"front": ["9S", "QD"], "back": ["5H", "2C"]}}}
    twice = {**Z1, "hands": {**Z1["hands"], "S5": ["TS", "4D", "6H", "AS"]}}
    twice_in_one = {**Z1, "hands": {**Z1["hands"], "S5": ["TS", "4D", "TS", "2C"]}}
    bad_card = {**Z1, "hands": {**Z1["hands"], "S5": ["TS", "4D", "6H", "1C"]}}
    proc = station_settle(
        [
            front_above,
            Z1,
            not_its_cards,
            "not json",
            twice,
            Z2,
            twice_in_one,
            bad_card,
            {"hands": {"S9": []}},
        ]
    )
    assert proc.returncode == 1
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert answers == [Z1_OUT, Z2_OUT]
    err = proc.stderr.splitlines()
    assert err[0].startswith("line 1:") and "front_above_back" in err[0]
    assert err[1].startswith("line 3:") and "bad_cards" in err[1]
    assert err[2].startswith("line 4:") and "JSON" in err[2]
    assert err[3].startswith("line 5:") and "AS" in err[3] and "twice" not in err[3]
    assert err[4].startswith("line 7:") and "TS" in err[4]
    assert err[5].startswith("line 8:") and "1C" in err[5]
    assert err[6].startswith("line 9:") and "S9" in err[6]
    assert "7 line(s) not settled" in proc.stderr
