"""Which decisions the table allows now, what each does, and why the others are not offered.

The game says it (`Procedure.decisions`, station/games/base.py): the table's public view
carries `decisions`, made on the table's own thread with the same checks the table makes
when the action arrives, so the console offers a button only when the table would take it,
says what it does (Cancel round on a healthy round voids it and refunds every bet), and
gives the reason for every other one (no End shoe inside a round). This module only adds
who may press each one (the kernel's roles, and the actions the table's game adds to them:
station/console/panels.py); an action that carries more than its name is sent from its
game's panel, not from a plain button.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from station.console.panels import role_actions


def role_of(action: str, roles: Mapping[str, frozenset[str]]) -> str | None:
    return next((r for r, acts in roles.items() if action in acts), None)


def decisions(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Every decision of the game's list, in its order: `action`, `role` (None: not sent from
    the console), `allowed`, `effect`, `reason` (why it is not allowed now, or None)."""
    roles = role_actions(str(view["game"])) if view.get("game") else {}
    return [{**d, "role": role_of(d["action"], roles)} for d in view.get("decisions") or []]
