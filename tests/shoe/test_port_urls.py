"""The driver opens the shoe by any pyserial URL: here an RFC 2217 port server (pyserial's own
`PortManager`, in front of the simulator's pty, as a terminal server would be) and `loop://`."""

from __future__ import annotations

import contextlib
import socket
import threading

import pytest
import serial
import serial.rfc2217

from firmware_bridge.shoe.driver import ShoeCommandTimeout, ShoeDriver
from firmware_bridge.shoe.simulator import FaultPlan, ShoeSimulator
from tests.waiting import pace

from .helpers import Collector, draw, wait_until

pytestmark = pytest.mark.timeout(120)


class PtyAsSerialLine(serial.Serial):
    """The server's end of the line. A pty has no modem control lines, which a terminal
    server's UART has and RFC 2217 reports, so they read as steady and writes to them are
    ignored. The data path is the real device."""

    cts = dsr = cd = True
    ri = False

    def _update_dtr_state(self) -> None:
        pass

    def _update_rts_state(self) -> None:
        pass

    def _update_break_state(self) -> None:
        pass


class Rfc2217Server:
    """An RFC 2217 port server on 127.0.0.1 for a serial device path, one client at a time
    (a client that reconnects gets a fresh session, as with a terminal server).

    Like a terminal server it keeps serving through a session's or the line's transient
    error: each is counted in `errors` (shown when a test times out) and the thread carries
    on, so a hiccup in the stand-in never reads as a dead link in the station."""

    def __init__(self, device: str) -> None:
        self.ser = PtyAsSerialLine(device, timeout=0.05)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.1)
        self.port = self.listener.getsockname()[1]
        self.alive = True
        self.sessions = 0
        self.bytes_to_client = 0
        self.bytes_from_client = 0
        self.errors: list[str] = []
        self._lock = threading.Lock()  # guards conn and manager
        self._send_lock = threading.Lock()
        self.conn: socket.socket | None = None
        self.manager: serial.rfc2217.PortManager | None = None
        self.threads = [threading.Thread(target=self._accept_loop, daemon=True),
                        threading.Thread(target=self._to_client, daemon=True)]
        for t in self.threads:
            t.start()

    def _accept_loop(self) -> None:
        while self.alive:
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                self._serve(conn)
            except Exception as e:  # noqa: BLE001 - one session's failure ends that session only
                self.errors.append(f"session: {type(e).__name__}: {e}")
            finally:
                with self._lock:
                    self.conn = None
                conn.close()

    def _serve(self, conn: socket.socket) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn.settimeout(0.1)
        with self._lock:
            self.conn = conn
        manager = serial.rfc2217.PortManager(self.ser, self)  # negotiates through write()
        with self._lock:
            self.manager = manager
        self.sessions += 1
        while self.alive:
            try:
                data = conn.recv(1024)
            except TimeoutError:
                continue
            except OSError:
                return
            if not data:
                return
            self.bytes_from_client += len(data)
            self.ser.write(b"".join(manager.filter(data)))

    def _to_client(self) -> None:
        while self.alive:
            try:
                data = self.ser.read(self.ser.in_waiting or 1)
            except (serial.SerialException, OSError, TypeError) as e:
                if not self.alive:
                    return
                # e.g. a purge from the client flushing the line between select and read
                self.errors.append(f"line: {type(e).__name__}: {e}")
                pace(0.05)  # the port server's pause before it reads the line again
                continue
            with self._lock:
                manager = self.manager if self.conn is not None else None
            if data and manager is not None:
                self.write(b"".join(manager.escape(data)))

    def write(self, data: bytes) -> None:  # PortManager answers negotiation through this
        with self._lock:
            conn = self.conn
        if conn is None:
            return
        # One writer at a time (the line's bytes and the negotiation's answers must not
        # interleave). The socket keeps its 0.1 s timeout, which the session's recv in the
        # other thread relies on: a slow client gets every byte through partial sends.
        with self._send_lock:
            view = memoryview(data)
            while view and self.alive:
                try:
                    n = conn.send(view)
                except TimeoutError:
                    continue
                except OSError as e:
                    self.errors.append(f"send: {type(e).__name__}: {e}")
                    return
                self.bytes_to_client += n
                view = view[n:]

    def close(self) -> None:
        self.alive = False
        with self._lock:
            conn = self.conn
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for t in self.threads:
            t.join(timeout=2)
        self.listener.close()
        self.ser.close()


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pyserial's rfc2217 threads
def test_shoe_through_an_rfc2217_port_server() -> None:
    plan = FaultPlan(drop_rate=0.03, duplicate_rate=0.03, split_rate=0.3, seed=8)
    with ShoeSimulator(seed=31, faults=plan) as sim:
        server = Rfc2217Server(sim.serve_pty())
        got = Collector()
        driver = ShoeDriver(f"rfc2217://127.0.0.1:{server.port}", got, auto_ack=True)
        try:
            driver.start()
            # The shoe booted before the port server opened its pty: on a loaded machine the
            # station may join mid-stream, after the HELLO (SHOE_PROTOCOL.md §4 lets it take
            # the first valid frame as its start). Wait for the link, not for the HELLO.
            wait_until(lambda: driver.link_up,
                       what=lambda: f"the link: server sessions={server.sessions} "
                                    f"to_client={server.bytes_to_client} "
                                    f"from_client={server.bytes_from_client} "
                                    f"errors={server.errors[-5:]} driver={dict(driver.counters)} "
                                    f"shoe={sim.stats}")
            sim.load()
            for _ in range(30):
                draw(sim)
                pace(0.01)  # the dealer's hand between two cards
            assert driver.lock().kind == "OK" and sim.gate_locked

            def expected() -> list:
                sent = sim.events_sent()
                seen = got.table_events()
                if not seen or seen[0][1] != "HELLO":
                    sent = [e for e in sent if e[1] != "HELLO"]
                return sent

            wait_until(lambda: len(got.table_events()) >= len(expected())
                       and sim.unacked == 0, what="every event")
            assert got.table_events() == expected()
            assert any(e[1] == "LOAD" for e in got.table_events())
        finally:
            driver.stop()
            server.close()


def test_loop_url_opens_and_an_echo_is_not_a_shoe() -> None:
    # loop:// sends the station's own frames back: no shoe type, so nothing is acted on.
    got = Collector()
    driver = ShoeDriver("loop://", got, auto_ack=True)
    driver.start()
    try:
        with pytest.raises(ShoeCommandTimeout):
            driver.status(timeout=0.6)
        c = driver.counters
        assert c["frames"] == 0 and c["malformed"] + c["unknown_type"] >= 1
        assert got.events == []
    finally:
        driver.stop()
