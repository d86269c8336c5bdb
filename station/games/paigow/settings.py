"""A Wenzhou Pai Gow table's own settings (PROCEDURE.md §6), read from the table config's
`[game]` section and recorded in trace headers beside the table's."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PaiGowSettings:
    #: the dealer's dice entry and the tray may disagree this long before `dice_mismatch`
    dice_mismatch_seconds: float = 5.0
