"""Opening a shoe's serial port by URL and reading whatever has arrived, in one chunk.

Shared by the shoe driver and the station's own shoe port, so both hand on a chunk as it
arrived rather than byte by byte: pyserial's usual `read(in_waiting or 1)` gives single bytes
on `socket://` (its `in_waiting` only says "readable"), which would make every byte its own
journal input and trace line.
"""

from __future__ import annotations

import select

import serial

READ_TIMEOUT_S = 0.05  # the longest a read waits for the first byte
CHUNK_BYTES = 4096


def open_port(url: str, *, baudrate: int, write_timeout_s: float) -> serial.SerialBase:
    """Open `url` (a device path, `socket://`, `rfc2217://`, `loop://` …) exclusively.
    Ports with a file descriptor are made non-blocking: `read_available` waits on them
    with select."""
    port = serial.serial_for_url(url, baudrate=baudrate, timeout=READ_TIMEOUT_S,
                                 write_timeout=write_timeout_s, exclusive=True)
    if fileno(port) is not None:
        port.timeout = 0
    return port


def read_available(port: serial.SerialBase) -> bytes:
    """Whatever has arrived, waiting at most READ_TIMEOUT_S for the first byte.

    Ports with a file descriptor (device, pty, socket://) are waited on with select and read
    whole. The others (rfc2217://, loop://) keep a read timeout and report what is waiting.
    """
    fd = fileno(port)
    if fd is not None:
        ready, _, _ = select.select([fd], [], [], READ_TIMEOUT_S)
        return port.read(CHUNK_BYTES) if ready else b""
    return port.read(port.in_waiting or 1)


def fileno(port: serial.SerialBase) -> int | None:
    try:
        return port.fileno()
    except (AttributeError, NotImplementedError, OSError, ValueError):
        return None  # io.UnsupportedOperation is an OSError
