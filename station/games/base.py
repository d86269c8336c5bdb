"""The contract between the table core and a game module."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from station.cards import Card

BURN = "BURN"


class BetError(ValueError):
    """A bet the game cannot take; `reason` is a TRACES.md bet_rejected reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class Game(ABC):
    name: str
    #: positions that receive hands, in reveal order
    positions: tuple[str, ...]
    #: camera zones the procedure checks
    zones: tuple[str, ...]
    #: what the k-th card of a round (k from 0) is for: a position name or BURN
    deal_plan: tuple[str, ...]
    decks: int

    @property
    def cards_per_round(self) -> int:
        return len(self.deal_plan)

    @abstractmethod
    def check_bet(self, spot: str, amount: int) -> int:
        """Validate a bet and return what placing it deducts. Raises BetError."""

    @abstractmethod
    def evaluate(self, hands: Mapping[str, Sequence[Card]]) -> dict[str, dict[str, Any]]:
        """Results per player position (the `results` of a hand record)."""

    @abstractmethod
    def returned(self, spot: str, amount: int, hands: Mapping[str, Sequence[Card]]) -> int:
        """What settlement gives back for an accepted bet."""
