"""The station a soak drives: a real `TableStation` with its SQLite journal and outbox, a
delivery worker and one settlement core whose ledger outlives every restart, on the soak's
virtual clock. `crash()` abandons the station between two inputs (its owner thread stopped,
its journal's connection closed, no orderly shutdown) and starts it again from its journal,
as a power cut and a reboot of the table's computer would."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


class SoakedStation:
    def __init__(self, settings: Any, directory: Path, clock: Callable[[], float],
                 journal_sync: str, signing_key: bytes | None = None) -> None:
        self.settings = settings
        #: the table's journal signing key (checkpoints signed, sent to the ledger)
        self.signing_key = signing_key
        self.journal_path = directory / "journal.sqlite"
        self.ledger_path = directory / "ledger.sqlite"
        self.clock = clock
        self.journal_sync = journal_sync
        self.station: Any = None
        self.ledger: Any = None
        self.worker: Any = None
        self.crashes = 0

    def start(self) -> float:
        """Start (or restart from the journal); returns the seconds the start took."""
        from station.live.table_station import TableStation
        from station.settlement.core import SettlementCore
        from station.settlement.outbox import DeliveryWorker
        from station.settlement.transport import InProcessTransport

        t0 = time.perf_counter()
        self.station = TableStation(self.settings, self.journal_path, clock=self.clock,
                                    journal_sync=self.journal_sync,
                                    signing_key=self.signing_key)
        self.station.start()
        if self.ledger is None:
            self.ledger = SettlementCore(self.ledger_path)
        self.worker = DeliveryWorker(self.journal_path, InProcessTransport(self.ledger))
        self.station.on_outbox = self.worker.wake
        self.worker.start()
        return time.perf_counter() - t0

    def crash(self) -> float:
        """Abandon the station between two inputs and start it again; returns the seconds the
        restart took."""
        self.crashes += 1
        st = self.station
        st._stop.set()
        st._q.put((None, None, "", None, None))
        if st._thread:
            st._thread.join(10)
        st.journal.conn.close()
        self.worker.stop()
        return self.start()

    def finish(self, drain_timeout_s: float = 60.0) -> None:
        """The orderly end: the station stops, the outbox is delivered to the ledger."""
        self.station.stop()
        self.worker.drain(drain_timeout_s)
        self.worker.stop()
