"""A DS card shoe in software: the firmware side of SHOE_PROTOCOL.md, on a pty or TCP port.

It stands in for the device only. It speaks the real protocol over a real serial device (a
pty pair, whose slave end the station opens like `/dev/ttyUSB0`) or a TCP port (what a
serial-over-TCP bridge offers as `socket://`), so the station's driver runs unchanged.

It is written from the spec, not from the station's receive code: it frames with
`encode_frame` and reads the station's commands with `FrameDecoder("station")`, and keeps
its own send sequence, retransmission buffer and command replies the way firmware would:

- seq 0 is HELLO (with a boot id new at every boot); every other frame takes the next seq,
  1..65535 then 1 again;
- every frame stays in a 64-frame retransmission buffer until the station ACKs it; 250 ms
  after the oldest unacknowledged frame was sent all of them go again, in order, and at once
  from `n` on `RESEND,n`; with 64 unacknowledged the gate locks and `FAULT,OVERFLOW` goes out,
  so no card can be drawn and lost (`CLEAR,OVERFLOW` once the station has caught up);
- `HB` after 1000 ms without sending anything;
- a command is carried out once per station seq; a repeat gets the same reply again.

Faults are data (`FaultPlan`): bit errors, lost, duplicated, delayed and split writes, junk
bytes, lost station frames, and scheduled unplug / reboot / jam after a number of draws.
`ShoeSimulator` is thread-safe: a simulated dealer calls `draw()` from any thread.
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import random
import secrets
import select
import socket
import tempfile
import threading
import time
import tty
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.cards import RANKS, SUITS, parse_card
from firmware_bridge.shoe.codec import FAULT_CODES, LED_COLOURS, FrameDecoder, encode_frame

BUFFER_FRAMES = 64
RESEND_AFTER = 0.250
HEARTBEAT_AFTER = 1.000
SEQ_MAX = 65535
_TICK = 0.010


class ShoeRefused(RuntimeError):
    """The shoe would not give a card: gate locked, jammed, not loaded, or empty."""


@dataclass(frozen=True, slots=True)
class ScheduledFault:
    """Something that happens to the shoe right after its `after_draws`-th draw.

    `action`: `unplug` (cable out for `seconds`), `reboot`, `jam` (FAULT,JAM; cleared after
    `seconds` when > 0, else by `clear("JAM")`).
    """

    after_draws: int
    action: str
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.action not in ("unplug", "reboot", "jam"):
            raise ValueError(f"unknown scheduled fault {self.action!r}: unplug, reboot or jam")


@dataclass(frozen=True, slots=True)
class FaultPlan:
    """What goes wrong on the wire, as data. Rates are probabilities in 0..1.

    Shoe → station, per transmission of a frame (a first send or a resend): `drop_rate` (lost
    whole), `duplicate_rate` (arrives twice), `bit_error_rate` (per byte: one bit flipped),
    `junk_rate` (noise bytes before it), `split_rate` (written in 2–4 chunks `split_gap`
    apart); every write is held back `delay` plus up to `jitter` seconds (order kept).
    Station → shoe: `inbound_drop_rate` per station frame; `inbound_lose_first` loses the
    first N sends of every station command (its retries with the same seq get through).
    """

    bit_error_rate: float = 0.0
    drop_rate: float = 0.0
    duplicate_rate: float = 0.0
    junk_rate: float = 0.0
    split_rate: float = 0.0
    split_gap: float = 0.002
    delay: float = 0.0
    jitter: float = 0.0
    inbound_drop_rate: float = 0.0
    inbound_lose_first: int = 0
    scheduled: tuple[ScheduledFault, ...] = ()
    seed: int | None = None

    def __post_init__(self) -> None:
        for name in ("bit_error_rate", "drop_rate", "duplicate_rate", "junk_rate",
                     "split_rate", "inbound_drop_rate"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must be within 0..1, got {v}")
        for name in ("split_gap", "delay", "jitter", "inbound_lose_first"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative")


def eight_deck_shoe(rng: random.Random, decks: int = 8) -> list[str]:
    cards = [r + s for _ in range(decks) for s in SUITS for r in RANKS]
    rng.shuffle(cards)
    return cards


def deck_multiset(deck: Mapping[str, int] | Iterable[str]) -> Counter[str]:
    """A game's deck as card -> copies (e.g. 32 stand-in cards, each once), with every
    card checked and written canonically. Raises ValueError for a bad card or count."""
    items = deck.items() if isinstance(deck, Mapping) else ((c, 1) for c in deck)
    out: Counter[str] = Counter()
    for card, copies in items:
        if isinstance(copies, bool) or not isinstance(copies, int) or copies < 0:
            raise ValueError(f"copies of {card} must be a whole number >= 0, got {copies!r}")
        out[str(parse_card(card))] += copies
    if sum(out.values()) == 0:
        raise ValueError("a deck needs at least one card")
    return out


def shuffled_deck(rng: random.Random, deck: Counter[str]) -> list[str]:
    cards = [card for card, copies in deck.items() for _ in range(copies)]
    rng.shuffle(cards)
    return cards


# ---- transports ----------------------------------------------------------------------------


class _Transport:
    """One way of reaching the station. `write` never blocks for long and never raises."""

    def write(self, data: bytes) -> None:
        raise NotImplementedError

    def unplug(self) -> None:
        raise NotImplementedError

    def replug(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class _PtyTransport(_Transport):
    """A pty pair; the station opens the slave through a stable path (a symlink, as udev
    gives `/dev/serial/by-id/...`). Unplugging closes the pair, so the station's open port
    fails the way a pulled USB adapter does, and removes the path until it is plugged again
    into a new pair."""

    def __init__(self, on_bytes: Callable[[bytes], None], directory: Path) -> None:
        self._on_bytes = on_bytes
        self.path = directory / "shoe"
        self._lock = threading.Lock()
        self._master: int | None = None
        self._slave: int | None = None
        self._stop = threading.Event()
        self.dropped_bytes = 0
        self.replug()
        self._reader = threading.Thread(target=self._read_loop, name="sim-shoe-pty", daemon=True)
        self._reader.start()

    def replug(self) -> None:
        with self._lock:
            if self._master is not None:
                return
            master, slave = os.openpty()
            # Raw before anyone opens it: no echo of our frames, no CR/LF translation.
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            tmp = self.path.with_name(self.path.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            os.symlink(os.ttyname(slave), tmp)
            os.replace(tmp, self.path)

    def unplug(self) -> None:
        with self._lock:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            for fd in (self._master, self._slave):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._master = self._slave = None

    def write(self, data: bytes) -> None:
        with self._lock:
            if self._master is None:
                self.dropped_bytes += len(data)
                return
            view = memoryview(data)
            while view:
                try:
                    n = os.write(self._master, view)
                except BlockingIOError:
                    # Nobody is reading the port and its buffer is full: on a real line these
                    # bytes would simply be gone.
                    self.dropped_bytes += len(view)
                    return
                except OSError:
                    self.dropped_bytes += len(view)
                    return
                view = view[n:]

    def _read_loop(self) -> None:
        while not self._stop.is_set():
            fd = self._master
            if fd is None:
                time.sleep(_TICK)
                continue
            try:
                ready, _, _ = select.select([fd], [], [], 0.05)
                if not ready:
                    continue
                data = os.read(fd, 4096)
            except (OSError, ValueError) as e:
                # The pair was just unplugged under us (EBADF), or briefly no slave (EIO).
                if isinstance(e, OSError) and e.errno not in (errno.EBADF, errno.EIO):
                    raise
                time.sleep(_TICK)
                continue
            if data:
                self._on_bytes(data)

    def close(self) -> None:
        self._stop.set()
        self._reader.join(timeout=2)
        self.unplug()


class _TcpTransport(_Transport):
    """A TCP port on 127.0.0.1 like a serial-over-TCP bridge: one station connection at a
    time (a new one replaces the old). Unplugged, it drops the connection and refuses new
    ones until plugged again."""

    def __init__(self, on_bytes: Callable[[bytes], None], port: int = 0) -> None:
        self._on_bytes = on_bytes
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", port))
        self._server.listen(4)
        self._server.settimeout(0.1)
        self.port = self._server.getsockname()[1]
        self._lock = threading.Lock()
        self._client: socket.socket | None = None
        self._plugged = True
        self._stop = threading.Event()
        self.dropped_bytes = 0
        self._acceptor = threading.Thread(target=self._accept_loop, name="sim-shoe-tcp",
                                          daemon=True)
        self._acceptor.start()

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                if not self._plugged:
                    conn.close()
                    continue
                old, self._client = self._client, conn
            if old is not None:
                _close_socket(old)
            threading.Thread(target=self._client_loop, args=(conn,), name="sim-shoe-tcp-rx",
                             daemon=True).start()

    def _client_loop(self, conn: socket.socket) -> None:
        conn.settimeout(0.1)
        while not self._stop.is_set():
            try:
                data = conn.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            with self._lock:
                current = self._client is conn
            if current:
                self._on_bytes(data)
        with self._lock:
            if self._client is conn:
                self._client = None
        _close_socket(conn)

    def write(self, data: bytes) -> None:
        with self._lock:
            conn = self._client
            if conn is None:
                self.dropped_bytes += len(data)
                return
            try:
                conn.settimeout(0.5)
                conn.sendall(data)
            except OSError:
                self.dropped_bytes += len(data)
                self._client = None
                _close_socket(conn)

    def unplug(self) -> None:
        with self._lock:
            self._plugged = False
            conn, self._client = self._client, None
        if conn is not None:
            _close_socket(conn)

    def replug(self) -> None:
        with self._lock:
            self._plugged = True

    def close(self) -> None:
        self._stop.set()
        self.unplug()
        self._server.close()
        self._acceptor.join(timeout=2)


def _close_socket(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        conn.close()


# ---- the shoe ------------------------------------------------------------------------------


@dataclass
class _Sent:
    seq: int
    frame: bytes
    sent_at: float  # last time it went on the wire (first send or resend)


@dataclass
class SimulatorStats:
    frames_sent: int = 0  # distinct frames (first sends)
    transmissions: int = 0  # first sends and resends
    timed_resends: int = 0
    requested_resends: int = 0
    acks: int = 0
    stale_acks: int = 0
    commands: int = 0  # distinct station commands carried out
    repeated_commands: int = 0  # repeats answered with the stored reply
    inbound_dropped: int = 0  # station frames lost by the fault plan
    frames_lost: int = 0  # transmissions lost by the fault plan
    overflows: int = 0
    reboots: int = 0
    unplugs: int = 0
    station_decoder: dict[str, int] = field(default_factory=dict)


class ShoeSimulator:
    """A DS8 card shoe. See the module docstring for what it does on the wire.

    `cards`: the order cards leave the shoe (None: the `deck` shuffled from `seed`);
    `deck`: the card multiset a shoe is filled with, as card -> copies or a list of cards
    (None: `decks` × 52, a shoe of whole decks); a game without a cut card passes `cut_at=None`.
    `??` in the list is a card the reader cannot read (UNREAD), `CUT` the cut card. Without a
    `CUT` in the list, the cut card goes in after `cut_at` cards (None: no cut card).
    `boot_id`: 8 hex digits (None: random). `has_gate=False` is a shoe without a card gate.
    `resume_seq` starts the shoe as if it had been running for a while: no HELLO, the next
    frame takes that seq (for a station restarting from its journal).
    """

    def __init__(
        self,
        cards: list[str] | None = None,
        cut_at: int | None = 350,
        *,
        decks: int = 8,
        deck: Mapping[str, int] | Iterable[str] | None = None,
        seed: int | None = None,
        faults: FaultPlan | None = None,
        boot_id: str | None = None,
        has_gate: bool = True,
        codes: bool = False,
        model: str = "DS8",
        serial: str = "SH-SIM01",
        firmware: str = "2.1.0",
        resume_seq: int | None = None,
    ) -> None:
        self._rng = random.Random(seed)
        self.faults = faults or FaultPlan()
        self._fault_rng = random.Random(self.faults.seed if self.faults.seed is not None
                                        else self._rng.random())
        self.decks = decks
        self.deck = deck_multiset(deck) if deck is not None else None
        self.cut_at = cut_at
        self.has_gate = has_gate
        self.codes = codes
        self.model, self.serial, self.firmware = model, serial, firmware
        self._script = list(cards) if cards is not None else None
        if self._script is not None:
            for c in self._script:
                if c not in ("??", "CUT"):
                    parse_card(c)  # a clear error for a bad card, before anything is dealt
        self._lock = threading.RLock()
        self._decoder = FrameDecoder("station")
        self.stats = SimulatorStats()
        self.sent_log: list[tuple[int, str, tuple[str, ...]]] = []  # every distinct frame sent
        self.executed: dict[int, int] = {}  # station seq -> times carried out (always 1)
        self._command_sends: dict[int, int] = {}  # station seq -> sends seen (lose_first)
        self.draws = 0
        self._contents: deque[tuple[str, str | None]] = deque()
        self.loaded = False
        self._jam_clear_at: float | None = None
        self._unplugged_until: float | None = None
        self._transports: list[_Transport] = []
        self._tmpdir: tempfile.TemporaryDirectory[str] | None = None
        self._out: queue.Queue[tuple[float, bytes] | None] = queue.Queue()
        self._last_due = 0.0
        self._closed = threading.Event()
        self._boot(boot_id, resume_seq)
        self._writer = threading.Thread(target=self._write_loop, name="sim-shoe-tx", daemon=True)
        self._ticker = threading.Thread(target=self._tick_loop, name="sim-shoe-tick", daemon=True)
        self._writer.start()
        self._ticker.start()

    # ---- boot, seq, retransmission buffer ---------------------------------------------

    def _boot(self, boot_id: str | None, resume_seq: int | None = None) -> None:
        with self._lock:
            # drawn from the seed as ever, so a seed still fills the shoe with the same cards;
            # the id itself is new at every boot, in every process: a simulator started again
            # with the same seed (a demo restarted on its data folder) is a shoe that booted
            # again, which a station can only tell by a new boot id (SHOE_PROTOCOL: HELLO)
            seeded = self._rng.getrandbits(32)
            fresh = seeded ^ secrets.randbits(32)
            self.boot_id = (boot_id or f"{fresh:08X}").upper()
            if len(self.boot_id) != 8 or any(c not in "0123456789ABCDEF" for c in self.boot_id):
                raise ValueError(f"boot id must be 8 hex digits, got {boot_id!r}")
            self._booted_at = time.monotonic()
            self._unacked: deque[_Sent] = deque()
            self._last_sent_at = time.monotonic()
            self._replies: OrderedDict[int, tuple[tuple[str, ...], str, tuple[str, ...]]] = (
                OrderedDict()
            )
            self.gate_locked = False
            self.led = "OFF"
            self.cards_out = 0
            self.overflow = False
            self.faults_active: set[str] = set()
            if resume_seq is None:
                self._next_seq = 0
                self._send("HELLO", "1", self.model, self.serial, self.firmware, self.boot_id)
            else:
                if not 1 <= resume_seq <= SEQ_MAX:
                    raise ValueError("resume_seq must be within 1..65535")
                self._next_seq = resume_seq

    def _send(self, type_: str, *fields: str) -> bool:
        """Send a new sequenced frame; False when the buffer is full and it cannot be kept."""
        with self._lock:
            if len(self._unacked) >= BUFFER_FRAMES:
                return False
            seq = self._next_seq
            self._next_seq = 1 if seq >= SEQ_MAX else seq + 1
            frame = encode_frame(seq, type_, *fields)
            self._unacked.append(_Sent(seq, frame, time.monotonic()))
            self.sent_log.append((seq, type_, tuple(fields)))
            self.stats.frames_sent += 1
            self._transmit(frame)
            if len(self._unacked) == BUFFER_FRAMES - 1 and not self.overflow:
                # The last free slot carries the fault itself; from here no card can be drawn
                # (the gate is locked) until the station has caught up.
                self.overflow = True
                self.stats.overflows += 1
                self._send_overflow()
            return True

    def _send_overflow(self) -> None:
        seq = self._next_seq
        self._next_seq = 1 if seq >= SEQ_MAX else seq + 1
        frame = encode_frame(seq, "FAULT", "OVERFLOW")
        self._unacked.append(_Sent(seq, frame, time.monotonic()))
        self.sent_log.append((seq, "FAULT", ("OVERFLOW",)))
        self.stats.frames_sent += 1
        self._transmit(frame)

    def _resend_from(self, index: int) -> None:
        now = time.monotonic()
        for sent in list(self._unacked)[index:]:
            self._transmit(sent.frame)
            sent.sent_at = now

    def _on_ack(self, n: int) -> None:
        seqs = [s.seq for s in self._unacked]
        if n not in seqs:
            # Not a frame we hold: already acknowledged, or from before a reboot.
            self.stats.stale_acks += 1
            return
        self.stats.acks += 1
        for _ in range(seqs.index(n) + 1):
            self._unacked.popleft()
        if self.overflow and len(self._unacked) <= BUFFER_FRAMES // 2:
            self.overflow = False
            self._send("CLEAR", "OVERFLOW")

    def _on_resend(self, n: int) -> None:
        self.stats.requested_resends += 1
        seqs = [s.seq for s in self._unacked]
        self._resend_from(seqs.index(n) if n in seqs else 0)

    # ---- the wire, with faults ------------------------------------------------------

    def _transmit(self, frame: bytes) -> None:
        """Put one frame on the wire (called with the lock held, so order is kept)."""
        plan, rng = self.faults, self._fault_rng
        self.stats.transmissions += 1
        if plan.drop_rate and rng.random() < plan.drop_rate:
            self.stats.frames_lost += 1
            return
        copies = 2 if plan.duplicate_rate and rng.random() < plan.duplicate_rate else 1
        for _ in range(copies):
            data = bytearray(frame)
            if plan.bit_error_rate:
                for i in range(len(data)):
                    if rng.random() < plan.bit_error_rate:
                        data[i] ^= 1 << rng.randrange(8)
            if plan.junk_rate and rng.random() < plan.junk_rate:
                junk = bytes(rng.choice((0xFF, 0x00, 0x0D, 0x0A, 0x41, 0x2C, 0x7E, 0x80))
                             for _ in range(rng.randint(1, 8)))
                data[:0] = junk
            chunks = [bytes(data)]
            if plan.split_rate and len(data) > 4 and rng.random() < plan.split_rate:
                cuts = sorted(rng.sample(range(1, len(data)), rng.randint(1, 3)))
                chunks = [bytes(data[a:b]) for a, b in zip([0, *cuts], [*cuts, len(data)],
                                                          strict=True)]
            due = time.monotonic() + plan.delay + (rng.random() * plan.jitter if plan.jitter
                                                   else 0.0)
            for k, chunk in enumerate(chunks):
                self._last_due = max(due + k * plan.split_gap, self._last_due)
                self._out.put((self._last_due, chunk))
        self._last_sent_at = time.monotonic()

    def _write_loop(self) -> None:
        while True:
            item = self._out.get()
            if item is None:
                return
            due, chunk = item
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            for t in list(self._transports):
                t.write(chunk)

    def _on_bytes(self, data: bytes) -> None:
        with self._lock:
            if self._unplugged_until is not None:
                return
            for frame in self._decoder.feed(data):
                if (self.faults.inbound_drop_rate
                        and self._fault_rng.random() < self.faults.inbound_drop_rate):
                    self.stats.inbound_dropped += 1
                    continue
                if self.faults.inbound_lose_first and frame.type not in ("ACK", "RESEND"):
                    heard = self._command_sends.get(frame.seq, 0) + 1
                    self._command_sends[frame.seq] = heard
                    if heard <= self.faults.inbound_lose_first:
                        self.stats.inbound_dropped += 1
                        continue
                self._on_station_frame(frame.seq, frame.type, frame.fields)
            self.stats.station_decoder = dict(self._decoder.counters)

    def _on_station_frame(self, seq: int, type_: str, fields: tuple[str, ...]) -> None:
        if type_ == "ACK":
            self._on_ack(int(fields[0]))
            return
        if type_ == "RESEND":
            self._on_resend(int(fields[0]))
            return
        if len(self._unacked) >= BUFFER_FRAMES:
            return  # no room for a reply: the station will ask again
        signature = (type_, *fields)
        stored = self._replies.get(seq)
        if stored is not None and stored[0] == signature:
            self.stats.repeated_commands += 1
            self._send(stored[1], *stored[2])
            return
        reply_type, reply_fields = self._carry_out(seq, type_, fields)
        self.stats.commands += 1
        self.executed[seq] = self.executed.get(seq, 0) + 1
        self._replies[seq] = (signature, reply_type, reply_fields)
        while len(self._replies) > 256:
            self._replies.popitem(last=False)
        self._send(reply_type, *reply_fields)

    def _carry_out(self, seq: int, type_: str, fields: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        s = str(seq)
        if type_ in ("LOCK", "UNLOCK"):
            if not self.has_gate:
                return "ERR", (s, "UNSUPPORTED")
            self.gate_locked = type_ == "LOCK"
            return "OK", (s,)
        if type_ == "LED":
            self.led = fields[0]
            return "OK", (s,)
        if type_ == "STATUS":
            gate = "LOCKED" if self._gate_closed() else "UNLOCKED"
            return "STATUS", (s, gate, str(self.cards_out), self.led)
        return "ERR", (s, "UNSUPPORTED")

    def _gate_closed(self) -> bool:
        return self.overflow or (self.has_gate and self.gate_locked)

    # ---- timers ---------------------------------------------------------------------

    def _tick_loop(self) -> None:
        while not self._closed.wait(_TICK):
            now = time.monotonic()
            with self._lock:
                if self._unplugged_until is not None and now >= self._unplugged_until:
                    self._unplugged_until = None
                    for t in self._transports:
                        t.replug()
                if self._jam_clear_at is not None and now >= self._jam_clear_at:
                    self._jam_clear_at = None
                    self.clear("JAM")
                # 250 ms after the oldest unacknowledged frame went out, all of them again.
                if self._unacked and now - self._unacked[0].sent_at >= RESEND_AFTER:
                    self.stats.timed_resends += 1
                    self._resend_from(0)
                if now - self._last_sent_at >= HEARTBEAT_AFTER:
                    uptime = int((now - self._booted_at) * 1000)
                    if not self._send("HB", str(uptime)):
                        self._last_sent_at = now  # full buffer: resends keep the line alive

    # ---- what the dealer and the hardware do ----------------------------------------

    def load(self, cards: list[str] | None = None) -> None:
        """Fill the shoe (a new shuffled shoe, the scripted order, or `cards`) and close the
        lid: sends LOAD."""
        with self._lock:
            order = list(cards) if cards is not None else (
                list(self._script) if self._script is not None
                else shuffled_deck(self._rng, self.deck) if self.deck is not None
                else eight_deck_shoe(self._rng, self.decks))
            if "CUT" not in order and self.cut_at is not None:
                order.insert(min(self.cut_at, len(order)), "CUT")
            self._contents = deque()
            serial = 0
            for item in order:
                code = None
                if self.codes and item not in ("CUT", "??"):
                    serial += 1
                    code = f"{serial // 52 + 1}-{serial:04d}"
                self._contents.append((item, code))
            self.loaded = True
            self.cards_out = 0
            self._send("LOAD")

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._contents)

    def draw(self) -> str:
        """The dealer's hand pulls the next card. Returns what left the shoe (`7H`, `??` for a
        card the reader could not read, `CUT`). Raises ShoeRefused when the gate is locked,
        the shoe is jammed, not loaded or empty."""
        with self._lock:
            if not self.loaded:
                raise ShoeRefused("the shoe is not loaded")
            if self._gate_closed():
                raise ShoeRefused("the card gate is locked"
                                  + (" (retransmission buffer full)" if self.overflow else ""))
            if "JAM" in self.faults_active:
                raise ShoeRefused("the shoe is jammed")
            if not self._contents:
                raise ShoeRefused("the shoe is empty")
            item, code = self._contents.popleft()
            self.draws += 1
            if item == "CUT":
                self._send("CUT")
            else:
                self.cards_out += 1
                if item == "??":
                    self._send("UNREAD")
                elif code is not None:
                    self._send("CARD", item, code)
                else:
                    self._send("CARD", item)
            if not self._contents:
                self._send("EMPTY")
            for sf in self.faults.scheduled:
                if sf.after_draws == self.draws:
                    self._apply_scheduled(sf)
            return item

    def _apply_scheduled(self, sf: ScheduledFault) -> None:
        if sf.action == "unplug":
            self.unplug(sf.seconds)
        elif sf.action == "reboot":
            self.reboot()
        elif sf.action == "jam":
            self.fault("JAM")
            if sf.seconds > 0:
                self._jam_clear_at = time.monotonic() + sf.seconds

    def fault(self, code: str) -> None:
        """A hardware fault appears (JAM, SENSOR, LID_OPEN, TAMPER): sends FAULT."""
        if code not in FAULT_CODES or code == "OVERFLOW":
            raise ValueError(f"fault code must be one of JAM SENSOR LID_OPEN TAMPER, not {code!r}")
        with self._lock:
            self.faults_active.add(code)
            self._send("FAULT", code)

    def clear(self, code: str) -> None:
        """That fault has cleared: sends CLEAR."""
        with self._lock:
            if code in self.faults_active:
                self.faults_active.discard(code)
                self._send("CLEAR", code)

    def set_led(self, colour: str) -> None:
        if colour not in LED_COLOURS:
            raise ValueError(f"LED colour must be one of {sorted(LED_COLOURS)}")
        with self._lock:
            self.led = colour

    def reboot(self, boot_id: str | None = None) -> None:
        """Power cycle: unsent and unacknowledged frames are lost; HELLO with a new boot id,
        seq starts again. The cards stay physically in the shoe."""
        with self._lock:
            old = self.boot_id
            self.stats.reboots += 1
            while True:
                self._boot(boot_id)
                if self.boot_id != old or boot_id is not None:
                    break

    def unplug(self, seconds: float) -> None:
        """Pull the cable for `seconds`: nothing gets through either way; the shoe keeps its
        frames and resends them once plugged again."""
        with self._lock:
            self.stats.unplugs += 1
            self._unplugged_until = time.monotonic() + seconds
            for t in self._transports:
                t.unplug()

    @property
    def unacked(self) -> int:
        with self._lock:
            return len(self._unacked)

    @property
    def next_seq(self) -> int:
        with self._lock:
            return self._next_seq

    def events_sent(self) -> list[tuple[int, str, tuple[str, ...]]]:
        """Every distinct frame sent so far except heartbeats and command replies: what a
        station must deliver, in order."""
        with self._lock:
            return [e for e in self.sent_log if e[1] not in ("HB", "OK", "ERR", "STATUS")]

    # ---- serving ---------------------------------------------------------------------

    def serve_pty(self) -> str:
        """Serve on a new pty pair; returns the device path the station opens (a stable
        symlink to the slave end, which survives unplug and replug)."""
        if self._tmpdir is None:
            self._tmpdir = tempfile.TemporaryDirectory(prefix="sim-shoe-")
        directory = Path(self._tmpdir.name) / f"pty{len(self._transports)}"
        directory.mkdir()
        t = _PtyTransport(self._on_bytes, directory)
        self._transports.append(t)
        return str(t.path)

    def serve_tcp(self, port: int = 0) -> str:
        """Serve on a TCP port on 127.0.0.1 (0: any free one); returns its `socket://` URL."""
        t = _TcpTransport(self._on_bytes, port)
        self._transports.append(t)
        return f"socket://127.0.0.1:{t.port}"

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self._ticker.join(timeout=2)
        self._out.put(None)
        self._writer.join(timeout=2)
        for t in self._transports:
            t.close()
        if self._tmpdir is not None:
            self._tmpdir.cleanup()

    def __enter__(self) -> ShoeSimulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
