"""One round against the house with dealt cards, as the house-banked games run it
(PROCEDURE.md §3, §5, §6): betting opened by the dealer and closed by its countdown, the
cards out and confirmed by the camera, validation and settlement, cancel and its refunds,
the end of the shoe, and the decisions a screen offers, each judged by the check the
table refuses with.

A game keeps its words (what a shoe is called, what its refusals say), its round (`new_round`),
its deal plan and reveal (`on_card`, the camera checks, `after_close`), what its hand record
adds (`hand_facts`, `hand_proof`) and its last-round rule (`last_round`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from station.cards import ShoeContents
from station.core.bets import refund_lines
from station.core.inputs import Input, to_s
from station.core.skeleton import BURN
from station.games.base import Procedure
from station.games.dealt_rounds import DealtRounds
from station.games.decisions import PAUSED, decision, ordered, supervisor_decisions
from station.games.house_bets import HouseBets


@dataclass(slots=True)
class HouseShoe:
    """What every house game's shoe starts with; the game's class adds its own facts (and
    keeps `cards_out`, `rounds_opened`, `empty` and `ended`)."""

    number: int
    contents: ShoeContents
    confirmed: bool = False
    loaded: bool = False


@dataclass(slots=True)
class HouseRoundState:
    """What every house game's round starts with; the game's class adds its own facts (and
    keeps `bets`, `closed`, `finished` and `deal`)."""

    number: int
    round_id: str
    opened_us: int
    closes_us: int


class HouseRound(DealtRounds, HouseBets, Procedure):
    """A `Procedure` whose rounds are dealt against the house. The game's `shoe` keeps
    `number`, `confirmed`, `loaded`, `cards_out`, `rounds_opened`, `empty` and `ended`; its
    round keeps `number`, `round_id`, `bets`, `closed`, `finished` and `deal`."""

    dealer_transitions = (("open_betting", ("between_rounds",), "betting"),)
    betting_states = frozenset({"betting"})
    round_end_records = frozenset({"settlement", "round_cancelled"})
    frame_records = frozenset({"hand"})
    event_faults = frozenset({"early_card", "extra_card", "unread_card", "foreign_card",
                              "device_fault", "shoe_rebooted"})

    #: the phase in which a round whose cards are all out waits for the camera's confirmation
    validating_phase: str = "revealing"
    #: what a shoe is called at this table, in sentences for the floor
    shoe_word: str = "shoe"
    #: what the supervisor hears when no shuffle waits for the check
    shuffle_waiting_refusal: str = "no new shoe is waiting for its shuffle check"
    #: what the new_shoe decision does, for the floor
    new_shoe_effect: str = "start a new shoe: the supervisor then confirms the shuffle"
    #: what the camera's zones that receive hands are called
    zones_word: str = "position"
    #: why an `order` fault still holds, and why an unread card does without a camera
    order_holds: str = "the position zones still do not follow the deal order"
    unread_holds: str = "no camera is fitted to read the card"
    #: the clocks of a round (a cancel stops them) and of a shoe (its end stops them)
    round_timers: tuple[str, ...] = ("placement", "reveal", "camera", "betting_close")
    shoe_timers: tuple[str, ...] = ("placement", "reveal", "camera")

    #: the game's state of a shoe: made as `shoe_class(number, contents)`
    shoe_class: Any

    def __init__(self, table: Any, game: Any) -> None:
        super().__init__(table, game)
        self.shoe = None
        self.round = None

    def new_shoe_state(self, number: int) -> Any:
        return self.shoe_class(number, ShoeContents(deck=self.game.deck))

    @staticmethod
    def round_follow(validating: str) -> dict[tuple[str, str], str]:
        """The machine's moves every house round makes by its facts, `validating` the phase
        in which its dealt cards wait for the camera."""
        return {("dealing", validating): "all_cards_out",
                (validating, "between_rounds"): "hand_validated",
                (validating, "idle"): "hand_validated",
                ("between_rounds", "idle"): "shoe_ended",
                ("shuffling", "idle"): "shoe_ended"}

    def shoe_phase(self) -> str | None:
        """`idle` with no shoe in play, `shuffling` until it is checked and loaded; None
        once the game's own facts say where the table is."""
        s = self.shoe
        if s is None or s.ended:
            return "idle"
        if not (s.confirmed and s.loaded):
            return "shuffling"
        return None

    # ------------------------------------------------------------------ the game's part
    def new_round(self, number: int, round_id: str, opened_us: int, closes_us: int) -> Any:
        """The game's state of the round the dealer opens."""
        raise NotImplementedError

    def after_close(self) -> None:
        """Betting has just closed on the round in progress."""

    def hand_facts(self) -> dict[str, Any]:
        """What the game's hand record and history say of the round between its cards and
        its results (the dice of a game that throws them)."""
        return {}

    def hand_proof(self) -> dict[str, Any]:
        """What the hand record adds after `validated_by` (the positions only one source
        read)."""
        return {}

    def cancel_note(self) -> str:
        """What cancelling the round in progress also does, for the floor ("" for nothing)."""
        return ""

    def shoe_not_ready(self) -> str | None:
        """Why the shoe in play cannot open a round yet (its shuffle, its burn, its count of
        rounds), between rounds; None when it can."""
        return None

    def game_condition_holds(self, fault: Any) -> str | None:
        """Why a fault of the game's own still holds (None: it has cleared)."""
        return None

    def open_betting_refusal(self) -> str | None:
        """Why the dealer may not open betting now, the pause aside."""
        if self.table.phase in ("idle", "closed"):
            return f"no {self.shoe_word} in play"
        if self.table.phase in self.round_phases:
            return "a round is in progress"
        why = self.shoe_not_ready()
        if why:
            return why
        if self.camera and self._position_card_count() > 0:
            return f"the {self.zones_word} zones still hold cards"
        return None

    # ------------------------------------------------------------------ the dealer
    def dealer_handlers(self) -> dict[str, Any]:
        return {"new_shoe": self._dealer_new_shoe, "open_betting": self._dealer_open_betting}

    def _open_betting_refusal(self) -> str | None:
        return "paused" if self.table.state == "paused" else self.open_betting_refusal()

    def _dealer_open_betting(self, inp: Input) -> None:
        t = self.table
        shoe = self.shoe
        reason = self._open_betting_refusal()
        if reason:
            return t.refuse("open_betting", None, reason)
        assert shoe is not None
        shoe.rounds_opened += 1
        n = shoe.rounds_opened
        closes = t.now_us + t.us(t.settings.betting_seconds)
        r = self.round = self.new_round(n, f"{t.table}-S{shoe.number}-R{n}", t.now_us, closes)
        t.arm("betting_close", closes)
        t.trigger("open_betting")
        t.emit("round_open", round_id=r.round_id, shoe=shoe.number, round=n,
               closes_at=to_s(closes))
        t.watch_camera()
        return None

    def _timer_betting_close(self) -> None:
        r = self.round
        if r is None or r.closed:
            return
        r.closed = True
        self.table.emit("betting_closed", round_id=r.round_id)
        self.after_close()

    # ------------------------------------------------------------------ the shoe
    def foreign_words(self, problem: str) -> str:
        """Why a card cannot belong to the shoe, in the game's words (`problem`: what
        `ShoeContents.draw` found)."""
        return problem

    def _draw(self, card: Any, code: str | None) -> None:
        """A card left the shoe in play: count it and take it from the shoe's contents. The
        card may lie face down in a zone: its identity stays in the journal (PROCEDURE.md
        §4); the supervisor learns what kind of problem it is."""
        shoe = self.shoe
        if shoe is None or shoe.ended:
            return
        shoe.cards_out += 1
        if card is not None:
            problem = shoe.contents.draw(card, code)
            if problem:
                self.table.raise_fault("foreign_card", f"card {shoe.cards_out} of the "
                                       f"{self.shoe_word} cannot belong to it: "
                                       f"{self.foreign_words(problem)}")

    def on_load(self) -> None:
        if self.shoe is not None:
            self.shoe.loaded = True

    def shuffle_refusal(self) -> str | None:
        if self.table.phase != "shuffling" or self.shoe is None or self.shoe.confirmed:
            return self.shuffle_waiting_refusal
        return None

    def confirm_shuffle(self) -> str | None:
        reason = self.shuffle_refusal()
        if reason is None:
            self.shoe.confirmed = True
        return reason

    def end_shoe(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.ended:
            return
        shoe.ended = True
        self.table.emit("shoe_end", shoe=shoe.number, rounds=shoe.rounds_opened,
                        cards_out=shoe.cards_out)
        self.table.disarm(*self.shoe_timers)

    # ------------------------------------------------------------------ faults
    def is_cancel_only(self, kind: str, in_round: bool) -> bool:
        # without a camera nothing can supply an unread card: only cancel clears it
        if kind == "unread_card" and not self.camera:
            return True
        return super().is_cancel_only(kind, in_round)

    def condition_holds(self, f: Any) -> str | None:
        r = self.round
        dealt = self.round_in_progress() and r is not None and r.deal is not None
        if f.kind == "order" and dealt and not r.deal.zones_follow_plan(
                self.table.zones, self.table.settings.camera_lag_tolerant):
            return self.order_holds
        if f.kind == "card_mismatch" and dealt and any(v is False for v in r.deal.confirmed.values()):
            return "the camera still disagrees with the shoe"
        if f.kind == "unread_card" and not self.camera:
            return self.unread_holds
        return self.game_condition_holds(f)

    def resuming(self, faults: list[Any]) -> None:
        """An unread card the supervisor resumes past is read by the camera alone."""
        r = self.round
        if r is None or r.deal is None or not self.round_in_progress():
            return
        for f in faults:
            if f.kind == "unread_card":
                for d in r.deal.cards:
                    if d.card is None and d.position != BURN:
                        r.deal.single_source.add(d.position)

    def cancel_round(self, user: str | None, reason: str) -> None:
        t = self.table
        r = self.round
        assert r is not None
        refunds = refund_lines(r.bets)
        for b in r.bets:
            t.credit(b.account, b.deducted)
        r.finished = True
        t.disarm(*self.round_timers)
        t.emit("round_cancelled", round_id=r.round_id, reason=reason, refunds=refunds, user=user)
        t.message(f"cancel:{r.round_id}", "round_cancelled", round_id=r.round_id, reason=reason)
        t.remember({"round_id": r.round_id, "shoe": self.shoe.number if self.shoe else 0,
                    "round": r.number, "cancelled": reason, "t": to_s(t.now_us),
                    "refunded": sum(b["returned"] for b in refunds), "bets": len(refunds)})

    # ------------------------------------------------------------------ validation
    def after_input(self) -> None:
        t = self.table
        r = self.round
        if r is None or r.finished or t.state == "paused" or t.phase != self.validating_phase:
            return
        if not r.deal.all_read():
            return
        if self.camera and not all(r.deal.confirmed.get(p) for p in self.game.positions):
            return
        self._validate()

    def _validate(self) -> None:
        t = self.table
        r = self.round
        assert r is not None and r.deal is not None and self.shoe is not None
        hands = r.deal.hands()
        results = self.game.evaluate(hands)
        validated_by = ["shoe", "camera"] if self.camera else ["shoe"]
        cards = {p: [str(c) for c in cs] for p, cs in hands.items()}
        facts = self.hand_facts()
        t.emit("hand", round_id=r.round_id, shoe=self.shoe.number, round=r.number, cards=cards,
               **facts, results=results, last_round=self.last_round(),
               validated_by=validated_by, **self.hand_proof())
        settled = t.settle_bets(r.bets, lambda b: self.game.returned(b.spot, b.amount, hands))
        t.emit("settlement", round_id=r.round_id, bets=settled)
        t.message(f"hand:{r.round_id}", "hand", round_id=r.round_id, game=self.game.name,
                  cards=cards, results=results, validated_by=validated_by, settlement=settled)
        t.disarm("reveal", "placement", "camera")
        r.finished = True
        t.rounds_settled += 1
        # the table's recent rounds in the public view: the cards of a validated hand are
        # face up on the table
        t.remember({"round_id": r.round_id, "shoe": self.shoe.number, "round": r.number,
                    "cards": cards, **facts, "results": results, "validated_by": validated_by,
                    "returned": sum(b["returned"] for b in settled),
                    "deducted": sum(b["deducted"] for b in settled),
                    "bets": len(settled), "t": to_s(t.now_us)})
        if self.last_round():
            self.end_shoe()

    # ------------------------------------------------------------------ decisions offered
    def dealer_decisions(self) -> list[dict[str, Any]]:
        """The game's dealer actions besides new_shoe and open_betting."""
        return []

    def decisions(self) -> list[dict[str, Any]]:
        """What the dealer and the supervisor may do now, each refused by the check the
        table refuses it with (`new_shoe_refusal`, `open_betting_refusal`, the kernel's
        station/core/refusals.py)."""
        t = self.table
        shoe, r = self.shoe, self.round
        paused = t.state == "paused"
        why = self.new_shoe_refusal()
        out = [decision("new_shoe", f"{why} (End shoe first)"
                        if why == self.in_play_refusal else why, self.new_shoe_effect)]
        why = self._open_betting_refusal()
        out.append(decision("open_betting", PAUSED if why == "paused" else why,
                            "open the next round for bets"))
        out += self.dealer_decisions()
        cancel = ""
        if self.round_in_progress() and r is not None:
            refund = (f"every bet refunded ({len(r.bets)} bets, "
                      f"{sum(b.amount for b in r.bets)} staked)" if r.bets else "no bets to refund")
            healthy = "" if paused else " although nothing is wrong with it"
            cancel = (f"void round {r.round_id}{healthy}: {refund}; its cards are not played"
                      f"{self.cancel_note()}")
        out += supervisor_decisions(
            self, cancel_effect=cancel,
            shoe_label=f"{self.shoe_word} {shoe.number}"
            if shoe is not None and not shoe.ended else None)
        return ordered(out)
