"""Who beats whom at a showdown, and the winner or the tied set (RULES.md §3.5)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from station.games.sizhidao.arrange import Arrangement
from station.games.sizhidao.seats import in_seat_order


def beats(x: Arrangement, y: Arrangement) -> bool:
    """X beats Y: X's front ≥ Y's front and X's back ≥ Y's back, one of them strictly."""
    front_ge = x.front_strength >= y.front_strength
    back_ge = x.back_strength >= y.back_strength
    strictly = x.front_strength > y.front_strength or x.back_strength > y.back_strength
    return front_ge and back_ge and strictly


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome among some contestants: a winner, or none and the tied players."""

    winner: str | None
    tied: tuple[str, ...]


def decide(arrangements: Mapping[str, Arrangement], among: Iterable[str]) -> Decision:
    """The contestant who beats every other contestant, else the contestants nobody beats.

    A lone contestant wins without a comparison (its hand need not be in `arrangements`)."""
    seats = in_seat_order(among)
    if not seats:
        raise ValueError("a decision needs at least one contestant")
    if len(seats) == 1:
        return Decision(seats[0], ())
    for s in seats:
        if all(beats(arrangements[s], arrangements[o]) for o in seats if o != s):
            return Decision(s, ())
    tied = tuple(
        s
        for s in seats
        if not any(beats(arrangements[o], arrangements[s]) for o in seats if o != s)
    )
    return Decision(None, tied)
