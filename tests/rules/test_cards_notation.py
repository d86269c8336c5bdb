"""Card notation (RULES.md §0) and the 8-deck shoe model."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.cards import (
    ALL_CARDS,
    RANKS,
    SUITS,
    Card,
    CardError,
    ShoeContents,
    parse_card,
    parse_cards,
)

SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def test_the_deck_has_52_distinct_identities() -> None:
    assert len(ALL_CARDS) == 52
    assert len(set(ALL_CARDS)) == 52
    assert {str(c) for c in ALL_CARDS} == {r + s for r in RANKS for s in SUITS}


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("AS", "AS"),
        ("TD", "TD"),
        ("10D", "TD"),
        ("10♦", "TD"),
        ("q♥", "QH"),
        ("qh", "QH"),
        ("Qh", "QH"),
        ("kc", "KC"),
        ("t♣", "TC"),
        ("7♠", "7S"),
        ("9d", "9D"),
        ("a♦", "AD"),
    ],
)
def test_accepted_spellings_print_canonically(text: str, canonical: str) -> None:
    assert str(parse_card(text)) == canonical


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "A",
        "S",
        "1D",  # the ace is A, never 1
        "0D",
        "11D",
        "010D",
        "1OD",  # letter O, not zero
        "TT",
        "XS",
        "AX",
        "A S",
        "ASS",
        "AS,",
        "AA",
        "10",
        "♦10",
        "SA",  # suit first
        "Aſ",  # Unicode long s upper-cases to 'S'; it is not a suit
        "AＳ",  # full-width S
        "Ａ S",
        "Jx",
        "10♦\ufe0f",  # emoji presentation selector after the symbol
        "JOKER",
        "BJ",
    ],
)
def test_anything_else_is_a_clear_error(text: str) -> None:
    with pytest.raises(CardError) as e:
        parse_card(text)
    assert "not a card" in str(e.value)


@pytest.mark.parametrize("value", [None, 7, 1.0, b"AS", ["A", "S"], ("A", "S")])
def test_non_strings_are_refused(value: object) -> None:
    with pytest.raises(CardError):
        parse_card(value)


@pytest.mark.parametrize("rank, suit", [("A", "SH"), ("A", ""), ("", "S"), ("AK", "S"), ("10", "D"), (1, "S"), ("A", None), ("a", "S")])
def test_card_constructor_refuses_what_is_not_one_card(rank: object, suit: object) -> None:
    with pytest.raises(CardError):
        Card(rank, suit)  # type: ignore[arg-type]


def test_parse_cards_stops_at_the_first_bad_card() -> None:
    assert [str(c) for c in parse_cards(["10h", "k♠"])] == ["TH", "KS"]
    with pytest.raises(CardError, match="ZZ"):
        parse_cards(["AS", "ZZ"])


def test_card_passes_through_and_rank_index() -> None:
    c = Card("K", "H")
    assert parse_card(c) is c
    assert [Card(r, "S").rank_index for r in RANKS] == list(range(13))


cards = st.sampled_from(ALL_CARDS)


@st.composite
def spellings(draw: st.DrawFn) -> tuple[Card, str]:
    """A card and one of the ways a dealer's tool may spell it."""
    card = draw(cards)
    rank = card.rank
    if rank == "T":
        rank = draw(st.sampled_from(["T", "t", "10"]))
    else:
        rank = draw(st.sampled_from([rank, rank.lower()]))
    suit = draw(st.sampled_from([card.suit, card.suit.lower(), SYMBOL[card.suit]]))
    return card, rank + suit


@given(spellings())
def test_every_spelling_parses_to_its_card_and_prints_canonically(cs: tuple[Card, str]) -> None:
    card, text = cs
    parsed = parse_card(text)
    assert parsed == card
    assert str(parsed) == card.rank + card.suit
    assert parse_card(str(parsed)) == parsed


@given(st.text(max_size=4))
def test_random_text_is_a_card_or_a_card_error(text: str) -> None:
    # Never another exception, never a default card: when it parses, it is a faithful reading.
    try:
        card = parse_card(text)
    except CardError:
        return
    s = text.strip()
    assert s[-1] in card.suit + card.suit.lower() + SYMBOL[card.suit] + {"S": "♤", "H": "♡", "D": "♢", "C": "♧"}[card.suit]
    assert s[:-1].upper() in ({card.rank, "10"} if card.rank == "T" else {card.rank})


def test_shoe_allows_eight_copies_and_names_the_ninth() -> None:
    shoe = ShoeContents(decks=8)
    five = Card("5", "C")
    for _ in range(8):
        assert shoe.draw(five) is None
    problem = shoe.draw(five)
    assert problem is not None and "5C" in problem and "9" in problem
    assert shoe.drawn == 9


def test_shoe_counts_identities_separately_and_reports_what_remains() -> None:
    shoe = ShoeContents(decks=8)
    for c in ALL_CARDS:
        for _ in range(8):
            assert shoe.draw(c) is None
    assert shoe.drawn == 416
    assert all(n == 0 for n in shoe.remaining().values())
    assert all(shoe.draw(c) is not None for c in ALL_CARDS)


def test_shoe_remaining_after_a_few_draws() -> None:
    shoe = ShoeContents(decks=8)
    shoe.draw(Card("A", "S"))
    shoe.draw(Card("A", "S"))
    rem = shoe.remaining()
    assert rem[Card("A", "S")] == 6
    assert sum(rem.values()) == 414


def test_shoe_tells_a_repeated_printed_code() -> None:
    shoe = ShoeContents(decks=8)
    assert shoe.draw(Card("A", "S"), code="x1") is None
    problem = shoe.draw(Card("K", "D"), code="x1")
    assert problem is not None and "x1" in problem
