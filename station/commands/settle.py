"""`station settle --game GAME`: settle rounds from the rules alone, as JSON Lines.

Each game's rounds have their own shape; `SETTLERS` names the function that settles one
round of each game (Wenzhou Pai Gow: station/games/paigow/settle.py, Si Zhi Dao:
station/games/sizhidao/settle.py). What follows is Pok Deng.

Standard input: one round per line,

    {"cards": {"P1": ["AD", "KD"], ..., "B": ["6S", "4H"]},
     "bets": [{"account": "a1", "spot": "P1", "amount": 100}, ...]}

Standard output: one line per round, in input order,

    {"results": {"P1": {"outcome": "win", "multiplier": 1, "pair": false,
                        "rank": 7.5, "class": "lion_flush"}, ...},
     "bets": [{"account": "a1", "spot": "P1", "amount": 100, "deducted": 200, "returned": 300}]}

This is the rules engine without the table around it: a floor supervisor or an auditor can
re-settle a disputed round from its cards, and other parts of the station can be checked
against it.

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
- Blank lines are skipped. A bad line gets one message on standard error naming its line
  number and produces no output line; the other lines are still answered, and the exit status
  is 1 if any line failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from typing import IO, Any

from station.cards import Card, CardError, parse_card
from station.games.base import BetError
from station.games.paigow.settle import settle_round as settle_paigow_round
from station.games.pokdeng import (
    BANKER,
    PLAYERS,
    PokDeng,
    evaluate_hand,
    position_result,
    returned_for,
)

ROUND_KEYS = frozenset({"cards", "bets", "round_id"})
BET_KEYS = frozenset({"account", "spot", "amount"})
OUTPUT_KEYS = frozenset({"deducted", "returned"})


class RoundError(ValueError):
    """A line that is not a round this command can settle."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A line with two "P1" hands (or two "amount"s) is ambiguous; json.loads would silently
    # keep the last one.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RoundError(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def _parse_hand(position: str, cards: object) -> list[Card]:
    if not isinstance(cards, list):
        raise RoundError(f"hand {position} must be a list of two cards, got {cards!r}")
    if len(cards) != 2:
        raise RoundError(f"hand {position} must be exactly two cards, got {len(cards)}")
    try:
        return [parse_card(c) for c in cards]
    except CardError as e:
        raise RoundError(f"hand {position}: {e}") from None


def settle_round(obj: object, decks: int = PokDeng.decks) -> dict[str, Any]:
    """Settle one Pok Deng round given as a parsed JSON object. Raises RoundError."""
    if not isinstance(obj, dict):
        raise RoundError(f"a round is a JSON object, got {type(obj).__name__}")
    unknown = set(obj) - ROUND_KEYS
    if unknown:
        raise RoundError(f"unknown round field(s) {sorted(unknown)}; expected cards, bets, round_id")
    if "cards" not in obj:
        raise RoundError("round has no 'cards'")
    raw_cards = obj["cards"]
    if not isinstance(raw_cards, dict):
        raise RoundError("'cards' must be an object mapping positions to hands")
    bad_pos = [p for p in raw_cards if p not in PLAYERS and p != BANKER]
    if bad_pos:
        raise RoundError(f"no position(s) {bad_pos} at a Pok Deng table (P1-P5, B)")
    if BANKER not in raw_cards:
        raise RoundError("'cards' has no banker hand 'B'")
    hands = {p: _parse_hand(p, raw_cards[p]) for p in (*PLAYERS, BANKER) if p in raw_cards}

    copies = Counter(c for hand in hands.values() for c in hand)
    too_many = sorted(str(c) for c, n in copies.items() if n > decks)
    if too_many:
        raise RoundError(
            f"card(s) {too_many} appear more than {decks} times; an {decks}-deck shoe "
            "cannot deal that"
        )

    raw_bets = obj.get("bets", [])
    if not isinstance(raw_bets, list):
        raise RoundError("'bets' must be a list")
    game = PokDeng()
    banker = evaluate_hand(hands[BANKER])
    values = {p: evaluate_hand(hands[p]) for p in PLAYERS if p in hands}
    outcomes = {p: position_result(v, banker) for p, v in values.items()}

    settled: list[dict[str, Any]] = []
    for i, bet in enumerate(raw_bets, start=1):
        if not isinstance(bet, dict):
            raise RoundError(f"bet {i} must be an object, got {bet!r}")
        missing = BET_KEYS - set(bet)
        if missing:
            raise RoundError(f"bet {i} lacks {sorted(missing)}")
        clash = OUTPUT_KEYS & set(bet)
        if clash:
            raise RoundError(f"bet {i} already carries {sorted(clash)}; those are settlement output")
        account, spot, amount = bet["account"], bet["spot"], bet["amount"]
        if not isinstance(account, str) or not account:
            raise RoundError(f"bet {i}: account must be a non-empty string, got {account!r}")
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
    out: dict[str, Any] = {}
    if "round_id" in obj:
        if not isinstance(obj["round_id"], str):
            raise RoundError(f"round_id must be a string, got {obj['round_id']!r}")
        out["round_id"] = obj["round_id"]
    out["results"] = results
    out["bets"] = settled
    return out


def _settle_sizhidao(obj: object) -> dict[str, Any]:
    from station.games.sizhidao.settle import DealError, settle_deal

    try:
        return settle_deal(obj)
    except DealError as e:
        raise RoundError(str(e)) from None


#: game -> what settles one parsed round of it (raises ValueError naming what is wrong)
SETTLERS: dict[str, Callable[[object], dict[str, Any]]] = {
    "pokdeng": settle_round,
    "paigow": settle_paigow_round,
    "sizhidao": _settle_sizhidao,
}
GAMES = tuple(SETTLERS)


def settle_lines(
    lines: Iterable[bytes],
    out: IO[str],
    err: IO[str],
    settle: Callable[[object], dict[str, Any]] = settle_round,
) -> int:
    """Answer every line with `settle`; returns how many lines failed."""
    failed = 0
    for lineno, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"line {lineno}: not UTF-8 text ({e})", file=err, flush=True)
            failed += 1
            continue
        if not text.strip():
            continue
        try:
            try:
                obj = json.loads(text, object_pairs_hook=_no_duplicate_keys)
            except json.JSONDecodeError as e:
                raise RoundError(f"not JSON: {e}") from None
            answer = settle(obj)
        except ValueError as e:  # RoundError, or a game's own round error
            print(f"line {lineno}: {e}", file=err, flush=True)
            failed += 1
            continue
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()
    return failed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game", required=True, choices=sorted(GAMES), help="the game whose rules settle the rounds"
    )


def run(args: argparse.Namespace) -> int:
    # Read bytes so that a line of bad encoding is one failed line, not a crashed command.
    failed = settle_lines(sys.stdin.buffer, sys.stdout, sys.stderr, SETTLERS[args.game])
    if failed:
        print(f"{failed} line(s) not settled", file=sys.stderr)
    return 1 if failed else 0
