"""A round given as one JSON line to `station settle`, read the same way for every game whose
rounds are hands against a banker: the round object, its two-card hands, its bets and the
answer's shape. Each game's `settle_round` (its package's settle.py) adds its own positions,
checks and figures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from station.cards import Card, CardError, parse_card

ROUND_KEYS = frozenset({"cards", "bets", "round_id"})
BET_KEYS = frozenset({"account", "spot", "amount"})


class RoundError(ValueError):
    """A line that is not a round the game can settle."""


def round_cards(obj: object) -> Any:
    """The round's `cards`, once the object is a round: a JSON object of known fields."""
    if not isinstance(obj, dict):
        raise RoundError(f"a round is a JSON object, got {type(obj).__name__}")
    unknown = set(obj) - ROUND_KEYS
    if unknown:
        raise RoundError(f"unknown round field(s) {sorted(unknown)}; expected cards, bets, round_id")
    if "cards" not in obj:
        raise RoundError("round has no 'cards'")
    return obj["cards"]


def two_cards(position: str, cards: object, check: Callable[[Card], Any] | None = None,
              errors: tuple[type[Exception], ...] = ()) -> list[Card]:
    """A hand of exactly two cards in RULES.md §0 notation (`check` each too, if given)."""
    if not isinstance(cards, list):
        raise RoundError(f"hand {position} must be a list of two cards, got {cards!r}")
    if len(cards) != 2:
        raise RoundError(f"hand {position} must be exactly two cards, got {len(cards)}")
    try:
        parsed = [parse_card(c) for c in cards]
        for c in parsed if check is not None else ():
            check(c)
    except (CardError, *errors) as e:
        raise RoundError(f"hand {position}: {e}") from None
    return parsed


def round_bets(obj: dict[str, Any], output_keys: frozenset[str]
               ) -> Iterator[tuple[int, dict[str, Any], str, Any]]:
    """Each bet of the round, checked as a bet line: (number from 1, the bet, its account,
    its spot). `output_keys` are the answer's, which a bet may not carry already."""
    raw_bets = obj.get("bets", [])
    if not isinstance(raw_bets, list):
        raise RoundError("'bets' must be a list")
    for i, bet in enumerate(raw_bets, start=1):
        if not isinstance(bet, dict):
            raise RoundError(f"bet {i} must be an object, got {bet!r}")
        missing = BET_KEYS - set(bet)
        if missing:
            raise RoundError(f"bet {i} lacks {sorted(missing)}")
        clash = output_keys & set(bet)
        if clash:
            raise RoundError(f"bet {i} already carries {sorted(clash)}; those are settlement output")
        account = bet["account"]
        if not isinstance(account, str) or not account:
            raise RoundError(f"bet {i}: account must be a non-empty string, got {account!r}")
        yield i, bet, account, bet["spot"]


def answer(obj: dict[str, Any], results: dict[str, Any], bets: list[dict[str, Any]]
           ) -> dict[str, Any]:
    """The answer line: the round's `round_id` echoed, its results and its bets."""
    out: dict[str, Any] = {}
    if "round_id" in obj:
        if not isinstance(obj["round_id"], str):
            raise RoundError(f"round_id must be a string, got {obj['round_id']!r}")
        out["round_id"] = obj["round_id"]
    out["results"] = results
    out["bets"] = bets
    return out
