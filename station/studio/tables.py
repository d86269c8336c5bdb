"""Simulated studio tables: what a table's station sends to the studio, without its devices.

Each `SimTable` deals a session of its game (`station.settlement.sim.plan_session`: shuffled
shoes, bettors placing bets against their balances as the table core decides them, some
rounds cancelled by a fault) and, like a table's station, journals every step together with
its settlement message in one transaction (its own SQLite journal and outbox), delivers the
outbox to the studio bus with a `DeliveryWorker` and `NatsTransport`, and publishes its public
state for the studio console. A table whose bus is away goes on dealing on its own journal.

What a game must provide for the studio (station/games): `name`, `positions`, `deal_plan`,
`decks`, `check_bet`, `evaluate`, `returned` (the settlement core recomputes every hand with
them), and the bettable spots: a `spots` tuple, or spots named like Pok Deng's (a position and
the position + ``PAIR``), which the simulator finds by asking `check_bet`.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from station.settlement.bus import NatsTransport, StatePublisher
from station.settlement.outbox import enqueue
from station.settlement.sim import MiniStation, plan_session


class SimTable:
    def __init__(self, name: str, game: str, *, seed: int, rounds: int, pace_s: float,
                 bus_url: str, folder: Path, accounts: int = 8) -> None:
        self.name = name
        self.game = game
        self.rounds = rounds
        self.pace_s = pace_s
        self.session = plan_session(seed, rounds, table=name, account_prefix=f"{name}.",
                                    game_name=game, accounts=accounts)
        self.transport = NatsTransport(bus_url, name, publish_timeout_s=2.0)
        self.errors: list[str] = []
        self.station = MiniStation(folder / f"{name}.journal.db", self.transport, max_backoff=1.0,
                                   on_error=lambda exc, key: self.errors.append(f"{key}: {exc}"))
        self.state_bus = StatePublisher(bus_url, name)
        self.rounds_done = 0
        self.finished = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._deal, name=f"table-{name}", daemon=True)
        self._state: dict[str, Any] = {"game": game, "state": "opening", "round": None,
                                       "faults": [], "devices": {"shoe": "ok", "camera": "ok"},
                                       "last_results": None, "rounds_done": 0}

    def start(self) -> None:
        self.station.worker.start()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _publish(self, **change: Any) -> None:
        self._state.update(change)
        self._state["t"] = time.time()
        self._state["pending_settlement"] = self._pending
        self.state_bus.publish(self._state)

    @property
    def _pending(self) -> int:
        try:
            return self.station.worker.pending()
        except Exception:  # noqa: BLE001 - a figure for the screen only
            return -1

    def _journal(self, step: int, message: dict[str, Any]) -> None:
        conn = self.station.conn
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO journal (step, t, record) VALUES (?, ?, ?)",
                     (step, time.time(), json.dumps(message)))
        enqueue(conn, message)
        conn.execute("COMMIT")
        self.station.worker.wake()

    def _deal(self) -> None:
        current = None
        try:
            for step, message in enumerate(self.session.messages):
                if self._stop.is_set():
                    break
                kind = message["kind"]
                round_id = message.get("round_id")
                if kind in ("bet", "pot_in") and round_id != current:
                    current = round_id
                    self._publish(state="betting", round=round_id, faults=[])
                self._journal(step, message)
                if kind in ("hand", "pot_settled"):
                    self._publish(state="dealing")
                    time.sleep(self.pace_s / 2)
                    self.rounds_done += 1
                    self._publish(state="result", last_results=message.get("results"),
                                  rounds_done=self.rounds_done)
                    time.sleep(self.pace_s / 2)
                elif kind in ("round_cancelled", "pot_cancelled"):
                    # the fault that cancelled it paused the table first, for the supervisor
                    self._publish(state="paused", faults=[message["reason"]],
                                  devices={"shoe": "fault" if message["reason"] in
                                           ("link_lost", "shoe_exhausted") else "ok",
                                           "camera": "ok"})
                    time.sleep(self.pace_s)
                    self.rounds_done += 1
                    self._publish(state="cancelled", rounds_done=self.rounds_done,
                                  devices={"shoe": "ok", "camera": "ok"})
        finally:
            self._publish(state="closed")
            self.finished.set()

    def drain(self, timeout_s: float) -> bool:
        ok = self.station.worker.drain(timeout_s)
        self._publish()
        return ok

    def close(self) -> None:
        self.station.close()
        self.transport.close()
        self.state_bus.close()
