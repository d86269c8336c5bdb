"""The table's timers on its virtual clock: named deadlines in microseconds.

A timer fires once *more* than its time has passed (PROCEDURE.md §3), except those declared
inclusive (betting closes *at* `closes_at`). Timers due at the same instant fire in the
declared order, so replay and live running agree to the record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence


class Timers:
    def __init__(self, order: Sequence[str], inclusive: frozenset[str] = frozenset()) -> None:
        self._rank = {name: i for i, name in enumerate(order)}
        self._inclusive = inclusive
        self.due_us: dict[str, int] = {}

    def arm(self, name: str, due_us: int) -> None:
        if name not in self._rank:
            raise KeyError(f"no timer {name!r} (known: {', '.join(self._rank)})")
        self.due_us[name] = due_us

    def disarm(self, *names: str) -> None:
        for name in names:
            self.due_us.pop(name, None)

    def armed(self, name: str) -> bool:
        return name in self.due_us

    def next_due(self, before_us: int) -> tuple[int, str] | None:
        """The first timer due before `before_us` (at it, for inclusive ones), or None."""
        best: tuple[int, int, str] | None = None
        for name, due in self.due_us.items():
            if due < before_us or (due == before_us and name in self._inclusive):
                key = (due, self._rank[name], name)
                if best is None or key < best:
                    best = key
        return None if best is None else (best[0], best[2])

    # the live station sleeps until the earliest deadline
    def values(self) -> Iterator[int]:
        return iter(self.due_us.values())

    def items(self) -> Iterator[tuple[str, int]]:
        return iter(self.due_us.items())

    def __bool__(self) -> bool:
        return bool(self.due_us)

    def __contains__(self, name: object) -> bool:
        return name in self.due_us
