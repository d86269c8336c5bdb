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

from station.cards import Card, CardError, parse_card
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

ROUND_KEYS = frozenset({"cards", "bets", "round_id"})
BET_KEYS = frozenset({"account", "spot", "amount"})
OUTPUT_KEYS = frozenset({"deducted", "returned", "refused"})


class RoundError(ValueError):
    """A line that is not a Pai Gow round this command can settle."""


def _parse_hand(position: str, cards: object) -> list[Card]:
    if not isinstance(cards, list):
        raise RoundError(f"hand {position} must be a list of two cards, got {cards!r}")
    if len(cards) != 2:
        raise RoundError(f"hand {position} must be exactly two cards, got {len(cards)}")
    try:
        parsed = [parse_card(c) for c in cards]
        for c in parsed:
            tile_of(c)
    except (CardError, TileError) as e:
        raise RoundError(f"hand {position}: {e}") from None
    return parsed


def _parse_cards(raw: object) -> dict[str, Hand]:
    if not isinstance(raw, dict):
        raise RoundError("'cards' must be an object mapping BANKER, SHUN, CHU, DAO to hands")
    bad = [p for p in raw if p not in POSITIONS]
    if bad:
        raise RoundError(f"no hand(s) {bad} at a Pai Gow table ({', '.join(POSITIONS)})")
    if BANKER not in raw:
        raise RoundError("'cards' has no BANKER hand")
    hands = {p: _parse_hand(p, raw[p]) for p in POSITIONS if p in raw}
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
    if not isinstance(obj, dict):
        raise RoundError(f"a round is a JSON object, got {type(obj).__name__}")
    unknown = set(obj) - ROUND_KEYS
    if unknown:
        raise RoundError(f"unknown round field(s) {sorted(unknown)}; expected cards, bets, round_id")
    if "cards" not in obj:
        raise RoundError("round has no 'cards'")
    hands = _parse_cards(obj["cards"])
    banker = hands[BANKER]
    outcomes = {d: outcome(hands[d], banker) for d in DOORS if d in hands}

    raw_bets = obj.get("bets", [])
    if not isinstance(raw_bets, list):
        raise RoundError("'bets' must be a list")
    held: dict[str, set[str]] = defaultdict(set)
    answered: list[dict[str, Any]] = []
    for i, bet in enumerate(raw_bets, start=1):
        if not isinstance(bet, dict):
            raise RoundError(f"bet {i} must be an object, got {bet!r}")
        missing = BET_KEYS - set(bet)
        if missing:
            raise RoundError(f"bet {i} lacks {sorted(missing)}")
        clash = OUTPUT_KEYS & set(bet)
        if clash:
            raise RoundError(f"bet {i} already carries {sorted(clash)}; those are settlement output")
        account, spot = bet["account"], bet["spot"]
        if not isinstance(account, str) or not account:
            raise RoundError(f"bet {i}: account must be a non-empty string, got {account!r}")
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
    out: dict[str, Any] = {}
    if "round_id" in obj:
        if not isinstance(obj["round_id"], str):
            raise RoundError(f"round_id must be a string, got {obj['round_id']!r}")
        out["round_id"] = obj["round_id"]
    out["results"] = results
    out["bets"] = answered
    return out
