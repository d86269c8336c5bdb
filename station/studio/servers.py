"""Local PostgreSQL and nats-server for a simulated studio and for tests.

Both are started from the system packages (`scripts/setup.sh` installs ``postgresql`` and
``nats-server``) into a temporary data folder, bound to 127.0.0.1 on a free port, and stopped
on exit. PostgreSQL refuses to run as root: when the station runs as root the server runs as
the ``postgres`` user (or ``nobody``), which then owns its data folder.

The database trusts connections from 127.0.0.1 without a password: it is a throw-away server on
the loopback interface of one machine, never a studio's real ledger (give a real one by URL).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


class ServerError(RuntimeError):
    """A local server could not be started."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen, timeout_s: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerError(f"{what} exited with {proc.returncode}: {_tail(log)}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise ServerError(f"{what} did not listen on port {port} within {timeout_s:.0f} s: {_tail(log)}")


def _tail(path: Path, n: int = 2000) -> str:
    try:
        return path.read_text(errors="replace")[-n:]
    except OSError:
        return "(no log)"


def postgres_bin_dir() -> Path:
    """The newest installed PostgreSQL's programs (Debian keeps them out of PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("postgres")
    if on_path:
        return Path(on_path).parent
    raise ServerError("PostgreSQL is not installed: run scripts/setup.sh (it installs postgresql)")


class LocalPostgres:
    """A throw-away PostgreSQL server: `start()`, `url`, `stop()`, `restart()`."""

    def __init__(self, root: Path | None = None, *, port: int | None = None,
                 fsync: bool = True) -> None:
        self.bin = postgres_bin_dir()
        self._own_root = root is None
        # its own folder under the system temp dir: a test's tmp_path is private to root
        self.root = Path(root or tempfile.mkdtemp(prefix="station-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = port or free_port()
        self.fsync = fsync
        self.proc: subprocess.Popen | None = None
        self._user: str | None = None
        if os.geteuid() == 0:
            for name in ("postgres", "nobody"):
                try:
                    pwd.getpwnam(name)
                except KeyError:
                    continue
                self._user = name
                break
            if self._user is None:
                raise ServerError("running as root and no 'postgres' or 'nobody' user to run "
                                  "PostgreSQL as")

    @property
    def url(self) -> str:
        return f"postgresql://station@127.0.0.1:{self.port}/postgres"

    def url_for(self, database: str) -> str:
        return f"postgresql://station@127.0.0.1:{self.port}/{database}"

    def _popen(self, args: list[str], **kw) -> subprocess.Popen:
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            kw.update(user=entry.pw_uid, group=entry.pw_gid, extra_groups=[])
        return subprocess.Popen(args, cwd=self.root, **kw)

    def _init(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if self._user is not None:
            entry = pwd.getpwnam(self._user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        with open(self.log, "ab") as log:
            proc = self._popen([str(self.bin / "initdb"), "-D", str(self.data), "-U", "station",
                                "--auth=trust", "-E", "UTF8", "--no-instructions"],
                               stdout=log, stderr=subprocess.STDOUT)
            if proc.wait(120) != 0:
                raise ServerError(f"initdb failed: {_tail(self.log)}")

    def start(self, timeout_s: float = 60.0) -> LocalPostgres:
        if not (self.data / "PG_VERSION").exists():
            self._init()
        log = open(self.log, "ab")  # noqa: SIM115 - the server writes it while it runs
        settings = {
            "listen_addresses": "127.0.0.1", "port": str(self.port),
            "unix_socket_directories": str(self.root), "max_connections": "200",
            "fsync": "on" if self.fsync else "off", "shared_buffers": "64MB",
        }
        args = [str(self.bin / "postgres"), "-D", str(self.data)]
        for name, value in settings.items():
            args += ["-c", f"{name}={value}"]
        self.proc = self._popen(args, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        log.close()
        _wait_port(self.port, self.proc, timeout_s, "postgres", self.log)
        self._wait_ready(timeout_s)
        return self

    def _wait_ready(self, timeout_s: float) -> None:
        import psycopg

        deadline = time.monotonic() + timeout_s
        while True:
            try:
                with psycopg.connect(self.url, connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise ServerError(f"postgres does not accept connections: {_tail(self.log)}") from None
                time.sleep(0.1)

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url_for(name)

    def stop(self, *, immediate: bool = False, timeout_s: float = 10.0) -> None:
        """Fast shutdown (SIGINT), or `immediate` (SIGQUIT: no checkpoint, crash recovery at
        the next start, as after a crash)."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGQUIT if immediate else signal.SIGINT)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGQUIT)  # a fast shutdown that hangs: immediate
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)

    def restart(self, *, immediate: bool = True) -> None:
        self.stop(immediate=immediate)
        self.start()

    def close(self) -> None:
        # a server whose folder is about to be removed need not write its buffers out first
        self.stop(immediate=self._own_root)
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


class LocalNats:
    """A throw-away nats-server with JetStream: `start()`, `url`, `stop()`, `restart()`."""

    #: the largest message the bus takes: a hand of 50,000 bets is about 4 MB of JSON
    MAX_PAYLOAD = 8 * 1024 * 1024

    def __init__(self, root: Path | None = None, *, port: int | None = None) -> None:
        binary = shutil.which("nats-server")
        if binary is None:
            raise ServerError("nats-server is not installed: run scripts/setup.sh")
        self.binary = binary
        self._own_root = root is None
        self.root = Path(root or tempfile.mkdtemp(prefix="station-nats-"))
        self.port = port or free_port()
        self.log = self.root / "nats.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 30.0) -> LocalNats:
        self.root.mkdir(parents=True, exist_ok=True)
        config = self.root / "nats.conf"
        store = self.root / "jetstream"
        config.write_text(
            f'listen: "127.0.0.1:{self.port}"\n'
            f"max_payload: {self.MAX_PAYLOAD}\n"
            f'jetstream {{\n  store_dir: "{store}"\n}}\n'
        )
        log = open(self.log, "ab")  # noqa: SIM115 - the server writes it while it runs
        self.proc = subprocess.Popen([self.binary, "-c", str(config)], stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        _wait_port(self.port, self.proc, timeout_s, "nats-server", self.log)
        return self

    def stop(self, *, kill: bool = False, timeout_s: float = 15.0) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)

    def restart(self, *, kill: bool = False) -> None:
        self.stop(kill=kill)
        self.start()

    def close(self) -> None:
        self.stop()
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalNats:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
