"""The scripted dealer of a simulated Wenzhou Pai Gow table (PROCEDURE.md §6), the game's
`scripted_dealer`, on the station's scripted dealer (station/sim/dealer.py, whose plumbing and
patient floor supervisor it shares: actions through the station's journaled input path,
waiting on the public view, deciding a pause after `decide_after` seconds).

A shuffle: new_shoe, the supervisor's check, the shoe filled with the 32 cards (LOAD); no
first card, no burn. Each of its two rounds: open_betting; bets come from the bettors; at
the close the dealer throws two dice into the tray (the synthetic camera renders them, the
recogniser's dice reader reads them) and types the faces (`dice`); once the dice are known
(entry and tray agree) the dealer deals the 8 cards face up, one per door from the first
door the dice name, twice round; the camera confirms each door; after the hand is validated
and settled the doors and the tray are cleared. After round 2 the shoe has ended and the next
shuffle begins.

Mistakes are data (`DealerMistakes`): a card on the wrong door (`order`; the dealer moves
it), a misprinted face (`card_mismatch`; the supervisor cancels), a die typed wrong
(`dice_mismatch`; the dealer types the dice again). A tray the camera cannot read with
certainty (a die `0`) is a `dice_mismatch` too: the dealer straightens the dice.
"""

from __future__ import annotations

import logging
from typing import Any

from station.games.paigow.rules import DICE_ZONE, POSITIONS, deal_plan_for
from station.games.paigow.tiles import DECK
from station.sim.dealer import TABLE_WAIT_S, ScriptedDealer

log = logging.getLogger("station.games.paigow.dealer")

DOORS = POSITIONS  # BANKER, SHUN, CHU, DAO


class PaiGowDealer(ScriptedDealer):
    """Deals a Pai Gow table from a `ShoeSimulator` holding the 32-card deck into a
    `TableScene` with the doors and the dice tray (None: a table without a camera)."""

    #: the cards are dealt face up: none is turned early; a die may be typed wrong
    mistakes_made = ("misplace", "misprint", "mistype_dice")

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._faces: list[int] | None = None  # the dice thrown this round
        self._seen_this_shuffle: set[str] = set()  # for a card the shoe could not read

    def _new_shoe(self) -> None:
        """A shuffle of the 32 cards: no first card, no burn."""
        self._seen_this_shuffle = set()
        self._shuffle()
        self._wait_for(lambda v: v.get("phase") == "between_rounds", "the shuffle to be loaded", TABLE_WAIT_S)

    # ---- the floor supervisor's corrections
    def _correct_table(self, v: dict[str, Any]) -> None:
        super()._correct_table(v)
        kinds = {f["kind"] for f in v.get("faults", [])}
        if "dice_mismatch" in kinds and self._faces is not None:
            if self.scene is not None:
                # the dealer straightens the dice so the camera sees them; same faces up
                self.scene.throw_dice(self._faces)
                self._sleep(1.5)
            self._act("dealer", "dice", extra={"dice": list(self._faces)})
            self._sleep(0.5)

    # ---- a round
    def _deal_round(self) -> None:
        rng = self.rng = self._round_rng()
        self._on_table: dict[str, list[str]] = {d: [] for d in DOORS}
        self._revealed: set[str] = set(DOORS)  # Pai Gow deals face up
        self._faults_this_round: dict[str, int] = {}
        self._faces = None
        self._misplaced = None  # a card misplaced in a cancelled round left with its table
        misplace_at = rng.randrange(0, 8) if rng.random() < self.mistakes.misplace else None
        misprint_at = rng.randrange(0, 8) if rng.random() < self.mistakes.misprint else None
        mistype = rng.random() < self.mistakes.mistype_dice
        self._wait_for(lambda v: v.get("round") and not v["round"]["betting_open"],
                       "betting to close", 120)
        self._sleep(1.0)
        faces = [rng.randint(1, 6), rng.randint(1, 6)]
        self._faces = faces
        if self.scene is not None:
            self.scene.hand_over(DICE_ZONE)
            self._sleep(0.5)
            self.scene.hand_over(None)
            self.scene.throw_dice(faces)
            self._sleep(1.0)
        typed = list(faces)
        if mistype:
            typed[rng.randrange(2)] = rng.choice([f for f in range(1, 7) if f not in faces] or [1])
        self._act("dealer", "dice", extra={"dice": typed})
        v = self._wait_for(lambda v: v.get("round") and v["round"].get("dice") is not None,
                           "the dice to be known", 120)
        plan = deal_plan_for(v["round"]["dice"])
        self._sleep(1.0)
        for k in range(8):
            card = self._draw()
            door = plan[k]
            if card == "??":
                # the card is real; only the shoe's reader failed
                card = next(str(c) for c in DECK if str(c) not in self._seen_this_shuffle)
            self._seen_this_shuffle.add(card)
            if self.scene is not None:
                zone = door
                if k == misplace_at:
                    zone = DOORS[(DOORS.index(door) + 1) % len(DOORS)]
                    self._misplaced = (zone, door, card)
                self._on_table[zone].append(card)
                if k == misprint_at:
                    self.scene.deal(zone, "KS" if card != "KS" else "QS", face_up=True)
                else:
                    self.scene.deal(zone, card, face_up=True)
                self.scene.hand_over(zone)
            self._sleep(self.deal_gap)
            if self.scene is not None:
                self.scene.hand_over(None)
        self._close_round()
