"""The decisions a table takes now, what each does, and why the others are refused: the
parts every game shares (`Procedure.decisions` in station/games/base.py is the contract).

The supervisor's decisions (`confirm_shuffle`, `resume`, `cancel_round`, `end_shoe`,
`close_table`) are the kernel's own (`TableKernel._supervisor_*`): `supervisor_decisions`
judges them by the very functions the kernel refuses them with (station/core/refusals.py),
so what a screen offers is what the table takes, in the same words. Reading facts only, it changes nothing; it runs on
the table's own thread when the public view is made. A game adds its dealer's actions and
says in its own words what each decision does.

A decision is `{"action", "allowed", "effect", "reason", "may_clear"}`: `reason` is None
when allowed, else a sentence for the floor (the table's own refusal may carry a shorter
code); `may_clear` when only a fault's holding condition refuses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from station.core import refusals

if TYPE_CHECKING:
    from station.games.base import Procedure

#: the floor's sentence for a pause, which the table's refusals of the dealer also say
#: (or record as the code `paused`)
PAUSED = "paused: the supervisor must decide first"
#: the supervisor's decisions, in the order a console shows them after the dealer's
SUPERVISOR = ("confirm_shuffle", "resume", "cancel_round", "end_shoe", "close_table")


def decision(action: str, reason: str | None, effect: str, *,
             may_clear: bool = False) -> dict[str, Any]:
    """`may_clear`: refused only while a fault's condition holds (the zone not yet put
    right, the link not yet back), which may clear at any moment: a screen may still let
    the supervisor ask, and the table answers with the reason."""
    return {"action": action, "allowed": reason is None, "effect": effect, "reason": reason,
            "may_clear": may_clear and reason is not None}


def ordered(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dealer's decisions first, in the order the game gives them, then the
    supervisor's in theirs."""
    return sorted(items, key=lambda d: 1 + SUPERVISOR.index(d["action"])
                  if d["action"] in SUPERVISOR else 0)


def supervisor_decisions(proc: Procedure, *, cancel_effect: str,
                         shoe_label: str | None) -> list[dict[str, Any]]:
    """The five supervisor decisions, each refused by the kernel's own check
    (station/core/refusals.py). `cancel_effect`: what cancelling the round in progress does
    (refunds, in the game's words); `shoe_label`: "shoe 3" for the shoe in play, None when
    there is none."""
    t = proc.table
    paused = t.state == "paused"
    in_round = proc.round_in_progress()
    word = proc.round_word
    out = [decision("confirm_shuffle", refusals.confirm_shuffle(t),
                    "confirm the new shoe's shuffle check")]

    phase = str(t.phase).replace("_", " ")
    why, holds = refusals.resume(t)
    out.append(decision("resume", why, f"go on from where the procedure stopped ({phase})"
                        if paused else "go on after a fault", may_clear=holds))

    if in_round:
        effect = cancel_effect
    elif paused:
        effect = f"end the pause (there is no {word} to void); nothing is dealt from it"
    else:
        effect = f"void the {word} in progress and refund every bet of it"
    why, holds = refusals.cancel_round(t)
    out.append(decision("cancel_round", why, effect, may_clear=holds))

    out.append(decision("end_shoe", refusals.end_shoe(t),
                        f"end {shoe_label}: no more {word}s are dealt from it"
                        if shoe_label else "end the shoe"))
    out.append(decision("close_table", refusals.close_table(t),
                        f"close the table: no {word} opens until a new shoe is started"))
    return out
