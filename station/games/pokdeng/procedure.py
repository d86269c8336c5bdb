"""Pok Deng's procedure at the table (PROCEDURE.md §2–§5), plugged into the table kernel.

The life of a shoe: shuffle check and LOAD, the first card shown in BURN names the burn
count, the burns, then rounds of 13 cards (a burn and 12 face down) with the countdown, the
reveal confirmed by the camera position by position, and the cut card naming the last round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from station.cards import Card, ShoeContents
from station.core.bets import Bet, refund_lines
from station.core.deal import CUT_CARD, FACE_DOWN, DealTracker, dealt_cards, faces
from station.core.faults import FAULT_KINDS
from station.core.inputs import Input, to_s
from station.games.base import BURN, Procedure
from station.games.dealt_rounds import DealtRounds
from station.games.house_bets import HouseBets

if TYPE_CHECKING:
    from station.core.faults import ActiveFault


@dataclass(slots=True)
class ShoeState:
    number: int
    contents: ShoeContents
    confirmed: bool = False
    loaded: bool = False
    first_card: Card | None = None
    first_card_unread: bool = False
    burn_count: int = 0
    burns_left: int = 0
    cards_out: int = 0
    rounds_opened: int = 0
    cut_seen: bool = False
    last_round_number: int | None = None  # the round the cut card made the last one
    empty: bool = False
    ended: bool = False


@dataclass(slots=True)
class RoundState:
    number: int
    round_id: str
    opened_us: int
    closes_us: int
    deal: DealTracker
    closed: bool = False
    bets: list[Bet] = field(default_factory=list)
    revealed: list[str] = field(default_factory=list)
    last_round: bool = False
    finished: bool = False
    all_out_us: int | None = None


class PokDengProcedure(DealtRounds, HouseBets, Procedure):
    states = ("idle", "shuffling", "ready", "burning", "between_rounds", "betting", "dealing",
              "revealing", "paused", "closed")
    follow = {
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
    dealer_transitions = (("open_betting", ("between_rounds",), "betting"),)
    round_phases = ("betting", "dealing", "revealing")
    closable = ("idle", "between_rounds", "shuffling", "ready", "burning")
    cards_due_states = frozenset({"ready", "burning", "betting", "dealing"})
    betting_states = frozenset({"betting"})
    fault_kinds = FAULT_KINDS
    cancel_only = frozenset({"extra_card", "premature_reveal", "foreign_card", "shoe_exhausted"})
    event_faults = frozenset({"early_card", "extra_card", "unread_card", "foreign_card",
                              "device_fault", "shoe_rebooted"})
    timer_order = ("betting_close", "link", "camera", "placement", "reveal")
    settings_used = ("betting_seconds", "placement_timeout_seconds", "reveal_timeout_seconds",
                     "camera_lost_seconds", "link_lost_seconds", "min_bet", "max_bet",
                     "camera_lag_tolerant")
    inclusive_timers = frozenset({"betting_close"})

    in_play_refusal = "a shoe is still in play"
    placement_seen = "{seen} dealt cards"

    def __init__(self, table: Any, game: Any) -> None:
        super().__init__(table, game)
        self.shoe: ShoeState | None = None
        self.round: RoundState | None = None

    def new_shoe_state(self, number: int) -> ShoeState:
        return ShoeState(number, ShoeContents(deck=self.game.deck))

    # ------------------------------------------------------------------ tables
    def dealer_handlers(self) -> dict[str, Any]:
        return {"new_shoe": self._dealer_new_shoe, "open_betting": self._dealer_open_betting}

    def timer_handlers(self) -> dict[str, Any]:
        return {"betting_close": self._timer_betting_close, "placement": self._timer_placement,
                "reveal": self._timer_reveal}

    # ------------------------------------------------------------------ facts -> phase
    def phase(self) -> str:
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
        if not r.deal.complete:
            return "dealing"
        return "revealing"

    def last_round(self) -> bool:
        return self.round is not None and self.round.last_round

    def cards_due(self) -> bool:
        # a round whose 13 cards are out while betting is still open wants no card
        r = self.round
        if self.table.state == "betting" and r is not None and r.deal.complete:
            return False
        return True

    # ------------------------------------------------------------------ shoe
    def on_load(self) -> None:
        assert self.shoe is not None
        self.shoe.loaded = True

    def on_card(self, card: Card | None, code: str | None) -> None:
        t = self.table
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
                    t.raise_fault("foreign_card", f"card {shoe.cards_out} of the shoe cannot "
                            f"belong to it: {why}")
        ph = t.phase
        if ph in ("idle", "shuffling", "closed", "between_rounds"):
            why = {
                "idle": "no shoe is in play",
                "closed": "the table is closed",
                "shuffling": "the shuffle is not confirmed and loaded",
                "between_rounds": "betting is not open",
            }[ph]
            # the card itself stays secret: it is set aside, never shown
            t.raise_fault("early_card", f"a card left the shoe while {why}; set aside")
            return
        assert shoe is not None
        if ph == "ready":
            if card is None:
                shoe.first_card_unread = True
                if not self.camera:
                    t.raise_fault("unread_card", "the first card could not be read and no camera "
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
        k = len(r.deal.cards)
        d = r.deal.add(card, code, t.now_us)
        if d is None:
            t.raise_fault("extra_card", f"card {k + 1} of a {len(r.deal.plan)}-card round")
            return
        position = d.position
        if r.deal.complete:
            r.all_out_us = t.now_us
            if r.closed:
                self._arm_reveal()
        if card is None and position != BURN:
            t.raise_fault("unread_card", f"the shoe could not read card {k + 1} of the round ({position})")
        self._check_placement()
        if r.closed and self.camera and position != BURN:
            # a reveal may be seen before the last read: compare now that the shoe has spoken
            self._check_reveals()

    def _set_first_card(self, card: Card) -> None:
        shoe = self.shoe
        assert shoe is not None
        shoe.first_card = card
        shoe.burn_count = self.game.burn_count(card)
        # burns drawn while an unread first card waited for the camera already count; any
        # beyond the burn count were drawn when no card was due
        drawn_early = -min(0, shoe.burns_left)
        extra = max(0, drawn_early - shoe.burn_count)
        shoe.burns_left = max(0, shoe.burn_count - drawn_early)
        self.table.emit("burn", shoe=shoe.number, first_card=str(card), count=shoe.burn_count)
        for _ in range(extra):
            self.table.raise_fault("early_card", "a card left the shoe after the burn cards, "
                             "while betting is not open; set aside")
        self._check_burn_zone()

    def _take_first_card_from_camera(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.first_card is not None or not shoe.first_card_unread:
            return
        seen = faces(self.table.zones.get(BURN, []))
        if seen:
            self._set_first_card(seen[0])

    def on_cut(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.ended:
            return
        if shoe.rounds_opened == 0:
            self.table.raise_fault("cut_card_early", "the cut card came out before the first round opened")
            return
        shoe.cut_seen = True
        if self.round_in_progress():
            assert self.round is not None
            self.round.last_round = True
            shoe.last_round_number = self.round.number
        else:
            shoe.last_round_number = shoe.rounds_opened + 1

    def on_empty(self) -> None:
        t = self.table
        shoe = self.shoe
        if shoe is None or shoe.ended:
            return
        shoe.empty = True
        r = self.round
        ph = t.phase
        if ph in ("ready", "burning") or (
            self.round_in_progress() and r is not None and not r.deal.complete
        ):
            t.raise_fault("shoe_exhausted", "the shoe is empty but cards are still due")
            return
        if self.round_in_progress() and r is not None:
            r.last_round = True
        elif ph == "between_rounds" and t.state != "paused":
            self.end_shoe()

    # ------------------------------------------------------------------ camera
    def on_camera(self, changed: bool) -> None:
        if not changed:
            return
        t = self.table
        shoe = self.shoe
        if shoe is not None and not shoe.ended and shoe.rounds_opened == 0:
            if shoe.first_card_unread and shoe.first_card is None:
                self._take_first_card_from_camera()
            self._check_burn_zone()
            if t.phase in ("ready", "burning") and self._position_card_count() > 0:
                t.raise_fault("burn_count", "a card lies in a position zone while burn cards remain")
        if self.round_in_progress():
            self._check_zones()

    def _check_burn_zone(self) -> None:
        shoe = self.shoe
        if shoe is None or shoe.first_card is None or shoe.first_card_unread:
            return
        seen = faces(self.table.zones.get(BURN, []))
        if seen and seen[0] != shoe.first_card:
            self.table.raise_fault("card_mismatch", "the first card in the BURN zone is not the one "
                             "the shoe read")

    def _check_zones(self) -> None:
        t = self.table
        r = self.round
        assert r is not None
        if not self.camera:
            return
        zones = self.table.zones
        if not r.closed:
            for p in self.game.positions:
                if any(c not in (FACE_DOWN, CUT_CARD) for c in zones.get(p, [])):
                    t.raise_fault("premature_reveal", f"a card face up in {p} while betting is open")
                    break
        if not r.deal.zones_follow_plan(zones, t.settings.camera_lag_tolerant):
            t.raise_fault("order", "the cards in the position zones are not what the deal order "
                    "would leave there")
        self._check_placement()
        if r.closed:
            self._check_reveals()

    def _check_reveals(self) -> None:
        t = self.table
        r = self.round
        assert r is not None
        zones = self.table.zones
        positions = self.game.positions
        for p in positions:
            zone = dealt_cards(zones.get(p, []))
            face_up = [c for c in zone if c != FACE_DOWN]
            if face_up and p not in r.revealed:
                earlier = [q for q in positions[: positions.index(p)] if q not in r.revealed]
                r.revealed.append(p)
                if earlier:
                    t.emit("warning", round_id=r.round_id, kind="reveal_order",
                           detail=f"{p} revealed before {', '.join(earlier)}")
            verdict = r.deal.compare(p, zone, 2)
            if verdict == "mismatch":
                seen = sorted(faces(zone))
                t.raise_fault("card_mismatch", f"{p}: the camera reads {' '.join(map(str, seen))}"
                        f", which is not what the shoe dealt there", key=p)
            elif verdict == "mismatch_single":
                t.raise_fault("card_mismatch", f"{p}: the camera's cards do not include the "
                        "card the shoe read", key=p)

    # ------------------------------------------------------------------ timers
    def _timer_betting_close(self) -> None:
        t = self.table
        r = self.round
        if r is None or r.closed:
            return
        r.closed = True
        t.emit("betting_closed", round_id=r.round_id)
        if r.deal.complete:
            self._arm_reveal()
        if self.camera and not r.finished:
            self._check_zones()

    # ------------------------------------------------------------------ dealer
    def _open_betting_refusal(self) -> str | None:
        """Why the dealer may not open betting now, the pause aside (the dealer's action
        and the decisions offered say the same)."""
        shoe, ph = self.shoe, self.table.phase
        if ph in ("idle", "closed"):
            return "no shoe in play"
        if ph in ("shuffling", "ready"):
            return "the shoe is not ready: shuffle, load and first card first"
        if ph == "burning":
            return f"burn cards remain ({shoe.burns_left if shoe else 0})"
        if ph in self.round_phases:
            return "a round is in progress"
        if self.camera and self._position_card_count() > 0:
            return "the position zones still hold cards"
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
        r = RoundState(n, f"{t.table}-S{shoe.number}-R{n}", t.now_us, closes,
                       DealTracker(self.game.deal_plan, self.game.positions))
        r.last_round = shoe.last_round_number is not None and n >= shoe.last_round_number
        self.round = r
        t.arm("betting_close", closes)
        t.trigger("open_betting")
        t.emit("round_open", round_id=r.round_id, shoe=shoe.number, round=n,
               closes_at=to_s(closes))
        t.watch_camera()
        return None

    def confirm_shuffle(self) -> str | None:
        if self.table.phase != "shuffling" or self.shoe is None or self.shoe.confirmed:
            return "no new shoe is waiting for its shuffle check"
        self.shoe.confirmed = True
        return None

    # ------------------------------------------------------------------ decisions
    def is_cancel_only(self, kind: str, in_round: bool) -> bool:
        # without a camera nothing can supply an unread card: only cancel clears it
        if kind == "unread_card" and not self.camera:
            return True
        return super().is_cancel_only(kind, in_round)

    def condition_holds(self, f: ActiveFault) -> str | None:
        t = self.table
        k = f.kind
        r = self.round
        if k == "order" and self.round_in_progress() and r is not None and \
                not r.deal.zones_follow_plan(self.table.zones, t.settings.camera_lag_tolerant):
            return "the position zones still do not follow the deal order"
        if k == "burn_count" and t.phase in ("ready", "burning") and self._position_card_count():
            return "a position zone still holds a card"
        if k == "card_mismatch":
            shoe = self.shoe
            if self.round_in_progress() and r is not None:
                if any(v is False for v in r.deal.confirmed.values()):
                    return "the camera still disagrees with the shoe"
            elif shoe is not None and shoe.first_card is not None and not shoe.first_card_unread:
                seen = faces(self.table.zones.get(BURN, []))
                if seen and seen[0] != shoe.first_card:
                    return "the BURN zone still shows another card"
        if k == "unread_card" and not self.camera:
            return "no camera is fitted to read the card at reveal"
        return None

    def resuming(self, faults: list[ActiveFault]) -> None:
        r = self.round
        if r is None or not self.round_in_progress():
            return
        for f in faults:
            if f.kind == "unread_card":
                for d in r.deal.cards:
                    if d.card is None and d.position != BURN:
                        r.deal.single_source.add(d.position)

    def on_resume(self) -> None:
        t = self.table
        if self.round_in_progress():
            r = self.round
            assert r is not None
            r.deal.placement_restarted_us = t.now_us
            self._check_placement()
            if r.closed and r.deal.complete:
                self._arm_reveal()
            if self.camera:
                self._check_reveals()
        if self.shoe is not None and self.shoe.empty and t.phase == "between_rounds":
            self.end_shoe()

    def cancel_outside_round(self, user: str | None) -> bool:
        # a fault only cancel clears, outside a round (a foreign card or an empty shoe in
        # the burn): the shoe cannot go on
        return any(f.cancel_only for f in self.table.faults)

    def cancel_round(self, user: str | None, reason: str) -> None:
        t = self.table
        r = self.round
        assert r is not None
        refunds = refund_lines(r.bets)
        for b in r.bets:
            t.credit(b.account, b.deducted)
        r.finished = True
        t.disarm("placement", "reveal", "camera", "betting_close")
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
        self.table.disarm("placement", "reveal", "camera")

    # ------------------------------------------------------------------ validation
    def after_input(self) -> None:
        t = self.table
        r = self.round
        if r is None or r.finished or t.state == "paused" or t.phase != "revealing":
            return
        if not r.deal.all_read():
            return
        if self.camera and not all(r.deal.confirmed.get(p) for p in self.game.positions):
            return
        self._validate()

    def _validate(self) -> None:
        t = self.table
        r = self.round
        assert r is not None and self.shoe is not None
        hands = r.deal.hands()
        results = self.game.evaluate(hands)
        validated_by = ["shoe", "camera"] if self.camera else ["shoe"]
        hand = t.emit(
            "hand",
            round_id=r.round_id,
            shoe=self.shoe.number,
            round=r.number,
            cards={p: [str(c) for c in cs] for p, cs in hands.items()},
            results=results,
            last_round=r.last_round,
            validated_by=validated_by,
            **({"single_source": sorted(r.deal.single_source)} if r.deal.single_source else {}),
        )
        settled = t.settle_bets(r.bets, lambda b: self.game.returned(b.spot, b.amount, hands))
        t.emit("settlement", round_id=r.round_id, bets=settled)
        t.message(f"hand:{r.round_id}", "hand", round_id=r.round_id, game=self.game.name,
                  cards=hand["cards"], results=results, validated_by=validated_by,
                  settlement=settled)
        t.disarm("reveal", "placement", "camera")
        r.finished = True
        t.rounds_settled += 1
        t.remember({"round_id": r.round_id, "shoe": self.shoe.number, "round": r.number,
                    "cards": hand["cards"], "results": results,
                    "returned": sum(b["returned"] for b in settled),
                    "deducted": sum(b["deducted"] for b in settled),
                    "bets": len(settled), "t": to_s(t.now_us)})
        if r.last_round:
            self.end_shoe()

    # ------------------------------------------------------------------ view
    def view(self) -> dict[str, Any]:
        shoe, r = self.shoe, self.round
        out: dict[str, Any] = {"shoe": None, "round": None}
        if shoe is not None:
            out["shoe"] = {
                "number": shoe.number,
                "confirmed": shoe.confirmed,
                "loaded": shoe.loaded,
                # the first card is shown face up on the table: public
                "first_card": str(shoe.first_card) if shoe.first_card else None,
                "burn_count": shoe.burn_count,
                "burns_left": shoe.burns_left,
                "cards_out": shoe.cards_out,
                "rounds": shoe.rounds_opened,
                "cut_card_seen": shoe.cut_seen,
                "last_round": shoe.last_round_number,
                "ended": shoe.ended,
            }
        if r is not None:
            dealt = dict.fromkeys(self.game.positions, 0)
            for d in r.deal.cards:
                if d.position != BURN:
                    dealt[d.position] += 1
            revealed = {
                p: [str(c) for c in r.deal.camera_cards[p]]
                for p in self.game.positions
                if r.closed and r.deal.confirmed.get(p) and p in r.deal.camera_cards
            }
            out["round"] = {
                "round_id": r.round_id,
                "number": r.number,
                "opened_at": to_s(r.opened_us),
                "closes_at": to_s(r.closes_us),
                "betting_open": not r.closed and not r.finished,
                "cards_dealt": sum(dealt.values()),
                "burned": any(d.position == BURN for d in r.deal.cards),
                "dealt": dealt,
                "revealed": revealed,
                "finished": r.finished,
                "last_round": r.last_round,
                "bets": len(r.bets),
                "staked": sum(b.amount for b in r.bets),
            }
        return out

    # ------------------------------------------------------------------ decisions offered
    def decisions(self) -> list[dict[str, Any]]:
        """What the dealer and the supervisor may do now, with the reason for what they may
        not: the same checks as `_dealer_new_shoe`, `_dealer_open_betting` and the kernel's
        supervisor decisions (station/games/decisions.py)."""
        from station.games.decisions import decision, ordered, supervisor_decisions

        t = self.table
        shoe, r = self.shoe, self.round
        paused = t.state == "paused"
        ph = t.phase
        if paused:
            why = "paused: the supervisor must decide first"
        elif ph not in ("idle", "closed"):
            why = "a shoe is still in play (End shoe first)"
        else:
            why = None
        out = [decision("new_shoe", why,
                        "start a new shoe: the supervisor then confirms the shuffle")]
        why = "paused: the supervisor must decide first" if paused else self._open_betting_refusal()
        out.append(decision("open_betting", why, "open the next round for bets"))
        if self.round_in_progress() and r is not None:
            refund = (f"every bet refunded ({len(r.bets)} bets, "
                      f"{sum(b.amount for b in r.bets)} staked)" if r.bets else "no bets to refund")
            healthy = "" if paused else " although nothing is wrong with it"
            cancel = f"void round {r.round_id}{healthy}: {refund}; its cards are not played"
        else:
            cancel = ""
        out += supervisor_decisions(
            self, shuffle_waiting=ph == "shuffling" and shoe is not None and not shoe.confirmed,
            cancel_effect=cancel,
            shoe_label=f"shoe {shoe.number}" if shoe is not None and not shoe.ended else None)
        return ordered(out)
