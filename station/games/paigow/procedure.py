"""Wenzhou Pai Gow's procedure at the table (PROCEDURE.md §6), plugged into the table kernel.

The life of a shuffle: shuffle check and LOAD (no first card, no burn, no cut card), then two
rounds: the countdown and bets on the six spots; after the close the dice (the dealer's entry
and the camera's `DICE` zone must agree); the deal plan from the dice; 8 cards face up, each
door confirmed by the camera once it shows two readable cards; validation and settlement;
after round 2 the shoe ends.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from station.cards import Card
from station.core.actions import Action
from station.core.bets import Bet
from station.core.deal import DealTracker
from station.core.faults import FAULT_KINDS
from station.core.inputs import Input, to_s
from station.games.decisions import decision
from station.games.house_round import HouseRound, HouseRoundState, HouseShoe
from station.games.paigow.rules import DICE_ZONE, deal_plan_for, first_door
from station.games.paigow.view import round_doors

if TYPE_CHECKING:
    from station.core.faults import ActiveFault

ROUNDS_PER_SHUFFLE = 2
FAULTS = {k: v for k, v in FAULT_KINDS.items()
          if k not in ("burn_count", "cut_card_early", "premature_reveal")}
FAULTS["extra_card"] = ("A 9th card was drawn in this round.", "cancel")
FAULTS["foreign_card"] = ("A card that is not one of the 32, a second read of one card within "
                          "a shuffle, or the cut card (this deck has none).", "cancel")
FAULTS["dice_mismatch"] = ("the dealer's dice entry and the dice tray disagree for "
                           "{dice_mismatch_seconds:g} s",
                           "resume after correcting (enter the dice again, or the camera sees "
                           "them right), cancel")


@dataclass(slots=True)
class ShuffleState(HouseShoe):
    cards_out: int = 0
    rounds_opened: int = 0
    ended: bool = False
    empty: bool = False  # the shoe said EMPTY


@dataclass(slots=True)
class PaiGowRound(HouseRoundState):
    closed: bool = False
    bets: list[Bet] = field(default_factory=list)
    entry: list[int] | None = None  # the dealer's latest dice entry
    entry_us: int | None = None
    tray: list[int] | None = None  # the latest DICE observation made after the close
    mismatch_since_us: int | None = None
    dice: list[int] | None = None  # the entry that made the dice known
    door: str | None = None
    deal: DealTracker | None = None
    finished: bool = False


class PaiGowProcedure(HouseRound):
    states = ("idle", "shuffling", "between_rounds", "betting", "dice", "dealing",
              "confirming", "paused", "closed")
    follow = {
        ("shuffling", "between_rounds"): "shuffle_confirmed_and_loaded",
        ("betting", "dice"): "betting_closes",
        ("dice", "dealing"): "dice_known",
        **HouseRound.round_follow("confirming"),
    }
    actions = {**HouseRound.actions,
               "dice": Action("enter the two faces thrown (the dice tray must show the same)",
                              payload=("dice",))}
    round_phases = ("betting", "dice", "dealing", "confirming")
    closable = ("idle", "between_rounds", "shuffling")
    cards_due_states = frozenset({"dealing"})
    fault_kinds = FAULTS
    cancel_only = frozenset({"extra_card", "foreign_card", "shoe_exhausted"})
    timer_order = ("betting_close", "link", "camera", "dice_mismatch", "placement", "reveal")
    # betting closes at `closes_at` itself; the dice clock is `dice_mismatch` at 5 s (§6.2.4),
    # so at that instant the fault comes before an agreeing entry or observation
    inclusive_timers = frozenset({"betting_close", "dice_mismatch"})
    settings_used = ("betting_seconds", "placement_timeout_seconds", "reveal_timeout_seconds",
                     "camera_lost_seconds", "link_lost_seconds", "min_bet", "max_bet",
                     "dice_mismatch_seconds", "camera_lag_tolerant")

    in_play_refusal = "a shuffle is still in play"
    placement_seen = "{seen} cards on the doors"
    validating_phase = "confirming"
    zones_word = "door"
    order_holds = "the door zones still do not follow the deal plan"
    unread_holds = "no camera is fitted to read the card"
    shoe_word = "shuffle"
    shuffle_waiting_refusal = "no new shuffle is waiting for its check"
    new_shoe_effect = "start a new shuffle of the 32 cards: the supervisor then checks it"
    round_timers = (*HouseRound.round_timers, "dice_mismatch")
    shoe_timers = (*HouseRound.shoe_timers, "dice_mismatch")

    shoe_class = ShuffleState
    shoe: ShuffleState | None
    round: PaiGowRound | None

    def new_round(self, number: int, round_id: str, opened_us: int, closes_us: int) -> PaiGowRound:
        return PaiGowRound(number, round_id, opened_us, closes_us)

    # ------------------------------------------------------------------ tables
    def dealer_handlers(self) -> dict[str, Any]:
        return {**super().dealer_handlers(), "dice": self._dealer_dice}

    def timer_handlers(self) -> dict[str, Any]:
        return {"betting_close": self._timer_betting_close, "dice_mismatch": self._timer_dice_mismatch,
                "placement": self._timer_placement, "reveal": self._timer_reveal}

    # ------------------------------------------------------------------ facts -> phase
    def phase(self) -> str:
        before = self.shoe_phase()
        if before:
            return before
        r = self.round
        if r is None or r.finished:
            return "between_rounds"
        if not r.closed:
            return "betting"
        if r.deal is None:
            return "dice"
        if not r.deal.complete:
            return "dealing"
        return "confirming"

    def last_round(self) -> bool:
        return self.round is not None and (self.round.number >= ROUNDS_PER_SHUFFLE
                                           or (self.shoe is not None and self.shoe.empty))

    # ------------------------------------------------------------------ shoe
    def foreign_words(self, problem: str) -> str:
        return ("a card that is not one of the 32" if "not a card of this deck" in problem
                else "a second read of one card in this shuffle")

    def on_card(self, card: Card | None, code: str | None) -> None:
        t = self.table
        self._draw(card, code)
        ph = t.phase
        if ph != "dealing" and ph != "confirming":
            why = {"idle": "no shuffle is in play", "closed": "the table is closed",
                   "shuffling": "the shuffle is not confirmed and loaded",
                   "between_rounds": "betting is not open", "betting": "the dice are not known",
                   "dice": "the dice are not known"}.get(ph, "no card is due")
            t.raise_fault("early_card", f"a card left the shoe while {why}; set aside")
            return
        r = self.round
        assert r is not None and r.deal is not None
        k = len(r.deal.cards)
        d = r.deal.add(card, code, t.now_us)
        if d is None:
            t.raise_fault("extra_card", f"card {k + 1} of an 8-card round")
            return
        if r.deal.complete:
            self._arm_reveal()
        if card is None:
            t.raise_fault("unread_card", f"the shoe could not read card {k + 1} of the round ({d.position})")
        self._check_zones()

    def on_cut(self) -> None:
        if self.shoe_in_play():
            self.table.raise_fault("foreign_card", "a cut card: the Pai Gow deck has none")

    def on_empty(self) -> None:
        """EMPTY while the round still needs cards (any of its 8 not out, betting open or
        not) is `shoe_exhausted`; otherwise no fault: a round whose cards are all out is the
        last, and between rounds the shuffle ends (§3 as §6 keeps it)."""
        t = self.table
        shoe, r = self.shoe, self.round
        if shoe is None or shoe.ended:
            return
        shoe.empty = True
        if self.round_in_progress() and r is not None:
            if r.deal is None or not r.deal.complete:
                t.raise_fault("shoe_exhausted", "the shoe is empty but cards are still due")
            return
        if t.phase == "between_rounds" and t.state != "paused":
            self.end_shoe()

    # ------------------------------------------------------------------ dice
    def dice_refusal(self) -> str | None:
        """Why the dealer's dice entry is refused now, whatever its faces (the table's code;
        `dice_words` says it to the floor)."""
        r = self.round
        if not self.round_in_progress() or r is None:
            return "no_round"
        if not r.closed:
            return "betting_open"
        if r.dice is not None:
            return "dice_known"
        return None

    def dice_words(self, code: str | None) -> str | None:
        r = self.round
        if code == "dice_known" and r is not None and r.dice is not None:
            return f"the dice are known ({r.dice[0]} and {r.dice[1]})"
        return {"no_round": "no round in progress",
                "betting_open": "betting is still open: the dice are thrown after the close",
                }.get(code or "", code)

    def _dealer_dice(self, inp: Input) -> None:
        t = self.table
        r = self.round
        faces = inp.extra.get("dice")
        reason = self.dice_refusal()
        if reason:
            return t.refuse("dice", None, reason)
        assert r is not None
        try:
            first_door(faces if isinstance(faces, list | tuple) else ())
        except ValueError:
            return t.refuse("dice", None, "bad_dice")
        r.entry = list(faces)
        if r.entry_us is None or r.mismatch_since_us is None:
            r.entry_us = t.now_us
        self._dice_check()
        return None

    def _dice_check(self) -> None:
        t = self.table
        r = self.round
        if r is None or r.finished or r.dice is not None or r.entry is None:
            return
        agree = not self.camera or (r.tray is not None and Counter(r.tray) == Counter(r.entry))
        if agree:
            r.dice = list(r.entry)
            r.door = first_door(r.dice)
            r.deal = DealTracker(deal_plan_for(r.dice), self.game.positions)
            r.mismatch_since_us = None
            t.disarm("dice_mismatch")
            t.emit("dice", round_id=r.round_id, dice=r.dice, first_door=r.door)
            return
        if r.mismatch_since_us is None:
            r.mismatch_since_us = t.now_us
            t.arm("dice_mismatch", t.now_us + t.us(t.settings.own.dice_mismatch_seconds))

    def _timer_dice_mismatch(self) -> None:
        r = self.round
        if r is None or r.finished or r.dice is not None:
            return
        if r.tray is None:
            seen = "the camera has reported no DICE since the close"
        elif not r.tray:
            seen = "the tray is empty"
        else:
            seen = f"the tray shows {r.tray}"
        self.table.raise_fault("dice_mismatch", f"the dealer entered {r.entry}, {seen}")

    # ------------------------------------------------------------------ camera
    def on_camera(self, changed: bool) -> None:
        r = self.round
        if not self.round_in_progress() or r is None:
            return
        if r.closed and r.dice is None:
            # Every DICE observation made after the close counts (§6.2.4), the same faces as
            # before the close included: the camera names DICE again when the thrown dice
            # land. A heartbeat `{}` names no zone, so faces that lay in the tray at the close
            # and were never reported since are not this round's throw.
            tray = self.table.observation.get(DICE_ZONE)
            if tray is not None:
                r.tray = [int(x) for x in tray]
                self._dice_check()
        if changed:
            self._check_zones()

    def _check_zones(self) -> None:
        t = self.table
        r = self.round
        if r is None or r.finished or not self.camera or r.deal is None:
            return
        zones = t.zones
        if not r.deal.zones_follow_plan(zones, t.settings.camera_lag_tolerant):
            t.raise_fault("order", "the cards on the doors are not what the deal plan would "
                          "leave there")
        self._check_placement()
        for p in self.game.positions:
            verdict = r.deal.compare(p, zones.get(p, []), 2)
            if verdict in ("mismatch", "mismatch_single"):
                t.raise_fault("card_mismatch", f"{p}: the camera's cards are not what the shoe "
                              "dealt there", key=p)

    # ------------------------------------------------------------------ timers
    # ------------------------------------------------------------------ dealer
    def shoe_not_ready(self) -> str | None:
        shoe = self.shoe
        if self.table.phase == "shuffling":
            return "the shuffle is not confirmed and loaded"
        if shoe is not None and shoe.rounds_opened >= ROUNDS_PER_SHUFFLE:
            return "a shuffle serves two rounds"
        return None

    # ------------------------------------------------------------------ decisions
    def game_condition_holds(self, f: ActiveFault) -> str | None:
        r = self.round
        if f.kind == "dice_mismatch" and self.round_in_progress() and r is not None and r.dice is None:
            return "the dice entry and the tray still disagree"
        return None

    def on_resume(self) -> None:
        t = self.table
        r = self.round
        if self.round_in_progress() and r is not None and r.deal is not None:
            r.deal.placement_restarted_us = t.now_us
            self._check_placement()
            if r.deal.complete:
                self._arm_reveal()
            self._check_zones()

    def hand_facts(self) -> dict[str, Any]:
        r = self.round
        assert r is not None
        return {"dice": r.dice, "first_door": r.door}

    # ------------------------------------------------------------------ view
    def view(self) -> dict[str, Any]:
        shoe, r = self.shoe, self.round
        out: dict[str, Any] = {"shoe": None, "round": None}
        if shoe is not None:
            out["shoe"] = {"number": shoe.number, "confirmed": shoe.confirmed, "loaded": shoe.loaded,
                           "cards_out": shoe.cards_out, "rounds": shoe.rounds_opened, "ended": shoe.ended}
        if r is not None:
            # the cards are dealt face up after the close: nothing here is secret
            out["round"] = {"round_id": r.round_id, "number": r.number,
                            "closes_at": to_s(r.closes_us), "betting_open": not r.closed and not r.finished,
                            "dice": r.dice, "first_door": r.door, "finished": r.finished,
                            "bets": len(r.bets)}
            out["round"].update(round_doors(self))
        return out

    # ------------------------------------------------------------------ decisions offered
    def dealer_decisions(self) -> list[dict[str, Any]]:
        return [decision("dice", self.dice_words(self.dice_refusal()), self.actions["dice"].help)]

    def cancel_note(self) -> str:
        r = self.round
        return "; the shuffle ends (round 2)" if r is not None and r.number >= ROUNDS_PER_SHUFFLE else ""
