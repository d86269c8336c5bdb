"""Why the table refuses each of the supervisor's decisions now: one function per decision,
called by the kernel when the decision comes (its `action_refused` reason) and by the
decisions a screen offers (station/games/decisions.py), so what the console says and what
the table answers are the same words from the same checks. Reading facts only, none of
them changes anything.

Each takes the kernel; the round's name is the game's own (`Procedure.round_word`: "round",
or "game" at a pot table). The ones a holding condition may clear say so: `(reason, holds)`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from station.core.kernel import TableKernel


def confirm_shuffle(t: TableKernel) -> str | None:
    if t.state == "paused":
        return "paused: decide the fault first"
    return t.proc.shuffle_refusal()


def resume(t: TableKernel) -> tuple[str | None, bool]:
    """Why resume is refused, and whether only a holding condition refuses it."""
    if t.state != "paused":
        return "the table is not paused", False
    for f in t.faults:
        if f.cancel_only:
            return f"{f.kind} can only be cancelled", False
        why = t.condition_holds(f)
        if why:
            return f"{f.kind}: {why}", True
    return None, False


def cancel_round(t: TableKernel) -> tuple[str | None, bool]:
    """Outside a round, cancel ends a pause: the checks of resume apply, except that a fault
    only cancel clears is what it is for."""
    proc = t.proc
    if proc.round_in_progress():
        return None, False
    if t.state != "paused":
        return f"no {proc.round_word} in progress", False
    for f in t.faults:
        why = None if f.cancel_only else t.condition_holds(f)
        if why:
            return f"{f.kind}: {why}", True
    return None, False


def end_shoe(t: TableKernel) -> str | None:
    proc = t.proc
    if not proc.shoe_in_play():
        return "no shoe in play"
    if proc.round_in_progress():
        return f"a {proc.round_word} is in progress: cancel it or finish it"
    return None


def close_table(t: TableKernel) -> str | None:
    if t.proc.round_in_progress():
        return f"a {t.proc.round_word} is in progress"
    if t.state == "closed" or (t.table_closed and t.state == "paused"):
        return "the table is already closed"
    return None
