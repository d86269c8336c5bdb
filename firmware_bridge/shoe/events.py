"""Typed events from the card shoe, as the table core and `station shoe listen` see them.

Each event carries `t`, the time its bytes arrived (station clock, seconds), and `seq`, the
shoe's frame number (None for the link-state events the station derives itself).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class ShoeEvent:
    t: float
    seq: int | None
    event: ClassVar[str] = "?"

    def as_json(self) -> dict[str, Any]:
        d = {"t": self.t, "event": self.event}
        d.update({k: v for k, v in asdict(self).items() if k not in ("t",) and v is not None})
        return d


@dataclass(frozen=True, slots=True)
class Hello(ShoeEvent):
    proto: str = ""
    model: str = ""
    serial: str = ""
    firmware: str = ""
    boot_id: str = ""
    rebooted: bool = False
    event: ClassVar[str] = "hello"


@dataclass(frozen=True, slots=True)
class Load(ShoeEvent):
    event: ClassVar[str] = "load"


@dataclass(frozen=True, slots=True)
class CardRead(ShoeEvent):
    card: str = ""  # canonical two-character form
    code: str | None = None  # printed code on serialized decks
    event: ClassVar[str] = "card"


@dataclass(frozen=True, slots=True)
class Unread(ShoeEvent):
    event: ClassVar[str] = "unread"


@dataclass(frozen=True, slots=True)
class Cut(ShoeEvent):
    event: ClassVar[str] = "cut"


@dataclass(frozen=True, slots=True)
class Empty(ShoeEvent):
    event: ClassVar[str] = "empty"


@dataclass(frozen=True, slots=True)
class Fault(ShoeEvent):
    code: str = ""
    event: ClassVar[str] = "fault"


@dataclass(frozen=True, slots=True)
class Clear(ShoeEvent):
    code: str = ""
    event: ClassVar[str] = "clear"


@dataclass(frozen=True, slots=True)
class Heartbeat(ShoeEvent):
    uptime_ms: int = 0
    event: ClassVar[str] = "hb"


@dataclass(frozen=True, slots=True)
class Reply(ShoeEvent):
    """OK / ERR / STATUS: the shoe's answer to the station command `station_seq`."""

    kind: str = "OK"  # OK | ERR | STATUS
    station_seq: int = 0
    reason: str | None = None  # ERR
    gate: str | None = None  # STATUS
    cards_out: int | None = None  # STATUS
    led: str | None = None  # STATUS
    event: ClassVar[str] = "reply"


@dataclass(frozen=True, slots=True)
class LinkLost(ShoeEvent):
    event: ClassVar[str] = "link_lost"


@dataclass(frozen=True, slots=True)
class LinkRestored(ShoeEvent):
    event: ClassVar[str] = "link_restored"


@dataclass(frozen=True, slots=True)
class ReaderDied(ShoeEvent):
    """The driver's reader thread stopped on an error it could not recover from."""

    error: str = ""
    event: ClassVar[str] = "reader_died"


def event_from_frame(frame_type: str, fields: tuple[str, ...], seq: int, t: float,
                     rebooted: bool = False) -> ShoeEvent:
    """Map a valid, in-order shoe frame to its event (fields already validated by the codec)."""
    f = fields
    if frame_type == "HELLO":
        return Hello(t, seq, f[0], f[1], f[2], f[3], f[4].upper(), rebooted)
    if frame_type == "LOAD":
        return Load(t, seq)
    if frame_type == "CARD":
        return CardRead(t, seq, f[0], f[1] if len(f) > 1 else None)
    if frame_type == "UNREAD":
        return Unread(t, seq)
    if frame_type == "CUT":
        return Cut(t, seq)
    if frame_type == "EMPTY":
        return Empty(t, seq)
    if frame_type == "FAULT":
        return Fault(t, seq, f[0])
    if frame_type == "CLEAR":
        return Clear(t, seq, f[0])
    if frame_type == "HB":
        return Heartbeat(t, seq, int(f[0]))
    if frame_type == "OK":
        return Reply(t, seq, "OK", int(f[0]))
    if frame_type == "ERR":
        return Reply(t, seq, "ERR", int(f[0]), reason=f[1])
    if frame_type == "STATUS":
        return Reply(t, seq, "STATUS", int(f[0]), gate=f[1], cards_out=int(f[2]), led=f[3])
    raise ValueError(f"no event for frame type {frame_type}")
