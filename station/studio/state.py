"""A table's public state for the studio console, published on the bus as the table changes.

Built from the table kernel's own public view (what the table's console shows: no hidden
card) and the records it makes: game, state, phase, round, faults, the shoe link and camera,
the last results, rounds closed, messages still to settle. A game whose round is more than
the view's `round` (a pot game's round is a game, with deals inside it) says what it is by
its `studio_round` tool (station/games/tools.py). Published when any of those change,
and at least every `every_s` while the table is busy; the publisher keeps only the newest
state while the bus is away, so the table never waits for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

#: record types that close a round (or a pot game's game)
ROUND_CLOSED = frozenset({"settlement", "round_cancelled", "game_settled"})


def _round_of(game: str | None) -> Callable[[dict[str, Any]], dict[str, Any] | None] | None:
    """The game's `studio_round` tool (None: the game has none, or the view names no game
    the station has)."""
    from station.games import GAMES
    from station.games.tools import game_tool

    if game is None or game not in GAMES:
        return None
    return game_tool(game, "studio_round")


class TableState:
    def __init__(self, station: Any, publisher: Any, *, pending: Callable[[], int] | None = None,
                 console_url: str | None = None, every_s: float = 0.5,
                 players_url: str | None = None) -> None:
        self.station = station
        self.publisher = publisher
        self.pending = pending
        self.console_url = console_url
        #: where the table serves its player API (a table where players act)
        self.players_url = players_url
        self.every_s = every_s
        self.rounds_done = 0
        self.last_results: Any = None
        self._lock = threading.Lock()
        self._published: tuple[Any, ...] = ()
        self._published_at = 0.0
        #: each game's `studio_round` tool, by the game's name, once looked up
        self._round_tools: dict[Any, Any] = {}
        station.add_listener(self._records)

    def _records(self, records: list[dict[str, Any]]) -> None:
        for r in records:
            if r["type"] in ROUND_CLOSED:
                self.rounds_done += 1
            if r["type"] == "hand":
                self.last_results = r.get("results")
            elif r["type"] == "game_settled":
                self.last_results = {k: r[k] for k in ("pot", "payouts") if k in r} or None
        self.publish()

    def state(self) -> dict[str, Any]:
        view = self.station.view
        rnd = view.get("round") or {}
        game = view.get("game") if isinstance(view.get("game"), str) else None
        if game not in self._round_tools:
            self._round_tools[game] = _round_of(game)
        round_of = self._round_tools[game]
        own = round_of(view) if round_of is not None else None
        link = view.get("link") or {}
        shoe_ok = link.get("up", True) and not link.get("device_faults")
        state = {
            "game": view.get("game"),
            "state": view.get("state", "opening"),
            "phase": view.get("phase"),
            "round": rnd.get("round_id") if isinstance(rnd, dict) else rnd,
            "faults": [f["kind"] for f in view.get("faults", ())],
            "devices": {"shoe": "ok" if shoe_ok else "fault",
                        "camera": "ok" if not view.get("degraded") else "degraded"},
            "last_results": self.last_results,
            "rounds_done": self.rounds_done,
        }
        if own is not None:  # the game's round, as the game says it (its deal inside it)
            state["round"], state["game_round"] = own["round"], own["game_round"]
        if self.console_url:
            state["console_url"] = self.console_url
        if self.players_url:
            state["players_url"] = self.players_url
        health = getattr(self.station, "reservation_health", None)
        if health is not None:  # the studio console's banner while reservations are down
            state["reservations"] = health.state()
        return state

    def publish(self, *, closed: bool = False, force: bool = False) -> None:
        if self.publisher is None:
            return
        state = self.state()
        if closed:
            state["state"] = "closed"
        key = (state["state"], state["phase"], state["round"], tuple(state["faults"]),
               state["rounds_done"], str(state.get("game_round")),
               bool((state.get("reservations") or {}).get("down")))
        now = time.monotonic()
        with self._lock:
            if (key == self._published and now - self._published_at < self.every_s
                    and not (closed or force)):
                return
            self._published, self._published_at = key, now
        state["t"] = time.time()
        if self.pending is not None:
            try:
                state["pending_settlement"] = self.pending()
            except Exception:  # noqa: BLE001 - a figure for the screen only
                state["pending_settlement"] = -1
        self.publisher.publish(state)
