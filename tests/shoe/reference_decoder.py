"""The decoder's byte-at-a-time definition (SHOE_PROTOCOL.md §2), kept as a test oracle.

This is the straightforward firmware-style loop the station's decoder started as; the
station's `FrameDecoder.feed` works on slices for speed and must agree with it on every
input, frame for frame and counter for counter.
"""

from __future__ import annotations

from collections import Counter

from firmware_bridge.shoe.codec import (
    _SEQ_RE,
    _TYPE_RE,
    MAX_FRAME,
    Frame,
    FrameDecoder,
    crc16_ccitt_false,
)

HEX_DIGITS = frozenset(b"0123456789ABCDEF")


class ReferenceDecoder:
    def __init__(self, direction: str = "shoe") -> None:
        self._parser = FrameDecoder(direction)  # only its type tables and field checks are reused
        self._buf = bytearray()
        self._in_frame = False
        self.counters: Counter[str] = self._parser.counters

    def feed(self, data: bytes) -> list[Frame]:
        out: list[Frame] = []
        buf = self._buf
        for b in data:
            if b == 0x24:  # '$'
                if self._in_frame and buf:
                    self.counters["truncated"] += 1
                buf.clear()
                self._in_frame = True
                continue
            if not self._in_frame:
                self.counters["noise_bytes"] += 1
                continue
            if b == 0x0A:  # '\n'
                self._in_frame = False
                frame = self._parse(bytes(buf))
                buf.clear()
                if frame is not None:
                    out.append(frame)
                continue
            buf.append(b)
            if len(buf) + 2 > MAX_FRAME:
                self.counters["too_long"] += 1
                buf.clear()
                self._in_frame = False
        return out

    def _parse(self, raw: bytes) -> Frame | None:
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        star = raw.rfind(b"*")
        if star < 0 or len(raw) - star - 1 != 4 or not all(c in HEX_DIGITS for c in raw[star + 1 :]):
            self.counters["malformed"] += 1
            return None
        body = raw[:star]
        if crc16_ccitt_false(body) != int(raw[star + 1 :], 16):
            self.counters["bad_crc"] += 1
            return None
        if any(not 0x20 <= c <= 0x7E or c in (0x24, 0x2A) for c in body):
            self.counters["malformed"] += 1
            return None
        parts = body.decode("ascii").split(",")
        if len(parts) < 2 or not _SEQ_RE.fullmatch(parts[0]) or int(parts[0]) > 65535:
            self.counters["malformed"] += 1
            return None
        type_ = parts[1]
        if not _TYPE_RE.fullmatch(type_):
            self.counters["malformed"] += 1
            return None
        if type_ not in self._parser._types:
            self.counters["unknown_type"] += 1
            return None
        fields = tuple(parts[2:])
        seq = int(parts[0])
        if not self._parser._check(type_, fields) or (
            self._parser.direction == "shoe" and (seq == 0) != (type_ == "HELLO")
        ):
            self.counters["malformed"] += 1
            return None
        self.counters["frames"] += 1
        return Frame(seq, type_, fields)
