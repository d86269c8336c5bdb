"""Exact return to player of the Pok Deng bets (RULES.md §1.5, §1.6).

A Player bet on position N is decided by four cards only: N's two and the banker's two. The
other positions and the burn card are dealt from the same shoe, but since nobody sees them
before settlement they do not change the distribution of those four cards: it is that of four
cards drawn without replacement from the full shoe. So the exact return is a finite sum over
ordered four-card draws.

Enumerating all 52**4 ordered card identities (7.3 million, each evaluated) takes about 40 s
in Python. We group instead. Whatever four identities are drawn, the probability of that
ordered draw depends only on *which positions repeat an identity*; and the rules look at a
suit only to ask "are the two cards of this hand the same suit". So we enumerate:

- every ordered tuple of four ranks (13**4 = 28 561), and
- every suit pattern of the four cards: a set partition of the four positions into groups of
  equal suit (15 of them), each standing for falling(4, groups) concrete suit assignments.

For a rank tuple, the draw probability summed over a suit pattern is a product of
(copies left)/(cards left) terms that depends only on the rank *equality pattern* and the suit
pattern, so it is computed once per pair of patterns (15 × 15) and then folded down to the
only thing the rules see: (player suited?, banker suited?). The main loop is then 28 561 × 4
table look-ups. All sums are exact integers over the common denominator
416·415·414·413, turned into `fractions.Fraction` at the end; nothing is sampled or rounded.

The same code answers for a reduced shoe (fewer ranks, suits or decks) so that tests can check
it against a plain card-by-card enumeration that shares none of this grouping.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from station.cards import RANKS, SUITS, Card
from station.games.pokdeng.rules import (
    PAIR_PAYOUT,
    HandValue,
    PositionResult,
    evaluate_hand,
    position_result,
)

#: (outcome, multiplier) of a Player bet, in the order tables print them
OUTCOMES: tuple[tuple[str, int], ...] = (
    ("win", 2),
    ("win", 1),
    ("tie", 0),
    ("lose", 1),
    ("lose", 2),
)


def set_partitions(n: int) -> list[tuple[int, ...]]:
    """Every partition of n positions into groups, as restricted growth strings:
    position i belongs to group s[i]; s[0] = 0 and each s[i] <= max(s[:i]) + 1."""
    out: list[tuple[int, ...]] = []

    def grow(prefix: tuple[int, ...], top: int) -> None:
        if len(prefix) == n:
            out.append(prefix)
            return
        for g in range(top + 2):
            grow((*prefix, g), max(top, g))

    grow((0,), 0)
    return out


def _pattern_of(values: Sequence[object]) -> tuple[int, ...]:
    """The restricted growth string of a sequence: which positions hold equal values."""
    seen: dict[object, int] = {}
    return tuple(seen.setdefault(v, len(seen)) for v in values)


def _falling(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


@dataclass(frozen=True)
class PokDengRTP:
    """Exact outcome probabilities and returns of the Player bet and the Pair bet."""

    decks: int
    ranks: str
    suits: str
    #: P(outcome, multiplier) of a Player bet
    player: dict[tuple[str, int], Fraction]
    #: P(the player position's two cards have the same rank)
    pair: Fraction

    @property
    def total(self) -> Fraction:
        """Sum of the Player-bet outcome probabilities; exactly 1 when the enumeration is whole."""
        return sum(self.player.values(), Fraction(0))

    def prob(self, outcome: str) -> Fraction:
        return sum((p for (o, _), p in self.player.items() if o == outcome), Fraction(0))

    @property
    def player_returned(self) -> Fraction:
        """Expected amount returned per unit A of a Player bet (2A was deducted)."""
        ret = Fraction(0)
        for (outcome, m), p in self.player.items():
            if outcome == "win":
                ret += p * (2 + m)
            elif outcome == "lose":
                ret += p * (2 - m)
            else:
                ret += p * 2
        return ret

    @property
    def player_rtp_stake(self) -> Fraction:
        """Per unit staked: the reserve A comes back whole, so only the stake A is at risk
        beyond it; (A + expected net win) / A."""
        return self.player_returned - 1

    @property
    def player_rtp_deducted(self) -> Fraction:
        """Per unit deducted from the wallet (2A): expected returned / 2A."""
        return self.player_returned / 2

    @property
    def pair_rtp(self) -> Fraction:
        """The Pair bet deducts exactly its stake, so both bases are the same number."""
        return self.pair * (1 + PAIR_PAYOUT)


def pokdeng_rtp(decks: int = 8, ranks: str = RANKS, suits: str = SUITS) -> PokDengRTP:
    """Enumerate (grouped, exact) every ordered draw of player and banker hands."""
    if decks < 1:
        raise ValueError(f"a shoe needs at least one deck, got {decks}")
    if not ranks or len(set(ranks)) != len(ranks) or any(r not in RANKS for r in ranks):
        raise ValueError(f"ranks must be distinct letters of {RANKS}, got {ranks!r}")
    if not suits or len(set(suits)) != len(suits) or any(s not in SUITS for s in suits):
        raise ValueError(f"suits must be distinct letters of {SUITS}, got {suits!r}")
    n_cards = decks * len(ranks) * len(suits)
    if n_cards < 4:
        raise ValueError("the shoe must hold at least four cards")

    partitions = set_partitions(4)
    # weight[rank pattern][(player suited, banker suited)] = summed numerator of the draw
    # probability of one concrete rank tuple with that rank pattern.
    weight: dict[tuple[int, ...], dict[tuple[bool, bool], int]] = {}
    for rpat in partitions:
        folded: dict[tuple[bool, bool], int] = {}
        for spat in partitions:
            groups = max(spat) + 1
            num = _falling(len(suits), groups)
            if num == 0:
                continue
            for i in range(4):
                # copies of this exact identity already drawn before card i
                repeats = sum(1 for j in range(i) if rpat[j] == rpat[i] and spat[j] == spat[i])
                num *= decks - repeats
            if num <= 0:
                continue
            key = (spat[0] == spat[1], spat[2] == spat[3])
            folded[key] = folded.get(key, 0) + num
        weight[rpat] = folded
    denominator = _falling(n_cards, 4)

    # Hand values by (first rank, second rank, suited). A suited hand is built from one suit
    # twice; an unsuited one needs a second suit, which a one-suit shoe cannot deal (its
    # weight is then zero and it is never looked up).
    s0 = suits[0]
    s1 = suits[1] if len(suits) > 1 else None
    hand: dict[tuple[str, str, bool], HandValue] = {}
    for r1, r2 in product(ranks, repeat=2):
        hand[(r1, r2, True)] = evaluate_hand((Card(r1, s0), Card(r2, s0)))
        if s1 is not None:
            hand[(r1, r2, False)] = evaluate_hand((Card(r1, s0), Card(r2, s1)))

    results: dict[tuple[HandValue, HandValue], PositionResult] = {}
    counts: dict[tuple[str, int], int] = {k: 0 for k in OUTCOMES}
    pair_num = 0
    for r1, r2, r3, r4 in product(ranks, repeat=4):
        folded = weight[_pattern_of((r1, r2, r3, r4))]
        for (p_suited, b_suited), w in folded.items():
            pv = hand[(r1, r2, p_suited)]
            bv = hand[(r3, r4, b_suited)]
            res = results.get((pv, bv))
            if res is None:
                res = results[(pv, bv)] = position_result(pv, bv)
            counts[(res.outcome, res.multiplier)] += w
            if res.pair:
                pair_num += w
    player = {k: Fraction(v, denominator) for k, v in counts.items()}
    return PokDengRTP(decks, ranks, suits, player, Fraction(pair_num, denominator))
