"""In-order processing of the shoe's sequenced frames (SHOE_PROTOCOL.md §4).

Pure and clock-free apart from the times it is handed, so the live driver and trace replay
run exactly the same logic: the same trace gives the same events, the same duplicates
suppressed and the same RESEND decisions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from firmware_bridge.shoe.codec import Frame

SEQ_MAX = 65535
DUPLICATE_WINDOW = 1024
RESEND_MIN_INTERVAL_S = 0.100
#: A station that joined a running shoe without its HELLO acknowledges the first frame it
#: took, which covers the HELLO; until that ACK reaches the shoe the HELLO can still come as
#: part of a resend burst. A HELLO of a boot never seen that comes later than this after the
#: join is the shoe booting again (seconds on the station's clock).
JOIN_HELLO_GRACE_S = 2.0
#: A HELLO taken for such a retransmission but still being resent this long after, with no
#: frame processed since, is a boot after all: the shoe is not hearing ACKs it can use.
HELLO_STILL_RESENT_S = 3.0


def next_seq(seq: int) -> int:
    """The seq after `seq` in the shoe's stream: 1..65535 then 1 again (0 is HELLO's)."""
    return 1 if seq >= SEQ_MAX else seq + 1


def seq_distance_back(expected: int, seq: int) -> int:
    """How many steps `seq` lies before `expected` on the 1..65535 ring (0 = same)."""
    return ((expected - 1) - (seq - 1)) % SEQ_MAX


@dataclass(slots=True)
class Verdict:
    """What to do with one valid frame."""

    process: bool  # hand it on (it is the next in order)
    resend_from: int | None = None  # send RESEND,<n>
    reack: bool = False  # re-acknowledge the last processed frame
    rebooted: bool = False  # a HELLO with a new boot id after one was seen
    kind: str = "in_order"  # in_order | hello | duplicate | gap | hello_repeat


@dataclass(slots=True)
class ShoeSequencer:
    """Tracks the seq the station expects next and sorts each valid frame.

    `expected` is None until the first frame when the station has no record of its own;
    a station restarting from its journal passes last processed + 1 (and the boot id).
    """

    expected: int | None = None
    boot_id: str | None = None
    last_processed: int | None = None
    counters: Counter[str] = field(default_factory=Counter)
    _last_resend_at_s: float | None = None
    #: when the station took a frame other than HELLO as its start (no HELLO, no record)
    _joined_at_s: float | None = None
    #: when a HELLO of an unseen boot was taken for a retransmission after such a join
    _hello_adopted_at_s: float | None = None

    def accept(self, frame: Frame, now_s: float) -> Verdict:
        """Sort one valid frame; `now_s` is the station clock in seconds (it paces RESEND)."""
        if frame.type == "HELLO":
            boot = frame.fields[4].upper()
            if boot == self.boot_id:
                if (self._hello_adopted_at_s is not None
                        and now_s - self._hello_adopted_at_s >= HELLO_STILL_RESENT_S):
                    # still resent long after the join: the shoe never took the ACKs this
                    # station sends, its frames are another boot's (a station restarted on
                    # its journal while the shoe was power-cycled, its HELLO unseen)
                    return self._boot(boot, rebooted=True)
                self.counters["duplicate"] += 1
                return Verdict(False, reack=True, kind="hello_repeat")
            if (self.boot_id is None and self.expected is not None
                    and self._joined_at_s is not None
                    and now_s - self._joined_at_s < JOIN_HELLO_GRACE_S):
                # The station joined a running shoe mid-stream (no HELLO, no record of its
                # own) and has just taken a later frame as its start and acknowledged it:
                # this HELLO is a retransmission still on the wire, not a reboot.
                # Restarting at seq 1 would wait forever for frames the shoe has dropped.
                self.boot_id = boot
                self._hello_adopted_at_s = now_s
                self.counters["duplicate"] += 1
                return Verdict(False, reack=True, kind="hello_repeat")
            # a boot: the first HELLO, a new boot id, or a HELLO of a boot never seen that
            # comes after the station has processed frames of the shoe's earlier boot
            return self._boot(boot, rebooted=self.boot_id is not None
                              or self.last_processed is not None)
        if self.expected is None:
            self.expected = frame.seq
            self._joined_at_s = now_s
        if frame.seq == self.expected:
            self._hello_adopted_at_s = None  # the stream moves on: the join was right
            self.last_processed = frame.seq
            self.expected = next_seq(frame.seq)
            return Verdict(True)
        back = seq_distance_back(self.expected, frame.seq)
        if 1 <= back <= DUPLICATE_WINDOW:
            self.counters["duplicate"] += 1
            return Verdict(False, reack=True, kind="duplicate")
        self.counters["gap"] += 1
        if (self._last_resend_at_s is None
                or now_s - self._last_resend_at_s >= RESEND_MIN_INTERVAL_S):
            self._last_resend_at_s = now_s
            return Verdict(False, resend_from=self.expected, kind="gap")
        return Verdict(False, kind="gap")

    def _boot(self, boot: str, *, rebooted: bool) -> Verdict:
        """A HELLO of a boot: expect seq 1 next (SHOE_PROTOCOL.md §4)."""
        self.boot_id = boot
        self.expected = 1
        self.last_processed = 0
        self._last_resend_at_s = None
        self._joined_at_s = self._hello_adopted_at_s = None
        return Verdict(True, rebooted=rebooted, kind="hello")
