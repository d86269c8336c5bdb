"""Pai Gow bets: the six spots, the per-account limits of a round, payouts (RULES.md §2.5).

Each door (`SHUN`, `CHU`, `DAO`) takes a `WIN` bet (the door beats the banker) and a `LOSE`
bet (it does not). Per account and round: `LOSE` on at most one door, `WIN` on up to three
(all of them), never both on one door. More bets on a spot the account already holds are
fine; they count once for the limits.

Placing a bet deducts its amount A. A winning `WIN` returns A + floor(0.99 A), a winning
`LOSE` A + floor(0.93 A), a losing bet 0. Integer arithmetic only: 0.99 is not exact in
binary floating point, and money is never a float.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from station.money import AmountError, check_amount

BANKER = "BANKER"
DOORS: tuple[str, ...] = ("SHUN", "CHU", "DAO")
#: the four hands in their cyclic deal order (RULES.md §2.4)
POSITIONS: tuple[str, ...] = (BANKER, *DOORS)
WIN, LOSE = "WIN", "LOSE"
SPOTS: tuple[str, ...] = tuple(f"{door}_{side}" for door in DOORS for side in (WIN, LOSE))

#: winnings per unit staked, as (numerator, denominator): 1 : 0.99 and 1 : 0.93
WINNINGS: dict[str, tuple[int, int]] = {WIN: (99, 100), LOSE: (93, 100)}
#: how many doors one account may back with each side in one round
MAX_DOORS: dict[str, int] = {WIN: 3, LOSE: 1}


class PaiGowBetError(ValueError):
    """A bet that cannot be taken; `reason` is a TRACES.md `bet_rejected` reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def split_spot(spot: str) -> tuple[str, str]:
    """`SHUN_WIN` -> (`SHUN`, `WIN`). Raises PaiGowBetError(`bad_spot`)."""
    if not isinstance(spot, str) or spot not in SPOTS:
        raise PaiGowBetError(
            "bad_spot", f"no spot {spot!r} at a Pai Gow table (spots: {' '.join(SPOTS)})"
        )
    door, side = spot.split("_")
    return door, side


def check_amount_of(amount: Any) -> int:
    """The amount in minor units. Raises PaiGowBetError(`bad_amount`)."""
    try:
        return check_amount(amount)
    except AmountError as e:
        raise PaiGowBetError("bad_amount", f"bad amount {amount!r}: {e}") from None


def conflict(held: Iterable[str], spot: str) -> str | None:
    """Why an account that already holds the spots `held` this round may not also bet on
    `spot`, or None if it may. Spots must be valid (see split_spot)."""
    door, side = split_spot(spot)
    held_pairs = {split_spot(s) for s in held}
    other = LOSE if side == WIN else WIN
    if (door, other) in held_pairs:
        return f"{door}_{other} is already held: never WIN and LOSE on the same door"
    doors = {d for d, s in held_pairs if s == side} | {door}
    if len(doors) > MAX_DOORS[side]:
        held_side = sorted(f"{d}_{side}" for d, s in held_pairs if s == side)
        return (
            f"{side} on at most {MAX_DOORS[side]} door(s) a round; already holds "
            f"{', '.join(held_side)}"
        )
    return None


def winnings(spot: str, amount: int) -> int:
    """What a winning bet earns on top of its stake, floored to the minor unit."""
    _, side = split_spot(spot)
    num, den = WINNINGS[side]
    return amount * num // den


def returned(spot: str, amount: int, door_outcome: str) -> int:
    """What settlement gives back for an accepted bet, given its door's `win`/`lose`."""
    _, side = split_spot(spot)
    if door_outcome not in ("win", "lose"):
        raise ValueError(f"a door's outcome is win or lose, got {door_outcome!r}")
    bet_wins = (door_outcome == "win") == (side == WIN)
    return amount + winnings(spot, amount) if bet_wins else 0
