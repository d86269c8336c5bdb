"""The shoe simulator filled with the Pai Gow deck: 32 cards, each once, no cut card, through
the real driver over a pty."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from firmware_bridge.shoe.driver import ShoeDriver
from firmware_bridge.shoe.simulator import (
    ShoeSimulator,
    deck_multiset,
    eight_deck_shoe,
    shuffled_deck,
)
from station.games.paigow import DECK, DECK_COUNTS
from tests.shoe.helpers import draw

pytestmark = pytest.mark.timeout(120)


def test_a_shoe_filled_with_the_pai_gow_deck_deals_its_32_cards_then_empty() -> None:
    with ShoeSimulator(deck=DECK_COUNTS, cut_at=None, seed=7) as sim:
        station = ShoeDriver(sim.serve_pty(), lambda ev: None, auto_ack=True)
        station.start()
        try:
            sim.load()
            assert sim.remaining == 32
            drawn = [draw(sim) for _ in range(32)]
        finally:
            station.stop()
        assert Counter(drawn) == Counter(str(c) for c in DECK)
        assert "CUT" not in drawn
        sent = [t for _, t, _ in sim.events_sent()]
        assert sent.count("CARD") == 32 and sent[-1] == "EMPTY"


def test_each_shuffle_is_a_new_order_of_the_same_cards() -> None:
    deck = deck_multiset(DECK_COUNTS)
    rng = random.Random(3)
    a, b = shuffled_deck(rng, deck), shuffled_deck(rng, deck)
    assert a != b and sorted(a) == sorted(b) and len(a) == 32


def test_a_deck_may_be_a_list_or_a_multiset_and_bad_decks_fail_clearly() -> None:
    assert deck_multiset(["qh", "10♦", "QH"]) == Counter({"QH": 2, "TD": 1})
    assert deck_multiset({"AS": 3}) == Counter({"AS": 3})
    for bad, message in (([], "at least one"), (["ZZ"], "not a card"), ({"AS": -1}, "whole number"),
                         ({"AS": 1.5}, "whole number")):
        with pytest.raises(ValueError, match=message):
            ShoeSimulator(deck=bad)


def test_without_a_deck_the_shoe_is_the_pok_deng_shoe_as_before() -> None:
    with ShoeSimulator(seed=11, cut_at=None) as sim:
        sim.load()
        assert sim.remaining == 416 and sim.decks == 8 and sim.deck is None
        contents = Counter(card for card, _ in sim._contents)
    assert contents == Counter(eight_deck_shoe(random.Random(0)))
