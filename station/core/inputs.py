"""Inputs to the table core, and the trace format that carries them (TRACES.md §1).

A trace line and a journal entry are the same thing: one timestamped input. Times are held
as integer microseconds inside the core so that `closes_at` and the timeouts compare exactly
(33.2 + 15 must equal the 48.2 a bet line says).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.tracefile import TraceFormatError, bytes_of_text, dumps, iter_objects
from station.cards import CardError, parse_card
from station.core.actions import ACTION_NAME, Action, payload_error
from station.intake import IntakeError, check_bet, check_wallet

US = 1_000_000
SUPERVISOR_ACTIONS = frozenset({"confirm_shuffle", "resume", "cancel_round", "end_shoe", "close_table"})
INPUT_KEYS = ("shoe", "to_shoe", "camera", "dealer", "supervisor", "wallet", "bet", "player", "end")
CAMERA_TOKENS = frozenset({"??", "XX", "CUT"})
#: what a camera zone holds when its game says nothing else (`Game.zone_kinds`)
CARDS = "cards"
#: a dice tray's kind: its zone is a list of die faces, 1–6, 0 for a die the camera cannot read
DICE = "dice"
#: the fields a player action may carry besides `account` and `action` (TRACES.md §1.1)
PLAYER_FIELDS = ("seat", "amount", "front", "back", "ref")


def to_us(t: float) -> int:
    return round(t * US)


def to_s(t_us: int) -> float:
    return round(t_us / US, 6)


#: a trace (or journal) line that cannot be read; names the line
TraceError = TraceFormatError


@dataclass(frozen=True, slots=True)
class Input:
    t_us: int
    kind: str  # one of INPUT_KEYS (to_shoe is informational)
    value: Any
    user: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def t(self) -> float:
        return to_s(self.t_us)

    def to_line(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": self.t, self.kind: self.value}
        if self.user is not None:
            d["user"] = self.user
        d.update(self.extra)  # a dealer action's payload (`Procedure.actions`)
        return d


@dataclass(frozen=True, slots=True)
class TraceHeader:
    table: str
    game: str
    camera: bool
    settings: dict[str, Any]
    note: str = ""

    def to_line(self) -> dict[str, Any]:
        return {"trace": 1, "table": self.table, "game": self.game, "camera": self.camera,
                "settings": self.settings, "note": self.note}


def _cards_seen(zone: str, cards: list[Any]) -> list[Any]:
    """RULES.md cards (canonicalised), `??`, `XX`, `CUT`."""
    out = []
    for c in cards:
        if isinstance(c, str) and c in CAMERA_TOKENS:
            out.append(c)
            continue
        try:
            out.append(str(parse_card(c)))
        except CardError as e:
            raise ValueError(f"zone {zone!r}: {e}") from None
    return out


def _die_faces_seen(zone: str, faces: list[Any]) -> list[Any]:
    """The faces seen on a dice tray, integers 0-6 (0: a die the camera cannot read)."""
    if not all(isinstance(f, int) and not isinstance(f, bool) and 0 <= f <= 6 for f in faces):
        raise ValueError(f"zone {zone!r}: expected die faces 0-6, got {faces!r}")
    return list(faces)


#: each kind of camera zone and how its list is read (TRACES.md §1: `camera`); a game's
#: `zone_kinds` names only these (station/games/validate.py)
ZONE_READERS: dict[str, Callable[[str, list[Any]], list[Any]]] = {
    CARDS: _cards_seen,
    DICE: _die_faces_seen,
}


def _kind_shown(seen: list[Any]) -> str:
    """The kind a zone's list shows of itself, where nobody gave its kind: die faces are
    numbers, cards are text (an empty list is both, and reads the same)."""
    numbers = seen and all(isinstance(f, int) and not isinstance(f, bool) for f in seen)
    return DICE if numbers else CARDS


def normalise_zone_cards(zone: str, cards: Any, kind: str | None = CARDS) -> list[Any]:
    """Camera notation for one zone, read by its kind (ZONE_READERS): for cards, RULES.md
    cards (canonicalised), `??`, `XX`, `CUT`; for a dice tray, the faces seen (integers
    0–6). `kind` None: the caller does not know the zone's kind, and the list's own shows it."""
    if not isinstance(cards, list):
        raise ValueError(f"zone {zone!r}: expected a list of cards, got {cards!r}")
    if kind is None:
        kind = _kind_shown(cards)
    reader = ZONE_READERS.get(kind)
    if reader is None:
        raise ValueError(f"zone {zone!r}: no camera reads a zone of kind {kind!r} "
                         f"(kinds: {', '.join(ZONE_READERS)})")
    return reader(zone, cards)


def zone_kinds_of(game: str) -> Mapping[str, str]:
    """zone -> kind of each zone of `game`'s table that holds no cards (`Game.zone_kinds`);
    a ValueError for a game the station does not have."""
    from station.games import get_game  # the games plug into the core: looked up by name

    return dict(get_game(game).zone_kinds)


def parse_header(obj: Any, line_no: int = 1) -> TraceHeader:
    if not isinstance(obj, dict) or obj.get("trace") != 1:
        raise TraceError(line_no, 'the first line must be a header {"trace": 1, ...}')
    table, game = obj.get("table"), obj.get("game")
    if not isinstance(table, str) or not table:
        raise TraceError(line_no, "header needs a table name")
    if not isinstance(game, str) or not game:
        raise TraceError(line_no, "header needs a game")
    camera = obj.get("camera", True)
    if not isinstance(camera, bool):
        raise TraceError(line_no, "header 'camera' must be true or false")
    settings = obj.get("settings", {})
    if not isinstance(settings, dict):
        raise TraceError(line_no, "header 'settings' must be an object")
    return TraceHeader(table, game, camera, settings, str(obj.get("note", "")))


def parse_input(obj: Any, line_no: int, prev_t_us: int | None = None, *,
                journal: bool = False, zone_kinds: Mapping[str, str] | None = None) -> Input:
    """One trace line. `journal=True` also admits the journal's own `tick` lines (the clock
    firing a timer with no other input), which are not part of the trace format.
    `zone_kinds` (zone -> kind, from the table's game: `zone_kinds_of`) says how each zone of
    a camera line is read, a zone not named holding cards; None, the caller knows no game
    (a simulator feeding a station), and each zone's list shows its own kind."""
    if not isinstance(obj, dict):
        raise TraceError(line_no, "expected a JSON object")
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float) or t < 0 or t != t:
        raise TraceError(line_no, f"'t' must be a non-negative number of seconds, got {t!r}")
    t_us = to_us(t)
    if prev_t_us is not None and t_us < prev_t_us:
        raise TraceError(line_no, f"time goes backwards ({t} after {to_s(prev_t_us)})")
    allowed = (*INPUT_KEYS, *STUDIO_TRACE_KEYS, *JOURNAL_ONLY_KEYS) if journal else (
        *INPUT_KEYS, *STUDIO_TRACE_KEYS)
    keys = [k for k in allowed if k in obj]
    if len(keys) != 1:
        raise TraceError(line_no, f"a line needs exactly one of {', '.join(INPUT_KEYS)}; has {keys or 'none'}")
    kind = keys[0]
    value = obj[kind]
    user = None
    extra: dict[str, Any] = {}
    if kind in ("shoe", "to_shoe"):
        if not isinstance(value, str):
            raise TraceError(line_no, f"'{kind}' must be a string of bytes")
        value = bytes_of_text(value, line_no=line_no, key=kind)
    elif kind == "camera":
        if not isinstance(value, dict):
            raise TraceError(line_no, "'camera' must be an object zone -> cards")
        try:
            value = {str(z): normalise_zone_cards(
                z, cs, None if zone_kinds is None else zone_kinds.get(z, CARDS))
                for z, cs in value.items()}
        except ValueError as e:
            raise TraceError(line_no, str(e)) from None
    elif kind == "dealer":
        # which actions a table takes, and the payload each carries, are its game's
        # (`Procedure.actions`, checked by `read_trace`); the payload's meaning is the
        # game's to judge when it comes (a refusal, not a bad line)
        if not isinstance(value, str) or not ACTION_NAME.fullmatch(value):
            raise TraceError(line_no, f"unknown dealer action {value!r}")
        extra = {k: v for k, v in obj.items() if k not in ("t", "dealer", "user")}
    elif kind == "supervisor":
        if value not in SUPERVISOR_ACTIONS:
            raise TraceError(line_no, f"unknown supervisor action {value!r}")
        user = obj.get("user")
        if not isinstance(user, str) or not user:
            raise TraceError(line_no, "a supervisor action needs its 'user'")
    elif kind in ("wallet", "bet"):
        # the bet API's own check: what the intake journaled, replay takes (station.intake)
        try:
            value = check_wallet(value) if kind == "wallet" else check_bet(value)
        except IntakeError as e:
            raise TraceError(line_no, f"'{kind}': {e}") from None
    elif kind == "player":
        if not isinstance(value, dict):
            raise TraceError(line_no, "'player' must be an object")
        if not isinstance(value.get("account"), str) or not value["account"]:
            raise TraceError(line_no, "'player' needs an account")
        if not isinstance(value.get("action"), str) or not value["action"]:
            raise TraceError(line_no, "'player' needs an action")
        unknown = sorted(set(value) - {"account", "action", *PLAYER_FIELDS})
        if unknown:
            raise TraceError(line_no, f"'player' has unknown fields {unknown}")
        # what each action needs is the game's to judge: a refusal, not a bad line
        value = {k: value[k] for k in ("account", "action", *PLAYER_FIELDS) if k in value}
    elif kind == "tick":
        value = True
    elif kind == "reservation_answer":
        value = check_reservation_answer(value, line_no)
    elif kind == "station_fault":
        value = check_station_fault(value, line_no)
    elif kind == "end":
        if value is not True:
            raise TraceError(line_no, "'end' must be true")
    return Input(t_us, kind, value, user, extra)


#: inputs a journal holds that are no part of the trace format: the clock firing a timer with
#: no other input (a trace's times and its `end` line imply the ticks), and the station's own
#: account of a time its journal could not be written (`station_fault`)
JOURNAL_ONLY_KEYS = ("tick", "station_fault")
#: inputs of a studio table that TRACES.md's key list does not name, which its traces carry:
#: the studio ledger's answer to a reservation came from outside the table like a card read,
#: and replay decides the bet or the pot game's action from it (docs/studio.md). A trace of a
#: table without reservations holds none, so its traces stay exactly TRACES.md's
STUDIO_TRACE_KEYS = ("reservation_answer",)
#: what the studio ledger may answer a reservation: reserved, or why not
RESERVATION_ANSWERS = frozenset({"reserved", "insufficient_funds", "no_wallet", "unavailable"})


#: the intake's id of one reservation attempt, part of that bet's outbox key
RESERVATION_ATTEMPT = re.compile(r"[0-9a-z]{1,32}")


def check_reservation_answer(value: Any, line_no: int) -> dict[str, Any]:
    """`{"key": str, "attempt"?: str, "answer": str, "balance"?: int, "detail"?: str}`: the
    studio ledger's answer to the reservation of the bet that follows it in the journal (or of
    one draw on a wallet, `account` and `amount`, of the pot game's action that follows). An
    answer other than `reserved` names the refusal (RESERVATION_ANSWERS, or another reason of
    the ledger's). `attempt` is the intake's id of that one reservation request: the bet's
    outbox key ends in it, so no two attempts ever ask the ledger under one key."""
    if not isinstance(value, dict) or set(value) - {"key", "attempt", "answer", "balance", "detail",
                                                    "account", "amount"}:
        raise TraceError(line_no, "'reservation_answer' is {key, attempt?, answer, balance?, detail?,"
                                  " account?, amount?}")
    if "account" in value and not isinstance(value["account"], str):
        raise TraceError(line_no, "'reservation_answer' account is text")
    amount = value.get("amount")
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int)):
        raise TraceError(line_no, "'reservation_answer' amount must be an integer")
    if not isinstance(value.get("key"), str) or not isinstance(value.get("answer"), str):
        raise TraceError(line_no, "'reservation_answer' needs its key and answer")
    attempt = value.get("attempt")
    if attempt is not None and not (isinstance(attempt, str) and RESERVATION_ATTEMPT.fullmatch(attempt)):
        raise TraceError(line_no, "'reservation_answer' attempt is 1-32 of 0-9 a-z")
    balance = value.get("balance")
    if balance is not None and (isinstance(balance, bool) or not isinstance(balance, int)):
        raise TraceError(line_no, "'reservation_answer' balance must be an integer")
    if value["answer"] == "reserved" and balance is None:
        raise TraceError(line_no, "a 'reserved' answer carries the wallet's balance after it")
    return dict(value)


#: the station's own faults a `station_fault` entry may name
STATION_FAULT_KINDS = frozenset({"device_fault"})


def check_station_fault(value: Any, line_no: int) -> dict[str, Any]:
    """`{"kind": "device_fault", "since": s, "attempts": n, "refused": n, "error": str,
    "last_error": str}`: written once the journal takes writes again after it could not,
    at the first entry that then succeeds. The table stood from `since` (station time, s) to
    this entry's time; `attempts` writes failed (the first `error`, the last `last_error`)
    and `refused` inputs were not taken (the shoe resends those; nothing was acknowledged).
    It changes nothing at the table: the clock alone moves, as a `tick` would move it."""
    fields = {"kind", "since", "attempts", "refused", "error", "last_error"}
    if not isinstance(value, dict) or set(value) != fields:
        raise TraceError(line_no, f"'station_fault' is {{{', '.join(sorted(fields))}}}")
    if value["kind"] not in STATION_FAULT_KINDS:
        raise TraceError(line_no, f"'station_fault' kind is one of {sorted(STATION_FAULT_KINDS)}")
    since = value["since"]
    if isinstance(since, bool) or not isinstance(since, int | float) or since < 0:
        raise TraceError(line_no, "'station_fault' since is a time in seconds")
    for name in ("attempts", "refused"):
        n = value[name]
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise TraceError(line_no, f"'station_fault' {name} is a count")
    if not isinstance(value["error"], str) or not isinstance(value["last_error"], str):
        raise TraceError(line_no, "'station_fault' error and last_error are text")
    return dict(value)


def read_trace(path: str | Path) -> tuple[TraceHeader, list[Input]]:
    """Read a whole trace, validating every line first: nothing is acted on from a trace
    that cannot be read to its end."""
    inputs: list[Input] = []
    header: TraceHeader | None = None
    prev: int | None = None
    takes: tuple[dict[str, Action], bool, Mapping[str, str]] | None = None
    for line_no, obj in iter_objects(path):
        if header is None:
            header = parse_header(obj, line_no)
            takes = _inputs_of_game(header.game, line_no)
            continue
        assert takes is not None
        actions, takes_players, zone_kinds = takes
        inp = parse_input(obj, line_no, prev, zone_kinds=zone_kinds)
        if inp.kind == "dealer":
            action = actions.get(inp.value)
            if action is None or action.role != "dealer":
                raise TraceError(line_no, f"unknown dealer action {inp.value!r} at a "
                                 f"{header.game} table")
            wrong = payload_error(inp.value, action, inp.extra)
            if wrong:
                raise TraceError(line_no, wrong)
        if inp.kind == "player" and not takes_players:
            raise TraceError(line_no, f"a {header.game} table takes no 'player' lines")
        prev = inp.t_us
        inputs.append(inp)
    if header is None:
        raise TraceError(1, "empty trace: no header")
    return header, inputs


def _inputs_of_game(game: str, line_no: int) -> tuple[dict[str, Action], bool, Mapping[str, str]]:
    """The actions a game's table takes, whether players act at it, and the kinds of its
    camera zones."""
    from station.games import get_game  # the games plug into the core: looked up by name
    from station.games.base import Procedure

    try:
        rules = get_game(game)
        proc = rules.table_procedure()
    except ValueError as e:
        raise TraceError(line_no, str(e)) from None
    if proc is None:
        raise TraceError(line_no, f"{game}: rules only, no table procedure to replay")
    return (dict(proc.actions), proc.player_handler is not Procedure.player_handler,
            dict(rules.zone_kinds))


def input_line(inp: Input) -> str:
    """One input as its trace (and journal) line."""
    return dumps(inp.to_line())


def iter_lines(header: TraceHeader, inputs: list[Input]) -> Iterator[str]:
    yield dumps(header.to_line())
    for inp in inputs:
        yield input_line(inp)
