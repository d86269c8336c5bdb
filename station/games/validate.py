"""A game is checked against the contract when it registers (as pluggy and Home Assistant
check their plug-ins): every declared piece there, every hook with the contract's signature,
every state reachable, every fault kind with its words. A game that fails is refused with an
error that names the game and the missing piece, before any table runs it.
"""

from __future__ import annotations

import inspect
from typing import Any

from station.core.skeleton import KERNEL_TIMERS, SKELETON_STATES


def _fail(name: str, what: str) -> None:
    from station.games import GameError

    raise GameError(f"game {name!r}: {what}")


def validate_game(name: str, cls: Any) -> None:
    from station.games.base import Game, Procedure

    if not (isinstance(cls, type) and issubclass(cls, Game)):
        _fail(name, f"{cls!r} is not a station.games.base.Game")
    if getattr(cls, "name", None) != name:
        _fail(name, f"its class says name = {getattr(cls, 'name', None)!r}")
    for attr in ("table_prefix", "positions", "zones"):
        if not getattr(cls, attr, None):
            _fail(name, f"the rules declare no {attr}")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(cls.__abstractmethods__))
        _fail(name, f"the rules do not implement {missing}")
    _check_presentation(name, cls)
    proc = cls.procedure_class
    if proc is None:
        return  # rules only: settlement and the rules tools, no table yet
    if isinstance(proc, str):
        if proc.count(":") != 1 or not all(proc.split(":")):
            _fail(name, f"procedure_class {proc!r} is not \"module:Class\"")
        return  # checked when a table first needs it (Game.table_procedure)
    if not (isinstance(proc, type) and issubclass(proc, Procedure)):
        _fail(name, f"its procedure {proc!r} is not a station.games.base.Procedure")
    validate_procedure(name, proc)


def validate_procedure(name: str, proc: type) -> None:
    from station.games.base import Procedure

    if inspect.isabstract(proc):
        _fail(name, f"{proc.__name__} does not implement "
                    f"{', '.join(sorted(proc.__abstractmethods__))}")
    for attr in ("states", "follow", "round_phases", "closable", "fault_kinds"):
        if not hasattr(proc, attr):
            _fail(name, f"{proc.__name__} declares no {attr}")
    states = tuple(proc.states)
    missing = [s for s in SKELETON_STATES if s not in states]
    if missing:
        _fail(name, f"{proc.__name__}.states lacks the skeleton's {missing}")
    named = {*proc.follow, *((s, d) for _, srcs, d in proc.dealer_transitions for s in srcs)}
    strays = sorted({s for pair in named for s in pair if s not in states}
                    | {s for s in (*proc.round_phases, *proc.round_waits, *proc.closable,
                                   *proc.new_shoe_sources, *proc.cards_due_states,
                                   *proc.betting_states) if s not in states})
    if strays:
        _fail(name, f"{proc.__name__} names states it does not declare: {strays}")
    missing_timers = [t for t in KERNEL_TIMERS if t not in proc.timer_order]
    if missing_timers:
        _fail(name, f"{proc.__name__}.timer_order must place the kernel's {missing_timers}")
    kinds = proc.fault_kinds
    for k, words in kinds.items():
        if not (isinstance(words, tuple) and len(words) == 2 and all(
                isinstance(w, str) and w for w in words)):
            _fail(name, f"fault kind {k!r} needs (meaning, the supervisor's options) in words")
    for attr in ("cancel_only", "event_faults", "lasting_faults"):
        without = sorted(set(getattr(proc, attr)) - set(kinds))
        if without:
            _fail(name, f"{proc.__name__}.{attr} names fault kinds without words: {without}")
    _check_reachable(name, proc, states)
    _check_hooks(name, proc, Procedure)


def _check_reachable(name: str, proc: Any, states: tuple[str, ...]) -> None:
    """Every state can be reached from `idle` by the machine's own moves (a resume returns
    to where the facts are, so it proves nothing here)."""
    from station.core.machine import transition_table

    edges: dict[str, set[str]] = {}
    for t in transition_table(proc):
        if t["trigger"] == "resume":
            continue
        srcs = t["source"] if isinstance(t["source"], list) else [t["source"]]
        for s in srcs:
            edges.setdefault(s, set()).add(t["dest"])
    seen, todo = {"idle"}, ["idle"]
    while todo:
        for d in edges.get(todo.pop(), ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    unreachable = [s for s in states if s not in seen]
    if unreachable:
        _fail(name, f"{proc.__name__}: no move of its machine reaches {unreachable}")


def _positional(fn: Any) -> tuple[int, int | None]:
    """(required, allowed) positional parameters after self; None: any number."""
    required, allowed = 0, 0
    for p in list(inspect.signature(fn).parameters.values())[1:]:
        if p.kind is p.VAR_POSITIONAL:
            return required, None
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            allowed += 1
            if p.default is p.empty:
                required += 1
    return required, allowed


def _check_hooks(name: str, proc: type, base: type) -> None:
    """Each hook the game overrides takes the arguments the kernel passes."""
    for attr, fn in vars(base).items():
        if attr.startswith("_") or not inspect.isfunction(fn):
            continue
        mine = getattr(proc, attr, None)
        if mine is None or mine is fn or not callable(mine):
            continue
        if not inspect.isfunction(mine):
            _fail(name, f"{proc.__name__}.{attr} must be a method")
        want, _ = _positional(fn)
        required, allowed = _positional(mine)
        if required > want or (allowed is not None and allowed < want):
            _fail(name, f"{proc.__name__}.{attr}{inspect.signature(mine)} does not take what "
                        f"the kernel passes: {attr}{inspect.signature(fn)}")


def _check_presentation(name: str, cls: Any) -> None:
    """The presentation the game declares is there: its class, the panel files it names
    (the fragment marks its sections with the panel's name, the script registers the
    panel), its road class, and each hook it overrides with the contract's arguments."""
    from station.games.presentation import Presentation, Road, presentation_class

    spec = getattr(cls, "presentation", None)
    if spec is None:
        return
    try:
        pres = presentation_class(name, spec)
    except ValueError as e:
        _fail(name, str(e).removeprefix(f"game {name!r}: "))
    if pres.files and not pres.panel:
        _fail(name, f"{pres.__name__} ships panel files but names no panel")
    folder = pres.folder()
    for kind, file in pres.files.items():
        path = folder / file
        if not path.is_file():
            _fail(name, f"{pres.__name__}'s panel file {kind} = {file!r} is missing "
                        f"(looked in {folder})")
        text = path.read_text(encoding="utf-8")
        if file.endswith(".html") and f'data-panel="{pres.panel}"' not in text:
            _fail(name, f"{file} marks no section data-panel=\"{pres.panel}\"")
        if kind == "js" and not ("stationPanels" in text and pres.panel in text):
            _fail(name, f"{file} does not register window.stationPanels.{pres.panel}")
    if pres.player_page is not None:
        for file in ("index.html", *pres.player_files):
            if not (folder / pres.player_page / file).is_file():
                _fail(name, f"{pres.__name__}'s player page lacks {pres.player_page}/{file} "
                            f"(looked in {folder})")
    road = pres.road_class
    if not (isinstance(road, type) and issubclass(road, Road)):
        _fail(name, f"{pres.__name__}.road_class {road!r} is not a "
                    "station.games.presentation.Road")
    _check_hooks(name, road, Road)
    _check_hooks(name, pres, Presentation)
