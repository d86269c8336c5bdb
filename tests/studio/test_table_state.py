"""The studio console's line for a table (station/studio/state.py), built from the table
kernel's own public view: a Si Zhi Dao table shows its game as its round."""

from __future__ import annotations

from station.core.inputs import read_trace
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.core.view import public_view
from station.games.sizhidao.script import SzTraceScript
from station.studio.state import TableState

HANDS = {"S1": ["AS", "AD", "KH", "QC"], "S2": ["9S", "QD", "5H", "5C"], "S3": ["TS", "4D", "6H", "2C"]}


class _Station:
    """What TableState reads of a running station: its public view and its records."""

    def __init__(self, kernel: TableKernel) -> None:
        self.kernel = kernel
        self.listeners: list = []

    @property
    def view(self) -> dict:
        return public_view(self.kernel)

    def add_listener(self, fn) -> None:
        self.listeners.append(fn)


def test_a_sizhidao_table_shows_its_game_as_its_round_and_the_last_pot(tmp_path) -> None:
    s = SzTraceScript()
    s.sit([("u1", "S1"), ("u2", "S2"), ("u3", "S3")])
    s.shuffle().dealer("open_betting").wait(1)
    s.deal(HANDS, "S1").wait(1)
    header, inputs = read_trace(s.write(tmp_path / "t.jsonl"))
    kernel = TableKernel(settings_from_header(header))
    for inp in inputs:
        kernel.apply(inp)
    station = _Station(kernel)
    state = TableState(station, None)
    line = state.state()
    assert line["game"] == "sizhidao"
    assert line["round"] == "SZ-01-G1"
    assert line["game_round"] == {"deal": "SZ-01-G1-D1", "deal_phase": "betting", "pot": 300}
    # a settled game's pot and payouts become the table's last results
    for fn in station.listeners:
        fn([{"type": "game_settled", "game_id": "SZ-01-G1", "pot": 300, "payouts": {"u1": 300}}])
    assert state.state()["last_results"] == {"pot": 300, "payouts": {"u1": 300}}
    assert state.state()["rounds_done"] == 1
