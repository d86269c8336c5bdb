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

from station.cards import Card, ShoeContents
from station.core.bets import Bet, refund_lines
from station.core.deal import DealTracker
from station.core.faults import FAULT_KINDS
from station.core.inputs import Input, to_s
from station.games.base import Procedure
from station.games.dealt_rounds import DealtRounds
from station.games.house_bets import HouseBets
from station.games.paigow.rules import DICE_ZONE, deal_plan_for, first_door
from station.games.paigow.view import round_doors

if TYPE_CHECKING:
    from station.core.faults import ActiveFault

ROUNDS_PER_SHUFFLE = 2
FAULTS = {k: v for k, v in FAULT_KINDS.items()
          if k not in ("burn_count", "cut_card_early", "premature_reveal")}
FAULTS["dice_mismatch"] = ("the dealer's dice entry and the dice tray disagree for 5 s",
                           "resume after correcting (enter the dice again, or the camera sees "
                           "them right), cancel")


@dataclass(slots=True)
class ShuffleState:
    number: int
    contents: ShoeContents
    confirmed: bool = False
    loaded: bool = False
    cards_out: int = 0
    rounds_opened: int = 0
    ended: bool = False
    empty: bool = False  # the shoe said EMPTY


@dataclass(slots=True)
class PaiGowRound:
    number: int
    round_id: str
    opened_us: int
    closes_us: int
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


class PaiGowProcedure(DealtRounds, HouseBets, Procedure):
    states = ("idle", "shuffling", "between_rounds", "betting", "dice", "dealing",
              "confirming", "paused", "closed")
    follow = {
        ("shuffling", "between_rounds"): "shuffle_confirmed_and_loaded",
        ("betting", "dice"): "betting_closes",
        ("dice", "dealing"): "dice_known",
        ("dealing", "confirming"): "all_cards_out",
        ("confirming", "between_rounds"): "hand_validated",
        ("confirming", "idle"): "hand_validated",
        ("between_rounds", "idle"): "shoe_ended",
        ("shuffling", "idle"): "shoe_ended",
    }
    dealer_transitions = (("open_betting", ("between_rounds",), "betting"),)
    dealer_actions = frozenset({"new_shoe", "open_betting", "dice"})
    round_phases = ("betting", "dice", "dealing", "confirming")
    closable = ("idle", "between_rounds", "shuffling")
    cards_due_states = frozenset({"dealing"})
    betting_states = frozenset({"betting"})
    fault_kinds = FAULTS
    cancel_only = frozenset({"extra_card", "foreign_card", "shoe_exhausted"})
    event_faults = frozenset({"early_card", "extra_card", "unread_card", "foreign_card",
                              "device_fault", "shoe_rebooted"})
    timer_order = ("betting_close", "link", "camera", "dice_mismatch", "placement", "reveal")
    # betting closes at `closes_at` itself; the dice clock is `dice_mismatch` at 5 s (§6.2.4),
    # so at that instant the fault comes before an agreeing entry or observation
    inclusive_timers = frozenset({"betting_close", "dice_mismatch"})
    settings_used = ("betting_seconds", "placement_timeout_seconds", "reveal_timeout_seconds",
                     "camera_lost_seconds", "link_lost_seconds", "min_bet", "max_bet",
                     "dice_mismatch_seconds", "camera_lag_tolerant")

    in_play_refusal = "a shuffle is still in play"
    placement_seen = "{seen} cards on the doors"

    def __init__(self, table: Any, game: Any) -> None:
        super().__init__(table, game)
        self.shoe: ShuffleState | None = None
        self.round: PaiGowRound | None = None

    def new_shoe_state(self, number: int) -> ShuffleState:
        return ShuffleState(number, ShoeContents(deck=self.game.deck))

    # ------------------------------------------------------------------ tables
    def dealer_handlers(self) -> dict[str, Any]:
        return {"new_shoe": self._dealer_new_shoe, "open_betting": self._dealer_open_betting,
                "dice": self._dealer_dice}

    def timer_handlers(self) -> dict[str, Any]:
        return {"betting_close": self._timer_betting_close, "dice_mismatch": self._timer_dice_mismatch,
                "placement": self._timer_placement, "reveal": self._timer_reveal}

    # ------------------------------------------------------------------ facts -> phase
    def phase(self) -> str:
        s = self.shoe
        if s is None or s.ended:
            return "idle"
        if not (s.confirmed and s.loaded):
            return "shuffling"
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
    def on_load(self) -> None:
        if self.shoe is not None:
            self.shoe.loaded = True

    def on_card(self, card: Card | None, code: str | None) -> None:
        t = self.table
        shoe = self.shoe
        if shoe is not None and not shoe.ended:
            shoe.cards_out += 1
            if card is not None:
                problem = shoe.contents.draw(card, code)
                if problem:
                    why = ("a card that is not one of the 32" if "not a card of this deck" in problem
                           else "a second read of one card in this shuffle")
                    t.raise_fault("foreign_card", f"card {shoe.cards_out} of the shuffle cannot "
                                  f"belong to it: {why}")
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

    def confirm_shuffle(self) -> str | None:
        if self.table.phase != "shuffling" or self.shoe is None or self.shoe.confirmed:
            return "no new shuffle is waiting for its check"
        self.shoe.confirmed = True
        return None

    # ------------------------------------------------------------------ dice
    def _dealer_dice(self, inp: Input) -> None:
        t = self.table
        r = self.round
        faces = inp.extra.get("dice") if hasattr(inp, "extra") else None
        if not self.round_in_progress() or r is None:
            return t.refuse("dice", None, "no_round")
        if not r.closed:
            return t.refuse("dice", None, "betting_open")
        if r.dice is not None:
            return t.refuse("dice", None, "dice_known")
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
            t.arm("dice_mismatch", t.now_us + t.us(t.settings.dice_mismatch_seconds))

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
    def _timer_betting_close(self) -> None:
        t = self.table
        r = self.round
        if r is None or r.closed:
            return
        r.closed = True
        t.emit("betting_closed", round_id=r.round_id)

    # ------------------------------------------------------------------ dealer
    def _open_betting_refusal(self) -> str | None:
        """Why the dealer may not open betting now, the pause aside (the dealer's action
        and the decisions offered say the same)."""
        shoe, ph = self.shoe, self.table.phase
        if ph in ("idle", "closed"):
            return "no shuffle in play"
        if ph == "shuffling":
            return "the shuffle is not confirmed and loaded"
        if ph in self.round_phases:
            return "a round is in progress"
        if shoe is not None and shoe.rounds_opened >= ROUNDS_PER_SHUFFLE:
            return "a shuffle serves two rounds"
        if self.camera and self._position_card_count() > 0:
            return "the door zones still hold cards"
        return None

    def _dealer_open_betting(self, inp: Input) -> None:
        t = self.table
        shoe = self.shoe
        reason = "paused" if t.state == "paused" else self._open_betting_refusal()
        if reason:
            return t.refuse("open_betting", None, reason)
        assert shoe is not None
        shoe.rounds_opened += 1
        n = shoe.rounds_opened
        closes = t.now_us + t.us(t.settings.betting_seconds)
        self.round = PaiGowRound(n, f"{t.table}-S{shoe.number}-R{n}", t.now_us, closes)
        t.arm("betting_close", closes)
        t.trigger("open_betting")
        t.emit("round_open", round_id=self.round.round_id, shoe=shoe.number, round=n,
               closes_at=to_s(closes))
        t.watch_camera()
        return None

    # ------------------------------------------------------------------ decisions
    def condition_holds(self, f: ActiveFault) -> str | None:
        r = self.round
        if f.kind == "dice_mismatch" and self.round_in_progress() and r is not None and r.dice is None:
            return "the dice entry and the tray still disagree"
        if f.kind == "order" and self.round_in_progress() and r is not None and r.deal is not None \
                and not r.deal.zones_follow_plan(self.table.zones, self.table.settings.camera_lag_tolerant):
            return "the door zones still do not follow the deal plan"
        if f.kind == "card_mismatch" and self.round_in_progress() and r is not None \
                and r.deal is not None and any(v is False for v in r.deal.confirmed.values()):
            return "the camera still disagrees with the shoe"
        if f.kind == "unread_card" and not self.camera:
            return "no camera is fitted to read the card"
        return None

    def is_cancel_only(self, kind: str, in_round: bool) -> bool:
        if kind == "unread_card" and not self.camera:
            return True
        return super().is_cancel_only(kind, in_round)

    def resuming(self, faults: list[ActiveFault]) -> None:
        r = self.round
        if r is None or r.deal is None or not self.round_in_progress():
            return
        for f in faults:
            if f.kind == "unread_card":
                for d in r.deal.cards:
                    if d.card is None:
                        r.deal.single_source.add(d.position)

    def on_resume(self) -> None:
        t = self.table
        r = self.round
        if self.round_in_progress() and r is not None and r.deal is not None:
            r.deal.placement_restarted_us = t.now_us
            self._check_placement()
            if r.deal.complete:
                self._arm_reveal()
            self._check_zones()

    def cancel_round(self, user: str | None, reason: str) -> None:
        t = self.table
        r = self.round
        assert r is not None
        refunds = refund_lines(r.bets)
        for b in r.bets:
            t.credit(b.account, b.deducted)
        r.finished = True
        t.disarm("placement", "reveal", "camera", "betting_close", "dice_mismatch")
        t.emit("round_cancelled", round_id=r.round_id, reason=reason, refunds=refunds, user=user)
        t.message(f"cancel:{r.round_id}", "round_cancelled", round_id=r.round_id, reason=reason)
        t.remember({"round_id": r.round_id, "shoe": self.shoe.number if self.shoe else 0,
                    "round": r.number, "cancelled": reason, "t": to_s(t.now_us),
                    "refunded": sum(b["returned"] for b in refunds), "bets": len(refunds)})

    def end_shoe(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.ended:
            return
        shoe.ended = True
        self.table.emit("shoe_end", shoe=shoe.number, rounds=shoe.rounds_opened,
                        cards_out=shoe.cards_out)
        self.table.disarm("placement", "reveal", "camera", "dice_mismatch")

    # ------------------------------------------------------------------ validation
    def after_input(self) -> None:
        t = self.table
        r = self.round
        if r is None or r.finished or t.state == "paused" or t.phase != "confirming":
            return
        assert r.deal is not None
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
        t.emit("hand", round_id=r.round_id, shoe=self.shoe.number, round=r.number, cards=cards,
               dice=r.dice, first_door=r.door, results=results, last_round=self.last_round(),
               validated_by=validated_by)
        settled = t.settle_bets(r.bets, lambda b: self.game.returned(b.spot, b.amount, hands))
        t.emit("settlement", round_id=r.round_id, bets=settled)
        t.message(f"hand:{r.round_id}", "hand", round_id=r.round_id, game=self.game.name,
                  cards=cards, results=results, validated_by=validated_by, settlement=settled)
        t.disarm("reveal", "placement", "camera")
        r.finished = True
        t.rounds_settled += 1
        # the table's recent rounds in the public view (the doors are face up: nothing secret)
        t.remember({"round_id": r.round_id, "shoe": self.shoe.number, "round": r.number,
                    "cards": cards, "dice": r.dice, "first_door": r.door, "results": results,
                    "validated_by": validated_by,
                    "returned": sum(b["returned"] for b in settled),
                    "deducted": sum(b["deducted"] for b in settled),
                    "bets": len(settled), "t": to_s(t.now_us)})
        if self.last_round():
            self.end_shoe()

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
    def decisions(self) -> list[dict[str, Any]]:
        """What the dealer and the supervisor may do now, with the reason for what they may
        not: the same checks as `_dealer_new_shoe`, `_dealer_open_betting`, `_dealer_dice`
        and the kernel's supervisor decisions (station/games/decisions.py)."""
        from station.games.decisions import decision, ordered, supervisor_decisions

        t = self.table
        shoe, r = self.shoe, self.round
        paused = t.state == "paused"
        ph = t.phase
        in_round = self.round_in_progress() and r is not None
        if paused:
            why = "paused: the supervisor must decide first"
        elif ph not in ("idle", "closed"):
            why = "a shuffle is still in play (End shoe first)"
        else:
            why = None
        out = [decision("new_shoe", why,
                        "start a new shuffle of the 32 cards: the supervisor then checks it")]
        why = "paused: the supervisor must decide first" if paused else self._open_betting_refusal()
        out.append(decision("open_betting", why, "open the next round for bets"))
        if not in_round:
            why = "no round in progress"
        elif not r.closed:
            why = "betting is still open: the dice are thrown after the close"
        elif r.dice is not None:
            why = f"the dice are known ({r.dice[0]} and {r.dice[1]})"
        else:
            why = None
        out.append(decision("dice", why, "enter the two faces thrown (the dice tray must show "
                            "the same)"))
        cancel = ""
        if in_round:
            refund = (f"every bet refunded ({len(r.bets)} bets, "
                      f"{sum(b.amount for b in r.bets)} staked)" if r.bets else "no bets to refund")
            healthy = "" if paused else " although nothing is wrong with it"
            cancel = f"void round {r.round_id}{healthy}: {refund}; its cards are not played"
            if r.number >= ROUNDS_PER_SHUFFLE:
                cancel += "; the shuffle ends (round 2)"
        out += supervisor_decisions(
            self, shuffle_waiting=ph == "shuffling" and shoe is not None and not shoe.confirmed,
            cancel_effect=cancel,
            shoe_label=f"shuffle {shoe.number}" if shoe is not None and not shoe.ended else None)
        return ordered(out)
