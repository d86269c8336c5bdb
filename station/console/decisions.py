"""Which decisions the table allows now, what each does, and why the others are not offered.

Computed from the table's public view alone, following the table core's own refusals
(the kernel's `_supervisor_*` and the Pok Deng procedure's `_dealer_*`), so the console offers a button only
when the table would take it, says what it does (Cancel round on a healthy round voids it and
refunds every bet), and gives the reason for every other one (no End shoe inside a round).

Two checks the view cannot make are said as such: `resume` is also refused while the fault's
condition still holds (the link still down, the camera still blind), and `open_betting` while
the camera still sees cards in the position zones; the table's answer then says so.
"""

from __future__ import annotations

from typing import Any

from station.console.users import ROLE_ACTIONS

#: the order buttons are shown in
ORDER = ("new_shoe", "open_betting", "confirm_shuffle", "resume", "cancel_round", "end_shoe",
         "close_table")


def _in_round(view: dict[str, Any]) -> bool:
    r = view.get("round")
    return bool(r) and not r.get("finished")


def _new_shoe(v: dict[str, Any]) -> tuple[str | None, str]:
    effect = "start a new shoe: the supervisor then confirms the shuffle"
    if v.get("paused"):
        return "paused: the supervisor must decide first", effect
    if v.get("phase") not in ("idle", "closed"):
        return "a shoe is still in play (End shoe first)", effect
    return None, effect


def _open_betting(v: dict[str, Any]) -> tuple[str | None, str]:
    effect = "open the next round for bets"
    phase = v.get("phase")
    shoe = v.get("shoe") or {}
    if v.get("paused"):
        return "paused: the supervisor must decide first", effect
    if phase in ("idle", "closed"):
        return "no shoe in play", effect
    if phase in ("shuffling", "ready"):
        return "the shoe is not ready: shuffle, load and first card first", effect
    if phase == "burning":
        return f"burn cards remain ({shoe.get('burns_left', 0)})", effect
    if _in_round(v):
        return "a round is in progress", effect
    return None, effect


def _confirm_shuffle(v: dict[str, Any]) -> tuple[str | None, str]:
    effect = "confirm the new shoe's shuffle check"
    shoe = v.get("shoe") or {}
    if v.get("paused"):
        return "paused: decide the fault first", effect
    if v.get("phase") != "shuffling" or shoe.get("confirmed"):
        return "no new shoe is waiting for its shuffle check", effect
    return None, effect


def _resume(v: dict[str, Any]) -> tuple[str | None, str]:
    phase = str(v.get("phase") or "").replace("_", " ")
    effect = f"go on from where the procedure stopped ({phase}); the table first checks that " \
             "the fault has cleared"
    if not v.get("paused"):
        return "the table is not paused", "go on after a fault"
    for f in v.get("faults") or []:
        if f.get("cancel_only"):
            return f"{f['kind']} can only be cancelled", effect
        if f.get("kind") == "link_lost" and not (v.get("link") or {}).get("up"):
            return "link_lost: the shoe link is still down", effect
    return None, effect


def _cancel_round(v: dict[str, Any]) -> tuple[str | None, str]:
    r = v.get("round") or {}
    if _in_round(v):
        bets, staked = r.get("bets", 0), r.get("staked", 0)
        refund = f"every bet refunded ({bets} bets, {staked} staked)" if bets else "no bets to refund"
        healthy = "" if v.get("paused") else " although nothing is wrong with it"
        return None, f"void round {r.get('round_id')}{healthy}: {refund}; its cards are not played"
    if v.get("paused"):
        return None, "end the pause (there is no round to void); nothing is dealt from it"
    return "no round in progress", "void the round in progress and refund its bets"


def _end_shoe(v: dict[str, Any]) -> tuple[str | None, str]:
    shoe = v.get("shoe") or {}
    effect = f"end shoe {shoe.get('number')}: no more rounds are dealt from it" if shoe else "end the shoe"
    if not shoe or shoe.get("ended"):
        return "no shoe in play", effect
    if _in_round(v):
        return "a round is in progress: cancel it or finish it", effect
    return None, effect


def _close_table(v: dict[str, Any]) -> tuple[str | None, str]:
    effect = "close the table: no round opens until a new shoe is started"
    if _in_round(v):
        return "a round is in progress", effect
    if v.get("state") == "closed":
        return "the table is already closed", effect
    return None, effect


RULES = {"new_shoe": _new_shoe, "open_betting": _open_betting, "confirm_shuffle": _confirm_shuffle,
         "resume": _resume, "cancel_round": _cancel_round, "end_shoe": _end_shoe,
         "close_table": _close_table}


def decisions(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Every action, in button order: `action`, `role`, `allowed`, `effect`, `reason` (why it
    is not allowed now, or None)."""
    out = []
    for action in ORDER:
        reason, effect = RULES[action](view)
        role = next(r for r, acts in ROLE_ACTIONS.items() if action in acts)
        out.append({"action": action, "role": role, "allowed": reason is None, "effect": effect,
                    "reason": reason})
    return out
