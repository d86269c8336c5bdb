"""Loopback ports for the servers a test starts and starts again on the same port (a station
killed with -9 and restarted, a settlement service, nats-server or PostgreSQL taken down and
brought back).

Such a port must stay the test's own while its server is down, against every other test
worker and every other test run on the machine. A port the OS hands out for port 0 does not:
it comes back to the pool the moment it is released, and any process's next port 0 or
outgoing connection may take it. So these ports come from below the OS's ephemeral range
(which neither port 0 nor an outgoing connection ever uses), and each is claimed with an
exclusive lock on a file named after it in a folder shared by every process on the machine,
held until the process ends; a claimed port is also tried with a bind, for a stranger
holding it. A server that takes port 0 itself and keeps it needs none of this.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import socket
import tempfile
from pathlib import Path

LOCKS = Path(tempfile.gettempdir()) / "station-test-ports"
_held: list[int] = []  # the locked files' descriptors: the claims last as long as the process


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _range() -> tuple[int, int]:
    low = _ephemeral_low()
    return (max(1024, low - 12_000), low - 1) if low > 13_024 else (low, low)


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A loopback port claimed for this process alone until it ends (see the module's text)."""
    low, high = _range()
    if low == high:  # no room below the ephemeral range: the OS's choice
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    LOCKS.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        os.chmod(LOCKS, 0o1777)
    ports = list(range(low, high + 1))
    random.Random(os.getpid() ^ len(_held) ^ random.getrandbits(32)).shuffle(ports)
    for port in ports:
        fd = os.open(LOCKS / f"{port}.lock", os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another worker's or run's claim
            os.close(fd)
            continue
        if _bindable(port):
            _held.append(fd)
            return port
        os.close(fd)  # held by something outside the tests: leave it
    raise RuntimeError(f"no free loopback port in {low}-{high}")
