"""Pok Deng's procedure at the table (PROCEDURE.md §2–§5), plugged into the table kernel.

The life of a shoe: shuffle check and LOAD, the first card shown in BURN names the burn
count, the burns, then rounds of 13 cards (a burn and 12 face down) with the countdown, the
reveal confirmed by the camera position by position, and the cut card naming the last round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from station.cards import Card
from station.core.bets import Bet
from station.core.deal import CUT_CARD, FACE_DOWN, DealTracker, dealt_cards, faces
from station.core.faults import FAULT_KINDS
from station.core.inputs import to_s
from station.games.base import BURN
from station.games.house_round import HouseRound, HouseRoundState, HouseShoe

if TYPE_CHECKING:
    from station.core.faults import ActiveFault


@dataclass(slots=True)
class ShoeState(HouseShoe):
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
class RoundState(HouseRoundState):
    deal: DealTracker
    closed: bool = False
    bets: list[Bet] = field(default_factory=list)
    revealed: list[str] = field(default_factory=list)
    last_round: bool = False
    finished: bool = False
    all_out_us: int | None = None


class PokDengProcedure(HouseRound):
    states = ("idle", "shuffling", "ready", "burning", "between_rounds", "betting", "dealing",
              "revealing", "paused", "closed")
    follow = {
        ("shuffling", "ready"): "shuffle_confirmed_and_loaded",
        ("ready", "burning"): "first_card_shown",
        ("burning", "between_rounds"): "burns_complete",
        ("betting", "dealing"): "betting_closes",
        ("betting", "revealing"): "betting_closes",
        **HouseRound.round_follow("revealing"),
        ("ready", "idle"): "shoe_ended",
        ("burning", "idle"): "shoe_ended",
    }
    round_phases = ("betting", "dealing", "revealing")
    closable = ("idle", "between_rounds", "shuffling", "ready", "burning")
    cards_due_states = frozenset({"ready", "burning", "betting", "dealing"})
    fault_kinds = {**FAULT_KINDS, "extra_card": ("A 14th card was drawn in this round.", "cancel")}
    cancel_only = frozenset({"extra_card", "premature_reveal", "foreign_card", "shoe_exhausted"})
    timer_order = ("betting_close", "link", "camera", "placement", "reveal")
    settings_used = ("betting_seconds", "placement_timeout_seconds", "reveal_timeout_seconds",
                     "camera_lost_seconds", "link_lost_seconds", "min_bet", "max_bet",
                     "camera_lag_tolerant")
    inclusive_timers = frozenset({"betting_close"})

    in_play_refusal = "a shoe is still in play"
    placement_seen = "{seen} dealt cards"
    zones_word = "position"
    order_holds = "the position zones still do not follow the deal order"
    unread_holds = "no camera is fitted to read the card at reveal"

    shoe_class = ShoeState
    shoe: ShoeState | None
    round: RoundState | None

    def new_round(self, number: int, round_id: str, opened_us: int, closes_us: int) -> RoundState:
        shoe = self.shoe
        assert shoe is not None
        r = RoundState(number, round_id, opened_us, closes_us,
                       DealTracker(self.game.deal_plan, self.game.positions))
        r.last_round = shoe.last_round_number is not None and number >= shoe.last_round_number
        return r

    # ------------------------------------------------------------------ tables
    def timer_handlers(self) -> dict[str, Any]:
        return {"betting_close": self._timer_betting_close, "placement": self._timer_placement,
                "reveal": self._timer_reveal}

    # ------------------------------------------------------------------ facts -> phase
    def phase(self) -> str:
        before = self.shoe_phase()
        if before:
            return before
        s = self.shoe
        assert s is not None
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
    def foreign_words(self, problem: str) -> str:
        return ("a printed code already seen in this shoe" if "code" in problem
                else f"more copies of one card than {self.game.decks} decks hold")

    def on_card(self, card: Card | None, code: str | None) -> None:
        t = self.table
        shoe = self.shoe
        self._draw(card, code)
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
    def after_close(self) -> None:
        r = self.round
        assert r is not None
        if r.deal.complete:
            self._arm_reveal()
        if self.camera and not r.finished:
            self._check_zones()

    # ------------------------------------------------------------------ dealer
    def shoe_not_ready(self) -> str | None:
        shoe, ph = self.shoe, self.table.phase
        if ph in ("shuffling", "ready"):
            return "the shoe is not ready: shuffle, load and first card first"
        if ph == "burning":
            return f"burn cards remain ({shoe.burns_left if shoe else 0})"
        return None

    # ------------------------------------------------------------------ decisions
    def game_condition_holds(self, f: ActiveFault) -> str | None:
        t = self.table
        if f.kind == "burn_count" and t.phase in ("ready", "burning") and self._position_card_count():
            return "a position zone still holds a card"
        shoe = self.shoe
        if f.kind == "card_mismatch" and not self.round_in_progress() and shoe is not None \
                and shoe.first_card is not None and not shoe.first_card_unread:
            seen = faces(self.table.zones.get(BURN, []))
            if seen and seen[0] != shoe.first_card:
                return "the BURN zone still shows another card"
        return None

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

    def hand_proof(self) -> dict[str, Any]:
        r = self.round
        assert r is not None
        return {"single_source": sorted(r.deal.single_source)} if r.deal.single_source else {}

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
