"""Two-tile hands and the comparison of a door with the banker (RULES.md §2.2–2.3).

A hand is, from highest: one of the 8 pair ranks, one of the 5 specials, or a points hand
((sum of the tiles' points) mod 10, 9 high). Within points, equal points are decided by the
tier of each hand's highest single tile; a 0-point hand has no tier. Every equality goes to
the banker: there is no tie at this table.

`hand` keys are those of PROCEDURE.md §6.5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from station.cards import Card
from station.games.paigow.tiles import Tile, tile_of

#: rank of the 8 pair classes and the 5 specials, 1 the highest (RULES.md §2.2)
PAIR_RANK: dict[str, int] = {
    "heaven": 1,
    "earth": 2,
    "man": 4,
    "goose": 5,
    "plum": 6,
    "long_three": 6,
    "bench": 6,
    "axe": 7,
    "red_ten": 7,
    "long_leg_seven": 7,
    "red_mallet_six": 7,
    "mixed_nine": 8,
    "mixed_eight": 8,
    "mixed_seven": 8,
    "mixed_five": 8,
}
SUPREME_RANK = 3

#: specials: (key, rank, the family of one tile, the families the other tile may be)
SPECIALS: tuple[tuple[str, int, str, frozenset[str]], ...] = (
    ("heaven_nine_king", 9, "heaven", frozenset({"mixed_nine"})),
    ("heaven_gang", 10, "heaven", frozenset({"man", "mixed_eight"})),
    ("earth_gang", 11, "earth", frozenset({"man", "mixed_eight"})),
    ("heaven_nine", 12, "heaven", frozenset({"long_leg_seven", "mixed_seven"})),
    ("earth_nine", 13, "earth", frozenset({"long_leg_seven", "mixed_seven"})),
)
#: a points hand ranks below every pair and special
POINTS_RANK = 14

#: every `hand` key, highest class first (PROCEDURE.md §6.5)
HAND_KEYS: tuple[str, ...] = (
    "pair_heaven",
    "pair_earth",
    "supreme",
    "pair_man",
    "pair_goose",
    "pair_plum",
    "pair_long_three",
    "pair_bench",
    "pair_axe",
    "pair_red_ten",
    "pair_long_leg_seven",
    "pair_red_mallet_six",
    "pair_mixed_nine",
    "pair_mixed_eight",
    "pair_mixed_seven",
    "pair_mixed_five",
    *(key for key, *_ in SPECIALS),
    "points",
)


@dataclass(frozen=True, slots=True)
class Hand:
    """What a two-tile hand is worth."""

    key: str  # PROCEDURE.md §6.5: pair_*, supreme, a special, or points
    rank: int  # 1..13 for pairs and specials, POINTS_RANK for a points hand
    points: int  # (sum of both tiles' points) mod 10, for every hand
    top_tier: int  # tier of the hand's highest single tile (1 is highest)

    @property
    def is_pair(self) -> bool:
        return self.rank <= 8

    @property
    def is_special(self) -> bool:
        return 9 <= self.rank <= 13

    @property
    def strength(self) -> tuple[int, int, int]:
        """Greater is stronger; equal strengths go to the banker. A points hand is compared
        on points, then on its top tile's tier; a 0-point hand has no tier."""
        if self.rank != POINTS_RANK:
            return (POINTS_RANK - self.rank, 0, 0)
        if self.points == 0:
            return (0, 0, 0)
        return (0, self.points, 8 - self.top_tier)

    def as_dict(self) -> dict[str, object]:
        return {"hand": self.key, "points": self.points}


def _classify(a: Tile, b: Tile) -> tuple[str, int]:
    if a.key == b.key and a.key in PAIR_RANK:
        return f"pair_{a.key}", PAIR_RANK[a.key]
    families = {a.key, b.key}
    if families == {"big_chicken_six", "little_chicken"}:
        return "supreme", SUPREME_RANK
    for key, rank, lead, others in SPECIALS:
        if lead in families and (families - {lead}) <= others and len(families) == 2:
            return key, rank
    return "points", POINTS_RANK


def evaluate(cards: Sequence[Card | str]) -> Hand:
    """The value of a two-tile hand; the order of the two cards does not matter. Raises
    ValueError for anything but two distinct cards of the 32-card deck."""
    if len(cards) != 2:
        raise ValueError(f"a Pai Gow hand is exactly two tiles, got {len(cards)}")
    a, b = tile_of(cards[0]), tile_of(cards[1])
    if a.card == b.card:
        raise ValueError(f"{a.card} twice in one hand: the Pai Gow deck holds each card once")
    key, rank = _classify(a, b)
    return Hand(key, rank, (a.points + b.points) % 10, min(a.tier, b.tier))


def door_wins(door: Hand, banker: Hand) -> bool:
    """True if the door beats the banker; every equality (same pair rank, same special,
    equal points and top tier, 0 against 0) is the banker's."""
    return door.strength > banker.strength


def outcome(door: Hand, banker: Hand) -> str:
    """`win` or `lose`, the door's result against the banker (a tie is `lose`)."""
    return "win" if door_wins(door, banker) else "lose"
