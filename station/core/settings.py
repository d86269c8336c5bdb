"""Table settings: the procedure's timings and limits (PROCEDURE.md; defaults there).

One flat set for every game, so a trace header or a config names any of them the same way;
each game reads the ones its procedure uses (`Procedure.settings_used`)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class TableSettings:
    table: str = "PD-01"
    game: str = "pokdeng"
    camera: bool = True
    #: the betting countdown after open_betting
    betting_seconds: float = 15.0
    #: camera and shoe may disagree on the number of dealt cards this long
    placement_timeout_seconds: float = 5.0
    #: a position must be confirmed by the camera this long after all cards are out
    reveal_timeout_seconds: float = 60.0
    #: no camera observation for this long while a round is open
    camera_lost_seconds: float = 3.0
    #: no valid frame from the shoe for this long
    link_lost_seconds: float = 3.0
    #: smallest and largest single bet, minor units (0 = no upper limit)
    min_bet: int = 1
    max_bet: int = 0
    #: A live overhead camera reports a zone late when the dealer's hand covered it. Off (the
    #: spec's letter): zones that are no prefix of the deal plan are an `order` fault at once,
    #: and `placement_timeout` counts from when the numbers started to differ. On: a camera
    #: merely behind the shoe (no zone holds more than the shoe's reads put there) is no
    #: order fault, and the placement clock starts no earlier than the read of the oldest card
    #: the camera has not yet shown. Traces record the setting they ran with.
    camera_lag_tolerant: bool = False
    # ---- Wenzhou Pai Gow (PROCEDURE.md §6)
    #: the dealer's dice entry and the tray may disagree this long before `dice_mismatch`
    dice_mismatch_seconds: float = 5.0
    # ---- Si Zhi Dao (PROCEDURE.md §7)
    #: each seated player's ante, minor units, deducted into the pot at `open_betting`
    ante: int = 100
    #: a player's time for one betting decision (silence folds)
    decision_seconds: float = 15.0
    #: the time to send an arrangement (then the rest are arranged automatically)
    arrange_seconds: float = 10.0
    #: a tie round's buy-in window (silence declines)
    buy_in_seconds: float = 10.0

    def with_overrides(self, overrides: dict[str, Any] | None, *,
                       unknown: list[str] | None = None) -> TableSettings:
        """Apply named settings. An unknown name is an error, unless `unknown` is given: then
        it is collected there and ignored (a trace recorded by another station may carry
        settings this one does not have)."""
        if not overrides:
            return self
        known = {f.name: f for f in fields(self)}
        clean: dict[str, Any] = {}
        for key, value in overrides.items():
            if key not in known and f"{key}_seconds" in known:
                key = f"{key}_seconds"  # `placement_timeout` names the same setting
            if key not in known:
                if unknown is not None:
                    unknown.append(key)
                    continue
                raise SettingsError(f"unknown table setting {key!r} (known: {', '.join(known)})")
            want = known[key].type
            if want in ("float",) and isinstance(value, int | float) and not isinstance(value, bool):
                if value < 0:
                    raise SettingsError(f"setting {key!r} must not be negative, got {value!r}")
                clean[key] = float(value)
            elif want == "int" and isinstance(value, int) and not isinstance(value, bool):
                if value < 0:
                    raise SettingsError(f"setting {key!r} must not be negative, got {value!r}")
                clean[key] = value
            elif want == "bool" and isinstance(value, bool):
                clean[key] = value
            elif want == "str" and isinstance(value, str) and value:
                clean[key] = value
            else:
                raise SettingsError(f"setting {key!r} must be a {want}, got {value!r}")
        return replace(self, **clean)


class SettingsError(ValueError):
    pass
