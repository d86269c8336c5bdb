"""The receive side of the shoe link as one pure object: bytes in, events and replies out.

`ShoeStream.feed(data, t_s)` runs the frame decoder and the sequencer over bytes that arrived
at time `t_s` and returns the in-order events plus what the station must send back (RESEND
requests). The live driver and trace replay both use it, which is why a recorded trace
replays to exactly the events the station saw live.

Acknowledgement is deliberately not decided here: the station ACKs a frame only once it has
durably recorded it (the journal), so the driver asks `ack_due()` after each commit.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from firmware_bridge.shoe.codec import FrameDecoder
from firmware_bridge.shoe.events import ShoeEvent, event_from_frame
from firmware_bridge.shoe.sequencer import ShoeSequencer


@dataclass(slots=True)
class FeedResult:
    events: list[ShoeEvent] = field(default_factory=list)
    resend_from: list[int] = field(default_factory=list)  # RESEND,<n> to send, in order
    reack: bool = False  # a retransmission arrived: ACK the last processed frame again
    valid_frames: int = 0  # frames that passed CRC and validation (link liveness)
    #: HELLOs of the boot already seen (retransmissions): the shoe may not have heard the
    #: station since it booted, so the station says the gate again
    hello_repeats: int = 0


class ShoeStream:
    def __init__(self, expected: int | None = None, boot_id: str | None = None) -> None:
        self.decoder = FrameDecoder("shoe")
        self.sequencer = ShoeSequencer(expected=expected, boot_id=boot_id)
        self.last_valid_at_s: float | None = None

    def feed(self, data: bytes, t_s: float) -> FeedResult:
        """Bytes that arrived at `t_s` (seconds, on the caller's clock)."""
        out = FeedResult()
        for frame in self.decoder.feed(data):
            out.valid_frames += 1
            self.last_valid_at_s = t_s
            verdict = self.sequencer.accept(frame, t_s)
            if verdict.resend_from is not None:
                out.resend_from.append(verdict.resend_from)
            if verdict.reack:
                out.reack = True
            if verdict.kind == "hello_repeat":
                out.hello_repeats += 1
            if verdict.process:
                out.events.append(
                    event_from_frame(frame.type, frame.fields, frame.seq, t_s, verdict.rebooted)
                )
        return out

    @property
    def last_processed(self) -> int | None:
        return self.sequencer.last_processed

    @property
    def counters(self) -> Counter[str]:
        c = Counter(self.decoder.counters)
        c.update(self.sequencer.counters)
        return c
