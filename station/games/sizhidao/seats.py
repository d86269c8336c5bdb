"""Seats S1-S7, numbered counter-clockwise (RULES.md §3.1, PROCEDURE.md §7).

"The next player" is the next occupied seat with a higher number, wrapping from the highest
back to the lowest.
"""

from __future__ import annotations

from collections.abc import Iterable

SEATS = tuple(f"S{n}" for n in range(1, 8))
MIN_PLAYERS = 3
MAX_PLAYERS = 7


def seat_number(seat: str) -> int:
    """'S3' -> 3."""
    return int(seat[1:])


def in_seat_order(seats: Iterable[str]) -> list[str]:
    return sorted(set(seats), key=seat_number)


def counter_clockwise_from(seats: Iterable[str], start: str, *, include_start: bool) -> list[str]:
    """`seats` in counter-clockwise order beginning at `start` (whether or not `start` is one
    of them): with include_start, `start` itself comes first if it is among them; otherwise
    the first is the next seat after `start`."""
    n0 = seat_number(start)
    ordered = in_seat_order(seats)

    def distance(s: str) -> int:
        d = (seat_number(s) - n0) % len(SEATS)
        return d if (d or include_start) else len(SEATS)

    return sorted(ordered, key=distance)


def next_after(seats: Iterable[str], start: str) -> str | None:
    """The first of `seats` counter-clockwise after `start` (never `start` itself unless it
    is the only one of them)."""
    order = counter_clockwise_from(seats, start, include_start=False)
    return order[0] if order else None
