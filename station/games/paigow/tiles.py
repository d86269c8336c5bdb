"""The 32 Wenzhou Pai Gow tiles and the 32 playing cards that stand for them (RULES.md §2.1).

The table deals playing cards so that the same shoe and camera serve every game; each card
of the 32-card deck *is* one tile. A card outside the deck (say `KS`) is no tile at all and
is refused with a clear error, never mapped to something near it.

Tiers: 1 is the highest single tile; tiles of one tier are equal. Only the tier of a hand's
highest tile is ever compared (RULES.md §2.3).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from station.cards import Card, parse_card


class TileError(ValueError):
    """A card that is not one of the 32 cards of the Pai Gow deck."""


@dataclass(frozen=True, slots=True)
class Tile:
    card: Card
    #: the tile family, shared by both tiles of a civil pair and of a mixed group
    #: (`heaven`, ..., `mixed_nine`, ...); a pair's hand key is `pair_<key>`
    key: str
    name: str
    zh: str
    pips: tuple[int, int]
    points: int
    tier: int


# key, English name, 中文, tier, points, ((card, pips), ...) in the order of RULES.md §2.1.
# Which card of a mixed group carries which pips is a matter of display only: the two tiles
# of a group are equal in every rule.
_TABLE: tuple[tuple[str, str, str, int, int, tuple[tuple[str, tuple[int, int]], ...]], ...] = (
    ("heaven", "Heaven", "天牌", 1, 12, (("QH", (6, 6)), ("QD", (6, 6)))),
    ("earth", "Earth", "地牌", 2, 2, (("2H", (1, 1)), ("2D", (1, 1)))),
    ("man", "Man", "人牌", 3, 8, (("8H", (4, 4)), ("8D", (4, 4)))),
    ("goose", "Goose", "鹅牌", 4, 4, (("4H", (1, 3)), ("4D", (1, 3)))),
    ("plum", "Plum", "梅牌", 5, 10, (("TC", (5, 5)), ("TS", (5, 5)))),
    ("long_three", "Long three", "长三", 5, 6, (("6C", (3, 3)), ("6S", (3, 3)))),
    ("bench", "Bench", "板凳", 5, 4, (("4C", (2, 2)), ("4S", (2, 2)))),
    ("axe", "Axe", "斧头", 6, 11, (("JH", (5, 6)), ("JD", (5, 6)))),
    ("red_ten", "Red ten", "红头十", 6, 10, (("TH", (4, 6)), ("TD", (4, 6)))),
    ("long_leg_seven", "Long-leg seven", "高脚七", 6, 7, (("7H", (1, 6)), ("7D", (1, 6)))),
    ("red_mallet_six", "Red mallet six", "零霖六", 6, 6, (("6H", (1, 5)), ("6D", (1, 5)))),
    ("mixed_nine", "Mixed nine", "杂九", 7, 9, (("9H", (4, 5)), ("9D", (3, 6)))),
    ("mixed_eight", "Mixed eight", "杂八", 7, 8, (("8C", (3, 5)), ("8S", (2, 6)))),
    ("mixed_seven", "Mixed seven", "杂七", 7, 7, (("7C", (3, 4)), ("7S", (2, 5)))),
    ("big_chicken_six", "Big chicken six", "大鸡六", 7, 6, (("AS", (2, 4)),)),
    ("mixed_five", "Mixed five", "杂五", 7, 5, (("5H", (1, 4)), ("5D", (2, 3)))),
    ("little_chicken", "Little chicken", "小鸡", 7, 3, (("3S", (1, 2)),)),
)

TILES: dict[Card, Tile] = {
    parse_card(card): Tile(parse_card(card), key, name, zh, pips, points, tier)
    for key, name, zh, tier, points, cards in _TABLE
    for card, pips in cards
}

#: the 32 cards of the deck, in the order of RULES.md §2.1
DECK: tuple[Card, ...] = tuple(TILES)

#: the deck as a card multiset (each of the 32 cards once), for the shoe and the table
DECK_COUNTS: Counter[Card] = Counter(DECK)

#: tile families in the order of RULES.md §2.1
FAMILIES: tuple[str, ...] = tuple(row[0] for row in _TABLE)

assert len(DECK) == 32 and len(DECK_COUNTS) == 32, "the Pai Gow deck is 32 distinct cards"


def tile_of(card: Card | str) -> Tile:
    """The tile a card stands for. Raises TileError for a card outside the 32 (and
    station.cards.CardError for text that is no card at all)."""
    c = parse_card(card)
    try:
        return TILES[c]
    except KeyError:
        raise TileError(f"{c} is not one of the 32 cards of the Pai Gow deck") from None


def in_deck(card: Card | str) -> bool:
    return parse_card(card) in TILES
