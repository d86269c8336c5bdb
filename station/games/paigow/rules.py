"""Wenzhou Pai Gow as a game of the kernel's contract (station/games/base.py): the rules half.

The deal plan is not fixed at round open: the dice name the first door (PROCEDURE.md §6.2.5),
so `deal_plan` is empty and `deal_plan_for(dice)` gives the round's plan once they are known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from station.cards import Card
from station.games.base import BetError, Game
from station.games.paigow.bets import (
    BANKER,
    DOORS,
    POSITIONS,
    SPOTS,
    PaiGowBetError,
    check_amount_of,
    conflict,
    returned,
    split_spot,
)
from station.games.paigow.hands import evaluate, outcome
from station.games.paigow.settings import PaiGowSettings
from station.games.paigow.tiles import DECK_COUNTS

DICE_ZONE = "DICE"
#: (sum of the dice) mod 4 -> the first door dealt (RULES.md §2.4)
FIRST_DOOR: dict[int, str] = {1: "BANKER", 2: "SHUN", 3: "CHU", 0: "DAO"}


def first_door(dice: Sequence[int]) -> str:
    """The door the deal starts at, from the two faces thrown. Raises ValueError for faces
    that are not two integers 1-6 (a dealer's `bad_dice`)."""
    if len(dice) != 2 or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise ValueError(f"dice are two integers 1-6, got {list(dice)!r}")
    return FIRST_DOOR[sum(dice) % 4]


def deal_plan_for(dice: Sequence[int]) -> tuple[str, ...]:
    """The door of each of the round's 8 cards: from the first door, cyclic order
    BANKER SHUN CHU DAO, twice round."""
    start = POSITIONS.index(first_door(dice))
    circle = POSITIONS[start:] + POSITIONS[:start]
    return circle + circle


class PaiGow(Game):
    name = "paigow"
    settings_class = PaiGowSettings
    title = "Wenzhou Pai Gow"
    camera_accuracy = "station.games.paigow.camera_accuracy:suite"
    table_prefix = "WZ-"
    positions = POSITIONS
    zones = (*POSITIONS, DICE_ZONE)
    zone_kinds = MappingProxyType({DICE_ZONE: "dice"})
    spots = frozenset(SPOTS)
    deal_plan = ()  # known only once the dice are: deal_plan_for(dice)
    cards_per_hand = 2
    cards_per_round_fixed = 8
    # by name: the procedure needs the kernel's modules, the rules do not
    procedure_class = "station.games.paigow.procedure:PaiGowProcedure"
    presentation = "station.games.paigow.panel:PaiGowPanel"
    #: its tools, each in this package (station/games/tools.py)
    tools = {
        "settle_round": "station.games.paigow.settle:settle_round",
        "rtp": "station.games.paigow.rtp:run",
        "shoe_simulator": "station.games.paigow.shoe_dealer:simulator",
        "shoe_dealer": "station.games.paigow.shoe_dealer:deal",
        "soak": "station.games.paigow.tools.soak:run",
        "studio_session": "station.games.paigow.tools.studio_session:session",
        "demo_table": "station.games.paigow.tools.demo_table:demo_table",
        "demo": "station.sim.dealt_demo:run_dealt_table",
        "scripted_dealer": "station.games.paigow.tools.dealer:PaiGowDealer",
        "camera_bench": "station.games.paigow.tools.camera_bench:camera_bench",
        "camera_table": "station.games.paigow.tools.camera_table:camera_table",
        "rules_bench": "station.games.paigow.tools.rules_bench:run",
    }

    @property
    def deck(self) -> Counter[Card]:
        return Counter(DECK_COUNTS)

    @property
    def cards_per_round(self) -> int:
        return self.cards_per_round_fixed

    def check_bet(self, spot: str, amount: Any, held: Sequence[tuple[str, int]] = ()) -> int:
        """`bad_spot`, `bad_amount`, then `conflict` against what the account already holds
        this round; placing deducts the amount."""
        try:
            split_spot(spot)
            amount = check_amount_of(amount)
        except PaiGowBetError as e:
            raise BetError(e.reason, str(e)) from None
        why = conflict([s for s, _ in held], spot)
        if why is not None:
            raise BetError("conflict", why)
        return amount

    def evaluate(self, hands: Mapping[str, Sequence[Card]]) -> dict[str, dict[str, Any]]:
        """The `results` of a hand record (PROCEDURE.md §6.5)."""
        banker = evaluate(hands[BANKER])
        results: dict[str, dict[str, Any]] = {BANKER: banker.as_dict()}
        for door in DOORS:
            value = evaluate(hands[door])
            results[door] = {"outcome": outcome(value, banker), **value.as_dict()}
        return results

    def returned(self, spot: str, amount: int, hands: Mapping[str, Sequence[Card]]) -> int:
        door, _ = split_spot(spot)
        return returned(spot, amount, outcome(evaluate(hands[door]), evaluate(hands[BANKER])))
