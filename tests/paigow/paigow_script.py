"""Staged Pai Gow table sessions as traces (on station/sim/script.py's TraceScript, which
writes real DS frames and the camera's observations): a shuffle, a round, the dice, a deal
by the plan the dice name, face up."""

from __future__ import annotations

from collections.abc import Sequence

from station.core.replay import replay_records
from station.games.paigow.rules import deal_plan_for
from station.sim.script import CAMERA_LAG, DEAL_GAP, TraceScript

DOORS = ("BANKER", "SHUN", "CHU", "DAO")
# 8 cards of the 32 (none repeated); dealt from DAO for dice 4+4
ROUND = ["QH", "2H", "8H", "4H", "TC", "6C", "4C", "JH"]
ROUND2 = ["QD", "2D", "8D", "4D", "TS", "6S", "4S", "JD"]


class PaiGowScript(TraceScript):
    def __init__(self, *, camera: bool = True, settings: dict | None = None) -> None:
        super().__init__(table="WZ-01", camera=camera, settings=settings)
        self.header["game"] = "paigow"
        self.zones = {z: [] for z in (*DOORS, "DICE")}

    def start_shuffle(self) -> PaiGowScript:
        self.dealer("new_shoe").wait(1)
        self.supervisor("confirm_shuffle").wait(1)
        self.shoe("LOAD").wait(1)
        return self

    def dice(self, faces: Sequence[object]) -> PaiGowScript:
        self._add(dealer="dice", dice=list(faces))
        return self

    def tray(self, faces: Sequence[int]) -> PaiGowScript:
        self.camera({"DICE": list(faces)})
        return self

    def throw(self, faces: Sequence[int]) -> PaiGowScript:
        self.wait(1.0)
        if self.camera_on:
            self.tray(faces).wait(0.5)
        return self.dice(faces).wait(1.0)

    def deal8(self, cards: Sequence[str], dice: Sequence[int], *, place: dict[int, str] | None = None,
              shown: dict[int, str] | None = None) -> PaiGowScript:
        """Deal by the plan the dice name, face up; `place` puts card k on another door,
        `shown` makes the camera read card k as another card."""
        plan = deal_plan_for(dice)
        place, shown = place or {}, shown or {}
        for k, c in enumerate(cards):
            self.card(c).wait(CAMERA_LAG)
            door = place.get(k, plan[k] if k < len(plan) else "BANKER")
            if self.camera_on:
                self.camera({door: [*self.zones[door], shown.get(k, c)]})
            self.wait(DEAL_GAP - CAMERA_LAG)
        return self

    def clear(self) -> PaiGowScript:
        if self.camera_on:
            self.wait(2).camera({z: [] for z in (*DOORS, "DICE")})
        return self.wait(2)

    def round(self, cards: Sequence[str], dice: Sequence[int] = (4, 4),
              bets: Sequence[tuple[str, str, int]] = ()) -> PaiGowScript:
        self.open_round()
        for a, s, amt in bets:
            self.bet(a, s, amt).wait(0.1)
        self.until_closed().throw(dice).deal8(cards, dice).wait(1.0)
        return self.clear()


def staged(**kw) -> PaiGowScript:
    s = PaiGowScript(**kw)
    s.wallet("u1", 100_000).wallet("u2", 100_000)
    return s.start_shuffle()


def run(script: TraceScript, tmp_path) -> list[dict]:
    return replay_records(script.write(tmp_path / "trace.jsonl"))


def of(records: list[dict], type_: str) -> list[dict]:
    return [r for r in records if r["type"] == type_]


def faults(records: list[dict]) -> list[str]:
    return [r["kind"] for r in of(records, "fault")]
