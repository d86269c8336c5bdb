"""Recording every byte of the shoe link in the trace format (TRACES.md §1, §4).

A station at a real table records what reached it so any session can be replayed and any
dispute answered. The shoe driver hands each chunk it read (`shoe`) and each frame it wrote
(`to_shoe`) to a `TraceRecorder`; the file it writes is a valid trace that `ShoeStream`
replays to exactly the events the station saw live.

The file format itself (Latin-1 strings, gzip by suffix) is firmware_bridge/tracefile.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from firmware_bridge.tracefile import TraceFormatError, TraceWriter, bytes_of_text, iter_objects


class TraceRecorder:
    """Writes `{"t": .., "shoe": ".."}` / `{"t": .., "to_shoe": ".."}` lines after a header.

    `path_or_file` is a path (`.jsonl`, or `.jsonl.gz` for a compressed file) or an open text
    file. `game` is the header's game (TRACES.md §1: every trace names one); the shoe knows
    none, so whoever records says which table's link this is. `t` is seconds since the first recorded chunk (on `clock`, unless the caller passes
    `at`: the driver passes each chunk's arrival time, so trace times match event times).
    Each line is flushed as written. Safe to call from several threads.
    """

    def __init__(
        self,
        path_or_file: str | Path | IO[str],
        *,
        game: str,
        clock: Callable[[], float] = time.monotonic,
        header: dict[str, Any] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._t0: float | None = None
        self._last_t = 0.0
        full_header: dict[str, Any] = {
            "trace": 1,
            "table": "",
            "game": game,
            "camera": False,
            "note": "shoe link recorded by the station's shoe driver",
        }
        full_header.update(header or {})
        self._writer = TraceWriter(path_or_file, full_header)

    @property
    def lines(self) -> int:
        return self._writer.lines

    def shoe(self, data: bytes, at: float | None = None) -> None:
        """Bytes received from the shoe, as they arrived (any chunking)."""
        self._record("shoe", data, at)

    def to_shoe(self, data: bytes, at: float | None = None) -> None:
        """Bytes the station sent to the shoe."""
        self._record("to_shoe", data, at)

    def _record(self, key: str, data: bytes, at: float | None) -> None:
        if not data:
            return
        with self._lock:
            now = self._clock() if at is None else at
            if self._t0 is None:
                self._t0 = now
            # Trace times never decrease even when two threads record at nearly the same time.
            t = max(self._last_t, round(now - self._t0, 6))
            self._last_t = t
            self._writer.write({"t": t, key: bytes(data)})

    def close(self) -> None:
        self._writer.close()

    def __enter__(self) -> TraceRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_trace_shoe_bytes(path: str | Path) -> list[tuple[float, str, bytes]]:
    """(t, "shoe"|"to_shoe", bytes) for every shoe-link line of a trace, in file order.

    For tools and tests that replay just the shoe link; a malformed line is an error naming
    its line number.
    """
    out: list[tuple[float, str, bytes]] = []
    for lineno, obj in iter_objects(path):
        if not isinstance(obj, dict):
            raise TraceFormatError(lineno, "a trace line must be a JSON object")
        for key in ("shoe", "to_shoe"):
            if key in obj:
                if not isinstance(obj[key], str) or not isinstance(obj.get("t"), int | float):
                    raise TraceFormatError(lineno, f"{key} line needs a string and a t")
                out.append((float(obj["t"]), key, bytes_of_text(obj[key], line_no=lineno, key=key)))
    return out
