"""The table core: PROCEDURE.md as one `transitions` state machine with a virtual clock.

One owner feeds it timestamped inputs (`apply`) in time order; before each input every timer
due by then fires at its own time, so live running and replay produce the same records. The
core never reads a clock, a device or a database: it is handed everything, and hands back
output records (TRACES.md §3), outbox messages for settlement and commands for the shoe.

The machine's states are the phases of a shoe; `paused` overlays them while a fault waits for
the floor supervisor. Each input updates the table's facts (shoe, round, zones, faults) and
then the machine follows the facts through a trigger named after the rule that moved it, so
the diagram drawn from the machine is the procedure the dealer sees.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from transitions import Machine

from firmware_bridge.shoe.events import (
    CardRead,
    Clear,
    Cut,
    Empty,
    Fault,
    Hello,
    Load,
    Reply,
    ShoeEvent,
    Unread,
)
from firmware_bridge.shoe.stream import ShoeStream
from station.cards import Card, ShoeContents, parse_card
from station.core.faults import FAULT_KINDS, ActiveFault
from station.core.inputs import US, Input, to_s
from station.core.settings import TableSettings
from station.games import get_game
from station.games.base import BURN, BetError

FACE_DOWN, UNREADABLE, CUT_CARD = "??", "XX", "CUT"

# faults that are events (recorded each time they happen), not conditions that persist
EVENT_FAULTS = frozenset({"early_card", "extra_card", "unread_card", "foreign_card",
                          "device_fault", "shoe_rebooted"})

STATES = [
    "idle",  # no shoe in play: waiting for the dealer's new_shoe
    "shuffling",  # new shoe: waiting for confirm_shuffle and LOAD
    "ready",  # waiting for the first card (it names the burn count)
    "burning",  # burn cards remain
    "between_rounds",  # waiting for open_betting
    "betting",  # countdown running, cards being dealt face down
    "dealing",  # betting closed, cards of the round still to come
    "revealing",  # all cards out: waiting for the camera to confirm each position
    "paused",  # a fault: waiting for the floor supervisor
    "closed",  # table closed by the supervisor
]

ROUND_PHASES = ("betting", "dealing", "revealing")

# (from, to) -> the trigger that moves the machine when the facts say so
FOLLOW: dict[tuple[str, str], str] = {
    ("shuffling", "ready"): "shuffle_confirmed_and_loaded",
    ("ready", "burning"): "first_card_shown",
    ("burning", "between_rounds"): "burns_complete",
    ("betting", "dealing"): "betting_closes",
    ("betting", "revealing"): "betting_closes",
    ("dealing", "revealing"): "all_cards_out",
    ("revealing", "between_rounds"): "hand_validated",
    ("revealing", "idle"): "hand_validated",
    ("between_rounds", "idle"): "shoe_ended",
    ("shuffling", "idle"): "shoe_ended",
    ("ready", "idle"): "shoe_ended",
    ("burning", "idle"): "shoe_ended",
}


def _transitions() -> list[dict[str, Any]]:
    t: list[dict[str, Any]] = []
    for (src, dst), trig in FOLLOW.items():
        t.append({"trigger": trig, "source": src, "dest": dst})
    t += [
        {"trigger": "new_shoe", "source": ["idle", "closed"], "dest": "shuffling"},
        {"trigger": "open_betting", "source": "between_rounds", "dest": "betting"},
        {"trigger": "fault", "source": [s for s in STATES if s not in ("paused", "closed")],
         "dest": "paused"},
        {"trigger": "round_cancelled", "source": ["paused", *ROUND_PHASES],
         "dest": "between_rounds", "unless": "is_last_round"},
        {"trigger": "round_cancelled", "source": ["paused", *ROUND_PHASES], "dest": "idle",
         "conditions": "is_last_round"},
        {"trigger": "shoe_ended", "source": "paused", "dest": "idle"},
        {"trigger": "close_table", "source": ["idle", "between_rounds", "shuffling", "ready",
                                              "burning", "paused"], "dest": "closed"},
    ]
    for dst in STATES:
        if dst not in ("paused",):
            t.append({"trigger": "resume", "source": "paused", "dest": dst,
                      "conditions": f"resumes_to_{dst}"})
    return t


@dataclass(slots=True)
class ShoeState:
    number: int
    confirmed: bool = False
    loaded: bool = False
    first_card: Card | None = None
    first_card_unread: bool = False
    burn_count: int = 0
    burns_left: int = 0
    contents: ShoeContents = field(default_factory=ShoeContents)
    cards_out: int = 0
    rounds_opened: int = 0
    cut_seen: bool = False
    last_round_number: int | None = None  # the round the cut card made the last one
    empty: bool = False
    ended: bool = False


@dataclass(slots=True)
class DealtCard:
    position: str  # a position or BURN
    card: Card | None  # None: the shoe could not read it
    code: str | None = None
    read_us: int = 0  # when the shoe's read arrived


@dataclass(slots=True)
class Bet:
    account: str
    spot: str
    amount: int
    deducted: int


@dataclass(slots=True)
class RoundState:
    number: int
    round_id: str
    opened_us: int
    closes_us: int
    closed: bool = False
    cards: list[DealtCard] = field(default_factory=list)
    bets: list[Bet] = field(default_factory=list)
    confirmed: dict[str, bool] = field(default_factory=dict)
    camera_cards: dict[str, list[Card]] = field(default_factory=dict)
    revealed: list[str] = field(default_factory=list)
    single_source: set[str] = field(default_factory=set)
    last_round: bool = False
    finished: bool = False
    all_out_us: int | None = None


class TableCore:
    """One table. Feed `apply(Input)` in time order; read `take_outputs()`."""

    def __init__(self, settings: TableSettings | None = None) -> None:
        self.settings = settings or TableSettings()
        self.game = get_game(self.settings.game)
        self.table = self.settings.table
        self.now = 0
        self._records: list[dict[str, Any]] = []
        self._messages: list[dict[str, Any]] = []
        self._commands: list[tuple[str, ...]] = []
        self.stream = ShoeStream()
        self.link_up = True
        self.last_valid_us: int | None = None
        self.boot_id: str | None = None
        self.device_faults: set[str] = set()
        self.pending_load = False
        self.balances: dict[str, int] = {}
        self.shoe_count = 0
        self.shoe: ShoeState | None = None
        self.round: RoundState | None = None
        self.table_closed = False
        self.zones: dict[str, list[str]] = {z: [] for z in self.game.zones}
        self.last_camera_us: int | None = None
        self.faults: list[ActiveFault] = []
        self.fault_counts: Counter[str] = Counter()
        self.timers: dict[str, int] = {}
        self._gate: str | None = None
        self._led: str | None = None
        self._wallet_seq = 0
        self.rounds_settled = 0
        self.history: list[dict[str, Any]] = []  # settled / cancelled rounds, newest last
        # the platform's idempotency refs, per shoe (a retried bet comes within seconds)
        self.bet_refs: dict[tuple[str, str], dict[str, Any]] = {}
        self.last_bet_decision: dict[str, Any] | None = None
        self.machine = Machine(
            model=self,
            states=STATES,
            transitions=_transitions(),
            initial="idle",
            auto_transitions=False,
            queued=True,
            send_event=False,
        )

    # ------------------------------------------------------------------ outputs
    def take_outputs(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[str, ...]]]:
        """Records, outbox messages and shoe commands produced since the last call."""
        out = (self._records, self._messages, self._commands)
        self._records, self._messages, self._commands = [], [], []
        return out

    def _emit(self, type_: str, **fields: Any) -> dict[str, Any]:
        rec = {"t": to_s(self.now), "type": type_, **fields}
        self._records.append(rec)
        return rec

    # ------------------------------------------------------------------ facts -> phase
    @property
    def phase(self) -> str:
        """Where the procedure stands, ignoring any pause."""
        if self.table_closed:
            return "closed"
        s = self.shoe
        if s is None or s.ended:
            return "idle"
        if not (s.confirmed and s.loaded):
            return "shuffling"
        if s.first_card is None and not s.first_card_unread:
            return "ready"
        if s.first_card is None or s.burns_left > 0:
            return "burning"
        r = self.round
        if r is None or r.finished:
            return "between_rounds"
        if not r.closed:
            return "betting"
        if len(r.cards) < self.game.cards_per_round:
            return "dealing"
        return "revealing"

    def _follow(self) -> None:
        """Move the machine to where the facts put the table (never out of a pause)."""
        for _ in range(8):
            if self.state in ("paused", "closed"):
                return
            ph = self.phase
            if ph == self.state:
                return
            trig = FOLLOW.get((self.state, ph))
            if trig is None:
                raise RuntimeError(f"table core: no rule takes {self.state} to {ph}")
            self.trigger(trig)

    # conditions for resume, named after where the table goes back to
    def __getattr__(self, name: str) -> Any:
        if name.startswith("resumes_to_"):
            target = name.removeprefix("resumes_to_")
            return lambda *a, **k: self.phase == target
        raise AttributeError(name)

    def is_last_round(self, *args: Any, **kwargs: Any) -> bool:
        return self.round is not None and self.round.last_round

    # ------------------------------------------------------------------ clock
    def _arm(self, name: str, due_us: int) -> None:
        self.timers[name] = due_us

    def _disarm(self, name: str) -> None:
        self.timers.pop(name, None)

    # betting closes *at* closes_at; the timeouts fire only once *more than* their time passed
    _INCLUSIVE = frozenset({"betting_close"})
    _ORDER = ("betting_close", "link", "camera", "placement", "reveal")

    def advance_to(self, t_us: int) -> None:
        """Fire every timer due before `t_us` (at `t_us` too for betting close) in time order."""
        while True:
            due = [
                (d, self._ORDER.index(n), n)
                for n, d in self.timers.items()
                if d < t_us or (d == t_us and (n in self._INCLUSIVE))
            ]
            if not due:
                break
            d, _, name = min(due)
            del self.timers[name]
            self.now = max(self.now, d)
            getattr(self, f"_timer_{name}")()
            self._after()
        self.now = max(self.now, t_us)

    def finish(self, t_us: int) -> None:
        """The trace ends at `t_us`: let time run there, then write the final balances."""
        self.advance_to(t_us)
        self._emit("balances", accounts=dict(sorted(self.balances.items())))

    # ------------------------------------------------------------------ inputs
    def apply(self, inp: Input) -> None:
        if inp.kind == "end":
            self.finish(inp.t_us)
            return
        self.advance_to(inp.t_us)
        self.now = inp.t_us
        handler = getattr(self, f"_on_{inp.kind}")
        handler(inp)
        self._after()

    def _on_tick(self, inp: Input) -> None:
        """The clock alone: timers due by now have already fired."""

    def _on_to_shoe(self, inp: Input) -> None:
        """Bytes the recording station sent to the shoe: informational only."""

    def _after(self) -> None:
        self._follow()
        self._check_validation()
        self._follow()
        self._device_state()

    # ---- shoe
    def _on_shoe(self, inp: Input) -> None:
        res = self.stream.feed(inp.value, self.now)
        if res.valid_frames:
            self.last_valid_us = self.now
            if not self.link_up:
                self.link_up = True
            self._arm("link", self.now + self._us(self.settings.link_lost_seconds))
        for n in res.resend_from:
            self._commands.append(("RESEND", str(n)))
        for ev in res.events:
            self._on_shoe_event(ev)
        if res.events or res.reack:
            lp = self.stream.last_processed
            if lp is not None:
                self._commands.append(("ACK", str(lp)))

    def _us(self, seconds: float) -> int:
        return round(seconds * US)

    def _on_shoe_event(self, ev: ShoeEvent) -> None:
        if isinstance(ev, Hello):
            self._on_hello(ev)
        elif isinstance(ev, Load):
            if self.shoe is not None and not self.shoe.ended:
                self.shoe.loaded = True
            else:
                self.pending_load = True
        elif isinstance(ev, CardRead):
            self._on_card(parse_card(ev.card), ev.code)
        elif isinstance(ev, Unread):
            self._on_card(None, None)
        elif isinstance(ev, Cut):
            self._on_cut()
        elif isinstance(ev, Empty):
            self._on_empty()
        elif isinstance(ev, Fault):
            self.device_faults.add(ev.code)
            self._fault("device_fault", f"shoe reports {ev.code}")
        elif isinstance(ev, Clear):
            self.device_faults.discard(ev.code)
        elif isinstance(ev, Reply):
            # the shoe answered a station command: the port stops resending it
            self._commands.append(("REPLY", str(ev.station_seq), ev.kind))
        # HB only proves the link is alive

    def _on_hello(self, ev: Hello) -> None:
        previous, self.boot_id = self.boot_id, ev.boot_id
        if previous is not None and previous != ev.boot_id and self.phase not in ("idle", "closed"):
            self._fault("shoe_rebooted", f"shoe {ev.serial} booted again (boot id {ev.boot_id})")

    def _round_in_progress(self) -> bool:
        return self.round is not None and not self.round.finished

    def _on_card(self, card: Card | None, code: str | None) -> None:
        shoe = self.shoe
        if shoe is not None and not shoe.ended:
            shoe.cards_out += 1
            if card is not None:
                problem = shoe.contents.draw(card, code)
                if problem:
                    # the card may lie face down in a zone: its identity stays in the journal
                    # (PROCEDURE.md §4); the supervisor learns what kind of problem it is
                    why = ("a printed code already seen in this shoe" if "code" in problem
                           else f"more copies of one card than {self.game.decks} decks hold")
                    self._fault("foreign_card", f"card {shoe.cards_out} of the shoe cannot "
                                f"belong to it: {why}")
        ph = self.phase
        if ph in ("idle", "shuffling", "closed", "between_rounds"):
            why = {
                "idle": "no shoe is in play",
                "closed": "the table is closed",
                "shuffling": "the shuffle is not confirmed and loaded",
                "between_rounds": "betting is not open",
            }[ph]
            # the card itself stays secret: it is set aside, never shown
            self._fault("early_card", f"a card left the shoe while {why}; set aside")
            return
        assert shoe is not None
        if ph == "ready":
            if card is None:
                shoe.first_card_unread = True
                if not self.settings.camera:
                    self._fault("unread_card", "the first card could not be read and no camera "
                                "is fitted to read it")
                    return
                self._take_first_card_from_camera()
                return
            self._set_first_card(card)
            return
        if ph == "burning":
            shoe.burns_left -= 1
            return
        r = self.round
        assert r is not None
        k = len(r.cards)
        if k >= self.game.cards_per_round:
            self._fault("extra_card", f"card {k + 1} of a {self.game.cards_per_round}-card round")
            return
        position = self.game.deal_plan[k]
        r.cards.append(DealtCard(position, card, code, self.now))
        if len(r.cards) == self.game.cards_per_round:
            r.all_out_us = self.now
            if r.closed:
                self._arm_reveal()
        if card is None and position != BURN:
            self._fault("unread_card", f"the shoe could not read card {k + 1} of the round ({position})")
        self._check_placement()
        if r.closed and self.settings.camera and position != BURN:
            # a reveal may be seen before the last read: compare now that the shoe has spoken
            self._check_reveals()

    def _set_first_card(self, card: Card) -> None:
        shoe = self.shoe
        assert shoe is not None
        shoe.first_card = card
        shoe.burn_count = self._burn_count(card)
        # burns drawn while an unread first card waited for the camera already count
        shoe.burns_left = shoe.burn_count + min(0, shoe.burns_left)
        self._emit("burn", shoe=shoe.number, first_card=str(card), count=shoe.burn_count)
        self._check_burn_zone()

    def _burn_count(self, card: Card) -> int:
        burn = getattr(self.game, "burn_count", None)
        return burn(card) if burn else 0

    def _take_first_card_from_camera(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.first_card is not None or not shoe.first_card_unread:
            return
        faces = self._faces(self.zones.get(BURN, []))
        if faces:
            self._set_first_card(faces[0])

    def _on_cut(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.ended:
            return
        if shoe.rounds_opened == 0:
            self._fault("cut_card_early", "the cut card came out before the first round opened")
            return
        shoe.cut_seen = True
        if self._round_in_progress():
            assert self.round is not None
            self.round.last_round = True
            shoe.last_round_number = self.round.number
        else:
            shoe.last_round_number = shoe.rounds_opened + 1

    def _on_empty(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.ended:
            return
        shoe.empty = True
        r = self.round
        ph = self.phase
        if ph in ("ready", "burning") or (
            self._round_in_progress() and r is not None and len(r.cards) < self.game.cards_per_round
        ):
            self._fault("shoe_exhausted", "the shoe is empty but cards are still due")
            return
        if self._round_in_progress() and r is not None:
            r.last_round = True
        elif ph == "between_rounds" and self.state != "paused":
            self._end_shoe()

    # ---- camera
    def _on_camera(self, inp: Input) -> None:
        self.last_camera_us = self.now
        changed = False
        for zone, cards in inp.value.items():
            if zone in self.zones and self.zones[zone] != cards:
                self.zones[zone] = list(cards)
                changed = True
        if self._round_in_progress() and self.settings.camera:
            self._arm("camera", self.now + self._us(self.settings.camera_lost_seconds))
        if not changed:
            return
        shoe = self.shoe
        if shoe is not None and not shoe.ended and shoe.rounds_opened == 0:
            if shoe.first_card_unread and shoe.first_card is None:
                self._take_first_card_from_camera()
            self._check_burn_zone()
            if self.phase in ("ready", "burning") and self._position_card_count() > 0:
                self._fault("burn_count", "a card lies in a position zone while burn cards remain")
        if self._round_in_progress():
            self._check_zones()

    @staticmethod
    def _faces(cards: list[str]) -> list[Card]:
        return [parse_card(c) for c in cards if c not in (FACE_DOWN, UNREADABLE, CUT_CARD)]

    def _check_burn_zone(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.first_card is None or shoe.first_card_unread:
            return
        faces = self._faces(self.zones.get(BURN, []))
        if faces and faces[0] != shoe.first_card:
            self._fault("card_mismatch", "the first card in the BURN zone is not the one the "
                        "shoe read")

    def _position_card_count(self) -> int:
        return sum(
            sum(1 for c in self.zones.get(p, []) if c != CUT_CARD) for p in self.game.positions
        )

    def _shoe_position_count(self) -> int:
        r = self.round
        return 0 if r is None else sum(1 for d in r.cards if d.position != BURN)

    def _zone_counts(self) -> tuple[int, ...]:
        return tuple(
            sum(1 for c in self.zones.get(p, []) if c != CUT_CARD) for p in self.game.positions
        )

    def _plan_prefix_counts(self) -> list[tuple[int, ...]]:
        """Cards per position after each prefix of the deal plan (burns left out)."""
        counts = dict.fromkeys(self.game.positions, 0)
        out = [tuple(counts.values())]
        for pos in self.game.deal_plan:
            if pos == BURN:
                continue
            counts[pos] += 1
            out.append(tuple(counts.values()))
        return out

    def _zones_follow_plan(self) -> bool:
        """The zones hold what some prefix of the deal plan leaves there. With
        `camera_lag_tolerant`, a camera merely behind the shoe passes too: no zone holds more
        than the shoe's reads put there (a zone the dealer's hand just covered is reported
        late; `placement_timeout` catches a card that never shows)."""
        seen = self._zone_counts()
        prefixes = self._plan_prefix_counts()
        if seen in prefixes:
            return True
        if not self.settings.camera_lag_tolerant:
            return False
        dealt = prefixes[min(self._shoe_position_count(), len(prefixes) - 1)]
        return all(a <= b for a, b in zip(seen, dealt, strict=True))

    def _check_zones(self) -> None:
        r = self.round
        assert r is not None
        if not self.settings.camera:
            return
        if not r.closed:
            for p in self.game.positions:
                if any(c not in (FACE_DOWN, CUT_CARD) for c in self.zones.get(p, [])):
                    self._fault("premature_reveal", f"a card face up in {p} while betting is open")
                    break
        if not self._zones_follow_plan():
            self._fault("order", "the cards in the position zones are not what the deal order "
                        "would leave there")
        self._check_placement()
        if r.closed:
            self._check_reveals()

    def _check_placement(self) -> None:
        """Arm the placement timer for the moment the camera's and the shoe's numbers of
        dealt cards started to differ. With `camera_lag_tolerant` the clock starts no earlier
        than the read of the oldest card the camera has not yet shown, so a camera lagging
        card by card during fast dealing never accumulates five seconds."""
        r = self.round
        if r is None or r.finished or not self.settings.camera:
            return
        seen, read = self._position_card_count(), self._shoe_position_count()
        if seen == read:
            self._differ_since = None
            self._disarm("placement")
            return
        if self._differ_since is None:
            self._differ_since = self.now
        since = self._differ_since
        if self.settings.camera_lag_tolerant and seen < read:
            reads = [d.read_us for d in r.cards if d.position != BURN]
            since = max(since, reads[seen])
        since = max(since, self._placement_restarted_us)
        self._arm("placement", since + self._us(self.settings.placement_timeout_seconds))

    _differ_since: int | None = None
    _placement_restarted_us = 0  # resume restarts the placement clock

    def _position_cards(self, position: str) -> list[DealtCard]:
        r = self.round
        return [] if r is None else [d for d in r.cards if d.position == position]

    def _check_reveals(self) -> None:
        r = self.round
        assert r is not None
        for p in self.game.positions:
            zone = [c for c in self.zones.get(p, []) if c != CUT_CARD]  # the cut card is no card
            face_up = [c for c in zone if c != FACE_DOWN]
            if face_up and p not in r.revealed:
                earlier = [q for q in self.game.positions[: self.game.positions.index(p)]
                           if q not in r.revealed]
                r.revealed.append(p)
                if earlier:
                    self._emit("warning", round_id=r.round_id, kind="reveal_order",
                               detail=f"{p} revealed before {', '.join(earlier)}")
            dealt = self._position_cards(p)
            if len(zone) != 2 or len(face_up) != 2 or UNREADABLE in zone or len(dealt) != 2:
                continue
            seen = sorted(self._faces(zone))
            known = [d.card for d in dealt]
            if all(c is not None for c in known):
                if sorted(known) == seen:  # type: ignore[type-var]
                    r.confirmed[p] = True
                    r.camera_cards[p] = seen
                else:
                    r.confirmed[p] = False
                    self._fault("card_mismatch", f"{p}: the camera reads {' '.join(map(str, seen))}"
                                f", which is not what the shoe dealt there", key=p)
            elif p in r.single_source:
                # an unread card: the camera supplies it, the shoe's other read must agree
                rest = list(seen)
                ok = True
                for c in known:
                    if c is not None:
                        if c in rest:
                            rest.remove(c)
                        else:
                            ok = False
                if ok:
                    r.confirmed[p] = True
                    r.camera_cards[p] = seen
                    it = iter(rest)
                    for d in dealt:
                        if d.card is None:
                            d.card = next(it)
                else:
                    r.confirmed[p] = False
                    self._fault("card_mismatch", f"{p}: the camera's cards do not include the "
                                "card the shoe read", key=p)

    # ---- validation and settlement
    def _check_validation(self) -> None:
        r = self.round
        if r is None or r.finished or self.state == "paused" or self.phase != "revealing":
            return
        if any(d.card is None for d in r.cards if d.position != BURN):
            return
        if self.settings.camera and not all(r.confirmed.get(p) for p in self.game.positions):
            return
        self._validate()

    def _hand_cards(self) -> dict[str, list[Card]]:
        r = self.round
        assert r is not None
        hands: dict[str, list[Card]] = {p: [] for p in self.game.positions}
        for d in r.cards:
            if d.position != BURN:
                assert d.card is not None
                hands[d.position].append(d.card)
        return hands

    def _validate(self) -> None:
        r = self.round
        assert r is not None and self.shoe is not None
        hands = self._hand_cards()
        results = self.game.evaluate(hands)
        validated_by = ["shoe", "camera"] if self.settings.camera else ["shoe"]
        hand = self._emit(
            "hand",
            round_id=r.round_id,
            shoe=self.shoe.number,
            round=r.number,
            cards={p: [str(c) for c in cs] for p, cs in hands.items()},
            results=results,
            last_round=r.last_round,
            validated_by=validated_by,
            **({"single_source": sorted(r.single_source)} if r.single_source else {}),
        )
        settled = []
        for b in r.bets:
            returned = self.game.returned(b.spot, b.amount, hands)
            self.balances[b.account] = self.balances.get(b.account, 0) + returned
            settled.append({"account": b.account, "spot": b.spot, "amount": b.amount,
                            "deducted": b.deducted, "returned": returned})
        self._emit("settlement", round_id=r.round_id, bets=settled)
        self._messages.append({
            "key": f"hand:{r.round_id}", "kind": "hand", "t": to_s(self.now),
            "round_id": r.round_id, "game": self.game.name, "cards": hand["cards"],
            "results": results, "validated_by": validated_by, "settlement": settled,
        })
        self._disarm("reveal")
        self._disarm("placement")
        self._disarm("camera")
        r.finished = True
        self.rounds_settled += 1
        self._remember({"round_id": r.round_id, "shoe": self.shoe.number, "round": r.number,
                             "cards": hand["cards"], "results": results,
                             "returned": sum(b["returned"] for b in settled),
                             "deducted": sum(b["deducted"] for b in settled),
                             "bets": len(settled), "t": to_s(self.now)})
        if r.last_round:
            self._end_shoe()

    HISTORY_KEPT = 200  # recent rounds kept in memory for the views; the journal has them all

    def _remember(self, entry: dict[str, Any]) -> None:
        self.history.append(entry)
        if len(self.history) > self.HISTORY_KEPT:
            del self.history[: len(self.history) - self.HISTORY_KEPT]

    def _end_shoe(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.ended:
            return
        shoe.ended = True
        self._emit("shoe_end", shoe=shoe.number, rounds=shoe.rounds_opened, cards_out=shoe.cards_out)
        for name in ("placement", "reveal", "camera"):
            self._disarm(name)

    # ---- faults
    def _fault(self, kind: str, detail: str, *, key: str | None = None) -> None:
        """Raise a fault. An event (a card, a shoe frame) is recorded every time it happens;
        a condition the camera or a timer keeps seeing is recorded once while it is active
        (per position, with `key`, for card mismatches)."""
        assert kind in FAULT_KINDS, kind
        rid = self.round.round_id if self._round_in_progress() and self.round else None
        if kind not in EVENT_FAULTS:
            for f in self.faults:
                if f.kind == kind and f.round_id == rid and f.key == key:
                    return  # already raised and not yet resolved
        self.faults.append(ActiveFault(kind, rid, detail, self.now, rid is not None, key))
        self.fault_counts[kind] += 1
        self._emit("fault", round_id=rid, kind=kind, detail=detail)
        if self.state not in ("paused", "closed"):
            self.trigger("fault")

    def _condition_holds(self, f: ActiveFault) -> str | None:
        """Why `resume` cannot clear this fault yet (None: it can)."""
        k = f.kind
        if k == "link_lost" and not self.link_up:
            return "the shoe link is still down"
        if k == "device_fault" and self.device_faults:
            return f"the shoe still reports {', '.join(sorted(self.device_faults))}"
        if k == "camera_lost" and not self._camera_alive():
            return "no camera frames yet"
        if k == "order" and self._round_in_progress() and not self._zones_follow_plan():
            return "the position zones still do not follow the deal order"
        if k == "burn_count" and self.phase in ("ready", "burning") and self._position_card_count():
            return "a position zone still holds a card"
        if k == "card_mismatch":
            shoe = self.shoe
            if self._round_in_progress() and self.round is not None:
                if any(v is False for v in self.round.confirmed.values()):
                    return "the camera still disagrees with the shoe"
            elif shoe is not None and shoe.first_card is not None and not shoe.first_card_unread:
                faces = self._faces(self.zones.get(BURN, []))
                if faces and faces[0] != shoe.first_card:
                    return "the BURN zone still shows another card"
        if k == "unread_card" and not self.settings.camera:
            return "no camera is fitted to read the card at reveal"
        return None

    def _camera_alive(self) -> bool:
        return self.last_camera_us is not None and (
            self.now - self.last_camera_us <= self._us(self.settings.camera_lost_seconds)
        )

    # ---- timers
    def _timer_betting_close(self) -> None:
        r = self.round
        if r is None or r.closed:
            return
        r.closed = True
        self._emit("betting_closed", round_id=r.round_id)
        if len(r.cards) >= self.game.cards_per_round:
            self._arm_reveal()
        if self.settings.camera and not r.finished:
            self._check_zones()

    def _arm_reveal(self) -> None:
        if self.settings.camera:
            self._arm("reveal", self.now + self._us(self.settings.reveal_timeout_seconds))

    def _timer_link(self) -> None:
        self.link_up = False
        if self.phase not in ("idle", "closed"):
            self._fault("link_lost", f"no valid frame from the shoe for "
                        f"{self.settings.link_lost_seconds:g} s")

    def _timer_camera(self) -> None:
        if self._round_in_progress() and self.settings.camera:
            self._fault("camera_lost", f"no camera observation for "
                        f"{self.settings.camera_lost_seconds:g} s while a round is open")

    def _timer_placement(self) -> None:
        if self._round_in_progress() and self._position_card_count() != self._shoe_position_count():
            self._fault("placement_timeout",
                        f"the camera sees {self._position_card_count()} dealt cards, the shoe "
                        f"reported {self._shoe_position_count()}")

    def _timer_reveal(self) -> None:
        r = self.round
        if r is None or r.finished:
            return
        waiting = [p for p in self.game.positions if not r.confirmed.get(p)]
        if waiting:
            self._fault("reveal_timeout", f"not confirmed by the camera: {', '.join(waiting)}")

    # ---- dealer and supervisor
    def _refuse(self, action: str, user: str | None, reason: str) -> None:
        rec: dict[str, Any] = {"action": action}
        if user is not None:
            rec["user"] = user
        rec["reason"] = reason
        self._emit("action_refused", **rec)

    def _on_dealer(self, inp: Input) -> None:
        getattr(self, f"_dealer_{inp.value}")(inp)

    def _dealer_new_shoe(self, inp: Input) -> None:
        if self.state == "paused":
            return self._refuse("new_shoe", None, "paused: the supervisor must decide first")
        if self.phase not in ("idle", "closed"):
            return self._refuse("new_shoe", None, "a shoe is still in play")
        self.table_closed = False
        self.shoe_count += 1
        self.shoe = ShoeState(self.shoe_count, contents=ShoeContents(self.game.decks))
        self.bet_refs.clear()
        if self.pending_load:
            self.shoe.loaded = True
            self.pending_load = False
        self.round = None
        self.trigger("new_shoe")
        self._emit("shoe_start", shoe=self.shoe.number)
        if not self.link_up:
            # the link went quiet while the table was idle: a new shoe cannot start blind
            self._fault("link_lost", "no valid frame from the shoe since "
                        f"{to_s(self.last_valid_us or 0):g} s")

    def _dealer_open_betting(self, inp: Input) -> None:
        reason = None
        shoe = self.shoe
        if self.state == "paused":
            reason = "paused"
        elif self.phase in ("idle", "closed"):
            reason = "no shoe in play"
        elif self.phase in ("shuffling", "ready"):
            reason = "the shoe is not ready: shuffle, load and first card first"
        elif self.phase == "burning":
            reason = f"burn cards remain ({shoe.burns_left if shoe else 0})"
        elif self.phase in ROUND_PHASES:
            reason = "a round is in progress"
        elif self.settings.camera and self._position_card_count() > 0:
            reason = "the position zones still hold cards"
        if reason:
            return self._refuse("open_betting", None, reason)
        assert shoe is not None
        shoe.rounds_opened += 1
        n = shoe.rounds_opened
        closes = self.now + self._us(self.settings.betting_seconds)
        r = RoundState(n, f"{self.table}-S{shoe.number}-R{n}", self.now, closes)
        r.last_round = shoe.last_round_number is not None and n >= shoe.last_round_number
        self.round = r
        self._arm("betting_close", closes)
        self._differ_since = None
        self._placement_restarted_us = 0
        self.trigger("open_betting")
        self._emit("round_open", round_id=r.round_id, shoe=shoe.number, round=n,
                   closes_at=to_s(closes))
        if self.settings.camera:
            # "no camera observation for 3 s while a round is open": counted from the last
            # observation, which may be older than the round
            limit = self._us(self.settings.camera_lost_seconds)
            last = self.last_camera_us if self.last_camera_us is not None else self.now
            if self.now - last > limit:
                self._timer_camera()
            else:
                self._arm("camera", last + limit)

    def _on_supervisor(self, inp: Input) -> None:
        getattr(self, f"_supervisor_{inp.value}")(inp.user)

    def _supervisor_confirm_shuffle(self, user: str | None) -> None:
        if self.state == "paused":
            return self._refuse("confirm_shuffle", user, "paused: decide the fault first")
        if self.phase != "shuffling" or self.shoe is None or self.shoe.confirmed:
            return self._refuse("confirm_shuffle", user, "no new shoe is waiting for its shuffle check")
        self.shoe.confirmed = True

    def _supervisor_resume(self, user: str | None) -> None:
        if self.state != "paused":
            return self._refuse("resume", user, "the table is not paused")
        for f in self.faults:
            if f.cancel_only:
                return self._refuse("resume", user, f"{f.kind} can only be cancelled")
            why = self._condition_holds(f)
            if why:
                return self._refuse("resume", user, f"{f.kind}: {why}")
        rid = self.round.round_id if self._round_in_progress() and self.round else None
        for f in self.faults:
            if f.kind == "unread_card" and self._round_in_progress() and self.round:
                for d in self.round.cards:
                    if d.card is None and d.position != BURN:
                        self.round.single_source.add(d.position)
        self.faults.clear()
        self._emit("resumed", round_id=rid, user=user)
        self.trigger("resume")
        if self._round_in_progress():
            self._placement_restarted_us = self.now
            self._check_placement()
            r = self.round
            assert r is not None
            if r.closed and len(r.cards) >= self.game.cards_per_round:
                self._arm_reveal()
            if self.settings.camera:
                self._arm("camera", self.now + self._us(self.settings.camera_lost_seconds))
                self._check_reveals()
        if self.shoe is not None and self.shoe.empty and self.phase == "between_rounds":
            self._end_shoe()

    def _supervisor_cancel_round(self, user: str | None) -> None:
        if not self._round_in_progress() or self.round is None:
            if self.state == "paused":
                # a fault outside a round (an early card, the first card, the link): there is
                # no round to void; cancelling ends the pause and nothing is dealt from it
                self.faults.clear()
                self._emit("resumed", round_id=None, user=user, action="cancel_round")
                self.trigger("resume")
                return None
            return self._refuse("cancel_round", user, "no round in progress")
        r = self.round
        reason = self.faults[0].kind if self.faults else "supervisor"
        refunds = []
        for b in r.bets:
            self.balances[b.account] = self.balances.get(b.account, 0) + b.deducted
            refunds.append({"account": b.account, "spot": b.spot, "amount": b.amount,
                            "deducted": b.deducted, "returned": b.deducted})
        r.finished = True
        self.faults.clear()
        for name in ("placement", "reveal", "camera", "betting_close"):
            self._disarm(name)
        self._emit("round_cancelled", round_id=r.round_id, reason=reason, refunds=refunds,
                   user=user)
        self._messages.append({"key": f"cancel:{r.round_id}", "kind": "round_cancelled",
                               "t": to_s(self.now), "round_id": r.round_id, "reason": reason})
        self._remember({"round_id": r.round_id, "shoe": self.shoe.number if self.shoe else 0,
                             "round": r.number, "cancelled": reason, "t": to_s(self.now),
                             "refunded": sum(b["returned"] for b in refunds),
                             "bets": len(refunds)})
        self.trigger("round_cancelled")
        if r.last_round or (self.shoe is not None and self.shoe.empty):
            self._end_shoe()
            if self.state != "idle":
                self.trigger("shoe_ended")

    def _supervisor_end_shoe(self, user: str | None) -> None:
        if self.shoe is None or self.shoe.ended:
            return self._refuse("end_shoe", user, "no shoe in play")
        if self._round_in_progress():
            return self._refuse("end_shoe", user, "a round is in progress: cancel it or finish it")
        self.faults.clear()
        self._end_shoe()
        if self.state == "paused":
            self.trigger("shoe_ended")

    def _supervisor_close_table(self, user: str | None) -> None:
        if self._round_in_progress():
            return self._refuse("close_table", user, "a round is in progress")
        if self.state == "closed":
            return self._refuse("close_table", user, "the table is already closed")
        self.faults.clear()
        self._end_shoe()
        self.table_closed = True
        self.trigger("close_table")

    # ---- money
    def _on_wallet(self, inp: Input) -> None:
        acct, bal = inp.value["account"], inp.value["balance"]
        self.balances[acct] = bal
        self._wallet_seq += 1
        self._messages.append({"key": f"wallet:{self._wallet_seq}", "kind": "wallet",
                               "t": to_s(self.now), "account": acct, "balance": bal})

    def _on_bet(self, inp: Input) -> None:
        v = inp.value
        ref = v.get("ref")
        if ref is not None:
            # the platform's idempotency key: a bet sent again (its answer was lost when the
            # station restarted) gets the first decision, and is never placed twice
            key = (v["account"], ref)
            if key in self.bet_refs:
                self.last_bet_decision = self.bet_refs[key]
                return
        rec = self.place_bet(v["account"], v["spot"], v["amount"])
        if ref is not None:
            rec["ref"] = ref
            self.bet_refs[(v["account"], ref)] = rec
        self.last_bet_decision = rec

    def bet_refusal(self, account: str, spot: str, amount: Any) -> tuple[str | None, int]:
        """The first TRACES.md reason that applies to this bet now, or None and the deduction."""
        shoe, r = self.shoe, self.round
        if shoe is None or shoe.ended or self.table_closed or shoe.rounds_opened == 0 or r is None:
            return "no_round", 0
        if r.finished or r.closed or self.now >= r.closes_us:
            return "betting_closed", 0
        if self.state == "paused":
            return "paused", 0
        try:
            deducted = self.game.check_bet(spot, amount)
        except BetError as e:
            return e.reason, 0
        if amount < self.settings.min_bet or (self.settings.max_bet and amount > self.settings.max_bet):
            return "limit", 0
        if self.balances.get(account, 0) < deducted:
            return "insufficient_funds", 0
        return None, deducted

    def place_bet(self, account: str, spot: str, amount: Any) -> dict[str, Any]:
        reason, deducted = self.bet_refusal(account, spot, amount)
        if reason is not None:
            return self._emit("bet_rejected", account=account, spot=spot, amount=amount,
                              reason=reason)
        r = self.round
        assert r is not None
        self.balances[account] -= deducted
        r.bets.append(Bet(account, spot, amount, deducted))
        self._messages.append({"key": f"bet:{r.round_id}:{len(r.bets)}", "kind": "bet",
                               "t": to_s(self.now), "round_id": r.round_id,
                               "game": self.game.name, "account": account, "spot": spot,
                               "amount": amount, "deducted": deducted})
        return self._emit("bet_accepted", round_id=r.round_id, account=account, spot=spot,
                          amount=amount, deducted=deducted)

    # ---- the shoe's gate and LED follow the table (SHOE_PROTOCOL.md §6)
    def _device_state(self) -> None:
        st = self.state
        due = st in ("ready", "burning", "betting", "dealing")
        gate = "UNLOCK" if due else "LOCK"
        led = "RED" if st == "paused" else "AMBER" if st == "betting" else "GREEN" if due else "OFF"
        if gate != self._gate:
            self._gate = gate
            self._commands.append((gate,))
        if led != self._led:
            self._led = led
            self._commands.append(("LED", led))
