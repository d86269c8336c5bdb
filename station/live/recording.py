"""Trace recording at a live table: every journaled input written as it happens, in the
TRACES.md format, one file per shoe, so any session can be replayed and any dispute answered
from the file alone (`station replay FILE`)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import IO, Any

from station.core.inputs import Input, TraceHeader
from station.private_files import open_private, private_dir


class ShoeTraceRecorder:
    def __init__(self, directory: str | Path, header: TraceHeader) -> None:
        self.dir = Path(directory)
        private_dir(self.dir)
        self.header = header
        self._file: IO[str] | None = None
        self._lock = threading.Lock()
        self.path: Path | None = None
        self.files: list[Path] = []
        self._t0_us = 0

    def _rotate(self, label: str, t_us: int) -> None:
        if self._file is not None:
            self._file.close()
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.path = self.dir / f"{self.header.table}-{label}-{stamp}.jsonl"
        n = 1
        while self.path.exists():
            n += 1
            self.path = self.dir / f"{self.header.table}-{label}-{stamp}-{n}.jsonl"
        self._file = open_private(self.path, "w", encoding="utf-8")  # rotated, closed later
        self.files.append(self.path)
        self._file.write(json.dumps(self.header.to_line()) + "\n")
        # times restart at the file's first line, so each shoe's trace stands alone
        self._t0_us = t_us

    def record(self, inp: Input, records: list[dict[str, Any]],
               balances: dict[str, int] | None = None) -> None:
        """Write one journaled input. `balances` (the wallets before this input) opens each
        new file, so a shoe's trace replays with the money the table had at that moment."""
        with self._lock:
            starts = [r for r in records if r["type"] == "shoe_start"]
            if starts or self._file is None:
                self._rotate(f"S{starts[0]['shoe']}" if starts else "preamble", inp.t_us)
                assert self._file is not None
                for account, balance in sorted((balances or {}).items()):
                    self._file.write(json.dumps({"t": 0.0, "wallet": {"account": account,
                                                                      "balance": balance}}) + "\n")
            assert self._file is not None
            obj = Input(inp.t_us - self._t0_us, inp.kind, inp.value, inp.user).to_line()
            if isinstance(obj.get(inp.kind), bytes):
                obj[inp.kind] = obj[inp.kind].decode("latin-1")
            self._file.write(json.dumps(obj, ensure_ascii=False) + "\n")
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
