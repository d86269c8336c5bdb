"""The exact return of the Pai Gow door bets: the enumeration of station/games/paigow/rtp.py
against a card-by-card enumeration of every ordered four-card draw that shares none of its
code, not even the evaluator: the ranking below is written again from RULES.md §2.2–2.3."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

from station.games.paigow.rtp import PaiGowRTP, paigow_rtp

ROOT = Path(__file__).parents[2]

# RULES.md §2.1 again, as (cards, points, tier, family); families of the mixed groups and the
# two chickens by name.
REF_TILES = [
    ("QH QD", 12, 1, "heaven"), ("2H 2D", 2, 2, "earth"), ("8H 8D", 8, 3, "man"),
    ("4H 4D", 4, 4, "goose"), ("TC TS", 10, 5, "plum"), ("6C 6S", 6, 5, "three"),
    ("4C 4S", 4, 5, "bench"), ("JH JD", 11, 6, "axe"), ("TH TD", 10, 6, "redten"),
    ("7H 7D", 7, 6, "legseven"), ("6H 6D", 6, 6, "mallet"), ("9H 9D", 9, 7, "m9"),
    ("8C 8S", 8, 7, "m8"), ("7C 7S", 7, 7, "m7"), ("AS", 6, 7, "bigchick"),
    ("5H 5D", 5, 7, "m5"), ("3S", 3, 7, "littlechick"),
]
CARDS = [c for cards, *_ in REF_TILES for c in cards.split()]
INFO = {c: (pts, tier, fam) for cards, pts, tier, fam in REF_TILES for c in cards.split()}
# The ladder of §2.2, highest first; each entry a set of unordered family pairs.
LADDER = [
    {("heaven", "heaven")}, {("earth", "earth")}, {("bigchick", "littlechick")},
    {("man", "man")}, {("goose", "goose")},
    {("plum", "plum"), ("three", "three"), ("bench", "bench")},
    {("axe", "axe"), ("redten", "redten"), ("legseven", "legseven"), ("mallet", "mallet")},
    {("m9", "m9"), ("m8", "m8"), ("m7", "m7"), ("m5", "m5")},
    {("heaven", "m9")}, {("heaven", "man"), ("heaven", "m8")}, {("earth", "man"), ("earth", "m8")},
    {("heaven", "legseven"), ("heaven", "m7")}, {("earth", "legseven"), ("earth", "m7")},
]


def ref_strength(a: str, b: str) -> int:
    """An integer, higher stronger; equal integers are equal hands (the banker's)."""
    (pa, ta, fa), (pb, tb, fb) = INFO[a], INFO[b]
    key = tuple(sorted((fa, fb)))
    for i, group in enumerate(LADDER):
        if key in {tuple(sorted(g)) for g in group}:
            return 1000 - i
    points = (pa + pb) % 10
    return 0 if points == 0 else points * 10 + (10 - min(ta, tb))


def test_enumeration_equals_every_ordered_four_card_draw() -> None:
    n = len(CARDS)
    s = np.array([[ref_strength(a, b) if a != b else -1 for b in CARDS] for a in CARDS])
    a = np.arange(n).reshape(n, 1, 1, 1)
    b = np.arange(n).reshape(1, n, 1, 1)
    c = np.arange(n).reshape(1, 1, n, 1)
    d = np.arange(n).reshape(1, 1, 1, n)
    distinct = (a != b) & (a != c) & (a != d) & (b != c) & (b != d) & (c != d)
    door_wins = s[:, :, None, None] > s[None, None, :, :]
    draws = int(distinct.sum())
    assert draws == 32 * 31 * 30 * 29
    wins = int((distinct & door_wins).sum())
    r = paigow_rtp()
    assert r.win == Fraction(wins, draws)


def test_the_door_wins_35437_of_71920() -> None:
    r = paigow_rtp()
    assert r.draws == 496 * 435
    assert r.win == Fraction(35437, 71920)
    assert r.win + r.lose == 1


def test_the_returns_per_unit_staked() -> None:
    r = paigow_rtp()
    assert r.rtp_stake("WIN") == r.win * Fraction(199, 100)
    assert r.rtp_stake("LOSE") == r.lose * Fraction(193, 100)
    assert round(float(r.rtp_stake("WIN")) * 100, 2) == 98.05
    assert round(float(r.rtp_stake("LOSE")) * 100, 2) == 97.90
    # no reading of the sheet gives its 98.27 %: neither bet, nor the two averaged
    figures = [r.rtp_stake("WIN"), r.rtp_stake("LOSE"), (r.rtp_stake("WIN") + r.rtp_stake("LOSE")) / 2]
    assert all(round(float(f) * 100, 2) != 98.27 for f in figures)


def test_the_floor_lowers_the_return_of_a_stake_that_does_not_divide() -> None:
    r = paigow_rtp()
    assert r.returns_for_amount("WIN", 100) == r.rtp_stake("WIN")
    assert r.returns_for_amount("WIN", 999) == r.win * Fraction(1988, 999) < r.rtp_stake("WIN")
    assert r.returns_for_amount("LOSE", 15) == r.lose * Fraction(28, 15) < r.rtp_stake("LOSE")


def test_equal_hands_are_what_puts_the_door_behind() -> None:
    # Door and banker hands are drawn alike, so the door wins exactly as often as the banker
    # is strictly better; the banker's edge is the equal hands, which it takes.
    r = paigow_rtp()
    assert isinstance(r, PaiGowRTP)
    equal = r.lose - r.win
    assert r.win < Fraction(1, 2) < r.lose
    assert equal == 1 - 2 * r.win and 0 < equal < Fraction(2, 100)


def test_rtp_command_json() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "station", "rtp", "paigow", "--json"], capture_output=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0, proc.stderr.decode()
    doc = json.loads(proc.stdout)
    assert Fraction(doc["exact"]["door"]["win"]) == Fraction(35437, 71920)
    assert Fraction(doc["exact"]["door"]["lose"]) == Fraction(36483, 71920)
    assert doc["door"] == {"win": 35437 / 71920, "lose": 36483 / 71920}
    win = Fraction(35437, 71920) * Fraction(199, 100)
    lose = Fraction(36483, 71920) * Fraction(193, 100)
    assert doc["win_bet"]["rtp_stake"] == float(win) and doc["lose_bet"]["rtp_stake"] == float(lose)
    assert Fraction(doc["exact"]["win_bet"]["rtp_stake"]) == win
    assert Fraction(doc["exact"]["lose_bet"]["rtp_stake"]) == lose


def test_rtp_command_table() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "station", "rtp", "paigow"], capture_output=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0
    text = proc.stdout.decode()
    assert "35437/71920" in text and "98.0529 %" in text and "97.9035 %" in text and "98.27 %" in text


def test_rtp_command_refuses_decks_for_pai_gow_and_pokdeng_keeps_its_default() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "station", "rtp", "paigow", "--decks", "8"], capture_output=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 2 and b"--decks" in proc.stderr and proc.stdout == b""
