"""Pok Deng (博丁): the rules (`rules`), the exact return (`rtp`) and the table procedure
(`procedure`). The rules' names are re-exported here for the tools that use them."""

from station.games.pokdeng.rules import (
    BANKER,
    PAIR_PAYOUT,
    PLAYERS,
    POSITIONS,
    SPOTS,
    HandValue,
    PokDeng,
    PositionResult,
    card_points,
    deducted_for,
    evaluate_hand,
    hand_points,
    position_result,
    results_for,
    returned_for,
)

__all__ = [
    "BANKER", "PAIR_PAYOUT", "PLAYERS", "POSITIONS", "SPOTS", "HandValue", "PokDeng",
    "PositionResult", "card_points", "deducted_for", "evaluate_hand",
    "hand_points", "position_result", "results_for", "returned_for",
]
