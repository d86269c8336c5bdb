"""DS shoe protocol framing: `$<seq>,<TYPE>[,<field>]...*<crc>\\r\\n` (SHOE_PROTOCOL.md §2).

The decoder is a byte-at-a-time resynchronising parser in the manner of a firmware UART
handler: it skips noise until `$`, restarts on a `$` inside a partial frame, ends a frame at
`\\n`, and drops — and counts — anything too long, malformed, of unknown type, or with a bad
CRC. Nothing it drops is ever acted on.
"""

from __future__ import annotations

import binascii
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from firmware_bridge.cards import ALL_CARDS

MAX_FRAME = 96  # bytes from `$` to `\n` inclusive
_HEX = frozenset(b"0123456789ABCDEF")
_SEQ_RE = re.compile(r"0|[1-9][0-9]{0,4}")
_TYPE_RE = re.compile(r"[A-Z]+")
_DIGITS_RE = re.compile(r"0|[1-9][0-9]*")
_BOOT_ID_RE = re.compile(r"[0-9A-Fa-f]{8}")
_CRC_DIGITS_RE = re.compile(rb"[0-9A-F]{4}")
# printable ASCII without `$` (0x24) and `*` (0x2A)
_BODY_RE = re.compile(rb"[\x20-\x23\x25-\x29\x2B-\x7E]*")

FAULT_CODES = frozenset({"JAM", "SENSOR", "LID_OPEN", "TAMPER", "OVERFLOW"})
ERR_REASONS = frozenset({"UNSUPPORTED", "BUSY", "BAD"})
LED_COLOURS = frozenset({"GREEN", "AMBER", "RED", "OFF"})
GATES = frozenset({"LOCKED", "UNLOCKED"})


def crc16_ccitt_false(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def _crc_table() -> list[int]:
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table.append(crc)
    return table


_TABLE = _crc_table()


def crc16_table(data: bytes) -> int:
    """Table-driven CRC-16/CCITT-FALSE (same result as crc16_ccitt_false, faster)."""
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[(crc >> 8) ^ byte]
    return crc


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE. `binascii.crc_hqx` is the same CRC (poly 0x1021, MSB first, no
    final xor) done in C; started at 0xFFFF it is CCITT-FALSE. The tests hold it to the
    bitwise definition above."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True, slots=True)
class Frame:
    seq: int
    type: str
    fields: tuple[str, ...] = ()

    def encode(self) -> bytes:
        return encode_frame(self.seq, self.type, *self.fields)


def encode_frame(seq: int, type_: str, *fields: object) -> bytes:
    if not 0 <= seq <= 65535:
        raise ValueError(f"seq {seq} outside 0..65535")
    if not _TYPE_RE.fullmatch(type_):
        raise ValueError(f"frame type must be upper-case letters, got {type_!r}")
    parts = [str(seq), type_, *(str(f) for f in fields)]
    for p in parts[2:]:
        if any(c in p for c in "$*,") or any(not 0x20 <= ord(c) <= 0x7E for c in p):
            raise ValueError(f"field {p!r} has a character a frame cannot carry")
    body = ",".join(parts).encode("ascii")
    frame = b"$" + body + b"*" + f"{crc16(body):04X}".encode() + b"\r\n"
    if len(frame) > MAX_FRAME:
        raise ValueError(f"frame of {len(frame)} bytes exceeds {MAX_FRAME}")
    return frame


# ---- field validation per direction -------------------------------------------------------


def _is_uint(s: str, hi: int | None = None) -> bool:
    if not _DIGITS_RE.fullmatch(s):
        return False
    return hi is None or int(s) <= hi


# On the wire a card is always the canonical two characters (RULES.md §0 is for people):
# exactly the strings `parse_card` prints back unchanged.
_WIRE_CARDS = frozenset(str(c) for c in ALL_CARDS)


def _valid_card_field(s: str) -> bool:
    return s in _WIRE_CARDS


FieldCheck = Callable[[tuple[str, ...]], bool]


def _no_fields(f: tuple[str, ...]) -> bool:
    return not f


def _one_of(allowed: frozenset[str]) -> FieldCheck:
    return lambda f: len(f) == 1 and f[0] in allowed


def _seq_field(f: tuple[str, ...]) -> bool:
    return len(f) == 1 and _is_uint(f[0], 65535)


# ---- every frame type, declared once per direction: type -> the check of its fields -----
# (SHOE_PROTOCOL.md §3 and §5; events.py maps each shoe frame to its event by this table)
SHOE_FRAMES: dict[str, FieldCheck] = {
    "HELLO": lambda f: len(f) == 5 and _is_uint(f[0]) and bool(_BOOT_ID_RE.fullmatch(f[4])),
    "LOAD": _no_fields,
    "CARD": lambda f: len(f) in (1, 2) and _valid_card_field(f[0]) and (len(f) == 1 or len(f[1]) > 0),
    "UNREAD": _no_fields,
    "CUT": _no_fields,
    "EMPTY": _no_fields,
    "FAULT": _one_of(FAULT_CODES),
    "CLEAR": _one_of(FAULT_CODES),
    "HB": lambda f: len(f) == 1 and _is_uint(f[0]),
    "OK": _seq_field,
    "ERR": lambda f: len(f) == 2 and _is_uint(f[0], 65535) and f[1] in ERR_REASONS,
    "STATUS": lambda f: (len(f) == 4 and _is_uint(f[0], 65535) and f[1] in GATES
                         and _is_uint(f[2]) and f[3] in LED_COLOURS),
}
STATION_FRAMES: dict[str, FieldCheck] = {
    "ACK": _seq_field,
    "RESEND": _seq_field,
    "LOCK": _no_fields,
    "UNLOCK": _no_fields,
    "LED": _one_of(LED_COLOURS),
    "STATUS": _no_fields,
}
SHOE_TYPES = frozenset(SHOE_FRAMES)
STATION_TYPES = frozenset(STATION_FRAMES)


class FrameDecoder:
    """Turns a byte stream into valid frames of one direction.

    `direction` is "shoe" for frames the shoe sends (what the station decodes) or "station"
    for frames the station sends (what a shoe, or its simulator, decodes).
    `counters` counts every dropped input by kind: bad_crc, too_long, malformed,
    unknown_type, truncated (a frame cut short by a new `$`), noise_bytes (between frames).
    """

    def __init__(self, direction: str = "shoe") -> None:
        if direction not in ("shoe", "station"):
            raise ValueError("direction must be 'shoe' or 'station'")
        self.direction = direction
        self._buf = bytearray()
        self._in_frame = False
        self.counters: Counter[str] = Counter()

    def feed(self, data: bytes | bytearray | Iterable[int]) -> list[Frame]:
        """Decode what `data` completes; a partial frame waits for the next call.

        Works on slices rather than byte by byte (a frame is found with `bytes.find`), with
        exactly the byte-at-a-time semantics described in the class docstring.
        """
        out: list[Frame] = []
        if not isinstance(data, bytes | bytearray):
            data = bytes(data)
        buf = self._buf
        counters = self.counters
        n = len(data)
        i = 0
        while i < n:
            if not self._in_frame:
                start = data.find(b"$", i)
                if start < 0:
                    counters["noise_bytes"] += n - i
                    return out
                if start > i:
                    counters["noise_bytes"] += start - i
                buf.clear()
                self._in_frame = True
                i = start + 1
                continue
            # Inside a frame: it can still take `room` bytes before it is too long.
            room = MAX_FRAME - 2 - len(buf)
            window_end = min(n, i + room + 1)
            nl = data.find(b"\n", i, window_end)
            dollar = data.find(b"$", i, window_end if nl < 0 else nl)
            end = dollar if dollar >= 0 else nl
            if end < 0:
                chunk_end = window_end
            else:
                chunk_end = end
            if chunk_end - i > room:
                # Overflows before any terminator: count it, the rest up to the next `$` is
                # noise (the out-of-frame branch counts it).
                counters["too_long"] += 1
                buf.clear()
                self._in_frame = False
                i += room + 1
                continue
            buf += data[i:chunk_end]
            if end < 0:
                return out
            if end == dollar:
                counters["truncated"] += 1 if buf else 0
                buf.clear()
                i = end + 1
                continue
            self._in_frame = False
            frame = self._parse(bytes(buf))
            buf.clear()
            if frame is not None:
                out.append(frame)
            i = end + 1
        return out

    def _parse(self, raw: bytes) -> Frame | None:
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        # `*` then exactly 4 upper-case hex digits end the frame (so that `*` is the last).
        if len(raw) < 5 or raw[-5] != 0x2A or not _CRC_DIGITS_RE.fullmatch(raw, len(raw) - 4):
            self.counters["malformed"] += 1
            return None
        body = raw[:-5]
        if binascii.crc_hqx(body, 0xFFFF) != int(raw[-4:], 16):  # crc16(), inlined
            self.counters["bad_crc"] += 1
            return None
        if not _BODY_RE.fullmatch(body):
            self.counters["malformed"] += 1
            return None
        parts = body.decode("ascii").split(",")
        if len(parts) < 2 or not _SEQ_RE.fullmatch(parts[0]) or int(parts[0]) > 65535:
            self.counters["malformed"] += 1
            return None
        type_ = parts[1]
        # looked up, not held: a decoder is part of the table's snapshots, which pickle
        frames = SHOE_FRAMES if self.direction == "shoe" else STATION_FRAMES
        if type_ not in frames:
            if _TYPE_RE.fullmatch(type_):
                self.counters["unknown_type"] += 1
            else:
                self.counters["malformed"] += 1
            return None
        fields = tuple(parts[2:])
        seq = int(parts[0])
        if not frames[type_](fields) or (
            self.direction == "shoe" and (seq == 0) != (type_ == "HELLO")
        ):
            self.counters["malformed"] += 1
            return None
        self.counters["frames"] += 1
        return Frame(seq, type_, fields)
