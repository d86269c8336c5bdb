"""Arranging four cards into a front and a back group (RULES.md §3.3, PROCEDURE.md §7.5).

A split keeps the cards of each group in the order they were dealt (read order), so the same
hand always prints the same way. Of the three ways to split four cards, the automatic
arrangement puts the stronger group at the back and takes the split with the strongest back,
then the strongest front; among splits equal on both, the first in the order the cards were
dealt (the card dealt first stays with its partner of the earliest split).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from station.cards import Card
from station.games.sizhidao.groups import Strength, group_strength

#: refusal reasons of an `arrange` (PROCEDURE.md §7.1)
BAD_CARDS = "bad_cards"
FRONT_ABOVE_BACK = "front_above_back"


class ArrangeError(ValueError):
    """An arrangement the rules refuse; `reason` is its PROCEDURE.md §7.1 reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Arrangement:
    front: tuple[Card, Card]
    back: tuple[Card, Card]
    front_strength: Strength
    back_strength: Strength
    auto: bool

    def as_dict(self) -> dict[str, object]:
        """The seat's entry of a `showdown` record (TRACES.md §3.1)."""
        return {
            "front": [str(c) for c in self.front],
            "back": [str(c) for c in self.back],
            "front_class": self.front_strength.cls,
            "back_class": self.back_strength.cls,
            "auto": self.auto,
        }


def _check_hand(hand: Sequence[Card]) -> None:
    if len(hand) != 4 or len(set(hand)) != 4:
        raise ValueError(f"a Si Zhi Dao hand is four different cards, got {[str(c) for c in hand]}")


def splits(hand: Sequence[Card]) -> list[tuple[tuple[Card, Card], tuple[Card, Card]]]:
    """The three ways to split four cards into two groups, each group in read order: the
    first card with the second, third and fourth card in turn."""
    _check_hand(hand)
    a, b, c, d = hand
    return [((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))]


def arrange(
    hand: Sequence[Card], front: Sequence[Card], back: Sequence[Card], *, auto: bool = False
) -> Arrangement:
    """A player's arrangement, checked. Raises ArrangeError (`bad_cards`, `front_above_back`).

    The groups are kept in the order the player gave them."""
    _check_hand(hand)
    front_t, back_t = tuple(front), tuple(back)
    if len(front_t) != 2 or len(back_t) != 2:
        raise ArrangeError(
            BAD_CARDS, "an arrangement is a front and a back group of two cards each"
        )
    given = [*front_t, *back_t]
    if len(set(given)) != 4 or set(given) != set(hand):
        # The message never names the cards: it may reach a log a dealer can read.
        raise ArrangeError(BAD_CARDS, "the two groups are not the seat's own four cards")
    front_s, back_s = group_strength(front_t, hand), group_strength(back_t, hand)
    if front_s > back_s:
        raise ArrangeError(FRONT_ABOVE_BACK, "the front group is above the back group")
    return Arrangement(front_t, back_t, front_s, back_s, auto)  # type: ignore[arg-type]


def auto_arrange(hand: Sequence[Card]) -> Arrangement:
    """The automatic arrangement (自動刁牌) of a hand."""
    best: Arrangement | None = None
    for one, other in splits(hand):
        s_one, s_other = group_strength(one, hand), group_strength(other, hand)
        if s_one > s_other:
            cand = Arrangement(other, one, s_other, s_one, True)
        else:
            cand = Arrangement(one, other, s_one, s_other, True)
        if best is None or (cand.back_strength, cand.front_strength) > (
            best.back_strength,
            best.front_strength,
        ):
            best = cand
    assert best is not None
    return best


def legal_arrangements(hand: Sequence[Card]) -> list[Arrangement]:
    """Every split with front ≤ back, each once per order of its groups that is legal (a
    split whose two groups are equal is legal both ways round)."""
    out = []
    for one, other in splits(hand):
        for front, back in ((one, other), (other, one)):
            try:
                out.append(arrange(hand, front, back))
            except ArrangeError:
                pass
    return out
