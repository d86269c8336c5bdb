"""The scripted dealer's dice at a Pai Gow table: one throw after betting has closed, as the
trace lines it puts on the station's inputs (TRACES.md §1.1): the dealer's `dice` entry and
the camera's `DICE` observations, with their times.

Timing follows the recorded tables (tests/data/traces-paigow/README.md): about a second after
the close the dice land; either the camera's `DICE` zone shows them about half a second later
and the dealer types them after, or the dealer types them first and the camera's next frame
shows them. The mistakes a real table makes are data (`DiceMistakes`): a mistyped die
(corrected after the `dice_mismatch` delay), or a die the camera cannot read (`0`) for a
while. `known_at` is when the entry and the counted observation first agree.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

#: PROCEDURE.md §6.2.4: an entry that disagrees with the tray for this long is dice_mismatch
DICE_MISMATCH_S = 5.0


@dataclass(frozen=True)
class DiceMistakes:
    mistype_rate: float = 0.0  # the dealer types one die wrong, then corrects it
    unreadable_rate: float = 0.0  # the camera reads one die as 0, then reads it
    fix_after_s: tuple[float, float] = (6.0, 8.0)  # how long the mistake stands


@dataclass
class Throw:
    faces: tuple[int, int]
    lines: list[dict[str, Any]] = field(default_factory=list)  # trace lines, in time order
    known_at: float = 0.0  # when the dice become known (entry and tray agree)
    mismatch: bool = False  # the mistake stood longer than DICE_MISMATCH_S

    def inputs(self) -> list[dict[str, Any]]:
        return sorted(self.lines, key=lambda line: line["t"])


def _r(t: float) -> float:
    return round(t, 3)


def throw(rng: random.Random, closed_at: float, mistakes: DiceMistakes | None = None) -> Throw:
    """The dealer throws two dice after the close at `closed_at` (seconds)."""
    m = mistakes or DiceMistakes()
    faces = (rng.randint(1, 6), rng.randint(1, 6))
    landed = closed_at + rng.uniform(0.8, 1.3)
    out = Throw(faces)
    camera_at = landed + rng.uniform(0.3, 0.6)
    typed_at = landed + rng.uniform(0.4, 1.2)
    seen: list[int] = list(faces)
    entered: list[int] = list(faces)
    fix_at = None
    if rng.random() < m.mistype_rate:
        k = rng.randrange(2)
        entered[k] = rng.choice([f for f in range(1, 7) if f != faces[k]])
        fix_at = typed_at + rng.uniform(*m.fix_after_s)
        out.lines.append({"t": _r(fix_at), "dealer": "dice", "dice": list(faces)})
    elif rng.random() < m.unreadable_rate:
        seen[rng.randrange(2)] = 0
        fix_at = max(camera_at, typed_at) + rng.uniform(*m.fix_after_s)
        out.lines.append({"t": _r(fix_at), "camera": {"DICE": list(faces)}})
    out.lines.append({"t": _r(camera_at), "camera": {"DICE": seen}})
    out.lines.append({"t": _r(typed_at), "dealer": "dice", "dice": entered})
    agree_at = max(camera_at, typed_at)
    out.known_at = _r(agree_at if fix_at is None else fix_at)
    out.mismatch = fix_at is not None and fix_at - typed_at >= DICE_MISMATCH_S
    return out
