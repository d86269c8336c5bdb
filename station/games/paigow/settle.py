"""`station settle --game paigow`: one Pai Gow round, given as parsed JSON, settled from the
rules alone.

    {"cards": {"BANKER": ["8H", "8D"], "SHUN": ["QH", "9H"], "CHU": [..], "DAO": [..]},
     "bets": [{"account": "a1", "spot": "SHUN_WIN", "amount": 1000}, ...]}
 -> {"results": {"BANKER": {"hand": "pair_man", "points": 6},
                 "SHUN": {"outcome": "lose", "hand": "heaven_nine_king", "points": 1}, ...},
     "bets": [{"account": "a1", "spot": "SHUN_WIN", "amount": 1000,
               "deducted": 1000, "returned": 0}, ...]}

Decisions:
- `cards` must hold `BANKER` and every door a bet names; other doors are optional.
  `results` lists the hands given, `BANKER` first, then the doors in table order.
- Each hand is two cards of the 32-card deck (RULES.md §2.1) in §0 notation; a card outside
  the deck, or one card twice in the round, cannot have been dealt: the line is refused.
- Bets are taken in order. A bet that would break its account's limits for the round, given
  the bets of that account taken before it, is answered with `"refused": "conflict"` and no
  `deducted`/`returned` (it deducts nothing and counts for nothing). A bet with a bad spot,
  amount or account makes the whole line an error, as a malformed round would.
- Fields of a bet other than `account`, `spot`, `amount` are copied to the answer, except
  `deducted`, `returned` and `refused`, which are ours. An optional `round_id` is echoed.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from station.cards import Card
from station.games.paigow.bets import (
    BANKER,
    DOORS,
    POSITIONS,
    PaiGowBetError,
    check_amount_of,
    conflict,
    returned,
    split_spot,
)
from station.games.paigow.hands import Hand, evaluate, outcome
from station.games.paigow.tiles import TileError, tile_of
from station.games.round_lines import RoundError, answer, round_bets, round_cards, two_cards

OUTPUT_KEYS = frozenset({"deducted", "returned", "refused"})


def _parse_cards(raw: object) -> dict[str, Hand]:
    if not isinstance(raw, dict):
        raise RoundError("'cards' must be an object mapping BANKER, SHUN, CHU, DAO to hands")
    bad = [p for p in raw if p not in POSITIONS]
    if bad:
        raise RoundError(f"no hand(s) {bad} at a Pai Gow table ({', '.join(POSITIONS)})")
    if BANKER not in raw:
        raise RoundError("'cards' has no BANKER hand")
    hands = {p: two_cards(p, raw[p], tile_of, (TileError,)) for p in POSITIONS if p in raw}
    seen: dict[Card, str] = {}
    for p, cards in hands.items():
        for c in cards:
            if c in seen:
                where = p if seen[c] == p else f"{seen[c]} and {p}"
                raise RoundError(f"{c} dealt twice ({where}); the Pai Gow deck holds it once")
            seen[c] = p
    return {p: evaluate(cards) for p, cards in hands.items()}


def settle_round(obj: object) -> dict[str, Any]:
    """Settle one round given as a parsed JSON object. Raises RoundError."""
    hands = _parse_cards(round_cards(obj))
    assert isinstance(obj, dict)
    banker = hands[BANKER]
    outcomes = {d: outcome(hands[d], banker) for d in DOORS if d in hands}

    held: dict[str, set[str]] = defaultdict(set)
    answered: list[dict[str, Any]] = []
    for i, bet, account, spot in round_bets(obj, OUTPUT_KEYS):
        try:
            door, _ = split_spot(spot)
            amount = check_amount_of(bet["amount"])
        except PaiGowBetError as e:
            raise RoundError(f"bet {i}: {e}") from None
        if door not in outcomes:
            raise RoundError(f"bet {i} is on {spot} but the round gives no hand for {door}")
        if conflict(held[account], spot) is not None:
            answered.append({**bet, "refused": "conflict"})
            continue
        held[account].add(spot)
        answered.append({**bet, "deducted": amount, "returned": returned(spot, amount, outcomes[door])})

    results: dict[str, dict[str, Any]] = {BANKER: banker.as_dict()}
    for d in DOORS:
        if d in hands:
            results[d] = {"outcome": outcomes[d], **hands[d].as_dict()}
    return answer(obj, results, answered)
