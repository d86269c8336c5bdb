"""Real servers and processes for the settlement tests: uvicorn on 127.0.0.1, subprocesses."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import uvicorn

from tests.ports import free_port  # noqa: F401 - the settlement tests take it from here
from tests.waiting import wait_for

REPO = Path(__file__).resolve().parents[2]
SECRET = "drill-secret-3f9a"


@contextlib.contextmanager
def serve_in_thread(app) -> Iterator[str]:
    """Run a Starlette app on a real uvicorn server on a loopback port; yield its URL."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_for(lambda: server.started or not thread.is_alive(), 20, "uvicorn to start", poll_s=0.01)
    if not server.started:
        raise RuntimeError("uvicorn did not start: its thread ended")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def env_with_secret() -> dict[str, str]:
    env = dict(os.environ)
    env["SETTLEMENT_SECRET"] = SECRET
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def start_service(ledger: Path, port: int) -> subprocess.Popen:
    """`station settlement serve` as its own process; returns once it answers /v1/health."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "station", "settlement", "serve", "--ledger", str(ledger),
         "--port", str(port), "--secret-env", "SETTLEMENT_SECRET"],
        env=env_with_secret(), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )

    def up() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"settlement service exited: {proc.stderr.read().decode()}")
        try:
            return httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_for(up, 30, f"the settlement service to answer /v1/health on port {port}", poll_s=0.05)
    except BaseException:
        kill(proc)
        raise
    return proc


def kill(proc: subprocess.Popen) -> None:
    """SIGKILL, the way a power cut or an OOM killer ends a process: no clean-up runs."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(10)
