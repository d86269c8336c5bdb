"""Builds a table's `transitions` machine from the shared skeleton and a game's states.

The skeleton is the same for every game: `idle` (no shoe), `shuffling`, `between_rounds`,
`paused` (a fault waits for the floor supervisor) and `closed`, with the same audited moves —
`fault` pauses from anywhere, `resume` returns to wherever the facts stand by then,
`round_cancelled` voids a round, `shoe_ended`, `close_table`. The game adds its own states
and the triggers that follow its facts (e.g. a house-banked game's `first_card_shown`). The machine is
queued and has no auto transitions: it moves only through the named triggers, which is what
the diagram in `docs/` shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from transitions import Machine

from station.core.skeleton import SKELETON_STATES

if TYPE_CHECKING:
    from station.games.base import Procedure


def transition_table(proc: Procedure) -> list[dict[str, Any]]:
    states = proc.states
    missing = [s for s in SKELETON_STATES if s not in states]
    if missing:
        raise ValueError(f"{type(proc).__name__}: the skeleton states {missing} are missing")
    t: list[dict[str, Any]] = [
        {"trigger": trig, "source": src, "dest": dst} for (src, dst), trig in proc.follow.items()
    ]
    t.append({"trigger": "new_shoe", "source": list(proc.new_shoe_sources), "dest": "shuffling"})
    for trig, sources, dest in proc.dealer_transitions:
        t.append({"trigger": trig, "source": list(sources), "dest": dest})
    # cancel_round voids the round in progress wherever it stands (PROCEDURE.md §3, §7.9)
    voidable = ["paused", *proc.round_phases, *proc.round_waits]
    t += [
        # a fault pauses the table from anywhere, a closed table included (a card drawn
        # from the shoe of a closed table is `early_card`): PROCEDURE.md §3
        {"trigger": "fault", "source": [s for s in states if s != "paused"], "dest": "paused"},
        {"trigger": "round_cancelled", "source": voidable, "dest": "between_rounds",
         "unless": "is_last_round"},
        {"trigger": "round_cancelled", "source": voidable, "dest": "idle",
         "conditions": "is_last_round"},
        {"trigger": "shoe_ended", "source": "paused", "dest": "idle"},
        {"trigger": "close_table", "source": [*proc.closable, "paused"], "dest": "closed"},
    ]
    for dst in states:
        if dst != "paused":
            t.append({"trigger": "resume", "source": "paused", "dest": dst,
                      "conditions": f"resumes_to_{dst}"})
    return t


def build_machine(model: Any, proc: Procedure) -> Machine:
    # the resume conditions, one per state, set explicitly on the model: the machine looks
    # them up by name, and the diagram names them
    for dst in proc.states:
        setattr(model, f"resumes_to_{dst}", _resumes_to(model, dst))
    return Machine(
        model=model,
        states=list(proc.states),
        transitions=transition_table(proc),
        initial="idle",
        auto_transitions=False,
        queued=True,
        send_event=False,
    )


class _resumes_to:  # noqa: N801 - named as the condition it is
    """`resume` goes to `dst` when the facts stand there (a class, so snapshots pickle)."""

    def __init__(self, model: Any, dst: str) -> None:
        self.model, self.dst = model, dst

    def __call__(self, *_a: Any, **_k: Any) -> bool:
        return self.model.phase == self.dst
