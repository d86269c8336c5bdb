"""Shared by the staged-trace tests: a started shoe, fixed rounds, and record filters."""

from __future__ import annotations

from station.core.replay import replay_records
from station.games.pokdeng.tools.script import PokDengScript
from station.sim.script import TraceScript

R1 = ["2C", "AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH"]
R2 = ["3C", "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS", "JS", "QS"]
R3 = ["4C", "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD"]


def run(script: TraceScript, tmp_path) -> list[dict]:
    """Write the staged trace and replay it through the table core."""
    return replay_records(script.write(tmp_path / "trace.jsonl"))


def of(records, type_):
    return [r for r in records if r["type"] == type_]


def faults(records):
    return [r["kind"] for r in of(records, "fault")]


def refused(records, action=None):
    return [r for r in of(records, "action_refused") if action is None or r["action"] == action]


def started(**kw) -> TraceScript:
    """A shoe with its shuffle confirmed, loaded, first card 2D and its two burns done."""
    s = PokDengScript(**kw)
    s.wallet("u1", 100_000).wallet("u2", 100_000)
    s.start_shoe("2D", ["KC", "KD"])
    return s
