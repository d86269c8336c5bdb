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
#: The shoe keeps at most this many unacknowledged frames, HELLO (seq 0) among them: once the
#: station has processed a seq at or above it, the shoe's HELLO cannot still be waiting for an
#: ACK, so a HELLO of a boot never seen is a boot.
SHOE_BUFFER_FRAMES = 64
#: Resend bursts after a HELLO of a boot never seen that stop short of what the station has
#: processed, with no seq skipped, before that HELLO is taken for a boot (one burst may be
#: cut short by a frame the line spoiled at its end).
SHORT_BURSTS_FOR_A_BOOT = 2


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
    #: a HELLO of a boot after the station has seen an earlier one or processed its frames
    rebooted: bool = False
    #: in_order | hello | duplicate | gap | hello_repeat | undecided
    kind: str = "in_order"


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
    #: while no boot id is known (the station joined a running shoe without its HELLO, or
    #: restarted on a journal of such a join): what each recently processed seq carried, to
    #: tell a resend of those frames from another boot's frames of the same seqs
    _carried: dict[int, tuple[str, ...]] = field(default_factory=dict)
    #: a HELLO of a boot never seen, not yet known to be a resend or a boot (see `_unseen`)
    _unseen: _UnseenHello | None = None

    def accept(self, frame: Frame, now_s: float) -> Verdict:
        """Sort one valid frame; `now_s` is the station clock in seconds (it paces RESEND)."""
        if frame.type == "HELLO":
            boot = frame.fields[4].upper()
            if boot == self.boot_id:
                self.counters["duplicate"] += 1
                return Verdict(False, reack=True, kind="hello_repeat")
            if self.boot_id is None and self.expected is not None:
                return self._hello_of_an_unseen_boot(boot)
            # a boot: the first HELLO, or a new boot id
            return self._boot(boot, rebooted=self.boot_id is not None)
        if self._unseen is not None:
            verdict = self._after_unseen_hello(frame)
            if verdict is not None:
                return verdict
        if self.expected is None:
            self.expected = frame.seq
        if frame.seq == self.expected:
            self.last_processed = frame.seq
            self.expected = next_seq(frame.seq)
            if self.boot_id is None:
                self._carried[frame.seq] = (frame.type, *frame.fields)
                if len(self._carried) > SHOE_BUFFER_FRAMES:
                    del self._carried[next(iter(self._carried))]
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

    # ---- a HELLO of a boot never seen, after frames of an earlier boot ------------------
    #
    # The station joined a running shoe mid-stream (its HELLO gone before the port was
    # opened) and processed seqs up to L, or restarted on a journal of such a join. A HELLO
    # with a boot id it has never seen is then either
    # - a resend: the shoe has not yet had the ACK of the frame the station joined at, and
    #   resends every frame it holds, in order — HELLO, 1, 2, … up to at least L, the same
    #   frames the station processed; or
    # - a boot: the shoe was power-cycled, and its HELLO, 1, 2, … are new frames whose seqs
    #   merely repeat the old ones.
    # Taking a boot for a resend stalls the link (every new frame looks like a duplicate);
    # taking a resend for a boot processes frames twice. So the station decides on what the
    # frames show, never on how late they come (a slow journal commit delays the ACK and
    # makes a resend come late): it processes nothing and acknowledges nothing while
    # undecided, and the shoe, unacknowledged, resends until the frames decide.

    def _hello_of_an_unseen_boot(self, boot: str) -> Verdict:
        held = self._held_up_to()
        if held < 1 or held >= SHOE_BUFFER_FRAMES:
            # nothing held that the HELLO could precede, or more than the shoe can hold
            # unacknowledged behind it: this HELLO is not waiting for an ACK
            return self._boot(boot, rebooted=held >= 1)
        u = self._unseen
        if u is None or u.boot != boot:
            self._unseen = _UnseenHello(boot)
            self.counters["undecided"] += 1
            return Verdict(False, kind="undecided")
        if u.differs:
            return self._boot(boot, rebooted=True)
        if u.last_seq == 0:
            # a copy straight after a copy (doubled on the line): no burst between them
            self.counters["undecided"] += 1
            return Verdict(False, kind="undecided")
        first_carried = min(self._carried, default=held + 1)
        if not u.skipped and u.run < first_carried:
            # the burst since the last copy stopped before any frame the station can
            # compare (a resend would have gone on to `held`); once frames were compared
            # and matched, a short burst is a cut one and the next is waited for
            u.short_bursts += 1
            if u.short_bursts >= SHORT_BURSTS_FOR_A_BOOT:
                return self._boot(boot, rebooted=True)
        u.run, u.skipped, u.last_seq = 0, False, 0
        self.counters["undecided"] += 1
        return Verdict(False, kind="undecided")

    def _after_unseen_hello(self, frame: Frame) -> Verdict | None:
        """A frame after an undecided HELLO: a Verdict, or None when it is decided a resend
        and the frame is sorted as usual."""
        u = self._unseen
        assert u is not None
        carried = self._carried.get(frame.seq)
        if carried is not None:
            if carried != (frame.type, *frame.fields):
                u.differs = True  # another boot's frame: the next HELLO is taken as a boot
            elif frame.fields:
                # only a frame with content can match: a LOAD (no field) is every boot's
                # seq 1 after a power-up, and says nothing of which boot sent it
                u.matched = True
        # a seq not after the one before it, with no HELLO between: a burst that began
        # without the HELLO, so the shoe holds it no more — it had the ACK of the frame the
        # station joined at, and this is the stream the station joined
        # (taken so only past what the station processed, or after frames that matched: a
        # new boot's burst whose HELLO the line spoiled looks the same below that)
        burst_without_hello = (u.last_seq != 0 and frame.seq <= u.last_seq
                               and (frame.seq > self._held_up_to() or u.matched))
        u.last_seq = frame.seq
        if frame.seq == u.run + 1 and not u.skipped:
            u.run = frame.seq
        else:
            u.skipped = True
        if not u.differs and (u.run >= self._held_up_to() or burst_without_hello):
            # the burst reached what the station processed, every frame the same, or the
            # old stream goes on without the HELLO: it was a resend; the boot id is the shoe's
            self.boot_id, self._unseen = u.boot, None
            self._carried.clear()
            return None
        self.counters["undecided"] += 1
        return Verdict(False, kind="undecided")

    @property
    def undecided(self) -> bool:
        """A HELLO of a boot never seen awaits its decision: the station acknowledges
        nothing meanwhile (an ACK of the old stream's seqs would make a new boot drop
        frames it holds)."""
        return self._unseen is not None

    def _held_up_to(self) -> int:
        """The last seq the station processed (from its journal when it has no record)."""
        if self.last_processed is not None:
            return self.last_processed
        return 0 if self.expected is None else self.expected - 1

    def _boot(self, boot: str, *, rebooted: bool) -> Verdict:
        """A HELLO of a boot: expect seq 1 next (SHOE_PROTOCOL.md §4)."""
        self.boot_id = boot
        self.expected = 1
        self.last_processed = 0
        self._last_resend_at_s = None
        self._unseen = None
        self._carried.clear()
        return Verdict(True, rebooted=rebooted, kind="hello")


@dataclass(slots=True)
class _UnseenHello:
    """What followed a HELLO of a boot never seen, since its latest copy."""

    boot: str
    run: int = 0  # the seqs 1, 2, … that followed it without a gap, up to this one
    skipped: bool = False  # a seq came out of that order (a frame lost on the line)
    differs: bool = False  # a seq the station processed came with other content
    short_bursts: int = 0  # copies of the HELLO whose burst stopped short, none skipped
    last_seq: int = 0  # the seq of the frame before this one since the latest copy (0: none)
    matched: bool = False  # a seq the station processed came again with the same content
