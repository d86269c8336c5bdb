"""Card notation shared by every game and every interface (spec RULES.md §0).

A card is rank then suit, printed in the canonical two-character form (`7H`, `TD`). On input
we also accept `10` for the ten, lower case and the suit symbols, because dealers' tools and
operators type them; anything else is a clear error. An unreadable card is never turned into
some default card.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "SHDC"
_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}


class CardError(ValueError):
    """A string that is not a card in RULES.md §0 notation."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    rank: str
    suit: str

    def __post_init__(self) -> None:
        # `in` on a str is a substring test ("SH" in "SHDC"), so check the type and length too
        if not (
            isinstance(self.rank, str)
            and isinstance(self.suit, str)
            and len(self.rank) == 1
            and len(self.suit) == 1
            and self.rank in RANKS
            and self.suit in SUITS
        ):
            raise CardError(f"not a card: rank {self.rank!r}, suit {self.suit!r}")

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({self})"

    @property
    def rank_index(self) -> int:
        """0 for A … 12 for K."""
        return RANKS.index(self.rank)


def parse_card(text: object) -> Card:
    """Parse one card. Raises CardError with the offending text on anything else."""
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r} (expected a string such as '7H' or '10D')")
    s = text.strip()
    if not s:
        raise CardError("not a card: empty string")
    suit_ch = s[-1]
    # Upper-case ASCII only: Unicode case mapping would turn e.g. the long s 'ſ' into 'S'.
    suit = _SUIT_SYMBOLS.get(suit_ch, suit_ch.upper() if suit_ch.isascii() else suit_ch)
    rank = s[:-1].upper() if s[:-1].isascii() else s[:-1]
    if rank == "10":
        rank = "T"
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS:
        raise CardError(
            f"not a card: {text!r} (rank one of A 2-9 T/10 J Q K, suit one of S H D C or ♠♥♦♣)"
        )
    return Card(rank, suit)


def parse_cards(items: Iterable[object]) -> list[Card]:
    return [parse_card(x) for x in items]


ALL_CARDS: tuple[Card, ...] = tuple(Card(r, s) for s in SUITS for r in RANKS)


class ShoeContents:
    """What a shoe can hold (a card multiset: 8 decks of 52 at one game's table, 32 stand-in
    cards at another's): counts every identity drawn and tells a card beyond its copies (a
    ninth copy in an 8-deck shoe, a card not in the deck at all) and a repeated printed code
    (serialized decks)."""

    def __init__(self, decks: int = 8, *, deck: Counter[Card] | None = None) -> None:
        self.deck: Counter[Card] = Counter(deck) if deck is not None else Counter(
            {c: decks for c in ALL_CARDS})
        self.decks = decks if deck is None else max(self.deck.values(), default=0)
        self.seen: Counter[Card] = Counter()
        self.codes: set[str] = set()

    def draw(self, card: Card, code: str | None = None) -> str | None:
        """Record a drawn card. Returns None if legal, else why it cannot be from this shoe."""
        problem = None
        held = self.deck[card]
        if self.seen[card] >= held:
            problem = (f"{card} is not a card of this deck" if held == 0 else
                       f"{card} seen {self.seen[card] + 1} times in a shoe that holds {held}")
        if code is not None:
            if code in self.codes:
                problem = f"{card} printed code {code} already seen in this shoe"
            self.codes.add(code)
        self.seen[card] += 1
        return problem

    @property
    def drawn(self) -> int:
        return sum(self.seen.values())

    def remaining(self) -> Counter[Card]:
        return Counter({c: n - self.seen[c] for c, n in self.deck.items()})
