"""Pok Deng evaluation and payouts against RULES.md §1.2–§1.7.

Three kinds of check: the 17 worked examples of the rule sheets (data file), an exhaustive
comparison of all 52×52 two-card hands with the §1.3 table restated independently here, and
property tests over random hands."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.cards import ALL_CARDS, SUITS, Card, parse_cards
from station.games.base import BetError
from station.games.pokdeng import (
    PLAYERS,
    PokDeng,
    evaluate_hand,
    hand_points,
    position_result,
    returned_for,
)

EXAMPLES = json.loads(
    (Path(__file__).parents[1] / "data" / "rules" / "pokdeng_examples.json").read_text("utf-8")
)["examples"]


def test_all_seventeen_examples_are_in_the_data_file() -> None:
    ids = [e["id"] for e in EXAMPLES]
    assert ids == [f"000-{i}" for i in range(1, 10)] + [f"001-{i}" for i in range(1, 9)]


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e["id"] for e in EXAMPLES])
def test_worked_example(ex: dict) -> None:
    game = PokDeng()
    banker = parse_cards(ex["banker"])
    player = parse_cards(ex["player"])
    assert evaluate_hand(banker).rank == ex["banker_rank"]
    assert evaluate_hand(player).rank == ex["player_rank"]
    hands = {p: player if p == ex["position"] else banker for p in PLAYERS} | {"B": banker}
    assert game.check_bet(ex["spot"], ex["amount"]) == ex["deducted"]
    assert game.returned(ex["spot"], ex["amount"], hands) == ex["returned"]
    result = game.evaluate(hands)[ex["position"]]
    if "outcome" in ex:
        assert (result["outcome"], result["multiplier"]) == (ex["outcome"], ex["multiplier"])
    else:
        assert result["pair"] is ex["pair"]


# --- §1.3 restated as a table: an independent oracle for every two-card hand -------------

PIPS = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0} | {str(n): n for n in range(2, 10)}
SPECIAL_PAIRS = {("A", "A"), ("5", "5"), ("6", "6"), ("T", "T")}
ROYALS = {(a, b) for a in "JQK" for b in "JQK"}
TEN_ROYALS = {(a, b) for a in "TJQK" for b in "TJQK" if sorted([a, b]).count("T") == 1}
FLUSH_ZERO_RANKS = {("A", "9"), ("9", "A"), ("2", "8"), ("8", "2"), ("3", "7"), ("7", "3"), ("4", "6"), ("6", "4")}


def oracle(a: Card, b: Card) -> tuple[float, str]:
    pts = (PIPS[a.rank] + PIPS[b.rank]) % 10
    ranks = (a.rank, b.rank)
    suited = a.suit == b.suit
    candidates = [(float(pts), "points")]
    if suited and set(ranks) == {"A", "K"}:
        candidates.append((7.5, "lion_flush"))
    if ranks in SPECIAL_PAIRS:
        candidates.append((7.4, "special_pair"))
    if ranks in ROYALS:
        candidates.append((7.3, "royal"))
    if ranks in TEN_ROYALS:
        candidates.append((7.2, "ten_royal"))
    if suited and ranks in FLUSH_ZERO_RANKS:
        candidates.append((7.1, "flush_zero"))
    return max(candidates)  # "the highest that applies"


ALL_HANDS = [(a, b) for a in ALL_CARDS for b in ALL_CARDS]


def test_every_two_card_hand_matches_the_ladder_table() -> None:
    wrong = []
    for a, b in ALL_HANDS:
        v = evaluate_hand((a, b))
        rank, cls = oracle(a, b)
        if (v.rank, v.cls) != (rank, cls) or v.points != hand_points((a, b)):
            wrong.append((a, b, v, rank, cls))
        pair, suited = a.rank == b.rank, a.suit == b.suit
        assert (v.pair, v.suited) == (pair, suited)
        assert v.deng == (pair or suited or cls != "points")
    assert wrong == []


def test_class_census_over_one_deck() -> None:
    # Unordered pairs of distinct cards in one 52-card deck, counted by hand from §1.3.
    census: dict[str, int] = {}
    for i, a in enumerate(ALL_CARDS):
        for b in ALL_CARDS[i + 1 :]:
            cls = evaluate_hand((a, b)).cls
            census[cls] = census.get(cls, 0) + 1
    assert census["lion_flush"] == 4  # AK in each suit
    assert census["special_pair"] == 4 * 6  # C(4,2) pairs of A, 5, 6, T
    assert census["royal"] == 66  # C(12,2) two cards of J/Q/K
    assert census["ten_royal"] == 4 * 12  # a ten with a face
    # A9, 28, 37, 46 suited: 4 rank pairs x 4 suits; AK/9-point combos are not 0 points
    assert census["flush_zero"] == 16
    assert sum(census.values()) == 52 * 51 // 2


def test_no_seven_point_something_class_has_eight_or_nine_points() -> None:
    for a, b in ALL_HANDS:
        v = evaluate_hand((a, b))
        if v.cls != "points":
            assert v.points < 8 and 71 <= v.rank10 <= 75


def test_ladder_is_total_and_ordered() -> None:
    ranks = sorted({evaluate_hand(h).rank10 for h in ALL_HANDS})
    assert ranks == [0, 10, 20, 30, 40, 50, 60, 70, 71, 72, 73, 74, 75, 80, 90]


def test_hand_must_be_two_cards() -> None:
    for n in (0, 1, 3):
        with pytest.raises(ValueError, match="two cards"):
            evaluate_hand(parse_cards(["AS", "2S", "3S"][:n]))


# --- the banker 0/6 rule and its 8/9 exception (§1.5), spot checks --------------------


@pytest.mark.parametrize(
    "player, banker, outcome, m",
    [
        (["KS", "QS"], ["6S", "4H"], "win", 1),  # royal over banker 0: x1
        (["KS", "QS"], ["KD", "JH"], "tie", 0),  # banker K+Q is 7.3, never "0"
        (["AS", "KS"], ["KD", "JH"], "win", 2),  # lion flush over royal: banker not 0/6
        (["4S", "4H"], ["6S", "TH"], "win", 2),  # pair of 4 = 8 points: exception
        (["4S", "4S"], ["6S", "TH"], "win", 2),  # same identity twice (8-deck shoe)
        (["5S", "4S"], ["6S", "KH"], "win", 2),  # suited 9 over banker 6: exception
        (["5S", "4H"], ["6S", "KH"], "win", 1),  # plain 9 over banker 6
        (["8S", "KH"], ["2S", "4S"], "win", 1),  # plain 8 over suited banker 6
        (["9S", "6S"], ["2S", "4S"], "lose", 2),  # suited 5 loses to suited banker 6: x2
        (["7S", "KH"], ["AS", "5S"], "win", 1),  # suited banker 6 is still "6"
        (["TS", "5S"], ["TH", "TD"], "lose", 2),  # banker 7.4 (0 points) is deng, not 0
        (["9S", "9H"], ["TD", "QC"], "win", 2),  # 99 = 8 points, pair, banker ten_royal
    ],
)
def test_banker_zero_six_rule(player: list[str], banker: list[str], outcome: str, m: int) -> None:
    r = position_result(evaluate_hand(parse_cards(player)), evaluate_hand(parse_cards(banker)))
    assert (r.outcome, r.multiplier) == (outcome, m)


def test_bets_the_table_refuses() -> None:
    game = PokDeng()
    for spot in ("B", "P6", "P0", "p1", "P1pair", "BPAIR", "", "P1 "):
        with pytest.raises(BetError) as e:
            game.check_bet(spot, 100)
        assert e.value.reason == "bad_spot"
    for amount in (0, -100, 1.5, 100.0, "100", True, None):
        with pytest.raises(BetError) as e:
            game.check_bet("P1", amount)  # type: ignore[arg-type]
        assert e.value.reason == "bad_amount"


# --- properties over random hands ------------------------------------------------------

cards = st.sampled_from(ALL_CARDS)
hands = st.tuples(cards, cards)
amounts = st.integers(min_value=1, max_value=10**15)


@given(hands, hands, amounts)
def test_player_bet_returns_a_whole_multiple_of_the_amount(p: tuple, b: tuple, a: int) -> None:
    r = position_result(evaluate_hand(p), evaluate_hand(b))
    ret = returned_for("P1", a, r)
    assert isinstance(ret, int)
    assert ret in {0, a, 2 * a, 3 * a, 4 * a}
    # the outcome and multiplier say which
    expected = {"win": 2 * a + r.multiplier * a, "lose": 2 * a - r.multiplier * a, "tie": 2 * a}
    assert ret == expected[r.outcome]
    assert (r.multiplier == 0) == (r.outcome == "tie")
    assert r.multiplier in ((0,) if r.outcome == "tie" else (1, 2))


@given(hands, hands, amounts)
def test_pair_bet_returns_twelve_times_or_nothing(p: tuple, b: tuple, a: int) -> None:
    r = position_result(evaluate_hand(p), evaluate_hand(b))
    ret = returned_for("P1PAIR", a, r)
    assert ret == (12 * a if p[0].rank == p[1].rank else 0)


@given(hands, hands)
def test_tie_exactly_when_ranks_are_equal(p: tuple, b: tuple) -> None:
    pv, bv = evaluate_hand(p), evaluate_hand(b)
    r = position_result(pv, bv)
    assert (r.outcome == "tie") == (pv.rank == bv.rank)
    assert (r.outcome == "win") == (pv.rank > bv.rank)


@given(hands, hands)
def test_swapping_player_and_banker_swaps_win_and_loss(p: tuple, b: tuple) -> None:
    one = position_result(evaluate_hand(p), evaluate_hand(b)).outcome
    other = position_result(evaluate_hand(b), evaluate_hand(p)).outcome
    assert {"win": "lose", "lose": "win", "tie": "tie"}[one] == other


@given(hands, hands)
def test_losses_double_exactly_when_the_banker_is_deng(p: tuple, b: tuple) -> None:
    r = position_result(evaluate_hand(p), evaluate_hand(b))
    if r.outcome == "lose":
        banker_deng = b[0].suit == b[1].suit or b[0].rank == b[1].rank or oracle(*b)[1] != "points"
        assert r.multiplier == (2 if banker_deng else 1)


@given(hands, hands, st.permutations(SUITS))
def test_suit_permuted_copy_scores_alike(p: tuple, b: tuple, perm: list[str]) -> None:
    relabel = dict(zip(SUITS, perm, strict=True))

    def moved(h: tuple) -> tuple:
        return tuple(Card(c.rank, relabel[c.suit]) for c in h)

    pv, bv = evaluate_hand(p), evaluate_hand(b)
    assert evaluate_hand(moved(p)) == pv
    assert position_result(evaluate_hand(moved(p)), evaluate_hand(moved(b))) == position_result(pv, bv)


@given(hands, hands)
def test_order_of_the_two_cards_does_not_matter(p: tuple, b: tuple) -> None:
    assert evaluate_hand(p) == evaluate_hand(p[::-1])
    assert position_result(evaluate_hand(p), evaluate_hand(b)) == position_result(
        evaluate_hand(p[::-1]), evaluate_hand(b[::-1])
    )


@settings(max_examples=200)
@given(st.fixed_dictionaries({pos: hands for pos in (*PLAYERS, "B")}), amounts)
def test_game_interface_agrees_with_the_functions(table: dict, a: int) -> None:
    game = PokDeng()
    results = game.evaluate(table)
    assert set(results) == set(PLAYERS)
    bv = evaluate_hand(table["B"])
    for pos in PLAYERS:
        r = position_result(evaluate_hand(table[pos]), bv)
        assert results[pos] == r.as_dict()
        for spot in (pos, pos + "PAIR"):
            assert game.returned(spot, a, table) == returned_for(spot, a, r)


def test_every_pairing_of_hand_values_is_consistent() -> None:
    # Exhaustive over the distinct hand values (not just sampled): win multipliers follow §1.5.
    values = {evaluate_hand(h) for h in ALL_HANDS}
    for pv, bv in product(values, values):
        r = position_result(pv, bv)
        if r.outcome != "win":
            continue
        banker_zero_or_six = bv.cls == "points" and bv.points in (0, 6)
        exception = pv.points in (8, 9) and (pv.pair or pv.suited)
        if banker_zero_or_six and not exception:
            assert r.multiplier == 1
        else:
            assert r.multiplier == (2 if pv.deng else 1)
