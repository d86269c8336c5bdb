"""Wenzhou Pai Gow rules (RULES.md §2): the tiles of the 32-card deck, the hand ranking, the
comparison of a door with the banker, the per-account limits and the payouts; the 8 worked
examples of §2.6, the seed sheet's own examples, and property tests."""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.cards import ALL_CARDS, CardError, parse_card
from station.games.paigow import (
    DECK,
    DOORS,
    HAND_KEYS,
    SPOTS,
    TILES,
    PaiGowBetError,
    TileError,
    conflict,
    door_wins,
    evaluate,
    outcome,
    returned,
    split_spot,
    tile_of,
    winnings,
)
from station.games.paigow.bets import check_amount_of
from station.money import MAX_AMOUNT

DOC = json.loads((Path(__file__).parent / "paigow_examples.json").read_text("utf-8"))
EXAMPLES = DOC["examples"]


# ---- tiles ------------------------------------------------------------------------------


def test_the_deck_is_32_distinct_cards_standing_for_the_tiles_of_the_table() -> None:
    assert len(DECK) == len(set(DECK)) == 32
    by_family = Counter(t.key for t in TILES.values())
    assert sum(by_family.values()) == 32
    assert by_family["big_chicken_six"] == by_family["little_chicken"] == 1
    assert all(n == 2 for k, n in by_family.items() if "chicken" not in k)
    # RULES.md §2.1, row by row: cards, points, tier
    rows = {
        "heaven": ("QH QD", 12, 1), "earth": ("2H 2D", 2, 2), "man": ("8H 8D", 8, 3),
        "goose": ("4H 4D", 4, 4), "plum": ("TC TS", 10, 5), "long_three": ("6C 6S", 6, 5),
        "bench": ("4C 4S", 4, 5), "axe": ("JH JD", 11, 6), "red_ten": ("TH TD", 10, 6),
        "long_leg_seven": ("7H 7D", 7, 6), "red_mallet_six": ("6H 6D", 6, 6),
        "mixed_nine": ("9H 9D", 9, 7), "mixed_eight": ("8C 8S", 8, 7), "mixed_seven": ("7C 7S", 7, 7),
        "big_chicken_six": ("AS", 6, 7), "mixed_five": ("5H 5D", 5, 7), "little_chicken": ("3S", 3, 7),
    }
    for family, (cards, points, tier) in rows.items():
        for c in cards.split():
            t = tile_of(c)
            assert (t.key, t.points, t.tier) == (family, points, tier), c
            assert sum(t.pips) == points, c  # points are the tile's pips
    assert set(DECK) == {parse_card(c) for cards, _, _ in rows.values() for c in cards.split()}


@pytest.mark.parametrize("card", ["KS", "QS", "AH", "3H", "9C", "2C", "JS", "5S"])
def test_a_card_outside_the_deck_is_no_tile(card: str) -> None:
    with pytest.raises(TileError, match="not one of the 32"):
        tile_of(card)


def test_exactly_20_of_the_52_identities_are_outside_the_deck() -> None:
    outside = [c for c in ALL_CARDS if c not in TILES]
    assert len(outside) == 20


def test_text_that_is_no_card_is_a_card_error_not_a_tile() -> None:
    with pytest.raises(CardError):
        tile_of("ZZ")
    assert tile_of("10♣").key == "plum" and tile_of("q♥").key == "heaven"


# ---- hands ------------------------------------------------------------------------------


def all_hands() -> list[tuple]:
    return list(combinations(DECK, 2))


def test_every_hand_key_occurs_and_each_as_often_as_the_tiles_allow() -> None:
    count = Counter(evaluate(h).key for h in all_hands())
    assert set(count) == set(HAND_KEYS)
    for key in HAND_KEYS:
        if key.startswith("pair_") or key == "supreme":
            assert count[key] == 1, key  # the two tiles of one family, or the two chickens
    assert count["heaven_nine_king"] == 2 * 2
    for key in ("heaven_gang", "earth_gang", "heaven_nine", "earth_nine"):
        assert count[key] == 2 * 4, key
    assert sum(count.values()) == 496


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_the_worked_examples_of_rules_2_6(ex: dict) -> None:
    door, banker = evaluate(ex["door"]), evaluate(ex["banker"])
    assert door.key == ex["door_hand"]
    assert banker.key == ex["banker_hand"]
    if "door_points" in ex:
        assert door.points == ex["door_points"]
    if "banker_points" in ex:
        assert banker.points == ex["banker_points"]
    assert outcome(door, banker) == ex["outcome"]
    assert returned(ex["spot"], ex["amount"], ex["outcome"]) == ex["returned"]


def test_the_tiers_behind_w3_and_w4() -> None:
    assert evaluate(["TC", "9D"]).top_tier == 5 and evaluate(["TH", "9H"]).top_tier == 6
    assert evaluate(["TC", "4C"]).top_tier == 5 and evaluate(["6C", "8S"]).top_tier == 5


@pytest.mark.parametrize("r", DOC["rounding"], ids=lambda r: f"{r['spot']}-{r['amount']}")
def test_the_rounding_examples(r: dict) -> None:
    assert returned(r["spot"], r["amount"], r["outcome"]) == r["returned"]


# The seed sheet's own examples (004, 范例二 and 范例三), door first, banker second.
SEED_COMPARISONS = [
    (["QH", "5H"], ["9H", "8C"], "win"),  # both 7: heaven beats a mixed tile
    (["TC", "9D"], ["TH", "9H"], "win"),  # both 9: plum beats red ten
    (["6C", "9H"], ["7H", "8C"], "win"),  # both 5: long three beats long-leg seven
    (["6C", "5H"], ["6H", "5D"], "win"),  # both 1: long three beats red mallet six
    (["TC", "7C"], ["4C", "3S"], "lose"),  # plum equals bench: the banker wins
    (["4C", "3S"], ["TC", "7C"], "lose"),  # ... whichever side holds which
    (["TC", "TH"], ["JH", "9H"], "lose"),  # 0 against 0: the banker
]


@pytest.mark.parametrize("door, banker, want", SEED_COMPARISONS)
def test_the_seed_sheets_comparisons(door: list[str], banker: list[str], want: str) -> None:
    assert outcome(evaluate(door), evaluate(banker)) == want


def test_the_chickens_never_change_their_points() -> None:
    assert evaluate(["3S", "7C"]).points == 0  # 3 + 7, never 6 + 7
    assert evaluate(["AS", "6C"]).points == 2  # 6 + 6, never 3 + 6
    assert evaluate(["AS", "3S"]).points == 9 and evaluate(["AS", "3S"]).key == "supreme"


def test_a_special_is_only_the_tiles_the_table_names() -> None:
    assert evaluate(["QH", "9D"]).key == "heaven_nine_king"
    assert evaluate(["2H", "9H"]).key == "points"  # earth + mixed nine is no special
    assert evaluate(["QH", "2D"]).key == "points"  # heaven + earth
    assert evaluate(["QD", "8C"]).key == "heaven_gang" and evaluate(["2D", "8H"]).key == "earth_gang"
    assert evaluate(["QD", "7S"]).key == "heaven_nine" and evaluate(["2H", "7D"]).key == "earth_nine"
    assert evaluate(["QH", "6H"]).key == "points"  # heaven + red mallet six: 8 points


def test_points_are_reported_for_every_hand() -> None:
    assert evaluate(["QH", "QD"]).points == 4
    assert evaluate(["JH", "JD"]).points == 2
    assert evaluate(["QH", "9H"]).points == 1


@pytest.mark.parametrize(
    "cards, message",
    [(["QH"], "exactly two"), (["QH", "QD", "2H"], "exactly two"), (["QH", "QH"], "twice"), (["QH", "KS"], "32")],
)
def test_a_hand_that_cannot_be_dealt_is_refused(cards: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate(cards)


# ---- properties -------------------------------------------------------------------------

two_hands = st.permutations(list(DECK)).map(lambda d: (d[0:2], d[2:4]))


@given(two_hands)
def test_door_and_banker_swapped_never_both_win(hands: tuple) -> None:
    a, b = evaluate(hands[0]), evaluate(hands[1])
    assert not (door_wins(a, b) and door_wins(b, a))


@given(two_hands)
def test_a_hands_value_does_not_depend_on_card_order(hands: tuple) -> None:
    (a, b), _ = hands
    assert evaluate([a, b]) == evaluate([b, a])


@given(two_hands)
def test_any_pair_beats_any_non_pair_and_specials_beat_points(hands: tuple) -> None:
    a, b = evaluate(hands[0]), evaluate(hands[1])
    if a.is_pair and not b.is_pair:
        assert door_wins(a, b)
    if a.is_special and b.key == "points":
        assert door_wins(a, b)
    if a.key == b.key and a.key != "points":
        assert not door_wins(a, b) and not door_wins(b, a)  # same class: the banker's


@given(two_hands)
def test_points_hands_follow_points_then_the_top_tier(hands: tuple) -> None:
    a, b = evaluate(hands[0]), evaluate(hands[1])
    if a.key == b.key == "points":
        if a.points != b.points:
            assert door_wins(a, b) == (a.points > b.points)
        elif a.points == 0:
            assert not door_wins(a, b)
        else:
            assert door_wins(a, b) == (a.top_tier < b.top_tier)


@given(st.sampled_from(SPOTS), st.integers(1, MAX_AMOUNT), st.sampled_from(["win", "lose"]))
def test_returns_are_zero_or_stake_plus_floored_winnings(spot: str, amount: int, door: str) -> None:
    got = returned(spot, amount, door)
    _, side = split_spot(spot)
    pct = 99 if side == "WIN" else 93
    assert got in (0, amount + (amount * pct) // 100)
    assert got == 0 or amount <= got < 2 * amount
    assert (got > 0) == ((door == "win") == (side == "WIN"))
    # the floor, without a float anywhere: winnings w are the largest with 100 w <= pct A
    w = winnings(spot, amount)
    assert 100 * w <= pct * amount < 100 * (w + 1)


# ---- bets -------------------------------------------------------------------------------


def test_the_six_spots() -> None:
    assert SPOTS == ("SHUN_WIN", "SHUN_LOSE", "CHU_WIN", "CHU_LOSE", "DAO_WIN", "DAO_LOSE")
    for bad in ("BANKER_WIN", "SHUN", "shun_win", "P1", "", None, 3):
        with pytest.raises(PaiGowBetError) as e:
            split_spot(bad)  # type: ignore[arg-type]
        assert e.value.reason == "bad_spot"


@pytest.mark.parametrize("amount", [0, -5, 1.5, "100", True, None, MAX_AMOUNT + 1])
def test_bad_amounts(amount: object) -> None:
    with pytest.raises(PaiGowBetError) as e:
        check_amount_of(amount)
    assert e.value.reason == "bad_amount"


@pytest.mark.parametrize(
    "held, spot, allowed",
    [
        ([], "SHUN_LOSE", True),
        (["SHUN_WIN", "CHU_WIN"], "DAO_WIN", True),  # WIN on three doors is always allowed
        (["SHUN_WIN"], "SHUN_WIN", True),  # more on a spot already held
        (["SHUN_LOSE"], "SHUN_LOSE", True),
        (["SHUN_LOSE"], "CHU_LOSE", False),  # LOSE on at most one door
        (["SHUN_WIN"], "SHUN_LOSE", False),  # never both on one door
        (["SHUN_LOSE"], "SHUN_WIN", False),
        (["SHUN_LOSE"], "CHU_WIN", True),
        (["CHU_WIN", "DAO_WIN"], "SHUN_LOSE", True),
        (["CHU_WIN", "DAO_WIN", "SHUN_LOSE"], "DAO_LOSE", False),
    ],
)
def test_the_per_account_limits(held: list[str], spot: str, allowed: bool) -> None:
    assert (conflict(held, spot) is None) == allowed


def legal(spots: set[str]) -> bool:
    doors = {s.split("_")[0] for s in spots}
    loses = {s for s in spots if s.endswith("_LOSE")}
    return len(loses) <= 1 and all(not {f"{d}_WIN", f"{d}_LOSE"} <= spots for d in doors)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(SPOTS), max_size=12))
def test_taking_bets_in_order_keeps_every_account_within_its_limits(spots: list[str]) -> None:
    held: set[str] = set()
    for spot in spots:
        if conflict(held, spot) is None:
            assert legal(held | {spot})
            held.add(spot)
        else:
            assert not legal(held | {spot})  # refused only when it really breaks a limit
    assert legal(held)


def test_each_door_has_a_win_and_a_lose_spot() -> None:
    assert {split_spot(s) for s in SPOTS} == {(d, side) for d in DOORS for side in ("WIN", "LOSE")}
