"""Studio tables: real stations, fed by a scripted table instead of devices and people.

Each `StudioTable` is a `TableStation` — the table kernel with its game's procedure, its own
SQLite journal and the settlement outbox inside it — fed the inputs of a session of its game
written in advance (station/studio/scripts.py: the shoe's DS frames, the camera's zones, the
dealer's and supervisor's actions, wallets, bets, players' actions). Its outbox goes to the
studio bus by a `DeliveryWorker` over `NatsTransport`, exactly as at a table PC, and its public
state (from the table's own view) to the studio console by a `StatePublisher`. A table whose
bus is away goes on dealing on its own journal and outbox, and catches up when it is back.

Time: the table runs on a virtual clock that stands at the table time of the input being fed,
so its timers (betting close, timeouts) fire where the session puts them however fast it is
fed; `pace_s` is the wall time a round takes. What the table did is in its journal, and the
journal re-applies to the same records (a station restarted on it carries on).

    python -m station.studio.tables --journal J --table T-01 --game G --rounds 20 \
        --pace 0.3 --bus nats://127.0.0.1:4222

runs one table as its own process (the drills) and prints a JSON line when it is done.

A table where players act (a pot game's) serves the player API as a lone table does
(station/live/player_api.py, on a port of its own, the platform's key `player_key`), and its
session's players play through it: each `player` line is a `POST /v1/players/actions` over
real HTTP, answered once the table has journaled it. The API's address is in the table's
state (`players_url`) for the studio console.
"""

from __future__ import annotations

import argparse
import json
import logging
import secrets
import sqlite3
import sys
import threading
import time
from pathlib import Path
from typing import Any

from station.core.inputs import US, parse_input
from station.core.settings import TableSettings
from station.games import default_game
from station.live.table_station import TableStation
from station.settlement.bus import NatsTransport, StatePublisher
from station.settlement.outbox import DeliveryWorker
from station.studio.scripts import Session, build_session
from station.studio.state import TableState

log = logging.getLogger("station.studio.tables")

#: the studio console hears of a table at least this often while it deals, seconds
STATE_EVERY_S = 0.5


class StudioTable:
    def __init__(self, name: str, game: str, *, seed: int, rounds: int, pace_s: float,
                 bus_url: str, folder: Path, accounts: int = 8, journal_sync: str = "normal",
                 max_backoff: float = 1.0, session: Session | None = None,
                 transport: Any = None, player_key: str | None = None) -> None:
        self.name = name
        self.game = game
        self.rounds = rounds
        self.session = session or build_session(game, name, seed=seed, rounds=rounds,
                                                accounts=accounts)
        header = self.session.header
        settings = TableSettings().with_overrides(
            {"table": name, "game": game, "camera": header.get("camera", True),
             **header.get("settings", {})})
        # wall seconds per table second: a round takes about `pace_s`
        per_round = self.session.table_seconds / max(1, self.session.rounds)
        self.wall_per_table_s = pace_s / per_round if per_round > 0 else 0.0
        self.journal_path = Path(folder) / f"{name}.journal.sqlite"
        self._now_s = 0.0
        self.station = TableStation(settings, self.journal_path, clock=self._clock,
                                    journal_sync=journal_sync)
        self.transport = transport if transport is not None else NatsTransport(
            bus_url, name, publish_timeout_s=2.0)
        self.errors: list[str] = []
        self.worker = DeliveryWorker(self.journal_path, self.transport, max_backoff=max_backoff,
                                     on_error=lambda exc, key: self._error(f"{key}: {exc}"))
        self.station.on_outbox = self.worker.wake
        self.state_bus = StatePublisher(bus_url, name) if bus_url else None
        #: the player API, served while the table runs (a table where players act)
        self.player_key = player_key or secrets.token_urlsafe(18)
        self.players_url: str | None = None
        self.player_actions = 0  # answered by the player API
        self._players: Any = None
        self._players_app: Any = None
        self._http: Any = None
        if self.station.core.proc.player_handler() is not None:
            from station.live.http import serve_app
            from station.live.player_api import make_player_app

            self._players_app = make_player_app(self.station, {self.player_key: "studio"})
            self._players = serve_app(self._players_app, "127.0.0.1", 0, name=f"players-{name}")
            self.players_url = self._players.url
        self._state = TableState(self.station, self.state_bus, pending=self.worker.pending,
                                 every_s=STATE_EVERY_S, players_url=self.players_url)
        self.finished = threading.Event()
        self.failed: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._deal, name=f"table-{name}", daemon=True)

    def _clock(self) -> float:
        return self._now_s

    def _error(self, text: str) -> None:
        self.errors.append(text)
        del self.errors[:-50]

    # -- running ------------------------------------------------------------------------

    def start(self) -> None:
        self.station.start()
        self.worker.start()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    @property
    def rounds_done(self) -> int:
        return self._state.rounds_done

    def _deal(self) -> None:
        lines = self.session.lines
        start = time.monotonic()
        try:
            for i, line in enumerate(lines):
                if self._stop.is_set():
                    break
                inp = parse_input(line, i + 2)
                if inp.kind == "end":
                    break
                due = start + inp.t_us / US * self.wall_per_table_s
                delay = due - time.monotonic()
                if delay > 0 and self._stop.wait(delay):
                    break
                self._now_s = inp.t_us / US
                if inp.kind == "player" and self.players_url is not None:
                    self._play(inp.value)
                else:
                    self.station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)
        except BaseException as exc:  # noqa: BLE001 - the summary says why the table stopped
            self.failed = exc
            log.exception("studio table %s stopped", self.name)
        finally:
            self.publish_state(closed=True)
            self.finished.set()

    def _play(self, action: dict[str, Any]) -> None:
        """A player's action through the player API, as the betting platform sends it."""
        import httpx

        if self._http is None:
            self._http = httpx.Client(base_url=self.players_url, timeout=30.0,
                                      headers={"Authorization": f"Bearer {self.player_key}"})
        r = self._http.post("/v1/players/actions", json=action)
        if r.status_code not in (200, 409):  # 409: the table refused it, as it may
            raise RuntimeError(f"player API: {action} answered {r.status_code} {r.text[:300]}")
        self.player_actions += 1

    # -- what the studio console sees ----------------------------------------------------

    def state(self) -> dict[str, Any]:
        return self._state.state()

    def publish_state(self, *, closed: bool = False) -> None:
        self._state.publish(closed=closed)

    # -- after the session ---------------------------------------------------------------

    def drain(self, timeout_s: float) -> bool:
        ok = self.worker.drain(timeout_s)
        self.publish_state(closed=True)
        return ok

    def outbox(self) -> list[dict[str, Any]]:
        return outbox_messages(self.journal_path)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(10)
        if self._http is not None:
            self._http.close()
        if self._players is not None:
            from station.live.player_api import stop_player_app

            stop_player_app(self._players_app, self._players)
        self.station.stop()
        self.worker.stop()
        self.transport.close()
        if self.state_bus is not None:
            self.state_bus.close()


def outbox_messages(journal_path: str | Path) -> list[dict[str, Any]]:
    """What a table sent settlement, in its order: its journal's outbox."""
    with sqlite3.connect(journal_path) as conn:
        return [json.loads(body) for (body,) in
                conn.execute("SELECT body FROM settlement_outbox ORDER BY seq")]


def balances_from_outbox(messages: list[dict[str, Any]]) -> dict[str, int]:
    """Every wallet's balance from a table's own messages, without the ledger: a wallet set,
    then each bet's deduction, each hand's returns, each cancelled round's refunds; a pot
    game's money into the pot, out to the winners or back."""
    balances: dict[str, int] = {}
    held: dict[str, list[dict[str, Any]]] = {}
    for m in messages:
        kind = m["kind"]
        if kind == "wallet":
            balances[m["account"]] = m["balance"]
        elif kind == "bet":
            balances[m["account"]] -= m["deducted"]
            held.setdefault(m["round_id"], []).append(m)
        elif kind == "hand":
            for line in m["settlement"]:
                balances[line["account"]] += line["returned"]
        elif kind == "round_cancelled":
            for bet in held.get(m["round_id"], []):
                balances[bet["account"]] += bet["deducted"]
        elif kind == "pot_in":
            balances[m["account"]] -= m["amount"]
        elif kind == "pot_settled":
            for account, amount in m["payouts"].items():
                balances[account] += amount
        elif kind == "pot_cancelled":
            for refund in m["refunds"]:
                balances[refund["account"]] += refund["amount"]
    return balances


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m station.studio.tables")
    parser.add_argument("--journal", required=True, help="the table's journal file")
    parser.add_argument("--table", required=True)
    parser.add_argument("--game", default=default_game(),
                        help="the table's game (default %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--pace", type=float, default=0.3, help="wall seconds per round")
    parser.add_argument("--bus", required=True)
    parser.add_argument("--max-backoff", type=float, default=1.0)
    parser.add_argument("--drain-timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    journal = Path(args.journal)
    table = StudioTable(args.table, args.game, seed=args.seed, rounds=args.rounds,
                        pace_s=args.pace, bus_url=args.bus, folder=journal.parent,
                        max_backoff=args.max_backoff)
    if table.journal_path != journal:
        table.close()
        print(f"--journal must be named {args.table}.journal.sqlite", file=sys.stderr)
        return 2
    try:
        table.start()
        table.finished.wait()
        delivered = table.drain(args.drain_timeout)
        messages = table.outbox()
        print(json.dumps({"table": args.table, "game": args.game, "delivered": delivered,
                          "rounds": table.rounds_done, "messages": len(messages),
                          "failed": repr(table.failed) if table.failed else None,
                          "errors": len(table.errors)}), flush=True)
        return 0 if delivered and table.failed is None else 1
    finally:
        table.close()


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
