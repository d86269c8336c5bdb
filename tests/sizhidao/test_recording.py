"""A live Si Zhi Dao table records its session as a trace (station/live/recording.py) that
replays on its own to the records the table made (TRACES.md §1, §4): a game uses a fresh deck
per deal, so a file cut at each shoe would start mid-game with nobody seated; the recorder
keeps the session in one file. A Pok Deng table still rotates per shoe."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from station.core.inputs import read_trace
from station.core.replay import replay_records, settings_from_header
from station.live.recording import ShoeTraceRecorder
from station.live.table_station import TableStation
from station.runtime import attach_recorder
from tests.sizhidao.staged_games import two_tie_rounds_and_an_all_in_layer


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _played_live(trace: Path, tmp_path: Path, *, lines: slice = slice(None),
                 clock: Clock | None = None) -> tuple[list[dict[str, Any]], ShoeTraceRecorder]:
    """The lines of `trace` (all, or a slice of its inputs) submitted to a live table on its
    journal (a journal already there: the table restarts from it), recorded as the runtime
    records them."""
    header, inputs = read_trace(trace)
    clock = clock or Clock()
    station = TableStation(settings_from_header(header), tmp_path / "table.journal.sqlite",
                           clock=clock, max_idle=0.05)
    recorder = attach_recorder(station, tmp_path / "recorded")
    live: list[dict[str, Any]] = []
    station.add_listener(live.extend)
    station.start()
    try:
        for inp in inputs[lines]:
            if inp.kind == "end":
                break
            clock.t = inp.t_us / 1e6
            station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)
    finally:
        station.stop()
        recorder.close()
    return live, recorder


def _comparable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] != "balances"]


def test_a_recorded_si_zhi_dao_session_replays_to_the_same_records(tmp_path: Path) -> None:
    script, want = two_tie_rounds_and_an_all_in_layer()
    # a second game after the first, cancelled while its deck is being shuffled
    s = script
    if s.lines[-1].get("end"):
        s.lines.pop()
    s.wait(2).dealer("open_betting").wait(1).dealer("new_shoe").wait(1)
    s.supervisor("cancel_round").end()
    live, recorder = _played_live(s.write(tmp_path / "staged.jsonl"), tmp_path)
    # three deals, four shoes: still one file, the whole session
    assert sum(1 for r in live if r["type"] == "shoe_start") == 4
    assert len(recorder.files) == 1 and recorder.files[0].name.startswith("SZ-01-session-")
    replayed = replay_records(recorder.files[0])
    assert _comparable(replayed) == _comparable(live)
    # and through the command the floor uses: `station replay FILE --out OUT`
    out = tmp_path / "replayed.jsonl"
    subprocess.run([sys.executable, "-m", "station", "replay", str(recorder.files[0]),
                    "--out", str(out)], check=True, capture_output=True, timeout=120)
    from_cli = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
    assert _comparable(from_cli) == _comparable(live)
    (settled,) = [r for r in replayed if r["type"] == "game_settled"]
    assert settled["payouts"] == want["payouts"]
    (cancelled,) = [r for r in replayed if r["type"] == "round_cancelled"]
    assert cancelled["round_id"] == "SZ-01-G2"


def test_a_session_trace_written_after_a_restart_replays_on_its_own(tmp_path: Path) -> None:
    """The table is stopped in the middle of the tie rounds and started again from its
    journal: the file it writes from then on begins with the whole session so far, and replays
    alone to every record the table made, before the restart and after it."""
    script, want = two_tie_rounds_and_an_all_in_layer()
    staged = script.write(tmp_path / "staged.jsonl")
    _, inputs = read_trace(staged)
    cut = len(inputs) * 2 // 3
    clock = Clock()
    before, first = _played_live(staged, tmp_path, lines=slice(0, cut), clock=clock)
    after, second = _played_live(staged, tmp_path, lines=slice(cut, None), clock=clock)
    assert before and after and len(first.files) == 1 and len(second.files) == 1
    # the first file holds the session up to the stop only
    assert not any(r["type"] == "game_settled" for r in replay_records(first.files[0]))
    replayed = replay_records(second.files[0])
    assert _comparable(replayed) == _comparable(before + after)
    (settled,) = [r for r in replayed if r["type"] == "game_settled"]
    assert settled["payouts"] == want["payouts"]


def test_a_pok_deng_table_still_rotates_its_trace_per_shoe(tmp_path: Path) -> None:
    trace = Path(__file__).resolve().parents[1] / "data" / "traces" / "clean_shoe" / "trace.jsonl"
    live, recorder = _played_live(trace, tmp_path)
    shoes = [r["shoe"] for r in live if r["type"] == "shoe_start"]
    assert shoes and [p.name.split("-")[2] for p in recorder.files][-len(shoes):] == [
        f"S{n}" for n in shoes]
