"""A network link that can be cut: a TCP proxy between the studio's processes and nats-server.

`cut()` is a partition as a switch or a cable makes it, not a clean stop: every connection stays
open and nothing is refused, but no byte crosses in either direction (what was sent waits, as
TCP retransmits it, and the senders' buffers fill), and a new connection is taken but not put
through. `heal()` lets everything flow again, in order. A server that closes a connection
(nats-server killed) closes its other end, as the real link would.
"""

from __future__ import annotations

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
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._connect, args=(client,), daemon=True).start()

    def _connect(self, client: socket.socket) -> None:
        self._flowing.wait()  # a connection made during the cut goes through when it heals
        try:
            server = socket.create_connection(self.upstream, timeout=5)
            server.settimeout(None)
        except OSError:
            _close(client)  # nobody listens behind the link: refused, as it would be
            return
        with self._lock:
            self._sockets.update((client, server))
        for src, dst in ((client, server), (server, client)):
            threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
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


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    s.close()
