"""`station settle --game pokdeng`: one Pok Deng round, given as parsed JSON, settled from
the rules alone.

Standard input: one round per line,

    {"cards": {"P1": ["AD", "KD"], ..., "B": ["6S", "4H"]},
     "bets": [{"account": "a1", "spot": "P1", "amount": 100}, ...]}

Standard output: one line per round, in input order,

    {"results": {"P1": {"outcome": "win", "multiplier": 1, "pair": false,
                        "rank": 7.5, "class": "lion_flush"}, ...},
     "bets": [{"account": "a1", "spot": "P1", "amount": 100, "deducted": 200, "returned": 300}]}

Decisions:
- `cards` must hold `B` and every position a bet names; other player positions are optional
  (a round may be given with all five or only those that were bet on). `results` lists the
  player positions given.
- Each hand is exactly two cards in RULES.md §0 notation. A card identity appearing more often
  in the round than the shoe holds copies (8) cannot have been dealt: the line is refused.
- `bets` may be missing or empty (results only). A bet has `account` (non-empty string),
  `spot` (`P1`…`P5`, `P1PAIR`…`P5PAIR`) and `amount` (positive integer, minor units); any other
  fields are copied to the output unchanged, except `deducted`/`returned`, which are ours.
- An optional `round_id` (string) is echoed so answers can be matched to questions.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from station.games.base import BetError
from station.games.pokdeng.rules import (
    BANKER,
    PLAYERS,
    PokDeng,
    evaluate_hand,
    position_result,
    returned_for,
)
from station.games.round_lines import RoundError, answer, round_bets, round_cards, two_cards

OUTPUT_KEYS = frozenset({"deducted", "returned"})


def settle_round(obj: object, decks: int = PokDeng.decks) -> dict[str, Any]:
    """Settle one Pok Deng round given as a parsed JSON object. Raises RoundError."""
    raw_cards = round_cards(obj)
    assert isinstance(obj, dict)
    if not isinstance(raw_cards, dict):
        raise RoundError("'cards' must be an object mapping positions to hands")
    bad_pos = [p for p in raw_cards if p not in PLAYERS and p != BANKER]
    if bad_pos:
        raise RoundError(f"no position(s) {bad_pos} at a Pok Deng table (P1-P5, B)")
    if BANKER not in raw_cards:
        raise RoundError("'cards' has no banker hand 'B'")
    hands = {p: two_cards(p, raw_cards[p]) for p in (*PLAYERS, BANKER) if p in raw_cards}

    copies = Counter(c for hand in hands.values() for c in hand)
    too_many = sorted(str(c) for c, n in copies.items() if n > decks)
    if too_many:
        raise RoundError(
            f"card(s) {too_many} appear more than {decks} times; an {decks}-deck shoe "
            "cannot deal that"
        )

    game = PokDeng()
    banker = evaluate_hand(hands[BANKER])
    values = {p: evaluate_hand(hands[p]) for p in PLAYERS if p in hands}
    outcomes = {p: position_result(v, banker) for p, v in values.items()}

    settled: list[dict[str, Any]] = []
    for i, bet, _, spot in round_bets(obj, OUTPUT_KEYS):
        amount = bet["amount"]
        if not isinstance(spot, str):
            raise RoundError(f"bet {i}: spot must be a string, got {spot!r}")
        try:
            deducted = game.check_bet(spot, amount)
        except BetError as e:
            raise RoundError(f"bet {i}: {e}") from None
        position = spot.removesuffix("PAIR")
        if position not in outcomes:
            raise RoundError(f"bet {i} is on {spot} but the round gives no hand for {position}")
        settled.append(
            {**bet, "deducted": deducted, "returned": returned_for(spot, amount, outcomes[position])}
        )

    results = {
        p: {
            **outcomes[p].as_dict(),
            "rank": values[p].rank,
            "class": values[p].cls,
        }
        for p in PLAYERS
        if p in values
    }
    return answer(obj, results, settled)
