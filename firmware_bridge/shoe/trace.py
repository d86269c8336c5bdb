"""Recording every byte of the shoe link in the trace format (TRACES.md §1, §4).

A station at a real table records what reached it so any session can be replayed and any
dispute answered. The shoe driver hands each chunk it read (`shoe`) and each frame it wrote
(`to_shoe`) to a `TraceRecorder`; the file it writes is a valid trace that `ShoeStream`
replays to exactly the events the station saw live.

Bytes become JSON strings one byte per character (Latin-1), so noise bytes survive:
0xFF is written as "\\u00ff".
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


class TraceRecorder:
    """Writes `{"t": .., "shoe": ".."}` / `{"t": .., "to_shoe": ".."}` lines after a header.

    `path_or_file` is a path (`.jsonl`, or `.jsonl.gz` for a compressed file) or an open text
    file. `t` is seconds since the first recorded chunk (on `clock`, unless the caller passes
    `at`: the driver passes each chunk's arrival time, so trace times match event times). Each line is flushed as written: a trace is
    evidence, and a crash must not eat its last seconds. Safe to call from several threads.
    """

    def __init__(
        self,
        path_or_file: str | Path | IO[str],
        *,
        clock: Callable[[], float] = time.monotonic,
        header: dict[str, Any] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._clock = clock
        self._owns_file = not hasattr(path_or_file, "write")
        if self._owns_file:
            path = Path(path_or_file)  # type: ignore[arg-type]
            if path.suffix == ".gz":
                self._file: IO[str] = gzip.open(path, "wt", encoding="utf-8")
            else:
                self._file = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
        else:
            self._file = path_or_file  # type: ignore[assignment]
        self._t0: float | None = None
        self._last_t = 0.0
        self.lines = 0
        full_header: dict[str, Any] = {
            "trace": 1,
            "table": "",
            "game": "pokdeng",
            "camera": False,
            "note": "shoe link recorded by the station's shoe driver",
        }
        full_header.update(header or {})
        self._write_line(full_header)

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
            self._write_line_locked({"t": t, key: bytes(data).decode("latin-1")})

    def _write_line(self, obj: dict[str, Any]) -> None:
        with self._lock:
            self._write_line_locked(obj)

    def _write_line_locked(self, obj: dict[str, Any]) -> None:
        self._file.write(json.dumps(obj, separators=(", ", ": ")) + "\n")
        self._file.flush()
        self.lines += 1

    def close(self) -> None:
        with self._lock:
            if self._owns_file and not self._file.closed:
                self._file.close()

    def __enter__(self) -> TraceRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_trace_shoe_bytes(path: str | Path) -> list[tuple[float, str, bytes]]:
    """(t, "shoe"|"to_shoe", bytes) for every shoe-link line of a trace, in file order.

    For tools and tests that replay just the shoe link; a malformed line is an error naming
    its line number.
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    out: list[tuple[float, str, bytes]] = []
    with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{lineno}: not a JSON line: {e}") from None
            if not isinstance(obj, dict):
                raise ValueError(f"{path}:{lineno}: a trace line must be a JSON object")
            for key in ("shoe", "to_shoe"):
                if key in obj:
                    if not isinstance(obj[key], str) or not isinstance(obj.get("t"), int | float):
                        raise ValueError(f"{path}:{lineno}: {key} line needs a string and a t")
                    try:
                        data = obj[key].encode("latin-1")
                    except UnicodeEncodeError:
                        raise ValueError(
                            f"{path}:{lineno}: {key} holds a character above U+00FF"
                        ) from None
                    out.append((float(obj["t"]), key, data))
    return out
