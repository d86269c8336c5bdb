"""The decisions a table takes now, what each does, and why the others are refused: the
parts every game shares (`Procedure.decisions` in station/games/base.py is the contract).

The supervisor's decisions (`confirm_shuffle`, `resume`, `cancel_round`, `end_shoe`,
`close_table`) are the kernel's own (`TableKernel._supervisor_*`): `supervisor_decisions`
answers them from the kernel's facts with the same checks in the same order, so what a
screen offers is what the table takes. Reading facts only, it changes nothing; it runs on
the table's own thread when the public view is made. A game adds its dealer's actions and
says in its own words what each decision does.

A decision is `{"action", "allowed", "effect", "reason", "may_clear"}`: `reason` is None
when allowed, else a sentence for the floor (the table's own refusal may carry a shorter
code); `may_clear` when only a fault's holding condition refuses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from station.games.base import Procedure

#: the order a console shows decisions in
ORDER = ("new_shoe", "open_betting", "dice", "confirm_shuffle", "resume", "cancel_round",
         "end_shoe", "close_table")
SUPERVISOR = ("confirm_shuffle", "resume", "cancel_round", "end_shoe", "close_table")


def decision(action: str, reason: str | None, effect: str, *,
             may_clear: bool = False) -> dict[str, Any]:
    """`may_clear`: refused only while a fault's condition holds (the zone not yet put
    right, the link not yet back), which may clear at any moment: a screen may still let
    the supervisor ask, and the table answers with the reason."""
    return {"action": action, "allowed": reason is None, "effect": effect, "reason": reason,
            "may_clear": may_clear and reason is not None}


def ordered(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(items, key=lambda d: ORDER.index(d["action"]) if d["action"] in ORDER else len(ORDER))


def _resume_refusal(proc: Procedure) -> tuple[str | None, bool]:
    """Why resume is refused, and whether only a holding condition refuses it."""
    t = proc.table
    if t.state != "paused":
        return "the table is not paused", False
    for f in t.faults:
        if f.cancel_only:
            return f"{f.kind} can only be cancelled", False
        why = t.condition_holds(f)
        if why:
            return f"{f.kind}: {why}", True
    return None, False


def _cancel_refusal(proc: Procedure) -> tuple[str | None, bool]:
    t = proc.table
    if proc.round_in_progress():
        return None, False
    if t.state != "paused":
        return f"no {proc.round_word} in progress", False
    for f in t.faults:
        why = None if f.cancel_only else t.condition_holds(f)
        if why:
            return f"{f.kind}: {why}", True
    return None, False


def supervisor_decisions(proc: Procedure, *, shuffle_waiting: bool, cancel_effect: str,
                         shoe_label: str | None) -> list[dict[str, Any]]:
    """The five supervisor decisions. `shuffle_waiting`: a new shoe waits for its shuffle
    check (the game's `confirm_shuffle` would take it); `cancel_effect`: what cancelling the
    round in progress does (refunds, in the game's words); `shoe_label`: "shoe 3" for the
    shoe in play, None when there is none."""
    t = proc.table
    paused = t.state == "paused"
    in_round = proc.round_in_progress()
    word = proc.round_word
    out = []

    if paused:
        why = "paused: decide the fault first"
    elif not shuffle_waiting:
        why = "no new shoe is waiting for its shuffle check"
    else:
        why = None
    out.append(decision("confirm_shuffle", why, "confirm the new shoe's shuffle check"))

    phase = str(t.phase).replace("_", " ")
    why, holds = _resume_refusal(proc)
    out.append(decision("resume", why, f"go on from where the procedure stopped ({phase})"
                        if paused else "go on after a fault", may_clear=holds))

    if in_round:
        effect = cancel_effect
    elif paused:
        effect = f"end the pause (there is no {word} to void); nothing is dealt from it"
    else:
        effect = f"void the {word} in progress and refund every bet of it"
    why, holds = _cancel_refusal(proc)
    out.append(decision("cancel_round", why, effect, may_clear=holds))

    if not proc.shoe_in_play():
        why = "no shoe in play"
    elif in_round:
        why = f"a {word} is in progress: cancel it or finish it"
    else:
        why = None
    out.append(decision("end_shoe", why, f"end {shoe_label}: no more {word}s are dealt from it"
                        if shoe_label else "end the shoe"))

    if in_round:
        why = f"a {word} is in progress"
    elif t.state == "closed" or (t.table_closed and paused):
        why = "the table is already closed"
    else:
        why = None
    out.append(decision("close_table", why,
                        f"close the table: no {word} opens until a new shoe is started"))
    return out
