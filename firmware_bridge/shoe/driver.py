"""The station's live link to the card shoe, over pyserial (SHOE_PROTOCOL.md §1, §4, §5).

`ShoeDriver` opens the shoe by URL (`/dev/ttyUSB0`, `socket://host:port`, `rfc2217://…`,
`loop://`), runs the full protocol and hands typed events to the table core:

- one reader thread reads bytes and runs them through `ShoeStream` — the same pure code
  trace replay uses — and sends `RESEND` when a gap shows (rate-limited by the sequencer);
- one delivery thread calls `on_event` with each event, in order, exactly once, with `t` the
  time its bytes arrived; a slow table core never stalls the serial line;
- `ACK` goes out only once the station has durably recorded the frames: the table core calls
  `recorded_up_to(seq)` after its journal commit (or `auto_ack=True` acks as soon as
  `on_event` returns). Heartbeats and command replies need no recording and are acknowledged
  as soon as everything before them is;
- link supervision: `LinkLost` after 3 s without a valid frame, `LinkRestored` at the next;
- commands carry the station's own seq and are sent again every 250 ms, up to 5 times, with
  the same seq; the first reply wins, late repeats are counted and ignored;
- a port that fails (USB adapter pulled, TCP bridge gone, or silent for too long — `is_open`
  proves nothing) is closed and reopened by URL with backoff; the reader never dies silently:
  an error it cannot handle ends it with a `ReaderDied` event.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

import serial

from firmware_bridge.shoe.codec import LED_COLOURS, encode_frame
from firmware_bridge.shoe.events import (
    Heartbeat,
    Hello,
    LinkLost,
    LinkRestored,
    ReaderDied,
    Reply,
    ShoeEvent,
)
from firmware_bridge.shoe.port_io import READ_TIMEOUT_S, open_port, read_available
from firmware_bridge.shoe.stream import ShoeStream
from firmware_bridge.shoe.trace import TraceRecorder

log = logging.getLogger(__name__)

LINK_TIMEOUT = 3.0  # s without a valid frame: link lost (spec §4)
COMMAND_RETRY_INTERVAL = 0.250  # spec §5.2
COMMAND_RETRIES = 5  # resends after the first send
REOPEN_AFTER_SILENCE = 6.0  # s of link loss after which the port is reopened anyway
BACKOFF_FIRST = 0.05
BACKOFF_MAX = 1.0
READ_TIMEOUT = READ_TIMEOUT_S  # also the supervision tick
SEQ_MAX = 65535


# Always present in `counters` (zero until they happen), so a bring-up log shows what did not.
COUNTER_NAMES = (
    # dropped input, by kind (decoder, then sequencer)
    "bad_crc", "too_long", "malformed", "unknown_type", "truncated", "noise_bytes",
    "duplicate", "gap",
    # traffic and protocol work
    "frames", "bytes_in", "bytes_out", "acks_sent", "reacks", "resends_sent", "heartbeats",
    "events_delivered", "commands_sent", "command_retries", "command_timeouts",
    "stale_replies",
    # the link and the port
    "link_lost", "link_restored", "reboots", "read_errors", "write_errors", "writes_dropped",
    "reconnects", "open_failures", "silent_reopens", "reader_died", "callback_errors",
)


class ShoeLinkError(RuntimeError):
    """The shoe could not be opened or reached."""


class ShoeCommandTimeout(ShoeLinkError):
    """A command got no reply after all its retries."""


@dataclass
class _Pending:
    """A command waiting for its reply."""

    frame: bytes
    done: threading.Event = field(default_factory=threading.Event)
    reply: Reply | None = None


class ShoeDriver:
    """The reliable shoe link. See the module docstring.

    `expected_seq` / `boot_id`: what the station's journal says (last processed + 1 and the
    shoe's boot id) when it restarts after a crash, so nothing is processed twice or skipped.
    `recorder`: a `TraceRecorder` that gets every byte in and out.
    `initial_command_seq`: the station's first command seq (default random, so a restarted
    station does not reuse seqs the shoe may still hold replies for).
    """

    def __init__(
        self,
        url: str,
        on_event: Callable[[ShoeEvent], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        recorder: TraceRecorder | None = None,
        expected_seq: int | None = None,
        boot_id: str | None = None,
        auto_ack: bool = False,
        baudrate: int = 115200,
        initial_command_seq: int | None = None,
        require_port: bool = True,
    ) -> None:
        self.url = url
        self._on_event = on_event
        self._clock = clock
        self._recorder = recorder
        self._auto_ack = auto_ack
        self._baudrate = baudrate
        self._require_port = require_port
        self._stream = ShoeStream(expected=expected_seq, boot_id=boot_id)
        self._port: serial.SerialBase | None = None
        self._port_lock = threading.Lock()  # guards _port and every write
        self._state_lock = threading.Lock()  # guards ack bookkeeping and pending commands
        self._station_seq = (initial_command_seq if initial_command_seq is not None
                             else random.randint(1, SEQ_MAX)) - 1
        # Processed shoe frames not yet acknowledged, in stream order:
        # [seq, needs_recording, recorded]. Only the table core's events need recording.
        self._unacked: deque[list] = deque()
        # What to re-acknowledge when the shoe resends: after a restart from the journal,
        # the frame before the one expected (0, HELLO's, when that is seq 1).
        self._last_acked: int | None = (
            None if expected_seq is None else (expected_seq - 1 if expected_seq > 1 else 0)
        )
        # an ACK held back while a HELLO was undecided (`_advance_ack`), sent at its decision
        self._ack_held = False
        self._last_valid_at: float | None = None
        self._count_lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._events: queue.Queue[ShoeEvent | None] = queue.Queue()
        self._stop = threading.Event()
        self._reader: threading.Thread | None = None
        self._delivery: threading.Thread | None = None
        self._counters: Counter[str] = Counter()
        self._link_up = False
        self._link_announced_lost = False
        self._started_at = 0.0
        self._port_broken = False
        self.reader_error: str | None = None

    def _count(self, name: str, n: int = 1) -> None:
        with self._count_lock:
            self._counters[name] += n

    # ---- lifecycle --------------------------------------------------------------------

    def start(self) -> None:
        """Open the port and start. A port that cannot be opened now is a clear
        ShoeLinkError, unless `require_port=False`: then the driver keeps trying (the shoe
        may be plugged in later) and reports `LinkLost` after 3 s as usual."""
        if self._reader is not None:
            raise RuntimeError("the shoe driver is already started")
        try:
            self._port = self._open()
        except ShoeLinkError:
            if self._require_port:
                raise
            self._count("open_failures")
        self._started_at = self._clock()
        self._reader = threading.Thread(target=self._read_loop, name="shoe-reader", daemon=True)
        self._delivery = threading.Thread(target=self._deliver_loop, name="shoe-events",
                                          daemon=True)
        self._delivery.start()
        self._reader.start()

    def stop(self) -> None:
        """Stop reading, deliver what was already read, close the port."""
        self._stop.set()
        if self._reader is not None:
            self._reader.join(timeout=5)
        self._events.put(None)
        if self._delivery is not None and self._delivery is not threading.current_thread():
            self._delivery.join(timeout=5)
        with self._port_lock:
            if self._port is not None:
                _close_quietly(self._port)
                self._port = None
        for p in list(self._pending.values()):
            p.done.set()

    def __enter__(self) -> ShoeDriver:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _open(self) -> serial.SerialBase:
        try:
            # A write must never hang the station on a wedged line; pyserial's rfc2217://
            # has no write timeout (it refuses one after connecting), its writes go to a
            # socket anyway.
            write_timeout = None if self.url.lower().startswith("rfc2217://") else 0.5
            port = open_port(self.url, baudrate=self._baudrate, write_timeout_s=write_timeout)
        except (serial.SerialException, OSError, ValueError, NotImplementedError) as e:
            raise ShoeLinkError(f"cannot open the shoe at {self.url}: {e}") from e
        self._port_broken = False
        return port

    # ---- reading ----------------------------------------------------------------------

    def _read_loop(self) -> None:
        try:
            backoff = BACKOFF_FIRST
            while not self._stop.is_set():
                port = self._port
                if port is None:
                    # Wait out the backoff in supervision ticks: the link can be declared
                    # lost while the port is still gone.
                    retry_at = time.monotonic() + backoff
                    while time.monotonic() < retry_at:
                        if self._stop.wait(min(READ_TIMEOUT, max(0.0, retry_at - time.monotonic()))):
                            return
                        self._supervise(self._clock())
                    try:
                        new_port = self._open()
                    except ShoeLinkError:
                        self._count("open_failures")
                        backoff = min(backoff * 2, BACKOFF_MAX)
                        continue
                    with self._port_lock:
                        self._port = new_port
                    self._count("reconnects")
                    backoff = BACKOFF_FIRST
                    self._resend_current_ack()
                    continue
                try:
                    data = read_available(port)
                except (serial.SerialException, OSError, TypeError, AttributeError) as e:
                    # Unplugged adapter, vanished pty, TCP bridge gone (pyserial can also
                    # trip over its own closed handle with TypeError/AttributeError).
                    self._count("read_errors")
                    log.warning("shoe link at %s failed: %s; reopening", self.url, e)
                    self._drop_port(port)
                    continue
                now = self._clock()
                if data:
                    self._count("bytes_in", len(data))
                    if self._recorder is not None:
                        self._recorder.shoe(data, now)
                    self._on_bytes(data, now)
                self._supervise(now)
                if self._port_broken:
                    self._drop_port(port)
        except BaseException as e:  # the reader must never die silently
            self.reader_error = f"{type(e).__name__}: {e}"
            self._count("reader_died")
            log.exception("shoe reader died")
            self._events.put(ReaderDied(self._clock(), None, self.reader_error))

    def _drop_port(self, port: serial.SerialBase) -> None:
        with self._port_lock:
            if self._port is port:
                self._port = None
        _close_quietly(port)

    def _on_bytes(self, data: bytes, now: float) -> None:
        result = self._stream.feed(data, now)
        if result.valid_frames:
            self._last_valid_at = now
            if not self._link_up:
                self._link_up = True
                if self._link_announced_lost:
                    self._link_announced_lost = False
                    self._count("link_restored")
                    self._events.put(LinkRestored(now, None))
        for n in result.resend_from:
            self._count("resends_sent")
            self._send_frame("RESEND", str(n))
        ack_now = False
        for ev in result.events:
            if isinstance(ev, Hello) and ev.rebooted:
                self._count("reboots")
            if isinstance(ev, Hello):
                with self._state_lock:
                    # Frames of the previous boot can never be acknowledged to the shoe now.
                    self._unacked.clear()
                    self._last_acked = None
            if isinstance(ev, Heartbeat | Reply):
                with self._state_lock:
                    self._unacked.append([ev.seq, False, True])
                ack_now = True
                if isinstance(ev, Heartbeat):
                    self._count("heartbeats")
                else:
                    self._on_reply(ev)
                continue
            with self._state_lock:
                self._unacked.append([ev.seq, True, False])
            self._events.put(ev)
        if ack_now or (self._ack_held and not self._stream.sequencer.undecided):
            # (a HELLO decided a resend: its frames were recorded while it was undecided,
            # and nothing new may come to carry their ACK while the gate is locked)
            self._advance_ack()
        if result.reack:
            self._count("reacks")
            self._resend_current_ack()

    def _supervise(self, now: float) -> None:
        last = self._last_valid_at
        since = now - (last if last is not None else self._started_at)
        if since >= LINK_TIMEOUT and (self._link_up or not self._link_announced_lost):
            self._link_up = False
            self._link_announced_lost = True
            self._count("link_lost")
            self._events.put(LinkLost(now, None))
        if since >= REOPEN_AFTER_SILENCE and self._port is not None:
            # A port can look open and be dead: reopen it by URL, then wait again.
            self._count("silent_reopens")
            self._last_valid_at = now - LINK_TIMEOUT
            self._port_broken = True

    # ---- delivery and acknowledgement -------------------------------------------------

    def _deliver_loop(self) -> None:
        while True:
            ev = self._events.get()
            if ev is None:
                return
            try:
                self._on_event(ev)
            except Exception:
                # The table core's bug must not stop the shoe; the event is not acknowledged
                # by auto_ack, so the journal and the shoe stay consistent.
                self._count("callback_errors")
                # the event's kind and seq only: a CARD event names a card that may lie face
                # down on the table (PROCEDURE.md §4)
                log.exception("shoe event handler failed on %s (seq %s)", ev.event, ev.seq)
                continue
            self._count("events_delivered")
            if self._auto_ack and ev.seq is not None:
                try:
                    self.recorded_up_to(ev.seq)
                except Exception:
                    # Only the trace recorder can fail here; the reader reports it too.
                    self._count("ack_errors")
                    log.exception("acknowledging shoe seq %s failed", ev.seq)

    def recorded_up_to(self, seq: int) -> None:
        """The station has durably recorded every event up to and including shoe seq `seq`:
        acknowledge it (and the heartbeats and replies right after it)."""
        with self._state_lock:
            idx = None
            for i, entry in enumerate(self._unacked):
                if entry[0] == seq:
                    idx = i
                    break
            if idx is None:
                return  # already acknowledged, or not a frame of this boot
            for i in range(idx + 1):
                self._unacked[i][2] = True
        self._advance_ack()

    def _advance_ack(self) -> None:
        if self._stream.sequencer.undecided:
            # a HELLO of a boot never seen awaits its decision: an ACK of the old stream's
            # seqs would make a new boot drop frames it holds (sequencer.py); what was
            # recorded meanwhile is acknowledged once the HELLO is decided a resend
            self._ack_held = True
            return
        self._ack_held = False
        with self._state_lock:
            ack = None
            while self._unacked and self._unacked[0][2]:
                ack = self._unacked.popleft()[0]
            if ack is None:
                return
            self._last_acked = ack
        self._count("acks_sent")
        self._send_frame("ACK", str(ack))

    def _resend_current_ack(self) -> None:
        if self._stream.sequencer.undecided:
            return
        with self._state_lock:
            ack = self._last_acked
        if ack is not None:
            self._send_frame("ACK", str(ack))

    # ---- writing and commands ---------------------------------------------------------

    def _next_station_seq(self) -> int:
        with self._state_lock:
            self._station_seq = 1 if self._station_seq >= SEQ_MAX else self._station_seq + 1
            return self._station_seq

    def _send_frame(self, type_: str, *fields: str, seq: int | None = None) -> int:
        if seq is None:
            seq = self._next_station_seq()
        self._write(encode_frame(seq, type_, *fields))
        return seq

    def _write(self, frame: bytes) -> None:
        with self._port_lock:
            port = self._port
            if port is None:
                self._count("writes_dropped")
                return
            try:
                port.write(frame)
            except (serial.SerialException, OSError, TypeError, AttributeError):
                # The reader notices the dead port too and reopens it; commands retry.
                self._count("write_errors")
                self._port_broken = True
                return
            self._count("bytes_out", len(frame))
            if self._recorder is not None:
                self._recorder.to_shoe(frame, self._clock())

    def _on_reply(self, reply: Reply) -> None:
        with self._state_lock:
            pending = self._pending.get(reply.station_seq)
            if pending is None or pending.reply is not None:
                self._count("stale_replies")
                return
            pending.reply = reply
        pending.done.set()

    def command(self, type_: str, *fields: str, timeout: float | None = None) -> Reply:
        """Send a command (LOCK, UNLOCK, LED colour, STATUS) and wait for its reply.

        Sent again with the same seq every 250 ms, up to 5 times; returns the first reply
        (kind OK, ERR or STATUS). Raises ShoeCommandTimeout when none came within `timeout`
        (default: 250 ms after the last retry).
        """
        if type_ in ("ACK", "RESEND"):
            raise ValueError("ACK and RESEND are sent by the driver itself")
        if self._reader is None or self._stop.is_set():
            raise ShoeLinkError("the shoe driver is not running")
        seq = self._next_station_seq()
        frame = encode_frame(seq, type_, *fields)  # a bad command fails here, before sending
        pending = _Pending(frame)
        with self._state_lock:
            self._pending[seq] = pending
        budget = (COMMAND_RETRY_INTERVAL * (COMMAND_RETRIES + 1) if timeout is None
                  else timeout)
        start = time.monotonic()
        deadline = start + budget
        sends = 0
        self._count("commands_sent")
        try:
            while True:
                if sends <= COMMAND_RETRIES:
                    if sends:
                        self._count("command_retries")
                    self._write(frame)
                    sends += 1
                    next_send = start + sends * COMMAND_RETRY_INTERVAL
                else:
                    next_send = deadline
                wait = min(next_send, deadline) - time.monotonic()
                if pending.done.wait(max(0.0, wait)):
                    if pending.reply is not None:
                        return pending.reply
                    raise ShoeLinkError(f"the shoe driver stopped before {type_} was answered")
                if time.monotonic() >= deadline:
                    break
        finally:
            with self._state_lock:
                # Gone once answered: a repeat of the reply (the shoe answers every resend of
                # the command) then counts as stale and is ignored.
                self._pending.pop(seq, None)
        self._count("command_timeouts")
        state = "up" if self._link_up else "down"
        raise ShoeCommandTimeout(
            f"the shoe did not answer {type_} (station seq {seq}) after {sends} sends over "
            f"{budget:.2f} s; link is {state}"
        )

    def lock(self, timeout: float | None = None) -> Reply:
        """Close the card gate. ERR UNSUPPORTED comes back from a shoe without a gate."""
        return self.command("LOCK", timeout=timeout)

    def unlock(self, timeout: float | None = None) -> Reply:
        return self.command("UNLOCK", timeout=timeout)

    def led(self, colour: str, timeout: float | None = None) -> Reply:
        colour = colour.upper()
        if colour not in LED_COLOURS:
            raise ValueError(f"LED colour must be one of {', '.join(sorted(LED_COLOURS))}")
        return self.command("LED", colour, timeout=timeout)

    def status(self, timeout: float | None = None) -> Reply:
        """Gate, cards out since LOAD and LED colour, as the shoe reports them."""
        return self.command("STATUS", timeout=timeout)

    # ---- state ------------------------------------------------------------------------

    @property
    def link_up(self) -> bool:
        return self._link_up

    @property
    def boot_id(self) -> str | None:
        return self._stream.sequencer.boot_id

    @property
    def last_processed(self) -> int | None:
        return self._stream.last_processed

    @property
    def counters(self) -> dict[str, int]:
        """Every kind of dropped input (decoder and sequencer) and the driver's own counts."""
        c: Counter[str] = Counter(dict.fromkeys(COUNTER_NAMES, 0))
        stream_counts: Counter[str] = Counter()
        for _ in range(10):
            try:
                # The reader may add a new kind of drop while we copy: copy again.
                stream_counts = self._stream.counters
                break
            except RuntimeError:
                continue
        c.update(stream_counts)
        with self._count_lock:
            c.update(self._counters)
        return dict(sorted(c.items()))



def _close_quietly(port: serial.SerialBase) -> None:
    try:
        port.close()
    except Exception:  # noqa: BLE001 - a port that is already gone cannot be closed better
        log.debug("closing the shoe port failed", exc_info=True)
