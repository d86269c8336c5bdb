"""A network link that can be cut: a TCP proxy between the studio's processes and nats-server.

`cut()` is a partition as a switch or a cable makes it, not a clean stop: every connection stays
open and nothing is refused, but no byte crosses in either direction (what was sent waits, as
TCP retransmits it, and the senders' buffers fill), and a new connection is taken but not put
through. `heal()` lets everything flow again, in order. A server that closes a connection
(nats-server killed) closes its other end, as the real link would.

The link forwards from threads of the test's own process, so under load what a process sent may
still be on its way to the bus well after the process stopped (SIGSTOP) or died:
`local_ports(pid, link.port)` and `wait_forwarded(ports)` let a test wait until every byte a process sent
has reached the bus and its connections are closed there.
"""

from __future__ import annotations

import os
import socket
import threading


class CuttableLink:
    def __init__(self, upstream_port: int, host: str = "127.0.0.1") -> None:
        self.upstream = (host, upstream_port)
        self._listener = socket.create_server((host, 0))
        self.port = self._listener.getsockname()[1]
        self._flowing = threading.Event()
        self._flowing.set()
        self._closed = False
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self.held_bytes = 0  # bytes that waited for the link to heal
        #: client ports of connections whose client-to-bus bytes are not all forwarded yet
        self._open_ports: set[int] = set()
        threading.Thread(target=self._accept, name="netcut-accept", daemon=True).start()

    @property
    def url(self) -> str:
        return f"nats://{self.upstream[0]}:{self.port}"

    def cut(self) -> None:
        self._flowing.clear()

    def heal(self) -> None:
        self._flowing.set()

    def close(self) -> None:
        self._closed = True
        self._flowing.set()
        self._listener.close()
        with self._lock:
            for s in list(self._sockets):
                _close(s)

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, address = self._listener.accept()
            except OSError:
                return
            port = address[1]
            with self._lock:  # from the moment it is taken: its bytes are the link's to forward
                self._open_ports.add(port)
            threading.Thread(target=self._connect, args=(client, port), daemon=True).start()

    def _connect(self, client: socket.socket, port: int) -> None:
        self._flowing.wait()  # a connection made during the cut goes through when it heals
        try:
            server = socket.create_connection(self.upstream, timeout=5)
            server.settimeout(None)
        except OSError:
            _close(client)  # nobody listens behind the link: refused, as it would be
            with self._lock:
                self._open_ports.discard(port)
            return
        with self._lock:
            self._sockets.update((client, server))
        threading.Thread(target=self._pump, args=(client, server, port), daemon=True).start()
        threading.Thread(target=self._pump, args=(server, client), daemon=True).start()

    def wait_forwarded(self, ports: set[int], timeout_s: float = 30.0) -> None:
        """Until the connections from these client ports are closed at the bus's end, every byte
        their process sent forwarded first (the process must have died or closed them)."""
        from tests.waiting import wait_for

        def forwarded() -> bool:
            with self._lock:
                return not self._open_ports & ports

        wait_for(forwarded, timeout_s, lambda: f"the link to forward all from ports {sorted(ports)} and close them",
                 poll_s=0.05)

    def _pump(self, src: socket.socket, dst: socket.socket, client_port: int | None = None) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if not self._flowing.is_set():
                    self.held_bytes += len(data)
                    self._flowing.wait()
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                _close(s)
            with self._lock:
                self._sockets.difference_update((src, dst))
                if client_port is not None:  # the client's bytes are all through, or never will be
                    self._open_ports.discard(client_port)


def local_ports(pid: int, remote_port: int) -> set[int]:
    """The local TCP ports of a live (or stopped) process's connections to `remote_port` (the
    link's), from /proc: its other connections (the ledger's) may reuse a port number."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[9] in inodes and int(fields[2].rsplit(":", 1)[1], 16) == remote_port:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    s.close()
