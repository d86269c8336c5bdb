"""The table procedure drawn from the machine itself, as a mermaid state diagram.

`docs/procedure.md` holds the committed drawing; a test fails when the machine and the
drawing differ, so the picture the floor supervisors are trained on is the procedure the
station enforces.
"""

from __future__ import annotations

from transitions import Machine

from station.core.table import STATES, TableCore


def mermaid(machine: Machine | None = None) -> str:
    m = machine or TableCore().machine
    lines = ["stateDiagram-v2", f"    [*] --> {m.initial}"]
    edges: dict[tuple[str, str], list[str]] = {}
    for trigger, event in m.events.items():
        for source, transitions in event.transitions.items():
            for tr in transitions:
                if tr.dest is None:
                    continue
                edges.setdefault((source, tr.dest), [])
                if trigger not in edges[(source, tr.dest)]:
                    edges[(source, tr.dest)].append(trigger)
    order = {s: i for i, s in enumerate(STATES)}
    for (src, dst), triggers in sorted(edges.items(), key=lambda e: (order[e[0][0]], order[e[0][1]])):
        lines.append(f"    {src} --> {dst}: {' / '.join(triggers)}")
    return "\n".join(lines) + "\n"


def procedure_doc() -> str:
    return (
        "# The table procedure, as the station enforces it\n\n"
        "Drawn from the table core's state machine by `station diagram` "
        "(a test keeps this file and the machine equal). `paused` is where every fault "
        "(PROCEDURE.md §3) sends the table until the floor supervisor decides; `resume` "
        "returns to wherever the procedure stands by then.\n\n"
        "```mermaid\n" + mermaid() + "```\n"
    )
