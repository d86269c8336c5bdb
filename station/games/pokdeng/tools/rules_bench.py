"""Pok Deng's part of `./run.sh bench rules`: the speed of `station rtp pokdeng` and of hand
evaluation, each beside a baseline measured in the same run on the same machine:
- the exact return to player by grouped enumeration, against the naive card-by-card
  enumeration of all 52**4 ordered draws (timed on the draws whose first card is the ace of
  spades, 1/52 of the whole, and scaled up; running all of it takes about a minute);
- evaluating random two-card hands with the table's evaluator, against reading the same hands
  from card text first (what `station settle` does per line) and against a 52×52 look-up table.
`quick`: a tenth of the hands (a million otherwise), for a smoke run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from fractions import Fraction
from itertools import product

from station.cards import ALL_CARDS, parse_card
from station.games.pokdeng.rtp import pokdeng_rtp
from station.games.pokdeng.rules import PLAYERS, evaluate_hand, position_result, returned_for

#: the spot whose bets are settled in the figures: the first player's
SPOT = PLAYERS[0]


def best_of(n: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def naive_slice(decks: int = 8) -> Fraction:
    """Card-by-card enumeration of the ordered draws that start with the ace of spades:
    the Player bet's expected return over that slice (unnormalised)."""
    first = ALL_CARDS[0]
    n = 52 * decks
    total = 0
    for b, c, d in product(ALL_CARDS, repeat=3):
        w = decks * (decks - (b == first)) * (decks - (c == first) - (c == b))
        w *= decks - (d == first) - (d == b) - (d == c)
        r = position_result(evaluate_hand((first, b)), evaluate_hand((c, d)))
        total += w * returned_for(SPOT, 1, r)
    return Fraction(total, n * (n - 1) * (n - 2) * (n - 3))


def run(quick: bool) -> None:
    n_hands = 100_000 if quick else 1_000_000

    print("exact return to player, Pok Deng, 8 decks")
    t_grouped = best_of(3, pokdeng_rtp)
    r = pokdeng_rtp()
    print(f"  grouped enumeration (station rtp)       {t_grouped * 1000:8.1f} ms  (best of 3)")
    t_slice = best_of(1, naive_slice)
    print(
        f"  naive card-by-card, 1/52 of the draws   {t_slice * 1000:8.1f} ms"
        f"  -> whole shoe about {t_slice * 52:.1f} s (scaled)"
    )
    print(f"  speed-up                                {t_slice * 52 / t_grouped:8.0f} x")
    print(
        f"  Player bet: {float(r.player_rtp_stake):.6%} per staked, "
        f"{float(r.player_rtp_deducted):.6%} per deducted; Pair bet {float(r.pair_rtp):.6%}"
    )

    print(f"\nevaluating {n_hands:,} random two-card hands")
    rng = random.Random(20261130)
    cards = rng.choices(ALL_CARDS, k=2 * n_hands)
    hands = list(zip(cards[0::2], cards[1::2], strict=True))
    texts = [(str(a).lower(), str(b)) for a, b in hands]

    def evaluate_all() -> None:
        for h in hands:
            evaluate_hand(h)

    def parse_and_evaluate_all() -> None:
        for a, b in texts:
            evaluate_hand((parse_card(a), parse_card(b)))

    table = {(a, b): evaluate_hand((a, b)) for a in ALL_CARDS for b in ALL_CARDS}

    def look_up_all() -> None:
        for h in hands:
            table[h]

    banker = hands[1:] + hands[:1]

    def settle_all() -> None:
        for p, b in zip(hands, banker, strict=True):
            returned_for(SPOT, 100, position_result(evaluate_hand(p), evaluate_hand(b)))

    for label, fn in (
        ("evaluate_hand (the table's evaluator)", evaluate_all),
        ("baseline: parse card text + evaluate", parse_and_evaluate_all),
        ("baseline: 52x52 look-up table", look_up_all),
        ("evaluate player + banker and settle", settle_all),
    ):
        t = best_of(1, fn)
        print(f"  {label:<40} {t:7.2f} s   {t / n_hands * 1e6:6.2f} us/hand")
