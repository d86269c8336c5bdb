"""Typed events from the card shoe, as the table core and `station shoe listen` see them.

Each event carries `t`, the time its bytes arrived (station clock, seconds), and `seq`, the
shoe's frame number (None for the link-state events the station derives itself).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

from firmware_bridge.shoe.codec import SHOE_TYPES


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


#: shoe frame type -> its event, from the frame's validated fields (the codec's SHOE_FRAMES
#: declares the types; the table below must cover exactly those)
_EVENT_OF: dict[str, Callable[[float, int, tuple[str, ...], bool], ShoeEvent]] = {
    "HELLO": lambda t, seq, f, rb: Hello(t, seq, f[0], f[1], f[2], f[3], f[4].upper(), rb),
    "LOAD": lambda t, seq, f, rb: Load(t, seq),
    "CARD": lambda t, seq, f, rb: CardRead(t, seq, f[0], f[1] if len(f) > 1 else None),
    "UNREAD": lambda t, seq, f, rb: Unread(t, seq),
    "CUT": lambda t, seq, f, rb: Cut(t, seq),
    "EMPTY": lambda t, seq, f, rb: Empty(t, seq),
    "FAULT": lambda t, seq, f, rb: Fault(t, seq, f[0]),
    "CLEAR": lambda t, seq, f, rb: Clear(t, seq, f[0]),
    "HB": lambda t, seq, f, rb: Heartbeat(t, seq, int(f[0])),
    "OK": lambda t, seq, f, rb: Reply(t, seq, "OK", int(f[0])),
    "ERR": lambda t, seq, f, rb: Reply(t, seq, "ERR", int(f[0]), reason=f[1]),
    "STATUS": lambda t, seq, f, rb: Reply(t, seq, "STATUS", int(f[0]), gate=f[1],
                                          cards_out=int(f[2]), led=f[3]),
}
if set(_EVENT_OF) != SHOE_TYPES:  # pragma: no cover - a frame type declared without its event
    raise ImportError(f"shoe frame types without an event: {sorted(SHOE_TYPES ^ set(_EVENT_OF))}")


def event_from_frame(frame_type: str, fields: tuple[str, ...], seq: int, t: float,
                     rebooted: bool = False) -> ShoeEvent:
    """Map a valid, in-order shoe frame to its event (fields already validated by the codec)."""
    make = _EVENT_OF.get(frame_type)
    if make is None:
        raise ValueError(f"no event for frame type {frame_type}")
    return make(t, seq, fields, rebooted)
