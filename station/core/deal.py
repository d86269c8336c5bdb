"""Deal tracking: which card of a round goes where, and whether the camera agrees.

Shared by every game that deals cards to positions by a plan (PROCEDURE.md §2.3, §6.2, §7.3):
the k-th card of a round goes to the k-th entry of the plan; the zones must hold what some
prefix of the plan would leave there (`order`); the camera's and the shoe's numbers of dealt
cards may differ only so long (`placement_timeout`); and a position is confirmed when the
camera shows all its cards face up and readable and they equal the shoe's reads as a set.
The tracker holds facts and answers questions; raising faults is the procedure's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from station.cards import Card, parse_card
from station.core.skeleton import BURN

FACE_DOWN, UNREADABLE, CUT_CARD = "??", "XX", "CUT"


def faces(cards: Sequence[str]) -> list[Card]:
    """The readable face-up cards of a zone."""
    return [parse_card(c) for c in cards if c not in (FACE_DOWN, UNREADABLE, CUT_CARD)]


def dealt_cards(zone: Sequence[str]) -> list[str]:
    """What lies in a zone that counts as dealt: the cut card is no card."""
    return [c for c in zone if c != CUT_CARD]


@dataclass(slots=True)
class DealtCard:
    position: str  # a position or BURN
    card: Card | None  # None: the shoe could not read it
    code: str | None = None
    read_us: int = 0  # when the shoe's read arrived


@dataclass(slots=True)
class DealTracker:
    plan: tuple[str, ...]
    positions: tuple[str, ...]
    cards: list[DealtCard] = field(default_factory=list)
    #: position -> the camera agreed (True) or disagreed (False) with the shoe
    confirmed: dict[str, bool] = field(default_factory=dict)
    camera_cards: dict[str, list[Card]] = field(default_factory=dict)
    #: positions whose unread card the camera supplies (after `unread_card` was resumed)
    single_source: set[str] = field(default_factory=set)
    differ_since_us: int | None = None
    placement_restarted_us: int = 0  # resume restarts the placement clock

    # ---- the shoe's side
    @property
    def complete(self) -> bool:
        return len(self.cards) >= len(self.plan)

    def add(self, card: Card | None, code: str | None, now_us: int) -> DealtCard | None:
        """The next card out; None when the plan is already complete (an extra card)."""
        if self.complete:
            return None
        d = DealtCard(self.plan[len(self.cards)], card, code, now_us)
        self.cards.append(d)
        return d

    def position_cards(self, position: str) -> list[DealtCard]:
        return [d for d in self.cards if d.position == position]

    def shoe_position_count(self) -> int:
        return sum(1 for d in self.cards if d.position != BURN)

    def all_read(self) -> bool:
        return all(d.card is not None for d in self.cards if d.position != BURN)

    def hands(self) -> dict[str, list[Card]]:
        out: dict[str, list[Card]] = {p: [] for p in self.positions}
        for d in self.cards:
            if d.position != BURN:
                assert d.card is not None
                out[d.position].append(d.card)
        return out

    # ---- the camera's side
    def zone_counts(self, zones: Mapping[str, Sequence[str]]) -> tuple[int, ...]:
        return tuple(len(dealt_cards(zones.get(p, []))) for p in self.positions)

    def seen_count(self, zones: Mapping[str, Sequence[str]]) -> int:
        return sum(self.zone_counts(zones))

    def prefix_counts(self) -> list[tuple[int, ...]]:
        """Cards per position after each prefix of the deal plan (burns left out)."""
        counts = dict.fromkeys(self.positions, 0)
        out = [tuple(counts.values())]
        for pos in self.plan:
            if pos == BURN:
                continue
            counts[pos] += 1
            out.append(tuple(counts.values()))
        return out

    def zones_follow_plan(self, zones: Mapping[str, Sequence[str]], lag_tolerant: bool) -> bool:
        """The zones hold what some prefix of the deal plan leaves there. With a lag-tolerant
        camera, one merely behind the shoe passes too: no zone holds more than the shoe's
        reads put there (a zone the dealer's hand just covered is reported late;
        `placement_timeout` catches a card that never shows)."""
        seen = self.zone_counts(zones)
        prefixes = self.prefix_counts()
        if seen in prefixes:
            return True
        if not lag_tolerant:
            return False
        dealt = prefixes[min(self.shoe_position_count(), len(prefixes) - 1)]
        return all(a <= b for a, b in zip(seen, dealt, strict=True))

    def placement_deadline(self, zones: Mapping[str, Sequence[str]], now_us: int,
                           lag_tolerant: bool, timeout_us: int) -> int | None:
        """When `placement_timeout` is due, counted from the moment the camera's and the
        shoe's numbers of dealt cards started to differ (None: they agree). Lag-tolerant,
        the clock starts no earlier than the read of the oldest card the camera has not yet
        shown, so a camera lagging card by card never accumulates the timeout."""
        seen, read = self.seen_count(zones), self.shoe_position_count()
        if seen == read:
            self.differ_since_us = None
            return None
        if self.differ_since_us is None:
            self.differ_since_us = now_us
        since = self.differ_since_us
        if lag_tolerant and seen < read:
            reads = [d.read_us for d in self.cards if d.position != BURN]
            since = max(since, reads[seen])
        since = max(since, self.placement_restarted_us)
        return since + timeout_us

    def compare(self, position: str, zone: Sequence[str], per_position: int) -> str | None:
        """Compare one position once both sources have spoken for all its cards:
        'confirmed', 'mismatch', or None (not comparable yet). An unread card in a
        single-source position is taken from the camera when the shoe's other reads agree."""
        shown = dealt_cards(zone)
        face_up = [c for c in shown if c != FACE_DOWN]
        dealt = self.position_cards(position)
        if (len(shown) != per_position or len(face_up) != per_position
                or UNREADABLE in shown or len(dealt) != per_position):
            return None
        seen = sorted(faces(shown))
        known = [d.card for d in dealt]
        if all(c is not None for c in known):
            if sorted(known) == seen:  # type: ignore[type-var]
                self.confirmed[position] = True
                self.camera_cards[position] = seen
                return "confirmed"
            self.confirmed[position] = False
            return "mismatch"
        if position not in self.single_source:
            return None
        rest = list(seen)
        for c in known:
            if c is not None:
                if c not in rest:
                    self.confirmed[position] = False
                    return "mismatch_single"
                rest.remove(c)
        self.confirmed[position] = True
        self.camera_cards[position] = seen
        fill = iter(rest)
        for d in dealt:
            if d.card is None:
                d.card = next(fill)
        return "confirmed"
