"""Settle one Si Zhi Dao deal from its cards: the rules behind `station settle --game sizhidao`.

A line is one deal,

    {"hands": {"S1": ["AS", "AD", "KH", "QC"], ...},
     "arranged": {"S1": {"front": ["KH", "QC"], "back": ["AS", "AD"]}},
     "folded": ["S4"], "put_in": {"S1": 300, ...}}

and its answer

    {"showdown": {"S1": {"front": [..], "back": [..], "front_class": .., "back_class": ..,
                          "auto": false}, ...},
     "layers": [{"amount": .., "contestants": [..], "winner": "S3" | null, "tied": [..]}],
     "payouts": {"S3": 1400, ...}, "carried": 0}

Decisions:
- `hands` names every seat of the deal still in (S1-S7), four different cards each; a folded
  seat may be given with or without its hand (folded hands are never shown). No card may
  appear twice in the deal: the table deals from one deck.
- `arranged` (optional) is a front and a back of two cards each, together the seat's own four
  cards, front ≤ back; a seat still in that is not in `arranged` is arranged automatically. A
  folded seat cannot be arranged.
- `folded` (optional) lists seats of the deal that folded; `put_in` (optional) is seat ->
  what it put in, antes included (whole minor units, 0 or more); a seat not named put in 0.
- `showdown` lists the seats still in, in seat order; it is empty when one player is left
  alone (that player's cards are never shown). `carried` is the sum of the layers without a
  winner: what goes on to a tie round. `payouts` is by seat, winners only.
"""

from __future__ import annotations

from typing import Any

from station.cards import Card, CardError, parse_card
from station.games.sizhidao.arrange import ArrangeError, Arrangement, arrange, auto_arrange
from station.games.sizhidao.layers import build_layers, decide_layers, left_alone, payouts
from station.games.sizhidao.seats import SEATS, in_seat_order
from station.money import AmountError, check_amount

DEAL_KEYS = frozenset({"hands", "arranged", "folded", "put_in"})


class DealError(ValueError):
    """A line that is not a deal this command can settle."""


def _seat(seat: object, where: str) -> str:
    if not isinstance(seat, str) or seat not in SEATS:
        raise DealError(f"{where}: {seat!r} is no seat (S1-S7)")
    return seat


def _cards(raw: object, where: str, count: int) -> list[Card]:
    if not isinstance(raw, list) or len(raw) != count:
        raise DealError(f"{where} must be a list of {count} cards, got {raw!r}")
    try:
        return [parse_card(c) for c in raw]
    except CardError as e:
        raise DealError(f"{where}: {e}") from None


def settle_deal(obj: object) -> dict[str, Any]:
    """Settle one deal given as a parsed JSON object. Raises DealError."""
    if not isinstance(obj, dict):
        raise DealError(f"a deal is a JSON object, got {type(obj).__name__}")
    unknown = set(obj) - DEAL_KEYS
    if unknown:
        raise DealError(
            f"unknown field(s) {sorted(unknown)}; expected hands, arranged, folded, put_in"
        )
    raw_hands = obj.get("hands")
    if not isinstance(raw_hands, dict) or not raw_hands:
        raise DealError("'hands' must be an object mapping seats to four cards each")
    hands = {_seat(s, "hands"): _cards(c, f"hand {s}", 4) for s, c in raw_hands.items()}

    seen: dict[Card, str] = {}
    for seat in in_seat_order(hands):
        for card in hands[seat]:
            if card in seen:
                where = f"twice in {seat}" if seen[card] == seat else f"in {seen[card]} and {seat}"
                raise DealError(f"card {card} appears {where}; the table deals from one deck")
            seen[card] = seat

    raw_folded = obj.get("folded", [])
    if not isinstance(raw_folded, list):
        raise DealError("'folded' must be a list of seats")
    folded = [_seat(s, "folded") for s in raw_folded]
    if len(set(folded)) != len(folded):
        raise DealError("'folded' names a seat twice")

    raw_put_in = obj.get("put_in", {})
    if not isinstance(raw_put_in, dict):
        raise DealError("'put_in' must be an object mapping seats to amounts")
    put_in: dict[str, int] = {}
    for s, amount in raw_put_in.items():
        seat = _seat(s, "put_in")
        try:
            put_in[seat] = check_amount(amount, what=f"put_in of {seat}", allow_zero=True)
        except AmountError as e:
            raise DealError(str(e)) from None
    players = set(hands) | set(folded) | set(put_in)
    strangers = sorted(set(put_in) - set(hands) - set(folded))
    if strangers:
        raise DealError(f"put_in names {strangers}, which are neither in 'hands' nor folded")
    still_in = in_seat_order(s for s in players if s not in folded)
    if not still_in:
        raise DealError("every seat folded: somebody must still be in")

    raw_arranged = obj.get("arranged", {})
    if not isinstance(raw_arranged, dict):
        raise DealError("'arranged' must be an object mapping seats to front and back")
    chosen: dict[str, Arrangement] = {}
    for s, groups in raw_arranged.items():
        seat = _seat(s, "arranged")
        if seat in folded:
            raise DealError(f"arranged names {seat}, which folded: folded hands are never shown")
        if seat not in hands:
            raise DealError(f"arranged names {seat}, which has no hand")
        if not isinstance(groups, dict) or set(groups) != {"front", "back"}:
            raise DealError(f"arrangement of {seat} must be an object with 'front' and 'back'")
        front = _cards(groups["front"], f"front of {seat}", 2)
        back = _cards(groups["back"], f"back of {seat}", 2)
        try:
            chosen[seat] = arrange(hands[seat], front, back)
        except ArrangeError as e:
            raise DealError(f"arrangement of {seat}: {e} ({e.reason})") from None

    alone = left_alone(still_in, ())
    showdown: dict[str, Arrangement] = {}
    if alone is None:
        for seat in still_in:
            showdown[seat] = chosen.get(seat) or auto_arrange(hands[seat])
    totals = {s: put_in.get(s, 0) for s in in_seat_order(players)}
    layers = decide_layers(build_layers(totals, folded), showdown)
    return {
        "showdown": {s: a.as_dict() for s, a in showdown.items()},
        "layers": [la.as_dict() for la in layers],
        "payouts": payouts(layers),
        "carried": sum(la.amount for la in layers if la.winner is None),
    }
