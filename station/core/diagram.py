"""Each game's table procedure drawn from its machine itself, as a mermaid state diagram.

`docs/procedure.md` (the default game, `station.core.settings.DEFAULT_GAME`) and
`docs/procedure-<game>.md` (the other games) hold the
committed drawings; a test fails when a machine and its drawing differ, so the picture the
floor supervisors are trained on is the procedure the station enforces.
"""

from __future__ import annotations

from transitions import Machine

from station.core.kernel import TableKernel
from station.core.settings import DEFAULT_GAME, TableSettings
from station.games import get_game


def states_of(game: str = DEFAULT_GAME) -> tuple[str, ...]:
    """A game's states in diagram order."""
    cls = get_game(game).table_procedure()
    if cls is None:
        raise ValueError(f"{game}: no table procedure")
    return cls.states


def machine_of(game: str = DEFAULT_GAME) -> Machine:
    return TableKernel(TableSettings(game=game)).machine


def mermaid(machine: Machine | None = None, game: str = DEFAULT_GAME) -> str:
    m = machine or machine_of(game)
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
    order = {s: i for i, s in enumerate(states_of(game))}
    for (src, dst), triggers in sorted(edges.items(), key=lambda e: (order[e[0][0]], order[e[0][1]])):
        lines.append(f"    {src} --> {dst}: {' / '.join(triggers)}")
    return "\n".join(lines) + "\n"


def doc_name(game: str = DEFAULT_GAME) -> str:
    """Where a game's drawing is committed, under docs/."""
    return "procedure.md" if game == DEFAULT_GAME else f"procedure-{game}.md"


def procedure_doc(game: str = DEFAULT_GAME) -> str:
    if game == DEFAULT_GAME:
        title, cmd = "# The table procedure, as the station enforces it", "station diagram"
    else:
        title = f"# The {get_game(game).name} table procedure, as the station enforces it"
        cmd = f"station diagram --game {game}"
    return (
        f"{title}\n\n"
        f"Drawn from the table core's state machine by `{cmd}` "
        "(a test keeps this file and the machine equal). `paused` is where every fault "
        "(PROCEDURE.md §3) sends the table until the floor supervisor decides; `resume` "
        "returns to wherever the procedure stands by then.\n\n"
        "```mermaid\n" + mermaid(game=game) + "```\n"
    )
