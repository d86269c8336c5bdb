"""Serving the station's HTTP parts (bet API, console) with uvicorn on a background thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import uvicorn


@dataclass
class ServedApp:
    server: uvicorn.Server
    thread: threading.Thread
    host: str
    port: int
    name: str
    stopper: Callable[[], None] | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.port}"

    def stop(self) -> None:
        if self.stopper is not None:
            self.stopper()
            return
        self.server.should_exit = True
        self.thread.join(5)


def serve_app(app, host: str, port: int, *, name: str = "http", lifespan: str = "off") -> ServedApp:
    """Start `app` on host:port (0 picks a free port) and return once it accepts connections."""
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan=lifespan,
                            access_log=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    # Server.run sets up uvicorn's event loop (uvloop when installed); off the main thread it
    # leaves the process's signals to the station
    thread = threading.Thread(target=server.run, name=f"{name}-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive():
            raise OSError(f"the {name} server could not start on {host}:{port} "
                          "(is the port in use?)")
        if time.monotonic() > deadline:
            raise TimeoutError(f"the {name} server did not start on {host}:{port}")
        time.sleep(0.02)
    actual = port
    for s in server.servers:
        for sock in s.sockets:
            actual = sock.getsockname()[1]
            break
    return ServedApp(server, thread, host, actual, name)
