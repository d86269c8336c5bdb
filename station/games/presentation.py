"""How a game is presented: the console's panel, road and view part, its recall page, the
actions its roles add, and — at a table where players act — its player actions (the other
half of the contract in station/games/base.py; docs/core.md).

A game names its presentation on its rules class, `Game.presentation = "module:Class"`, a
subclass of `Presentation` kept in its own package (`station/games/<game>/panel/`). The
console (station/console/) and the player API (station/live/player_api.py) only render what
it declares, and name no game:

- **the panel**: files beside the presentation's module (`files`: `panel.html`, a fragment
  of sections marked `data-panel="<panel>"`; `panel.js`, which registers the panel's
  functions in `window.stationPanels[<panel>]`; `panel.css`), served by the console at
  `/games/<game>/<file>`;
- **the road** or results history: a `Road` class, drawn from the table's journal records;
- **the view part**: the round or game in progress, the cards dealt per zone, what a zone
  shows publicly, the extra fields of a validated hand;
- **the recall page**: `recall()`, or None for the house round recall the console knows;
  and the list of rounds that are over: `finished_types`, `finished_item()`;
- **the procedure's drawing**: `diagram()`, or None for the console's layout of its states;
- **the roles' needs**: `role_actions`, the game's own actions per console role, and
  `action_body()`, the fields such an action carries;
- **the player actions**: `check_player_action()` and `view_key`, the game's part of the
  public view a player sees, `no_own_part()`, a player's own part before it has any, and
  `player_page`, the page a person plays a seat with.

A game that declares none gets this base: no panel, no road (an empty one, never another
game's), the house round recall. This module imports nothing of the station above it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

#: the journal reader a road or a recall is given: record types -> records, oldest first,
#: only those the console may see (never a `private` record: PROCEDURE.md §4, §7.10)
Records = Callable[[tuple[str, ...]], list[dict[str, Any]]]

#: the console's roles and the kernel's own inputs each sends (PROCEDURE.md §1; the console's
#: station/console/users.py ROLE_ACTIONS): a game's `role_actions` adds to these roles only,
#: and never names one of these actions
KERNEL_ROLE_ACTIONS: Mapping[str, frozenset[str]] = {
    "supervisor": frozenset({"confirm_shuffle", "resume", "cancel_round", "end_shoe", "close_table"}),
    "dealer": frozenset({"new_shoe", "open_betting"}),
}


class ActionBodyError(ValueError):
    """An action body the console refuses before the table sees it (400), with the table's
    refusal reason for it (`bad_dice`, say)."""

    def __init__(self, reason: str | None, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class PlayerActionError(ValueError):
    """A player action the table cannot even be asked about (422, nothing recorded)."""

    def __init__(self, reason: str, field: str | None = None) -> None:
        super().__init__(reason)
        self.reason, self.field = reason, field


class RecallError(ValueError):
    """A recall the console refuses: `status` 400 (not an id of this table) or 404 (not over)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class Road:
    """A game's road or results history, for the console's /roads answer. Reads committed
    journal records only (a hand record exists once a round is validated)."""

    def __init__(self, game: Any) -> None:
        self.game = game

    def read(self, records: Records, positions: list[str], shoe: int | None,
             current_shoe: int | None) -> dict[str, Any]:
        """`{"shoe", "rounds", "roads": {name: {"svg", "beads"}}, ...}`; `shoe`: the shoe
        asked for (None: the game's default)."""
        return {"shoe": None, "rounds": 0, "roads": {}}


class Presentation:
    """The presentation of one game (stateless; one instance serves every table of it)."""

    #: the panel's name (`data-panel` of its sections, `window.stationPanels` key); None: none
    panel: str | None = None
    #: the panel's files, beside the presentation's module: kind -> file name
    files: Mapping[str, str] = {}
    #: the road or results history the console draws
    road_class: type[Road] = Road
    #: the game's own actions per console role, beside the kernel's (e.g. a dice entry)
    role_actions: Mapping[str, frozenset[str]] = {}
    #: fields of a validated hand, beside cards and results, that the result and recall carry
    outcome_fields: tuple[str, ...] = ()
    #: zones whose camera readings are public as read (a tray of dice thrown, say)
    public_zones: frozenset[str] = frozenset()
    #: the key of the game's part of the public view that a player's view spreads; None:
    #: players do not act at this game's tables
    view_key: str | None = None
    #: the page a person plays one seat with (a folder beside the module holding
    #: `index.html` and `player_files`), served by the player API at /seat/; None: none
    player_page: str | None = None
    #: the player page's other files: name -> media type
    player_files: Mapping[str, str] = {}

    def __init__(self, game: Any) -> None:
        self.game = game

    # ---- the files
    @classmethod
    def folder(cls) -> Path:
        """Where the panel's files are: beside the module that defines the class."""
        module = importlib.import_module(cls.__module__)
        return Path(module.__file__ or "").parent

    def file(self, name: str) -> Path | None:
        """A panel file by its name, or None when the game declares no such file."""
        if name not in self.files.values():
            return None
        return self.folder() / name

    # ---- the view
    def round_in_view(self, view: Mapping[str, Any]) -> str | None:
        """The id of the round (or game) in progress, by the public view; None between."""
        r = view.get("round") or {}
        return r.get("round_id") if r and not r.get("finished") else None

    def dealt(self, view: Mapping[str, Any]) -> dict[str, int]:
        """How many cards the deal order has put in each zone now (counts, no identities)."""
        return {str(p): int(n) for p, n in ((view.get("round") or {}).get("dealt") or {}).items()}

    def shown(self, view: Mapping[str, Any]) -> dict[str, list[str]]:
        """Zone -> the cards the public view has revealed there."""
        return {str(z): list(cs) for z, cs in ((view.get("round") or {}).get("revealed") or {}).items()}

    # ---- the console's list of rounds
    #: the record types that say a round (or a game) of this game is over, beside the
    #: kernel's `round_cancelled`
    finished_types: tuple[str, ...] = ("hand",)

    def finished_item(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """What the console's list of rounds shows of one that is over, from the record that
        ended it (beside its id, time, status and frame; a cancel is the console's). The
        base: a validated hand's shoe, round and each position's outcome (or its hand)."""
        if record.get("type") != "hand":
            return {}
        return {"shoe": record.get("shoe"), "round": record.get("round"),
                "results": {p: x.get("outcome") or x.get("hand")
                            for p, x in (record.get("results") or {}).items()}}

    # ---- the procedure's drawing
    def diagram(self) -> str | None:
        """The game's own SVG drawing of its machine for the console, or None: the console
        lays it out from the machine's states."""
        return None

    # ---- the console's decisions
    def action_body(self, action: str, body: Mapping[str, Any]) -> dict[str, Any] | None:
        """What a game action of the console carries beside its name (the `extra` of the
        dealer line), or None; ActionBodyError when a field is missing or wrong. The base
        takes no field beyond `action`."""
        unknown = sorted(set(body) - {"action"})
        if unknown:
            raise ActionBodyError(None, f"unknown fields {unknown[:5]} for {action}: "
                                                 'send {"action": "..."}')
        return None

    # ---- the recall page
    def recall(self, records: Records, table: str, round_id: str) -> dict[str, Any] | None:
        """The recall of a round (or game) that is over, or None: the console's house round
        recall (`<table>-S<shoe>-R<round>`) serves it. RecallError for an id the game
        refuses. The answer may hold `records`, the round's records, from which the console
        adds its faults, warnings and decisions (and then its audit entries)."""
        return None

    # ---- the players
    def no_own_part(self, account: str) -> dict[str, Any]:
        """The `you` of a player's view before the table holds anything of the account's
        own (no seat yet): the game's empty own part. The base: the account, no seat."""
        return {"account": account, "seat": None}

    def check_player_action(self, data: Any, account: str | None) -> dict[str, Any]:
        """A player action's shape, as it is journaled; PlayerActionError otherwise."""
        raise PlayerActionError("players do not act at this table")


def load_presentation(game: Any) -> Presentation:
    """The presentation a game (an instance or class of `Game`) declares, or the base."""
    spec = getattr(game, "presentation", None)
    if spec is None:
        return Presentation(game)
    return presentation_class(getattr(game, "name", "?"), spec)(game)


def presentation_class(name: str, spec: Any) -> type[Presentation]:
    """The class of a `"module:Class"` spec (or the class itself); ValueError naming the game
    and what is wrong."""
    if isinstance(spec, type):
        found = spec
    else:
        if not isinstance(spec, str) or spec.count(":") != 1 or not all(spec.split(":")):
            raise ValueError(f"game {name!r}: presentation {spec!r} is not \"module:Class\"")
        from station.games import load_declared

        found = load_declared(name, "presentation", spec, ValueError)
    if not (isinstance(found, type) and issubclass(found, Presentation)):
        raise ValueError(f"game {name!r}: presentation {spec!r} is not a "
                         "station.games.presentation.Presentation")
    return found
