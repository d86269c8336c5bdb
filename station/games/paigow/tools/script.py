"""Staged Wenzhou Pai Gow table sessions written as traces (on station/sim/script.py's
TraceScript, which writes real DS frames and the camera's observations): a shuffle, a round,
the dice thrown and entered, a deal by the plan the dice name, face up, the doors cleared."""

from __future__ import annotations

from collections.abc import Sequence

from station.games.paigow.rules import DICE_ZONE, PaiGow, deal_plan_for
from station.sim.script import CAMERA_LAG, DEAL_GAP, TraceScript

GAME = PaiGow()
DOORS = GAME.positions  # BANKER, SHUN, CHU, DAO


class PaiGowScript(TraceScript):
    """A trace of a Pai Gow table (by default WZ-01): its doors and its dice tray."""

    def __init__(self, *, table: str | None = None, camera: bool = True,
                 settings: dict | None = None, note: str = "", boot_id: str = "5EED0001") -> None:
        super().__init__(GAME, table=table, camera=camera, settings=settings, note=note,
                         boot_id=boot_id)

    def start_shuffle(self) -> PaiGowScript:
        self.dealer("new_shoe").wait(1)
        self.supervisor("confirm_shuffle").wait(1)
        self.shoe("LOAD").wait(1)
        return self

    def dice(self, faces: Sequence[object]) -> PaiGowScript:
        self._add(dealer="dice", dice=list(faces))
        return self

    def tray(self, faces: Sequence[int]) -> PaiGowScript:
        self.camera({DICE_ZONE: list(faces)})
        return self

    def throw(self, faces: Sequence[int]) -> PaiGowScript:
        self.wait(1.0)
        if self.camera_on:
            self.tray(faces).wait(0.5)
        return self.dice(faces).wait(1.0)

    def deal8(self, cards: Sequence[str], dice: Sequence[int], *, place: dict[int, str] | None = None,
              shown: dict[int, str] | None = None, start: int = 0) -> PaiGowScript:
        """Deal by the plan the dice name, face up, from card `start` of the round; `place`
        puts card k on another door, `shown` makes the camera read card k as another card."""
        plan = deal_plan_for(dice)
        place, shown = place or {}, shown or {}
        for k, c in enumerate(cards, start):
            self.card(c).wait(CAMERA_LAG)
            door = place.get(k, plan[k] if k < len(plan) else "BANKER")
            if self.camera_on:
                self.camera({door: [*self.zones[door], shown.get(k, c)]})
            self.wait(DEAL_GAP - CAMERA_LAG)
        return self

    def clear(self) -> PaiGowScript:
        if self.camera_on:
            self.wait(2).camera({z: [] for z in (*DOORS, DICE_ZONE)})
        return self.wait(2)

    def round(self, cards: Sequence[str], dice: Sequence[int] = (4, 4),
              bets: Sequence[tuple[str, str, int]] = ()) -> PaiGowScript:
        self.open_round()
        for a, s, amt in bets:
            self.bet(a, s, amt).wait(0.1)
        self.until_closed().throw(dice).deal8(cards, dice).wait(1.0)
        return self.clear()
