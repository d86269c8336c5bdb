"""Si Zhi Dao rules (RULES.md §3): card values, the four classes, arranging, beating, the
worked examples of §3.9, and property tests over random hands."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.cards import ALL_CARDS, parse_cards
from station.games.sizhidao.arrange import (
    ArrangeError,
    arrange,
    auto_arrange,
    legal_arrangements,
    splits,
)
from station.games.sizhidao.groups import (
    card_half_points,
    format_half_points,
    group_half_points,
    group_strength,
)
from station.games.sizhidao.layers import build_layers, decide_layers, payouts
from station.games.sizhidao.showdown import beats, decide


def hand(text: str):
    return parse_cards(text.split())


def strength(text: str, whole: str | None = None):
    return group_strength(hand(text), hand(whole) if whole else None)


# --- card values and points -----------------------------------------------------------


@pytest.mark.parametrize(
    ("card", "half_points"),
    [("AS", 2), ("2H", 4), ("9D", 18), ("TC", 0), ("JS", 1), ("QH", 1), ("KD", 1)],
)
def test_card_values_in_half_points(card: str, half_points: int) -> None:
    assert card_half_points(parse_cards([card])[0]) == half_points


@pytest.mark.parametrize(
    ("group", "points"),
    [
        ("9S QD", "9½"),
        ("TS 4D", "4"),
        ("6H 2C", "8"),
        ("8C AC", "9"),
        ("5C 5D", "0"),  # as points; a pair outranks it anyway
        ("TS JD", "½"),
        ("9H 9S", "8"),
        ("TS TD", "0"),
        ("KS 9C", "9½"),
        ("7H 3C", "0"),
        ("4S QD", "4½"),
    ],
)
def test_points_keep_the_half(group: str, points: str) -> None:
    assert format_half_points(group_half_points(hand(group))) == points


def test_the_class_order_highest_first() -> None:
    four_twos = strength("2S 2H", "2S 2H 2D 2C")
    pair_aces = strength("AS AH")
    pair_twos = strength("2S 2H")
    luosuo = strength("JS QH")
    nine_half = strength("9S KH")
    zero = strength("7H 3C")
    assert four_twos > pair_aces > pair_twos > luosuo > nine_half > zero
    assert [s.cls for s in (four_twos, pair_aces, luosuo, nine_half)] == [
        "four_of_a_kind",
        "pair",
        "luosuo",
        "points",
    ]


def test_pairs_rank_ace_high_then_king_down_to_two() -> None:
    order = ["AS AH", "KS KH", "QS QH", "JS JH", "TS TH", "9S 9H", "5S 5H", "2S 2H"]
    strengths = [strength(g) for g in order]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(order)


def test_every_luosuo_is_equal_and_a_face_pair_is_a_pair() -> None:
    assert strength("JS QH") == strength("QD KC") == strength("JC KH")
    assert strength("QS QH").cls == "pair"
    assert strength("QS QH") > strength("JS KH")


def test_suits_never_count() -> None:
    assert strength("9S KH") == strength("9D KC")
    assert strength("5S 5H") == strength("5D 5C")


def test_four_of_a_kind_is_a_whole_hand_class_ranked_ace_high() -> None:
    aces, kings, twos = "AS AH AD AC", "KS KH KD KC", "2S 2H 2D 2C"
    assert strength("AS AH", aces) > strength("KS KH", kings) > strength("2S 2H", twos)
    # both groups of the hand, whichever way it is split
    for front, back in splits(hand(kings)):
        assert group_strength(front, hand(kings)).cls == "four_of_a_kind"
        assert group_strength(back, hand(kings)).cls == "four_of_a_kind"
    # three of a kind is no class of its own: a pair and points
    a = auto_arrange(hand("KS KH KD 9C"))
    assert (a.front_strength.cls, a.back_strength.cls) == ("points", "pair")


# --- arranging -------------------------------------------------------------------------


def test_the_two_splits_with_a_pair_at_the_back_are_one_split() -> None:
    a = auto_arrange(hand("AS AD KH QC"))
    assert [str(c) for c in a.back] == ["AS", "AD"]
    assert [str(c) for c in a.front] == ["KH", "QC"]


def test_an_arrangement_with_the_front_above_the_back_is_refused() -> None:
    with pytest.raises(ArrangeError) as e:
        arrange(hand("AS AD KH QC"), hand("AS AD"), hand("KH QC"))
    assert e.value.reason == "front_above_back"


@pytest.mark.parametrize(
    ("front", "back"),
    [
        ("AS AD", "KH"),  # three cards
        ("AS AD", "KH 2C"),  # not the seat's card
        ("AS AS", "KH QC"),  # one card twice
        ("AS AD KH", "QC"),
    ],
)
def test_groups_that_are_not_two_and_two_of_the_own_four_are_bad_cards(
    front: str, back: str
) -> None:
    with pytest.raises(ArrangeError) as e:
        arrange(hand("AS AD KH QC"), hand(front), hand(back))
    assert e.value.reason == "bad_cards"
    assert "AS" not in str(e.value) and "KH" not in str(e.value)


def test_equal_groups_may_go_either_way_round() -> None:
    h = hand("9S KH 9D KC")  # 9½ and 9½, or pair 9 and luosuo, or 9½... see below
    a = arrange(h, hand("9S KH"), hand("9D KC"))
    b = arrange(h, hand("9D KC"), hand("9S KH"))
    assert a.front_strength == a.back_strength == b.front_strength


def test_sent_arrangement_equal_to_the_automatic_one_is_not_automatic() -> None:
    h = hand("3H 6H AD 3S")
    sent = arrange(h, hand("6H AD"), hand("3H 3S"))
    auto = auto_arrange(h)
    assert (sent.front, sent.back) == (auto.front, auto.back)
    assert sent.auto is False and auto.auto is True


@pytest.mark.parametrize(
    ("cards", "front", "back"),
    [
        # from the recorded traces (read order kept inside each group)
        ("3H 6H AD 3S", "6H AD", "3H 3S"),
        ("9S QH 3D 6H", "3D 6H", "9S QH"),
        ("3H JD 6S TH", "JD TH", "3H 6S"),
        ("QS KS 6D TS", "6D TS", "QS KS"),
        ("7C KD 8D 9D", "7C 8D", "KD 9D"),
        ("2D JS AS 3C", "JS AS", "2D 3C"),
        ("3S KH KC 3D", "3S 3D", "KH KC"),
    ],
)
def test_the_automatic_arrangement(cards: str, front: str, back: str) -> None:
    a = auto_arrange(hand(cards))
    assert ([str(c) for c in a.front], [str(c) for c in a.back]) == (front.split(), back.split())


def test_automatic_arrangement_takes_the_strongest_front_among_equal_backs() -> None:
    # backs: pair 5 either way with 5H 5C; the other two cards 9S QD are 9½ as a front.
    # The split 9S 5H / QD 5C has 4½ and 5½ fronts: never chosen over a pair at the back.
    a = auto_arrange(hand("9S 5H QD 5C"))
    assert a.back_strength.cls == "pair"
    assert format_half_points(a.front_strength.value) == "9½"


# --- beating and the showdown -----------------------------------------------------------


def test_beating_needs_both_groups_at_least_and_one_above() -> None:
    def arr(front: str, back: str):
        return arrange(hand(front + " " + back), hand(front), hand(back))

    nine_pair5 = arr("9S KD", "5H 5C")
    assert beats(arr("9D KC", "6H 6C"), nine_pair5)  # equal front, stronger back
    assert beats(arr("JS QH", "5S 5D"), nine_pair5)  # stronger front, equal back
    assert not beats(arr("9D KC", "5S 5D"), nine_pair5)  # equal on both: nobody beats
    assert not beats(arr("JS QH", "4S 4D"), nine_pair5)  # one above, one below
    assert not beats(nine_pair5, arr("JS QH", "4S 4D"))


def test_z1_s1_beats_both_on_both_groups_and_takes_900() -> None:
    hands = {"S1": "AS AD KH QC", "S3": "9S QD 5H 5C", "S5": "TS 4D 6H 2C"}
    arr = {s: auto_arrange(hand(h)) for s, h in hands.items()}
    assert [str(c) for c in arr["S1"].front] == ["KH", "QC"]
    assert arr["S1"].front_strength.cls == "luosuo"
    assert arr["S3"].front_strength.describe() == "9½ points"
    assert arr["S3"].back_strength.describe() == "pair of 5"
    assert arr["S5"].front_strength.describe() == "4 points"
    assert arr["S5"].back_strength.describe() == "8 points"
    for other in ("S3", "S5"):
        assert arr["S1"].front_strength > arr[other].front_strength
        assert arr["S1"].back_strength > arr[other].back_strength
    layers = decide_layers(build_layers({s: 300 for s in hands}, ()), arr)
    assert [la.as_dict() for la in layers] == [
        {"amount": 900, "contestants": ["S1", "S3", "S5"], "winner": "S1", "tied": []}
    ]
    assert payouts(layers) == {"S1": 900}


def test_z2_nobody_beats_anybody_and_1500_is_carried() -> None:
    hands = {"S1": "9H QS 3D 3C", "S2": "JH KD 2S 2H", "S4": "8C AC 7D 7S"}
    arr = {s: auto_arrange(hand(h)) for s, h in hands.items()}
    assert arr["S1"].front_strength.describe() == "9½ points"
    assert arr["S2"].front_strength.cls == "luosuo"
    assert arr["S4"].front_strength.describe() == "9 points"
    for x, y in itertools.permutations(hands, 2):
        assert not beats(arr[x], arr[y])
    d = decide(arr, hands)
    assert d.winner is None and d.tied == ("S1", "S2", "S4")
    layers = decide_layers(build_layers({s: 500 for s in hands}, ()), arr)
    assert [la.as_dict() for la in layers] == [
        {
            "amount": 1500,
            "contestants": ["S1", "S2", "S4"],
            "winner": None,
            "tied": ["S1", "S2", "S4"],
        }
    ]
    assert payouts(layers) == {}


def test_z3_all_in_layers() -> None:
    hands = {"S2": "KS KH 4C 5D", "S3": "AH AC 9D JC", "S6": "QH QD 9C TD", "S7": "2D 7C 3H 6S"}
    arr = {s: auto_arrange(hand(h)) for s, h in hands.items() if s != "S7"}
    assert arr["S2"].front_strength.describe() == "9 points"
    assert arr["S3"].front_strength.describe() == "9½ points"
    assert arr["S6"].front_strength.describe() == "9 points"
    totals = {"S2": 1000, "S3": 400, "S6": 1000, "S7": 200}
    layers = decide_layers(build_layers(totals, {"S7"}), arr)
    assert [la.as_dict() for la in layers] == [
        {"amount": 1400, "contestants": ["S2", "S3", "S6"], "winner": "S3", "tied": []},
        {"amount": 1200, "contestants": ["S2", "S6"], "winner": "S2", "tied": []},
    ]
    assert payouts(layers) == {"S3": 1400, "S2": 1200}


def test_z4_four_kings_beat_every_hand_without_four_of_a_kind_on_both_groups() -> None:
    kings = auto_arrange(hand("KS KD KC KH"))
    assert kings.front_strength.cls == kings.back_strength.cls == "four_of_a_kind"
    rest = [c for c in ALL_CARDS if c.rank != "K"]
    for other in itertools.combinations(rest[::3], 4):
        a = auto_arrange(other)
        if a.back_strength.cls == "four_of_a_kind":
            continue
        assert kings.front_strength > a.front_strength and kings.back_strength > a.back_strength
        assert beats(kings, a)
    assert beats(auto_arrange(hand("AS AD AC AH")), kings)


# --- properties -------------------------------------------------------------------------

hands_st = st.lists(st.sampled_from(ALL_CARDS), min_size=4, max_size=4, unique=True)


@settings(max_examples=400)
@given(hands_st)
def test_automatic_arrangement_is_legal_and_never_beaten_on_the_back(cards) -> None:
    a = auto_arrange(cards)
    assert a.front_strength <= a.back_strength
    assert sorted(a.front + a.back) == sorted(cards)
    legal = legal_arrangements(cards)
    assert legal, "every hand has a legal arrangement"
    for other in legal:
        assert other.back_strength <= a.back_strength
        if other.back_strength == a.back_strength:
            assert other.front_strength <= a.front_strength
    # arranging it by hand gives the same groups, not automatic
    same = arrange(cards, a.front, a.back)
    assert (same.front_strength, same.back_strength, same.auto) == (
        a.front_strength,
        a.back_strength,
        False,
    )


pairs_of_hands = st.lists(st.sampled_from(ALL_CARDS), min_size=8, max_size=8, unique=True)


@settings(max_examples=400)
@given(pairs_of_hands)
def test_beating_is_irreflexive_and_antisymmetric(cards) -> None:
    x, y = auto_arrange(cards[:4]), auto_arrange(cards[4:])
    assert not beats(x, x) and not beats(y, y)
    assert not (beats(x, y) and beats(y, x))


@settings(max_examples=300)
@given(st.lists(st.sampled_from(ALL_CARDS), min_size=12, max_size=28, unique=True))
def test_a_winner_beats_everyone_and_tied_players_are_unbeaten(cards) -> None:
    n = len(cards) // 4
    seats = [f"S{i + 1}" for i in range(n)]
    arr = {s: auto_arrange(cards[4 * i : 4 * i + 4]) for i, s in enumerate(seats)}
    d = decide(arr, seats)
    if d.winner is not None:
        assert all(beats(arr[d.winner], arr[s]) for s in seats if s != d.winner)
        assert d.tied == ()
    else:
        assert len(d.tied) >= 2
        for s in seats:
            unbeaten = not any(beats(arr[o], arr[s]) for o in seats if o != s)
            assert (s in d.tied) == unbeaten
