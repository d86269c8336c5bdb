"""What every table's machine has, whatever its game: the kernel owns it, and the game
contract (station/games/base.py) builds on it, so nothing in the kernel imports a game.

- `SKELETON_STATES`: the states every game's machine has, with the same meaning and the same
  audited decisions (pause, resume, cancel, end shoe, close);
- `BURN`: the slot of a deal plan that goes to the discard, not to a hand.
"""

from __future__ import annotations

SKELETON_STATES = ("idle", "shuffling", "between_rounds", "paused", "closed")

BURN = "BURN"

#: timers the kernel itself owns; a game's `timer_order` places them among its own
KERNEL_TIMERS = ("link", "camera")
