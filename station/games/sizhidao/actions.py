"""The shape of a player action as the platform sends it (PROCEDURE.md §7.1, TRACES.md §1.1).

Only the shape: an object naming one `account` and one `action`, with no field a `player`
line cannot carry. What the action means now (a seat taken, not your turn, a bad amount or
cards that are not the seat's) is the table's decision on its journaled input path, answered
`action_refused` with its reason, so a replay decides the same. Pure: the live player API
(station/live/player_api.py) and the simulators use it.
"""

from __future__ import annotations

from typing import Any

from station.core.inputs import PLAYER_FIELDS
from station.money import MAX_ACCOUNT_CHARS, MAX_REF_CHARS

MAX_ACTION_CHARS = 32


class ActionShapeError(ValueError):
    """An action the table cannot even be asked about (the API answers 422, records nothing)."""

    def __init__(self, reason: str, field: str | None = None) -> None:
        super().__init__(reason)
        self.reason, self.field = reason, field


def check_action(data: Any, *, account: str | None = None) -> dict[str, Any]:
    """The action as it is journaled. With `account`, the action is that account's (a seat
    page's): it may omit `account` and may not name another one."""
    if not isinstance(data, dict):
        raise ActionShapeError("an action is a JSON object")
    if account is not None:
        named = data.get("account", account)
        if named != account:
            raise ActionShapeError("this seat acts for its own account only", "account")
        data = {**data, "account": account}
    who, action = data.get("account"), data.get("action")
    if not isinstance(who, str) or not who or len(who) > MAX_ACCOUNT_CHARS:
        raise ActionShapeError(f"account must be 1 to {MAX_ACCOUNT_CHARS} characters", "account")
    if not isinstance(action, str) or not action or len(action) > MAX_ACTION_CHARS:
        raise ActionShapeError(f"action must be 1 to {MAX_ACTION_CHARS} characters", "action")
    unknown = sorted(set(data) - {"account", "action", *PLAYER_FIELDS})
    if unknown:
        raise ActionShapeError(f"unknown fields {unknown[:5]}")
    ref = data.get("ref")
    if ref is not None and (not isinstance(ref, str) or not ref or len(ref) > MAX_REF_CHARS):
        raise ActionShapeError(f"ref must be 1 to {MAX_REF_CHARS} characters", "ref")
    return {k: data[k] for k in ("account", "action", *PLAYER_FIELDS) if k in data}
