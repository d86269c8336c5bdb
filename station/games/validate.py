"""A game is checked against the contract when it registers (as pluggy and Home Assistant
check their plug-ins): every declared piece there, every hook with the contract's signature,
every state reachable, every fault kind with its words. A game that fails is refused with an
error that names the game and the missing piece, before any table runs it.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from html.parser import HTMLParser
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
    strays = [z for z in getattr(cls, "zone_kinds", {}) if z not in cls.zones]
    if strays:
        _fail(name, f"zone_kinds names {', '.join(strays)}, not among its zones")
    from station.core.inputs import ZONE_READERS

    unread = sorted({k for k in getattr(cls, "zone_kinds", {}).values() if k not in ZONE_READERS})
    if unread:
        _fail(name, f"zone_kinds: no camera line reads a zone of kind {', '.join(map(repr, unread))} "
                    f"(kinds: {', '.join(ZONE_READERS)})")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(cls.__abstractmethods__))
        _fail(name, f"the rules do not implement {missing}")
    _check_presentation(name, cls)
    _check_settings(name, cls)
    _check_tools(name, cls)
    proc = cls.procedure_class
    if proc is None:
        return  # rules only: settlement and the rules tools, no table yet
    if isinstance(proc, str):
        if proc.count(":") != 1 or not all(proc.split(":")):
            _fail(name, f"procedure_class {proc!r} is not \"module:Class\"")
        return  # checked when a table first needs it (Game.table_procedure)
    if not (isinstance(proc, type) and issubclass(proc, Procedure)):
        _fail(name, f"its procedure {proc!r} is not a station.games.base.Procedure")
    validate_procedure(name, proc, cls)


def _check_settings(name: str, cls: Any) -> None:
    """The game's own settings: a frozen dataclass whose every field has a default and a
    type the settings reader knows, none named as a setting every table has (a header names
    both kinds side by side)."""
    import dataclasses
    import typing

    from station.core.settings import TABLE_SETTING_NAMES

    own = getattr(cls, "settings_class", None)
    if not (isinstance(own, type) and dataclasses.is_dataclass(own)
            and own.__dataclass_params__.frozen):  # type: ignore[attr-defined]
        _fail(name, f"settings_class {own!r} is not a frozen dataclass")
    try:
        hints = typing.get_type_hints(own)
    except Exception as e:  # noqa: BLE001 - any failure to resolve is the game's to fix
        _fail(name, f"settings_class {own.__name__}: its field types cannot be read ({e})")
    for f in dataclasses.fields(own):
        if f.name in TABLE_SETTING_NAMES:
            _fail(name, f"settings_class {own.__name__}.{f.name} is a setting every table has")
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            _fail(name, f"settings_class {own.__name__}.{f.name} has no default")
        if hints.get(f.name) not in (int, float, bool, str):
            _fail(name, f"settings_class {own.__name__}.{f.name}: a setting is an int, float, "
                        f"bool or str, not {hints.get(f.name)!r}")


def _check_tools(name: str, cls: Any) -> None:
    """Each tool the game declares is one the station knows, at "module:function"."""
    from station.games.tools import TOOLS

    for tool, spec in getattr(cls, "tools", {}).items():
        if tool not in TOOLS:
            _fail(name, f"tools names {tool!r}, no tool of the station's ({', '.join(TOOLS)})")
        if not isinstance(spec, str) or spec.count(":") != 1 or not all(spec.split(":")):
            _fail(name, f"tools[{tool!r}] {spec!r} is not \"module:function\"")


def validate_procedure(name: str, proc: type, game: Any = None) -> None:
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
    from station.core.faults import RAISED_BY_THE_KERNEL

    unworded = sorted(k for k in RAISED_BY_THE_KERNEL if k not in kinds)
    if unworded:
        _fail(name, f"{proc.__name__}.fault_kinds has no words for {unworded}, which the "
                    "kernel raises at every table (the shoe's link, reboots and hardware, "
                    "the camera)")
    for attr in ("cancel_only", "event_faults", "lasting_faults"):
        without = sorted(set(getattr(proc, attr)) - set(kinds))
        if without:
            _fail(name, f"{proc.__name__}.{attr} names fault kinds without words: {without}")
    if game is not None:
        import dataclasses

        from station.core.settings import TABLE_SETTING_NAMES

        own = {f.name for f in dataclasses.fields(game.settings_class)}
        strays = [n for n in proc.settings_used if n not in TABLE_SETTING_NAMES and n not in own]
        if strays:
            _fail(name, f"{proc.__name__}.settings_used names {strays}: neither a table's "
                        f"setting nor one of {game.settings_class.__name__}")
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
        mine = getattr(proc, attr, fn)
        if mine is fn:
            continue
        if not inspect.isfunction(mine):
            # recall = None, dealt = {}: the station would call it and fail at a table
            _fail(name, f"{proc.__name__}.{attr} must be a method, not {mine!r:.60}")
        want, _ = _positional(fn)
        required, allowed = _positional(mine)
        passed = set(inspect.signature(fn).parameters)
        must = [p.name for p in inspect.signature(mine).parameters.values()
                if p.kind is p.KEYWORD_ONLY and p.default is p.empty and p.name not in passed]
        if required > want or (allowed is not None and allowed < want) or must:
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
    _check_declarations(name, cls, pres)
    if pres.files and not pres.panel:
        _fail(name, f"{pres.__name__} ships panel files but names no panel")
    folder = pres.folder()
    for kind, file in pres.files.items():
        path = folder / file
        if not path.is_file():
            _fail(name, f"{pres.__name__}'s panel file {kind} = {file!r} is missing "
                        f"(looked in {folder})")
        text = path.read_text(encoding="utf-8")
        if kind in ("html", "road_html"):
            _check_fragment(name, file, text, str(pres.panel))
        if kind == "js" and not _registers(text, str(pres.panel)):
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


#: the kinds of panel file a presentation may declare, and the ending each must have
FILE_KINDS = {"html": ".html", "road_html": ".html", "js": ".js", "css": ".css"}


def _bare(file: Any) -> bool:
    """A file name with no folder in it: nothing the console could be led out of its
    package's folder by."""
    return (isinstance(file, str) and file not in ("", ".", "..") and "/" not in file
            and "\\" not in file and "\0" not in file and not file.startswith("."))


def _str_set(value: Any) -> bool:
    return isinstance(value, (set, frozenset)) and all(isinstance(x, str) and x for x in value)


def _check_declarations(name: str, cls: Any, pres: Any) -> None:
    """Each declaration of the presentation has its type: a panel name the page and the
    script can use, bare file names of the known kinds, actions for the console's roles
    that are not the kernel's, field and zone names, a view key."""
    from station.core.inputs import CARDS
    from station.games.presentation import KERNEL_ROLE_ACTIONS

    who = pres.__name__
    if pres.panel is not None and not (isinstance(pres.panel, str) and pres.panel.isidentifier()):
        _fail(name, f"{who}.panel {pres.panel!r} is not a name (letters, digits, _)")
    if not isinstance(pres.files, Mapping):
        _fail(name, f"{who}.files must map a kind to a file name, not {pres.files!r:.60}")
    for kind, file in pres.files.items():
        if kind not in FILE_KINDS:
            _fail(name, f"{who}.files: unknown kind {kind!r} (kinds: {', '.join(FILE_KINDS)})")
        if not _bare(file) or not file.endswith(FILE_KINDS[kind]):
            _fail(name, f"{who}.files: {kind} = {file!r} is not a bare file name ending "
                        f"{FILE_KINDS[kind]} (no folder, no ..)")
    actions = pres.role_actions
    if not isinstance(actions, Mapping):
        _fail(name, f"{who}.role_actions must map a role to a set of actions, "
                    f"not {actions!r:.60}")
    kernel = frozenset().union(*KERNEL_ROLE_ACTIONS.values())
    for role, acts in actions.items():
        if role not in KERNEL_ROLE_ACTIONS:
            _fail(name, f"{who}.role_actions: {role!r} is not a console role "
                        f"({', '.join(KERNEL_ROLE_ACTIONS)})")
        if not _str_set(acts):
            _fail(name, f"{who}.role_actions[{role!r}] must be a set of action names, "
                        f"not {acts!r:.60}")
        taken = sorted(set(acts) & kernel)
        if taken:
            _fail(name, f"{who}.role_actions[{role!r}] takes the kernel's actions {taken}: "
                        "a game adds its own, it does not hand out the kernel's")
    fields = pres.outcome_fields
    if not (isinstance(fields, (tuple, list)) and all(isinstance(f, str) and f for f in fields)):
        _fail(name, f"{who}.outcome_fields must be a tuple of field names, not {fields!r:.60}")
    zones = pres.public_zones
    if not _str_set(zones):
        _fail(name, f"{who}.public_zones must be a set of zone names, not {zones!r:.60}")
    for zone in sorted(zones):
        # a card zone's reading would show face-down cards (PROCEDURE.md §4)
        if zone not in cls.zones or zone in cls.positions or cls.zone_kinds.get(zone, CARDS) == CARDS:
            _fail(name, f"{who}.public_zones: {zone!r} is not a zone of the game the camera "
                        "reads as something other than cards")
    if pres.view_key is not None and not (isinstance(pres.view_key, str) and pres.view_key):
        _fail(name, f"{who}.view_key must be a key of the view (a string) or None, "
                    f"not {pres.view_key!r:.60}")
    if pres.player_page is not None and not _bare(pres.player_page):
        _fail(name, f"{who}.player_page {pres.player_page!r} is not a bare folder name")
    if not (isinstance(pres.player_files, Mapping) and all(
            _bare(f) and isinstance(m, str) for f, m in pres.player_files.items())):
        _fail(name, f"{who}.player_files must map bare file names to media types")


class _TopLevel(HTMLParser):
    """The attributes of each top-level element of an HTML fragment."""

    VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                      "meta", "source", "track", "wbr"})

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.tops: list[tuple[str, dict[str, str | None]]] = []
        self.text_outside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.tops.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.tops.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag not in self.VOID:
            self.depth = max(0, self.depth - 1)

    def handle_data(self, data: str) -> None:
        if self.depth == 0 and data.strip():
            self.text_outside = True


def _check_fragment(name: str, file: str, text: str, panel: str) -> None:
    """Every top-level element of a panel fragment is the panel's and hidden until the
    console shows the panel: a stray element would show at every table."""
    parser = _TopLevel()
    parser.feed(text)
    parser.close()
    if not parser.tops:
        _fail(name, f"{file} marks no section data-panel=\"{panel}\"")
    if parser.text_outside:
        _fail(name, f"{file} has text outside its data-panel=\"{panel}\" sections")
    for tag, attrs in parser.tops:
        if attrs.get("data-panel") != panel or "hidden" not in attrs:
            _fail(name, f"{file}: its top-level <{tag}> is not marked "
                        f"data-panel=\"{panel}\" hidden")


def _registers(script: str, panel: str) -> bool:
    """The script assigns `stationPanels.<panel>` or `stationPanels["<panel>"]`."""
    p = re.escape(panel)
    return re.search(rf"""stationPanels(?:\s*\|\|\s*\{{\s*\}})?\s*\)?\s*(?:\.\s*{p}\b|\[\s*(["']){p}\1\s*\])\s*=(?!=)""",
                     script) is not None
