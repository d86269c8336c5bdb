"""Si Zhi Dao's procedure at the table (PROCEDURE.md §7), plugged into the table kernel.

The kernel owns time, the shoe link, faults and the supervisor's decisions; the game itself
(seats, antes, betting, arranging, layers, buy-ins: `game.SiZhiDaoGame`) talks to the kernel
through its small API. This module adds what the devices establish: a fresh deck for every
deal (new shoe, shuffle check, LOAD), the deal plan's reads and the zone checks while a deal
is open, the showdown confirmed by the camera (four cards per seat, as a set), and the faults
of §7.9.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from station.cards import Card, ShoeContents
from station.core.deal import FACE_DOWN, DealTracker, dealt_cards, faces
from station.core.faults import FAULT_KINDS
from station.core.inputs import Input, to_s
from station.games.base import Procedure
from station.games.sizhidao.game import (
    ARRANGE_TIMER,
    BUY_IN_TIMER,
    DECISION_TIMER,
    DONE,
    GameSettings,
    SiZhiDaoGame,
)
from station.games.sizhidao.seats import SEATS
from station.games.sizhidao.views import own_parts, public_view

if TYPE_CHECKING:
    from station.core.faults import ActiveFault

#: the states of a Si Zhi Dao table besides paused and closed, in diagram order
ACTIVE_STATES = (
    "idle",
    "shuffling",
    "between_rounds",
    "game_open",
    "buying_in",
    "dealing",
    "betting",
    "arranging",
    "showdown",
)
#: the trigger that takes the table into each state when its facts say so
ENTER = {
    "idle": "table_idle",
    "shuffling": "shuffle_started",
    "between_rounds": "deck_ready",
    "game_open": "game_waits_for_deck",
    "buying_in": "buy_in_window_opens",
    "dealing": "deal_opens",
    "betting": "betting_starts",
    "arranging": "arranging_starts",
    "showdown": "showdown_starts",
}

#: every move the facts can make between two inputs (one input may jump phases: a deal whose
#: last read finds every other player disconnected goes from dealing to the layers at once)
MOVES = (
    ("idle", "shuffling"),
    ("idle", "game_open"),
    ("shuffling", "between_rounds"),
    ("shuffling", "idle"),
    ("between_rounds", "dealing"),
    ("between_rounds", "shuffling"),
    ("between_rounds", "idle"),
    ("game_open", "shuffling"),
    ("buying_in", "shuffling"),
    ("buying_in", "between_rounds"),
    ("buying_in", "game_open"),
    ("dealing", "betting"),
    ("dealing", "arranging"),
    ("dealing", "showdown"),
    ("dealing", "idle"),
    ("betting", "arranging"),
    ("betting", "showdown"),
    ("betting", "idle"),
    ("arranging", "showdown"),
    ("showdown", "idle"),
    ("showdown", "buying_in"),
    ("showdown", "game_open"),
)

SZ_FAULT_KINDS: dict[str, tuple[str, str]] = {
    **{
        k: FAULT_KINDS[k]
        for k in (
            "early_card",
            "order",
            "placement_timeout",
            "card_mismatch",
            "unread_card",
            "device_fault",
            "link_lost",
            "shoe_rebooted",
            "camera_lost",
        )
    },
    "extra_card": ("A card beyond the deal plan was drawn.", "cancel"),
    "foreign_card": ("A second read of one card within a deal, or the cut card.", "cancel"),
    "premature_reveal": ("A card face up in a seat zone before the showdown.", "cancel"),
    "shoe_exhausted": FAULT_KINDS["shoe_exhausted"],
    "reveal_timeout": (
        "A shown-down seat was not confirmed by the camera within {reveal_timeout_seconds:g} s.",
        "resume, cancel",
    ),
}


@dataclass(slots=True)
class Deck:
    """The freshly shuffled deck of one deal: its shuffle check, its LOAD, its cards."""

    number: int
    contents: ShoeContents
    confirmed: bool = False
    loaded: bool = False
    used: bool = False  # a deal opened from it
    ended: bool = False
    cards_out: int = 0

    @property
    def ready(self) -> bool:
        return self.confirmed and self.loaded and not self.used and not self.ended


#: the player refs a table remembers: the platform retries an action whose answer it lost
#: within seconds (a station restart), while this many actions take a full table many minutes
REFS_KEPT = 1000

class SiZhiDaoProcedure(Procedure):
    states = (*ACTIVE_STATES, "paused", "closed")
    follow = {(a, b): ENTER[b] for a, b in MOVES}
    round_phases = ("game_open", "buying_in", "dealing", "betting", "arranging", "showdown")
    # a game open while its next deal's deck is shuffled and checked (PROCEDURE.md §7.3)
    round_waits = ("shuffling", "between_rounds")
    # every deal has its own deck, and the seats, the lead and the wallets carry across games:
    # a file cut at a shoe would start mid-game with nobody seated (TRACES.md §1, §4)
    trace_per_shoe = False
    closable = ("idle", "shuffling", "between_rounds")
    cards_due_states = frozenset({"dealing"})
    betting_states = frozenset({"betting"})
    round_end_records = frozenset({"game_settled", "round_cancelled"})
    #: each deal's showdown: `<deal id>.png`, part of its game's evidence pack
    frame_records = frozenset({"showdown"})
    fault_kinds = SZ_FAULT_KINDS
    cancel_only = frozenset({"extra_card", "premature_reveal", "foreign_card", "shoe_exhausted"})
    event_faults = frozenset(
        {"early_card", "extra_card", "unread_card", "foreign_card", "device_fault", "shoe_rebooted"}
    )
    timer_order = (
        DECISION_TIMER,
        ARRANGE_TIMER,
        BUY_IN_TIMER,
        "link",
        "camera",
        "placement",
        "reveal",
    )
    # a decision, arrangement or buy-in exactly at the end of its time is too late (§7.4)
    inclusive_timers = frozenset({DECISION_TIMER, ARRANGE_TIMER, BUY_IN_TIMER})
    #: the table settings this game reads (a journal or trace header keeps them)
    settings_used = (
        "ante",
        "decision_seconds",
        "arrange_seconds",
        "buy_in_seconds",
        "placement_timeout_seconds",
        "reveal_timeout_seconds",
        "camera_lost_seconds",
        "link_lost_seconds",
        "camera_lag_tolerant",
    )

    def __init__(self, table: Any, game: Any) -> None:
        super().__init__(table, game)
        if not table.settings.camera:
            raise ValueError(
                "a Si Zhi Dao table runs with its camera: degraded mode is not "
                "offered for this game (PROCEDURE.md §7)"
            )
        own = table.settings.own
        self.sz = SiZhiDaoGame(
            table,
            GameSettings.from_seconds(
                own.ante, own.decision_seconds, own.arrange_seconds, own.buy_in_seconds
            ),
        )
        self.deck: Deck | None = None
        self.tracker: DealTracker | None = None
        self.tracker_deal: str | None = None
        #: seat -> what lay in its zone when the deal opened (the previous deal's cards, not yet
        #: seen taken away): the new deal's checks read the zone without them
        self.leftovers: dict[str, list[str]] = {}
        self.reveal_armed_deal: str | None = None
        self.clocks_stopped = False
        #: (account, ref) -> the records that answered it: a retried action is not re-applied.
        #: The latest REFS_KEPT only (oldest first): a game outlasts its shoes, so the
        #: kernel's per-shoe clearing never comes, and every snapshot carries them
        self.refs: dict[tuple[str, str], list[dict[str, Any]]] = {}
        #: what the table made of the last player action (the platform API answers with it)
        self.last_answer: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ money
    #: antes, bets and buy-ins move money from the wallets into the game's pot
    wallet_draws = frozenset({"pot_in"})
    #: the player actions that may put money into the pot (a fold or a decline puts none)
    DRAWING_ACTIONS = frozenset({"bet", "call", "raise", "all_in", "buy_in"})

    def may_draw(self, kind: str, value: Any) -> bool:
        if kind == "dealer":
            return value == "open_betting"  # the antes
        return (kind == "player" and isinstance(value, dict)
                and value.get("action") in self.DRAWING_ACTIONS)

    # ------------------------------------------------------------------ tables
    def dealer_handlers(self) -> dict[str, Any]:
        return {"new_shoe": self._dealer_new_shoe, "open_betting": self._dealer_open_betting}

    def timer_handlers(self) -> dict[str, Any]:
        return {
            **self.sz.timer_handlers(),
            "placement": self._timer_placement,
            "reveal": self._timer_reveal,
        }

    def player_handler(self) -> Any:
        return self._on_player

    # ------------------------------------------------------------------ facts -> phase
    def phase(self) -> str:
        d = self.sz.deal()
        if d is not None and d.phase != DONE:
            return d.phase
        g = self.sz.game
        if g is not None and g.window is not None:
            return "buying_in"
        deck = self.deck
        if deck is not None and not deck.ended and not deck.used:
            return "between_rounds" if deck.confirmed and deck.loaded else "shuffling"
        if g is not None:
            return "game_open"
        return "idle"

    def round_in_progress(self) -> bool:
        return self.sz.game_in_progress

    def round_id(self) -> str | None:
        return self.sz.game_id()

    def last_round(self) -> bool:
        # every deal has its own deck: after a cancel no shoe goes on
        return True

    def shoe_in_play(self) -> bool:
        return self.deck is not None and not self.deck.ended

    def cards_due(self) -> bool:
        return self.sz.cards_due()

    def camera_watched(self) -> bool:
        return self.sz.deal_in_progress()

    def _zones(self) -> dict[str, list[str]]:
        """The seat zones as the deal in progress reads them: cards that lay in a zone when
        the deal opened are not the deal's, while the zone still shows them all; once the
        camera sees them gone (or changed), the zone is read as it is."""
        zones = self.table.zones
        if not self.leftovers:
            return zones
        out = dict(zones)
        for seat, left in list(self.leftovers.items()):
            rest = _without(zones.get(seat, []), left)
            if rest is None:
                del self.leftovers[seat]
            else:
                out[seat] = rest
        return out

    # ------------------------------------------------------------------ players
    def _on_player(self, inp: Input) -> None:
        v = dict(inp.value)
        account, action = v.pop("account"), v.pop("action")
        ref = v.pop("ref", None)
        if ref is not None:
            # the platform's idempotency key: an action sent again (its answer was lost when
            # the station restarted) gets the first answer and is never applied twice
            key = (account, ref)
            if key in self.refs:
                self.last_answer = self.refs[key]
                return
        made = self.sz.player(account, action, v, paused=self.table.state == "paused")
        # the answer to this account never carries another player's private record
        answer = [r for r in made if r["type"] != "private"]
        self.last_answer = answer
        if ref is not None:
            self.refs[(account, ref)] = answer
            while len(self.refs) > REFS_KEPT:
                del self.refs[next(iter(self.refs))]

    # ------------------------------------------------------------------ dealer
    def _dealer_new_shoe(self, inp: Input) -> None:
        t = self.table
        if self.sz.deal_in_progress():
            return t.refuse("new_shoe", None, "deal_in_progress")
        was_closed = t.state == "closed"
        if self.deck is not None and not self.deck.ended:
            self._end_deck()
        number = t.begin_shoe()
        self.deck = Deck(number, ShoeContents(deck=self.game.deck))
        # a deal needs its LOAD after its new_shoe (§7.3): one that came before counts for
        # nothing (it is no fault either: the first card before a LOAD is early_card)
        t.take_pending_load()
        if was_closed:
            t.trigger("new_shoe")
        t.emit("shoe_start", shoe=number)
        t.after_new_shoe()
        return None

    def _dealer_open_betting(self, inp: Input) -> None:
        t = self.table
        reason = self.sz.open_betting_refusal(paused=t.state == "paused")
        if reason is None:
            reason = self.sz.open_betting()
        if reason is not None:
            t.refuse("open_betting", None, reason)

    def on_load(self) -> None:
        assert self.deck is not None
        self.deck.loaded = True

    def shuffle_refusal(self) -> str | None:
        deck = self.deck
        if deck is None or deck.ended or deck.used or deck.confirmed:
            return "no new shoe is waiting for its shuffle check"
        return None

    def confirm_shuffle(self) -> str | None:
        reason = self.shuffle_refusal()
        if reason is None:
            self.deck.confirmed = True
        return reason

    # ------------------------------------------------------------------ the shoe's cards
    def on_card(self, card: Card | None, code: str | None) -> None:
        t = self.table
        deck = self.deck
        d = self.sz.deal()
        in_deal = d is not None and d.phase != DONE and self.tracker is not None
        if deck is not None and not deck.ended:
            deck.cards_out += 1
            if card is not None and in_deal:
                problem = deck.contents.draw(card, code)
                if problem:
                    # the card may lie face down: its identity stays in the journal
                    t.raise_fault(
                        "foreign_card",
                        f"card {deck.cards_out} of the deal was read "
                        "before in this deal, or cannot belong to the deck",
                    )
        if not in_deal or not self.sz.cards_due():
            if in_deal:
                t.raise_fault("extra_card", "a card beyond the deal plan")
            else:
                t.raise_fault("early_card", "a card left the shoe when no deal was open; set aside")
            return
        assert self.tracker is not None and d is not None
        k = len(self.tracker.cards)
        dealt = self.tracker.add(card, code, t.now_us)
        assert dealt is not None
        self.sz.read(card, paused=t.state == "paused")
        if card is None:
            t.raise_fault(
                "unread_card",
                f"the shoe could not read card {k + 1} of the deal ({dealt.position})",
            )
        self._check_placement()

    def on_cut(self) -> None:
        # a one-deck shoe holds no cut card: a CUT is foreign_card, in a deal or not (§7.9)
        self.table.raise_fault("foreign_card", "the cut card came out of a one-deck shoe")

    def on_empty(self) -> None:
        # §3: EMPTY while the deal still needs cards; EMPTY when none is due is no fault
        if self.sz.cards_due():
            d = self.sz.deal()
            assert d is not None
            self.table.raise_fault(
                "shoe_exhausted",
                f"the shoe is empty after {d.cards_out} of the deal's {len(d.plan)} cards",
            )

    # ------------------------------------------------------------------ camera
    def on_camera(self, changed: bool) -> None:
        if changed and self.sz.deal_in_progress() and self.tracker is not None:
            self._check_zones()

    def _check_zones(self) -> None:
        t = self.table
        tr = self.tracker
        d = self.sz.deal()
        assert tr is not None and d is not None
        zones = self._zones()
        if d.showdown_from_us is None:
            for seat in SEATS:
                if any(c != FACE_DOWN for c in dealt_cards(zones.get(seat, []))):
                    t.raise_fault(
                        "premature_reveal", f"a card face up in {seat} before the showdown"
                    )
                    break
        if not tr.zones_follow_plan(zones, t.settings.camera_lag_tolerant):
            t.raise_fault(
                "order", "the cards in the seat zones are not what the deal order would leave there"
            )
        self._check_placement()
        if d.showdown_from_us is not None:
            self._check_showdown()

    def _check_placement(self) -> None:
        t = self.table
        tr = self.tracker
        if tr is None or not self.sz.deal_in_progress():
            return
        due = tr.placement_deadline(
            self._zones(),
            t.now_us,
            t.settings.camera_lag_tolerant,
            t.us(t.settings.placement_timeout_seconds),
        )
        if due is None:
            t.disarm("placement")
        else:
            t.arm("placement", due)

    def _check_showdown(self) -> None:
        tr = self.tracker
        assert tr is not None
        zones = self._zones()
        for seat in self.sz.shown_down():
            zone = dealt_cards(zones.get(seat, []))
            verdict = tr.compare(seat, zone, 4)
            if verdict in ("mismatch", "mismatch_single"):
                # the hand is public from the showdown's start: the camera's reading may be named
                seen = " ".join(str(c) for c in sorted(faces(zone)))
                self.table.raise_fault(
                    "card_mismatch",
                    f"{seat}: the camera reads {seen}, which is not what the shoe dealt there",
                    key=seat,
                )

    def _all_shown(self) -> bool:
        tr = self.tracker
        return tr is not None and all(tr.confirmed.get(s) for s in self.sz.shown_down())

    # ------------------------------------------------------------------ timers
    def _timer_placement(self) -> None:
        tr = self.tracker
        if tr is None or not self.sz.deal_in_progress():
            return
        seen, read = tr.seen_count(self._zones()), tr.shoe_position_count()
        if seen != read:
            self.table.raise_fault(
                "placement_timeout", f"the camera sees {seen} dealt cards, the shoe reported {read}"
            )

    def _timer_reveal(self) -> None:
        if self.sz.awaiting_showdown() and not self._all_shown():
            tr = self.tracker
            waiting = [s for s in self.sz.shown_down() if not (tr and tr.confirmed.get(s))]
            self.table.raise_fault(
                "reveal_timeout", f"not confirmed by the camera: {', '.join(waiting)}"
            )

    # ------------------------------------------------------------------ every input
    def after_input(self) -> None:
        t = self.table
        if t.state == "paused":
            # the decision, arrange and buy-in clocks stop while paused (§7.8)
            if not self.clocks_stopped:
                self.clocks_stopped = True
                self.sz.pause()
            return
        if self.clocks_stopped:
            # the pause ended without a resume (a cancel, end_shoe or close_table between
            # games): the next pause must stop the clocks again
            self.clocks_stopped = False
            self.sz.resume()
        d = self.sz.deal()
        if d is not None and d.deal_id == self.tracker_deal and self.sz.awaiting_showdown():
            if self.reveal_armed_deal != d.deal_id:
                # reveal_timeout counts 60 s from the showdown's start
                self.reveal_armed_deal = d.deal_id
                assert d.showdown_from_us is not None
                t.arm("reveal", d.showdown_from_us + t.us(t.settings.reveal_timeout_seconds))
                self._check_showdown()
            if self._all_shown():
                assert self.tracker is not None
                self.sz.showdown_confirmed(self.tracker.camera_cards)
        if self.tracker_deal is not None and not self.sz.deal_in_progress():
            self._deal_ended()
        if self.sz.deal_due() and self.deck is not None and self.deck.ready:
            self._open_deal()

    def _open_deal(self) -> None:
        t = self.table
        assert self.deck is not None
        self.deck.used = True
        zones = self.table.zones
        self.leftovers = {s: list(zones.get(s, [])) for s in SEATS if dealt_cards(zones.get(s, []))}
        d = self.sz.open_deal()
        self.tracker = DealTracker(tuple(d.plan), SEATS)
        self.tracker_deal = d.deal_id
        t.watch_camera()

    def _deal_ended(self) -> None:
        """The deal's `layers` record is written: zone checks stop, its deck is done."""
        self.tracker_deal = None
        self.leftovers = {}
        self.table.disarm("placement", "reveal", "camera")
        self._end_deck()

    def _end_deck(self) -> None:
        deck = self.deck
        if deck is None or deck.ended:
            return
        deck.ended = True
        self.table.emit(
            "shoe_end", shoe=deck.number, rounds=1 if deck.used else 0, cards_out=deck.cards_out
        )

    # ------------------------------------------------------------------ decisions
    def condition_holds(self, f: ActiveFault) -> str | None:
        t = self.table
        tr = self.tracker
        if (
            f.kind == "order"
            and tr is not None
            and self.sz.deal_in_progress()
            and not tr.zones_follow_plan(self._zones(), t.settings.camera_lag_tolerant)
        ):
            return "the seat zones still do not follow the deal order"
        if (
            f.kind == "card_mismatch"
            and tr is not None
            and any(v is False for v in tr.confirmed.values())
        ):
            return "the camera still disagrees with the shoe"
        return None

    def resuming(self, faults: list[ActiveFault]) -> None:
        tr = self.tracker
        if tr is None:
            return
        for f in faults:
            if f.kind == "unread_card":
                for dc in tr.cards:
                    if dc.card is None:
                        tr.single_source.add(dc.position)

    def on_resume(self) -> None:
        t = self.table
        self.clocks_stopped = False
        self.sz.resume()
        tr = self.tracker
        if tr is not None and self.sz.deal_in_progress():
            tr.placement_restarted_us = t.now_us
            self._check_placement()
            if self.sz.awaiting_showdown():
                t.arm("reveal", t.now_us + t.us(t.settings.reveal_timeout_seconds))
                self._check_showdown()

    def cancel_outside_round(self, user: str | None) -> bool:
        return any(f.cancel_only for f in self.table.faults)

    def cancel_round(self, user: str | None, reason: str) -> None:
        t = self.table
        game_id = self.sz.game_id()
        self.sz.cancel(reason)
        self.clocks_stopped = False
        self.tracker = None
        self.tracker_deal = None
        t.disarm("placement", "reveal", "camera")
        self._end_deck()
        t.remember({"round_id": game_id, "cancelled": reason, "t": to_s(t.now_us)})

    def end_shoe(self) -> None:
        if not self.sz.deal_in_progress():
            self._end_deck()

    # ------------------------------------------------------------------ money and views
    def bet_window(self) -> str | None:
        return "no_round"

    def view(self) -> dict[str, Any]:
        t = self.table
        due = {name: to_s(us) for name, us in t.timers.items()}
        return {"sizhidao": public_view(self.sz, due)}

    # ------------------------------------------------------------------ decisions offered
    round_word = "game"

    def decisions(self) -> list[dict[str, Any]]:
        """What the dealer and the supervisor may do now, with the reason for what they may
        not: the same checks as `_dealer_new_shoe`, `_dealer_open_betting` (antes included)
        and the kernel's supervisor decisions (station/games/decisions.py)."""
        from station.games.decisions import decision, ordered, supervisor_decisions
        from station.games.sizhidao.seats import MIN_PLAYERS

        t = self.table
        sz = self.sz
        deck = self.deck
        paused = t.state == "paused"
        why = "a deal is in progress" if sz.deal_in_progress() else None
        out = [decision("new_shoe", why, "a fresh deck for the next deal: the supervisor then "
                        "checks the shuffle")]
        refusal = sz.open_betting_refusal(paused=paused)
        ante = sz.settings.ante
        payers = sum(1 for a in sz.seating.seats.values() if sz.port.purse.balance(a) >= ante)
        if refusal == "game_in_progress":
            why = "a game is in progress"
        elif refusal == "paused":
            why = "paused: the supervisor must decide first"
        elif refusal is not None or payers < MIN_PLAYERS:
            seated = len(sz.seating.seats)
            why = (f"not enough players: {seated} seated, {payers} can pay the ante of {ante}; "
                   f"{MIN_PLAYERS} are needed")
        else:
            why = None
        out.append(decision("open_betting", why,
                            f"start a game: every seated player pays the ante of {ante}"))
        g = sz.game
        cancel = ""
        if g is not None:
            pot = sum(e.amount for e in g.entries)
            healthy = "" if paused else " although nothing is wrong with it"
            cancel = (f"void game {g.game_id}{healthy}: every ante, bet and buy-in refunded "
                      f"({pot} in the pot); the leader stays")
        out += supervisor_decisions(
            self, cancel_effect=cancel,
            shoe_label=f"shoe {deck.number}" if deck is not None and not deck.ended else None)
        return ordered(out)

    def private_views(self) -> dict[str, dict[str, Any]]:
        """Each account's own part of its view (its seat, its cards): for that account alone
        (the live player API hands account A only `private_views()[A]`)."""
        return own_parts(self.sz)


def _without(zone: list[str], left: list[str]) -> list[str] | None:
    """`zone` less the cards in `left` (as a multiset), or None when the zone no longer holds
    them all."""
    rest = list(zone)
    for c in left:
        if c not in rest:
            return None
        rest.remove(c)
    return rest
