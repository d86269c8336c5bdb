"""The actions a game's table takes from the people at it besides the supervisor's decisions,
each declared once by the game (`Procedure.actions`) with who sends it, what its trace line
carries and what it does, as Klipper registers a command with its parameters and its help.

The trace format's `dealer` line is open: `{"t": …, "dealer": "<action>", <payload>…}`. A
line is read as it stands (station/core/inputs.py); the game's declaration then says whether
its table takes that action and whether the line carries exactly its payload. What the payload
means now (dice faces that are no throw, say) stays the game's to judge when the action
comes: a refusal, recorded, not a line that cannot be read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: an action's name, as trace lines and the console's routes carry it
ACTION_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")


@dataclass(frozen=True, slots=True)
class Action:
    #: what the action does, in words for the floor (the console's help)
    help: str
    #: who may send it (a console user's role)
    role: str = "dealer"
    #: the fields its trace line carries besides `t` and the action's name, all required
    payload: tuple[str, ...] = ()


def payload_error(name: str, action: Action, extra: Mapping[str, Any]) -> str | None:
    """Why a line of action `name` does not carry its payload (None: it does)."""
    missing = [f for f in action.payload if f not in extra]
    if missing:
        return f"a dealer {name!r} line needs its {', '.join(repr(f) for f in missing)}"
    unknown = sorted(set(extra) - set(action.payload))
    if unknown:
        return f"a dealer {name!r} line has unknown fields {unknown}"
    return None
