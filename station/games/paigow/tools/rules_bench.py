"""Wenzhou Pai Gow's part of `./run.sh bench rules`: the speed of `station rtp paigow` and of
hand evaluation, each beside a baseline measured in the same run on the same machine:
- the exact return to player by enumeration over the 496 hands evaluated once (what
  `station rtp` does), against the obvious enumeration that evaluates both hands of every
  (door hand, banker hand) draw from their cards (run whole, and checked to give the same
  count; with `quick`, timed on the draws whose door holds the deck's first card, 1/16 of
  the whole, and scaled up);
- evaluating random hands with the table's evaluator, against reading them from card text
  first and against a look-up table of the 496 hands; and a door decided against a banker.
`quick`: a tenth of the hands (a million otherwise), for a smoke run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from itertools import combinations

from station.games.paigow.hands import door_wins, evaluate
from station.games.paigow.rtp import paigow_rtp
from station.games.paigow.tiles import DECK


def _seconds(fn: Callable[[], object], runs: int = 1) -> tuple[float, object]:
    """The best of `runs` timings of fn, and what it returned."""
    best, value = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def naive_wins(first_card_only: bool) -> tuple[int, int]:
    """(draws, door wins), each draw's two hands evaluated from their cards; only the door
    hands holding DECK[0] when `first_card_only`."""
    draws = wins = 0
    for door_cards in combinations(DECK, 2):
        if first_card_only and DECK[0] not in door_cards:
            continue
        for banker_cards in combinations(DECK, 2):
            if set(door_cards) & set(banker_cards):
                continue
            draws += 1
            wins += door_wins(evaluate(door_cards), evaluate(banker_cards))
    return draws, wins


def run(quick: bool) -> None:
    n_hands = 100_000 if quick else 1_000_000
    pairs = list(combinations(DECK, 2))

    print(f"exact return to player, Pai Gow, {len(DECK)}-card deck")
    t_grouped, r = _seconds(paigow_rtp, 3)
    print(f"  hands evaluated once (station rtp)      {t_grouped * 1000:8.1f} ms  (best of 3)")
    if quick:
        t_naive, (draws, _) = _seconds(lambda: naive_wins(True))
        scale = r.draws / draws
        print(f"  baseline: each draw evaluated, 1/{scale:.0f}     {t_naive * 1000:8.1f} ms"
              f"  -> whole about {t_naive * scale:.1f} s (scaled)")
    else:
        t_naive, (draws, wins) = _seconds(lambda: naive_wins(False))
        scale = 1.0
        same = "same count" if (draws, wins) == (r.draws, r.door_wins) else "COUNTS DIFFER"
        print(f"  baseline: each draw evaluated           {t_naive * 1000:8.1f} ms  ({same})")
    print(f"  speed-up                                {t_naive * scale / t_grouped:8.0f} x")
    print(f"  door beats the banker {float(r.win):.6%} of {r.draws:,} draws")

    print(f"\nevaluating {n_hands:,} random hands")
    rng = random.Random(20261203)
    hands = [rng.choice(pairs) for _ in range(n_hands)]
    texts = [(str(a).lower(), str(b)) for a, b in hands]
    table = {frozenset(p): evaluate(p) for p in pairs}
    banker = hands[1:] + hands[:1]

    def evaluate_all() -> None:
        for h in hands:
            evaluate(h)

    def parse_and_evaluate_all() -> None:
        for h in texts:
            evaluate(h)

    def look_up_all() -> None:
        for h in hands:
            table[frozenset(h)]

    def decide_all() -> None:
        for d, b in zip(hands, banker, strict=True):
            door_wins(evaluate(d), evaluate(b))

    for label, fn in (
        ("evaluate (the table's evaluator)", evaluate_all),
        ("baseline: parse card text + evaluate", parse_and_evaluate_all),
        ("baseline: look-up table of 496 hands", look_up_all),
        ("evaluate door + banker and decide", decide_all),
    ):
        t, _ = _seconds(fn)
        print(f"  {label:<40} {t:7.2f} s   {t / n_hands * 1e6:6.2f} us/hand")
