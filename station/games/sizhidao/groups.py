"""Si Zhi Dao two-card groups: card values, the four classes and their order (RULES.md §3.2).

A card is worth A = 1, 2-9 its pips, T = 0 and J/Q/K one half. Points are kept in
*half-points* (integers: 19 is 9½) so that no float ever decides a hand.

The strength of a group is a pair of integers `(class, value)` compared as a tuple:

| class | `CLASS_RANK` | value |
|---|---|---|
| `four_of_a_kind` | 3 | rank, 2 lowest … A highest (`HIGH_RANK`) |
| `pair` | 2 | rank, 2 lowest … A highest |
| `luosuo` (囉唆) | 1 | 0: all 囉唆 are equal |
| `points` | 0 | half-points 0 … 19 |

Four of a kind is a whole-hand class: when the four cards of a hand are four of one rank,
both its groups are that four of a kind, whichever way they are split.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from station.cards import Card

FACES = frozenset("JQK")

CLASS_POINTS = "points"
CLASS_LUOSUO = "luosuo"
CLASS_PAIR = "pair"
CLASS_FOUR = "four_of_a_kind"
CLASS_RANK = {CLASS_POINTS: 0, CLASS_LUOSUO: 1, CLASS_PAIR: 2, CLASS_FOUR: 3}
CLASS_NAMES = {rank: name for name, rank in CLASS_RANK.items()}

#: pair and four-of-a-kind order: 2 lowest, then 3 … 9, T, J, Q, K, and A highest
HIGH_RANK = {r: i for i, r in enumerate("23456789TJQKA", start=2)}


def card_half_points(card: Card) -> int:
    """The card's value in half-points: A 2, 2-9 twice the pips, T 0, J/Q/K 1."""
    if card.rank == "A":
        return 2
    if card.rank == "T":
        return 0
    if card.rank in FACES:
        return 1
    return 2 * int(card.rank)


def group_half_points(cards: Sequence[Card]) -> int:
    """Points of a group in half-points: the sum modulo 10 points, keeping the half."""
    return sum(card_half_points(c) for c in cards) % 20


def format_half_points(half_points: int) -> str:
    """19 -> '9½', 8 -> '4'."""
    whole, half = divmod(half_points, 2)
    if not half:
        return str(whole)
    return f"{whole}½" if whole else "½"


@dataclass(frozen=True, slots=True, order=True)
class Strength:
    """How strong a group is; comparing two Strengths compares the groups."""

    class_rank: int
    value: int

    @property
    def cls(self) -> str:
        return CLASS_NAMES[self.class_rank]

    def describe(self) -> str:
        if self.cls == CLASS_POINTS:
            return f"{format_half_points(self.value)} points"
        if self.cls == CLASS_LUOSUO:
            return "囉唆"
        rank = next(r for r, v in HIGH_RANK.items() if v == self.value)
        return f"{'four' if self.cls == CLASS_FOUR else 'pair'} of {rank}"


def is_four_of_a_kind(hand: Sequence[Card]) -> bool:
    return len(hand) == 4 and len({c.rank for c in hand}) == 1


def group_strength(group: Sequence[Card], hand: Sequence[Card] | None = None) -> Strength:
    """The strength of a two-card group; `hand` (the player's four cards) decides whether the
    whole-hand four of a kind applies. Without `hand` only the group itself counts."""
    if len(group) != 2:
        raise ValueError(f"a Si Zhi Dao group is exactly two cards, got {len(group)}")
    if hand is not None and is_four_of_a_kind(hand):
        return Strength(CLASS_RANK[CLASS_FOUR], HIGH_RANK[hand[0].rank])
    a, b = group
    if a.rank == b.rank:
        return Strength(CLASS_RANK[CLASS_PAIR], HIGH_RANK[a.rank])
    if a.rank in FACES and b.rank in FACES:
        return Strength(CLASS_RANK[CLASS_LUOSUO], 0)
    return Strength(CLASS_RANK[CLASS_POINTS], group_half_points(group))
