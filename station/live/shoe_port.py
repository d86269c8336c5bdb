"""The station's serial port to the shoe when the table core owns the protocol.

At a table the core journals the shoe's raw bytes and decodes them itself (the same
`ShoeStream` trace replay uses), so ACK and RESEND come out of the core only after the journal
commit. This port is the thin physical layer under it: open any pyserial URL exclusively,
read chunks and hand them on with their arrival, reopen by URL with backoff when the adapter is
pulled or the line goes silent (`is_open` proves nothing), write ACK/RESEND at once, and carry
LOCK / UNLOCK / LED commands with the station's own seq, resent every 250 ms up to 5 times
until the core reports the shoe's reply. (`ShoeDriver` is the same link for tools that want
decoded events, such as `station shoe listen`.)
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from collections import Counter
from collections.abc import Callable

import serial

from firmware_bridge.shoe.codec import encode_frame
from firmware_bridge.shoe.port_io import open_port, read_available
from firmware_bridge.shoe.trace import TraceRecorder

log = logging.getLogger("station.shoe_port")

RETRY_INTERVAL = 0.250
RETRIES = 5
SILENCE_REOPEN = 6.0
SEQ_MAX = 65535


class ShoePort:
    def __init__(
        self,
        url: str,
        on_bytes: Callable[[bytes], None],
        *,
        baudrate: int = 115200,
        recorder: TraceRecorder | None = None,
        on_reader_died: Callable[[str], None] | None = None,
    ) -> None:
        self.url = url
        self._on_bytes = on_bytes
        self._baudrate = baudrate
        self._recorder = recorder
        self._on_reader_died = on_reader_died
        self._port: serial.SerialBase | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._seq = random.randint(1, SEQ_MAX) - 1  # a restarted station uses fresh seqs
        self._commands: queue.Queue[tuple[str, ...] | None] = queue.Queue()
        #: the newest gate and LED command the core gave, said again after a reconnect
        self._latest: dict[str, tuple[str, ...]] = {}
        self._replies: dict[int, threading.Event] = {}
        self._last_rx = time.monotonic()
        self.counters: Counter[str] = Counter()
        self._threads: list[threading.Thread] = []

    # ---- lifecycle
    def start(self) -> None:
        try:
            self._port = self._open()
        except serial.SerialException as e:
            log.warning("shoe at %s not reachable yet (%s); will keep trying", self.url, e)
        for target, name in ((self._read_loop, "shoe-port-rx"), (self._command_loop, "shoe-port-cmd")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        self._commands.put(None)
        for t in self._threads:
            t.join(2)
        with self._lock:
            if self._port is not None:
                try:
                    self._port.close()
                except Exception:  # noqa: BLE001 - closing a dead port
                    pass
                self._port = None

    def _open(self) -> serial.SerialBase:
        return open_port(self.url, baudrate=self._baudrate, write_timeout_s=0.5)

    @property
    def connected(self) -> bool:
        return self._port is not None

    # ---- reading
    def _read_loop(self) -> None:
        """Reads until stopped. An error nothing below foresaw (a bug in a callback, say) is
        counted, reported through `on_reader_died`, and the reading starts again after a
        pause: the shoe's bytes must never stop reaching the core while the station runs."""
        while not self._stop.is_set():
            if self._read_until_error():
                return
            if self._stop.wait(RETRY_INTERVAL):
                return

    def _read_until_error(self) -> bool:
        """True when stopped; False after an unforeseen error (reported)."""
        backoff = 0.05
        try:
            while not self._stop.is_set():
                port = self._port
                if port is None:
                    if self._stop.wait(backoff):
                        return True
                    try:
                        new = self._open()
                    except (serial.SerialException, OSError, ValueError):
                        self.counters["open_failures"] += 1
                        backoff = min(backoff * 2, 1.0)
                        continue
                    with self._lock:
                        self._port = new
                    self.counters["reconnects"] += 1
                    self._say_gate_again()
                    self._last_rx = time.monotonic()
                    backoff = 0.05
                    continue
                try:
                    data = read_available(port)
                except (serial.SerialException, OSError, TypeError, AttributeError) as e:
                    self.counters["read_errors"] += 1
                    log.warning("shoe link at %s failed: %s; reopening", self.url, e)
                    self._drop(port)
                    continue
                now = time.monotonic()
                if data:
                    self._last_rx = now
                    self.counters["bytes_in"] += len(data)
                    if self._recorder is not None:
                        self._recorder.shoe(data)
                    self._on_bytes(data)
                elif now - self._last_rx > SILENCE_REOPEN:
                    self.counters["silent_reopens"] += 1
                    self._drop(port)
        except Exception as e:  # the reader never dies silently, and never for good
            self.counters["reader_died"] += 1
            log.exception("shoe reader failed; reading again")
            if self._on_reader_died:
                try:
                    self._on_reader_died(f"{type(e).__name__}: {e}")
                except Exception:  # noqa: BLE001 - the report must not stop the reading
                    log.exception("reporting the shoe reader's failure failed")
            return False
        return True

    def _drop(self, port: serial.SerialBase) -> None:
        with self._lock:
            if self._port is port:
                self._port = None
        try:
            port.close()
        except Exception:  # noqa: BLE001
            pass

    # ---- writing
    def _next_seq(self) -> int:
        with self._lock:
            self._seq = 1 if self._seq >= SEQ_MAX else self._seq + 1
            return self._seq

    def _write(self, frame: bytes) -> bool:
        with self._lock:
            port = self._port
            if port is None:
                self.counters["writes_dropped"] += 1
                return False
            try:
                port.write(frame)
            except (serial.SerialException, OSError, TypeError, AttributeError):
                self.counters["write_errors"] += 1
                return False
        self.counters["bytes_out"] += len(frame)
        if self._recorder is not None:
            self._recorder.to_shoe(frame)
        return True

    def send(self, command: tuple[str, ...]) -> None:
        """A command from the table core, after its journal commit."""
        kind = command[0]
        if kind in ("ACK", "RESEND"):
            self.counters[kind.lower() + "s_sent"] += 1
            self._write(encode_frame(self._next_seq(), kind, *command[1:]))
        elif kind == "REPLY":
            ev = self._replies.get(int(command[1]))
            if ev is not None:
                ev.set()
        else:
            if kind in ("LOCK", "UNLOCK"):
                self._latest["gate"] = command
            elif kind == "LED":
                self._latest["led"] = command
            self._commands.put(command)

    def _say_gate_again(self) -> None:
        """After a reconnect the shoe on the line may be another one, or may have missed
        what was said: the gate and the LED the table wants go first, then a STATUS for
        the shoe to report them (the core shows what it reports)."""
        said = [self._latest[k] for k in ("gate", "led") if k in self._latest]
        if not said:
            return
        # ahead of anything still queued: older gate, LED and STATUS commands are moot now
        waiting: list[tuple[str, ...] | None] = []
        while True:
            try:
                waiting.append(self._commands.get_nowait())
            except queue.Empty:
                break
        for command in [*said, ("STATUS",), *(c for c in waiting if c is None or c[0] not in
                                                ("LOCK", "UNLOCK", "LED", "STATUS"))]:
            self._commands.put(command)
        self.counters["gate_resent"] += 1

    def _command_loop(self) -> None:
        while not self._stop.is_set():
            cmd = self._commands.get()
            if cmd is None:
                return
            kind = "gate" if cmd[0] in ("LOCK", "UNLOCK") else "led" if cmd[0] == "LED" else None
            if kind is not None and self._latest.get(kind, cmd) != cmd:
                # a newer gate or LED command is queued behind this one: this one is moot, and
                # on a slow link each unanswered command holds the queue for 1.5 s
                self.counters["commands_superseded"] += 1
                continue
            # in the order the core gave them, each until the shoe answers or the retries run out
            seq = self._next_seq()
            frame = encode_frame(seq, *cmd)
            done = threading.Event()
            self._replies[seq] = done
            try:
                for attempt in range(RETRIES + 1):
                    if attempt:
                        self.counters["command_retries"] += 1
                    self._write(frame)
                    if done.wait(RETRY_INTERVAL) or self._stop.is_set():
                        break
                else:
                    self.counters["command_timeouts"] += 1
                    log.warning("shoe did not answer %s (seq %d)", ",".join(cmd), seq)
            finally:
                self._replies.pop(seq, None)
