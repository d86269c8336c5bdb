"""Simulated players decide only legal things: driven against the real betting round and
arrangement checks over many seeded games, no bot move is ever refused."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from station.cards import ALL_CARDS, parse_cards
from station.games.sizhidao.arrange import arrange
from station.games.sizhidao.betting import BettingRound
from station.games.sizhidao.bots import (
    PROFILES,
    TableSight,
    decide_arrangement,
    decide_bet,
    decide_buy_in,
    hand_score,
)


def test_hand_score_orders_hands() -> None:
    kings = hand_score(parse_cards("KS KD KC KH".split()))
    aces_pair = hand_score(parse_cards("AS AD 9H QC".split()))
    junk = hand_score(parse_cards("TS 4D 6H 2C".split()))
    assert 1 >= kings > aces_pair > junk >= 0


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**9), st.integers(3, 7))
def test_bot_decisions_are_never_refused(seed: int, n: int) -> None:
    rng = random.Random(seed)
    seats = [f"S{i}" for i in sorted(rng.sample(range(1, 8), n))]
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    hands = {s: deck[4 * i : 4 * i + 4] for i, s in enumerate(seats)}
    profiles = {s: rng.choice(PROFILES) for s in seats}
    wallets = {s: rng.choice([0, 50, 300, 1000, 5000]) for s in seats}
    r = BettingRound({s: 100 for s in seats}, wallets, ante=100, leader=rng.choice(seats))
    r.start()
    steps = 0
    while not r.over:
        seat = r.to_act
        sight = TableSight(r.level, r.totals()[seat], r.wallets()[seat], 100, not r.opened)
        move = decide_bet(rng, profiles[seat], hands[seat], sight)
        r.act(seat, move.action, move.amount)  # raises Refused if a bot did wrong
        steps += 1
        assert steps < 200
    for seat in r.still_in():
        m = decide_arrangement(rng, profiles[seat], hands[seat], 10)
        if m is None:
            continue
        assert 0 < m.delay_s < 10
        arrange(hands[seat], parse_cards(m.front), parse_cards(m.back))


def test_buy_in_answers() -> None:
    rng = random.Random(7)
    answers = {decide_buy_in(rng, p, 500, 10_000, 10) for p in PROFILES for _ in range(50)}
    kinds = {a.action if a else None for a in answers}
    assert kinds == {"buy_in", "decline", None}
    assert all(a.delay_s < 10 for a in answers if a)
    broke = decide_buy_in(rng, PROFILES[0], 500, 499, 10)
    assert broke is not None and broke.action == "decline"
