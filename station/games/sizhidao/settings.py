"""A Si Zhi Dao table's own settings (PROCEDURE.md §7), read from the table config's
`[game]` section and recorded in trace headers beside the table's."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SiZhiDaoSettings:
    #: each seated player's ante, minor units, deducted into the pot at `open_betting`
    ante: int = 100
    #: a player's time for one betting decision (silence folds)
    decision_seconds: float = 15.0
    #: the time to send an arrangement (then the rest are arranged automatically)
    arrange_seconds: float = 10.0
    #: a tie round's buy-in window (silence declines)
    buy_in_seconds: float = 10.0
