"""Staged Pai Gow table sessions as traces (on station/sim/script.py's TraceScript, which
writes real DS frames and the camera's observations): a shuffle, a round, the dice, a deal
by the plan the dice name, face up."""

from __future__ import annotations

from station.core.replay import replay_records
from station.games.paigow.tools.script import DOORS, PaiGowScript
from station.sim.script import TraceScript

__all__ = ["DOORS", "PaiGowScript", "ROUND", "ROUND2", "faults", "of", "run", "staged"]

# 8 cards of the 32 (none repeated); dealt from DAO for dice 4+4
ROUND = ["QH", "2H", "8H", "4H", "TC", "6C", "4C", "JH"]
ROUND2 = ["QD", "2D", "8D", "4D", "TS", "6S", "4S", "JD"]


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
