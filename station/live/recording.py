"""Trace recording at a live table: every journaled input written as it happens, in the
TRACES.md format, one file per shoe, so any session can be replayed and any dispute answered
from the file alone (`station replay FILE`). A game whose games span shoes and whose seats
outlast them (a pot game dealt from a fresh deck per deal) keeps the whole session in one file: a
file cut at a shoe would start mid-game, nobody seated, and replay to other records."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from firmware_bridge.tracefile import TraceWriter
from station.core.inputs import JOURNAL_ONLY_KEYS, Input, TraceHeader
from station.games import get_game
from station.private_files import private_dir

#: inputs a trace never holds: clock ticks are implied by the times (a studio table's
#: reservation answers are recorded: replay decides its bets from them, docs/studio.md)
NOT_RECORDED = frozenset(JOURNAL_ONLY_KEYS)


class ShoeTraceRecorder:
    def __init__(self, directory: str | Path, header: TraceHeader) -> None:
        self.dir = Path(directory)
        private_dir(self.dir)
        self.header = header
        self._writer: TraceWriter | None = None
        self._lock = threading.Lock()
        self.path: Path | None = None
        self.files: list[Path] = []
        self._t0_us = 0
        procedure = get_game(header.game).table_procedure()
        #: a new file at each shoe_start (False: one file for the session)
        self.per_shoe = procedure is None or procedure.trace_per_shoe

    def _next_path(self, label: str) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.dir / f"{self.header.table}-{label}-{stamp}.jsonl"
        n = 1
        while path.exists():
            n += 1
            path = self.dir / f"{self.header.table}-{label}-{stamp}-{n}.jsonl"
        return path

    def _rotate(self, label: str, t_us: int) -> None:
        self.path = self._next_path(label)
        if self._writer is None:
            self._writer = TraceWriter(self.path, self.header.to_line())
        else:
            self._writer.rotate(self.path, self.header.to_line())
        self.files.append(self.path)
        # times restart at the file's first line, so each shoe's trace stands alone
        self._t0_us = t_us

    def record(self, inp: Input, records: list[dict[str, Any]],
               balances: dict[str, int] | None = None) -> None:
        """Write one journaled input. `balances` (the wallets before this input) opens each
        new file, so a shoe's trace replays with the money the table had at that moment."""
        with self._lock:
            starts = [r for r in records if r["type"] == "shoe_start"] if self.per_shoe else []
            if starts or self._writer is None:
                label = f"S{starts[0]['shoe']}" if starts else "preamble" if self.per_shoe \
                    else "session"
                self._rotate(label, inp.t_us)
                assert self._writer is not None
                for account, balance in sorted((balances or {}).items()):
                    self._writer.write({"t": 0.0, "wallet": {"account": account,
                                                             "balance": balance}})
            assert self._writer is not None
            self._writer.write(Input(inp.t_us - self._t0_us, inp.kind, inp.value, inp.user,
                                     inp.extra).to_line())

    def resume(self, journaled: Iterable[Input]) -> int:
        """Before a station restarted from its journal takes new inputs: a session-long trace
        (a game that keeps one file for the session) must still replay on its own, so the file
        it writes now begins with every input the journal already holds, on the same time
        base, and the new inputs follow. (A file of a game that rotates per shoe starts at the
        next shoe as before.) Returns how many inputs it wrote."""
        if self.per_shoe:
            return 0
        n = 0
        with self._lock:
            for inp in journaled:
                if inp.kind in NOT_RECORDED:
                    continue
                if self._writer is None:
                    self._rotate("session", inp.t_us)
                assert self._writer is not None
                self._writer.write(Input(inp.t_us - self._t0_us, inp.kind, inp.value, inp.user,
                                         inp.extra).to_line())
                n += 1
        return n

    def close(self) -> None:
        with self._lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None
