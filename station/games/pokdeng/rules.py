"""Pok Deng (博丁) rules: points, the rank ladder, deng, results and payouts (RULES.md §1).

Ranks are kept as integers in tenths (75 for the 7.5 lion flush) so that comparisons are
exact; `rank` in output records is that number divided by ten.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from station.cards import Card
from station.games.base import BURN, BetError, Game

PLAYERS = ("P1", "P2", "P3", "P4", "P5")
BANKER = "B"
POSITIONS = (*PLAYERS, BANKER)
SPOTS = frozenset(PLAYERS) | frozenset(p + "PAIR" for p in PLAYERS)
FACES = frozenset("JQK")
SPECIAL_PAIR_RANKS = frozenset("A56T")
PAIR_PAYOUT = 11  # the Pair bet wins 11 to 1 (returned 12A)


def card_points(card: Card) -> int:
    if card.rank == "A":
        return 1
    if card.rank in "TJQK":
        return 0
    return int(card.rank)


def hand_points(cards: Sequence[Card]) -> int:
    return sum(card_points(c) for c in cards) % 10


@dataclass(frozen=True, slots=True)
class HandValue:
    points: int
    rank10: int  # rank in tenths: 90, 80, 75 … 71, 70 … 0
    cls: str  # points | lion_flush | special_pair | royal | ten_royal | flush_zero
    pair: bool
    suited: bool

    @property
    def rank(self) -> float | int:
        return self.rank10 // 10 if self.rank10 % 10 == 0 else self.rank10 / 10

    @property
    def deng(self) -> bool:
        """The 2x hand: same suit, same rank, or any 7.x class."""
        return self.suited or self.pair or self.cls != "points"


def evaluate_hand(cards: Sequence[Card]) -> HandValue:
    if len(cards) != 2:
        raise ValueError(f"a Pok Deng hand is exactly two cards, got {len(cards)}")
    a, b = cards
    pts = hand_points(cards)
    pair = a.rank == b.rank
    suited = a.suit == b.suit
    ranks = {a.rank, b.rank}
    if pts >= 8:
        return HandValue(pts, pts * 10, "points", pair, suited)
    if suited and ranks == {"A", "K"}:
        return HandValue(pts, 75, "lion_flush", pair, suited)
    if pair and a.rank in SPECIAL_PAIR_RANKS:
        return HandValue(pts, 74, "special_pair", pair, suited)
    if a.rank in FACES and b.rank in FACES:
        return HandValue(pts, 73, "royal", pair, suited)
    if "T" in ranks and len(ranks & FACES) == 1:
        return HandValue(pts, 72, "ten_royal", pair, suited)
    if suited and pts == 0 and a.rank not in FACES and b.rank not in FACES:
        return HandValue(pts, 71, "flush_zero", pair, suited)
    return HandValue(pts, pts * 10, "points", pair, suited)


@dataclass(frozen=True, slots=True)
class PositionResult:
    outcome: str  # win | lose | tie
    multiplier: int  # 1 or 2 for a win or a loss, 0 for a tie
    pair: bool

    def as_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "multiplier": self.multiplier, "pair": self.pair}


def position_result(player: HandValue, banker: HandValue) -> PositionResult:
    if player.rank10 == banker.rank10:
        return PositionResult("tie", 0, player.pair)
    if player.rank10 > banker.rank10:
        m = 2 if player.deng else 1
        banker_zero_or_six = banker.cls == "points" and banker.rank10 in (0, 60)
        if banker_zero_or_six:
            m = 2 if (player.points in (8, 9) and (player.pair or player.suited)) else 1
        return PositionResult("win", m, player.pair)
    return PositionResult("lose", 2 if banker.deng else 1, player.pair)


def deducted_for(spot: str, amount: int) -> int:
    """What placing a bet takes from the wallet: 2A for a Player bet, A for a Pair bet."""
    return amount if spot.endswith("PAIR") else 2 * amount


def returned_for(spot: str, amount: int, result: PositionResult) -> int:
    if spot.endswith("PAIR"):
        return amount * (1 + PAIR_PAYOUT) if result.pair else 0
    if result.outcome == "win":
        return 2 * amount + result.multiplier * amount
    if result.outcome == "lose":
        return 2 * amount - result.multiplier * amount
    return 2 * amount


def results_for(hands: Mapping[str, Sequence[Card]]) -> dict[str, PositionResult]:
    banker = evaluate_hand(hands[BANKER])
    return {p: position_result(evaluate_hand(hands[p]), banker) for p in PLAYERS}


class PokDeng(Game):
    name = "pokdeng"
    title = "Pok Deng"
    camera_accuracy = "station.games.pokdeng.camera_accuracy:suite"
    camera_layout = "station.games.pokdeng.camera_layout:LAYOUT"
    table_prefix = "PD-"
    positions = POSITIONS
    zones = (*POSITIONS, BURN)
    spots = SPOTS
    deal_plan = (BURN, *POSITIONS, *POSITIONS)
    decks = 8
    # by name: the procedure needs the kernel's modules, the rules do not
    procedure_class = "station.games.pokdeng.procedure:PokDengProcedure"
    presentation = "station.games.pokdeng.panel:PokDengPanel"
    #: its tools, each in this package (station/games/tools.py)
    tools = {
        "settle_round": "station.games.pokdeng.settle:settle_round",
        "rtp": "station.games.pokdeng.rtp_report:run",
        "shoe_simulator": "station.games.pokdeng.shoe_dealer:simulator",
        "shoe_dealer": "station.games.pokdeng.shoe_dealer:deal",
        "soak": "station.games.pokdeng.tools.soak:run",
        "studio_session": "station.games.pokdeng.tools.studio_session:session",
        "demo_table": "station.games.pokdeng.tools.demo_table:demo_table",
        "demo": "station.sim.dealt_demo:run_dealt_table",
        "scripted_dealer": "station.sim.dealer:ScriptedDealer",
        "rules_bench": "station.games.pokdeng.tools.rules_bench:run",
        "camera_bench": "station.games.pokdeng.tools.camera_bench:camera_bench",
        "camera_table": "station.games.pokdeng.tools.camera_table:camera_table",
        "settlement_bench_round": "station.games.pokdeng.tools.settlement_bench:bench_round",
    }

    def check_bet(self, spot: str, amount: int, held: Sequence[tuple[str, int]] = ()) -> int:
        """Pok Deng bets are independent of each other: `held` does not matter."""
        if spot not in SPOTS:
            raise BetError("bad_spot", f"no spot {spot!r} at a Pok Deng table")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise BetError("bad_amount", f"amount must be a positive integer, got {amount!r}")
        return deducted_for(spot, amount)

    def evaluate(self, hands: Mapping[str, Sequence[Card]]) -> dict[str, dict[str, Any]]:
        return {p: r.as_dict() for p, r in results_for(hands).items()}

    def returned(self, spot: str, amount: int, hands: Mapping[str, Sequence[Card]]) -> int:
        position = spot.removesuffix("PAIR")
        banker = evaluate_hand(hands[BANKER])
        return returned_for(spot, amount, position_result(evaluate_hand(hands[position]), banker))

    @staticmethod
    def burn_count(first_card: Card) -> int:
        """The first card of a shoe names how many more cards are burned (T/J/Q/K = 10)."""
        if first_card.rank == "A":
            return 1
        if first_card.rank in "TJQK":
            return 10
        return int(first_card.rank)
