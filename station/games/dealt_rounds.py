"""What the dealt-card games with rounds against the house (station/games/house_round.py) do the
same way: the shoe in play and its round, a new shoe from the dealer, the count of dealt cards the
camera sees in the positions, and the placement and reveal clocks (PROCEDURE.md §3.3, §6.3).

A game's procedure keeps `shoe` (`ended`, `empty`) and `round` (`round_id`, `finished`,
`deal`, a `DealTracker` once the deal plan is known) and names its words: what a shoe is
called at its table and what the camera sees when it counts the dealt cards."""

from __future__ import annotations

from typing import Any

from station.core.deal import dealt_cards
from station.core.inputs import Input
from station.games.decisions import PAUSED


class DealtRounds:
    """Mixed into a `Procedure` before it."""

    table: Any
    game: Any
    shoe: Any
    round: Any
    #: what the dealer refuses a new shoe with while one is in play
    in_play_refusal: str = "a shoe is still in play"
    #: the placement fault's words for the dealt cards the camera sees, `{seen}` their count
    placement_seen: str = "{seen} dealt cards"

    def new_shoe_state(self, number: int) -> Any:
        """The game's state of the shoe `number` it starts."""
        raise NotImplementedError

    # ---- facts
    def round_in_progress(self) -> bool:
        return self.round is not None and not self.round.finished

    def round_id(self) -> str | None:
        return self.round.round_id if self.round is not None else None

    def shoe_in_play(self) -> bool:
        return self.shoe is not None and not self.shoe.ended

    def shoe_must_end(self) -> bool:
        return self.shoe is not None and self.shoe.empty

    @property
    def camera(self) -> bool:
        return self.table.settings.camera

    def _position_card_count(self) -> int:
        """Dealt cards the camera sees in the game's positions (not the burn zone)."""
        zones = self.table.zones
        return sum(len(dealt_cards(zones.get(p, []))) for p in self.game.positions)

    # ---- the dealer
    def new_shoe_refusal(self) -> str | None:
        """What the dealer's new_shoe is refused with now: the table's answer and the
        decision a screen offers."""
        t = self.table
        if t.state == "paused":
            return PAUSED
        if t.phase not in ("idle", "closed"):
            return self.in_play_refusal
        return None

    def _dealer_new_shoe(self, inp: Input) -> None:
        t = self.table
        reason = self.new_shoe_refusal()
        if reason:
            return t.refuse("new_shoe", None, reason)
        number = t.begin_shoe()
        self.shoe = self.new_shoe_state(number)
        if t.take_pending_load():
            self.shoe.loaded = True
        self.round = None
        t.trigger("new_shoe")
        t.emit("shoe_start", shoe=self.shoe.number)
        t.after_new_shoe()
        return None

    # ---- the placement and reveal clocks
    def _check_placement(self) -> None:
        t = self.table
        r = self.round
        if r is None or r.finished or not self.camera or r.deal is None:
            return
        due = r.deal.placement_deadline(t.zones, t.now_us, t.settings.camera_lag_tolerant,
                                        t.us(t.settings.placement_timeout_seconds))
        if due is None:
            t.disarm("placement")
        else:
            t.arm("placement", due)

    def _arm_reveal(self) -> None:
        t = self.table
        if self.camera:
            t.arm("reveal", t.now_us + t.us(t.settings.reveal_timeout_seconds))

    def _timer_placement(self) -> None:
        r = self.round
        if self.round_in_progress() and r is not None and r.deal is not None:
            seen, read = self._position_card_count(), r.deal.shoe_position_count()
            if seen != read:
                self.table.raise_fault("placement_timeout", "the camera sees "
                                       f"{self.placement_seen.format(seen=seen)}, "
                                       f"the shoe reported {read}")

    def _timer_reveal(self) -> None:
        r = self.round
        if r is None or r.finished or r.deal is None:
            return
        waiting = [p for p in self.game.positions if not r.deal.confirmed.get(p)]
        if waiting:
            self.table.raise_fault("reveal_timeout", f"not confirmed by the camera: {', '.join(waiting)}")
