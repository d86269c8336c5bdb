"""The trace file (TRACES.md §1), read and written in one place.

A trace is JSON Lines, UTF-8, one object per line: a header first, then timestamped lines.
`.jsonl.gz` is the same, gzip-compressed (the suffix decides). Shoe bytes travel as JSON
strings one byte per character (Latin-1), so noise bytes survive: 0xFF is "\\u00ff".

Everything that reads or writes traces goes through here: the shoe driver's recorder, the
station's per-shoe recorder (with rotation), the staged-trace writer, replay and the journal's
lines. It sits at the bottom of the data path, so the shoe side and the station share it.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

#: traces hold every shoe read: created readable by the station's user only
FILE_MODE = 0o600


class TraceFormatError(ValueError):
    """A trace line that cannot be read; names the line."""

    def __init__(self, line_no: int, message: str) -> None:
        super().__init__(f"line {line_no}: {message}")
        self.line_no = line_no


def text_of_bytes(data: bytes) -> str:
    """Shoe bytes as a trace string: each byte the character of the same code."""
    return bytes(data).decode("latin-1")


def bytes_of_text(text: str, *, line_no: int = 0, key: str = "shoe") -> bytes:
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        raise TraceFormatError(line_no, f"'{key}' holds a character above U+00FF") from None


def dumps(obj: dict[str, Any]) -> str:
    """One trace line (no newline). `bytes` values are written by the Latin-1 rule."""
    clean = {k: text_of_bytes(v) if isinstance(v, bytes | bytearray) else v for k, v in obj.items()}
    # ASCII only: a noise byte 0xFF is written "\\u00ff", as TRACES.md shows it
    return json.dumps(clean, allow_nan=False)


def open_text(path: str | Path, mode: str = "r") -> IO[str]:
    """A trace file as text (mode "r" or "w"): gzip when the name ends in `.gz`. Written
    files are created owner-only."""
    p = Path(path)
    if "w" in mode:
        # created owner-only before anything is written to it
        os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE))
        os.chmod(p, FILE_MODE)
        if p.suffix == ".gz":
            return gzip.open(p, "wt", encoding="utf-8")
        return open(p, "w", encoding="utf-8")  # noqa: SIM115 - the caller closes it
    if p.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8")
    return open(p, encoding="utf-8")  # noqa: SIM115 - the caller closes it


def iter_objects(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) for every non-blank line. A line that is not JSON, or a
    file that cannot be read (truncated gzip, bad UTF-8), is a TraceFormatError naming it."""
    line_no = 0
    try:
        with open_text(path) as f:
            for line_no, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise TraceFormatError(line_no, f"not JSON ({e.msg})") from None
                yield line_no, obj
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as e:
        raise TraceFormatError(line_no + 1, f"cannot read {path}: {e}") from None


class TraceWriter:
    """Writes a header and then lines, each flushed as written (a trace is evidence: a crash
    must not eat its last seconds). `rotate` closes the file and starts the next. Safe to
    call from several threads."""

    def __init__(self, path_or_file: str | Path | IO[str], header: dict[str, Any]) -> None:
        self._lock = threading.Lock()
        self._file: IO[str] | None = None
        self._owns = False
        self.path: Path | None = None
        self.lines = 0
        self._open(path_or_file, header)

    def _open(self, path_or_file: str | Path | IO[str], header: dict[str, Any]) -> None:
        if hasattr(path_or_file, "write"):
            self._file, self._owns, self.path = path_or_file, False, None  # type: ignore[assignment]
        else:
            self.path = Path(path_or_file)  # type: ignore[arg-type]
            self._file, self._owns = open_text(self.path, "w"), True
        self._write(header)

    def _write(self, obj: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(dumps(obj) + "\n")
        self._file.flush()
        self.lines += 1

    def write(self, obj: dict[str, Any]) -> None:
        with self._lock:
            self._write(obj)

    def rotate(self, path: str | Path, header: dict[str, Any]) -> None:
        with self._lock:
            self._close()
            self._open(path, header)

    def _close(self) -> None:
        if self._file is not None and self._owns and not self._file.closed:
            self._file.close()
        self._file = None

    def close(self) -> None:
        with self._lock:
            self._close()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
