"""The live station (owner thread, journal, recovery) gives exactly what replay gives."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from station.core.inputs import US, read_trace
from station.core.journal import JournalError
from station.core.replay import replay_records, settings_from_header
from station.live.table_station import TableStation

TRACES = Path(__file__).parents[1] / "data" / "traces"
KEY = b"k" * 32


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def feed(st: TableStation, clk: Clock, inputs, start: int = 0, stop: int | None = None) -> None:
    for inp in inputs[start:stop]:
        if inp.kind == "end":
            break
        clk.t = 1000.0 + inp.t_us / US
        st.submit(inp.kind, inp.value, inp.user)


@pytest.mark.parametrize("name", ["mismatch_cancel", "order_fault", "degraded_no_camera"])
def test_live_station_records_equal_replay(tmp_path, name):
    path = TRACES / name / "trace.jsonl"
    header, inputs = read_trace(path)
    clk = Clock()
    st = TableStation(settings_from_header(header), tmp_path / "j.sqlite", clock=clk)
    got: list[dict] = []
    st.add_listener(got.extend)
    st.start()
    feed(st, clk, inputs)
    st.stop()
    want = [r for r in replay_records(path) if r["type"] != "balances"]
    assert got == want


def test_restart_carries_on_nothing_twice_nothing_lost(tmp_path):
    path = TRACES / "mismatch_cancel" / "trace.jsonl"
    header, inputs = read_trace(path)
    settings = settings_from_header(header)
    clk = Clock()
    cut = len(inputs) // 2
    st = TableStation(settings, tmp_path / "j.sqlite", clock=clk)
    st.start()
    feed(st, clk, inputs, 0, cut)
    st.stop()  # as good as a crash: the next start knows only the journal
    st2 = TableStation(settings, tmp_path / "j.sqlite", clock=clk)
    assert st2.recover() == cut
    st2._thread = None
    st2.core.take_outputs()
    st2.journal.close()
    st3 = TableStation(settings, tmp_path / "j.sqlite", clock=clk)
    st3.start()
    feed(st3, clk, inputs, cut)
    st3.stop()
    j = sqlite3.connect(tmp_path / "j.sqlite")
    import json

    stored = [json.loads(r) for (r,) in j.execute("SELECT record FROM records ORDER BY seq")]
    want = [r for r in replay_records(path) if r["type"] != "balances"]
    assert stored == want


def test_tampered_journal_is_refused(tmp_path):
    path = TRACES / "order_fault" / "trace.jsonl"
    header, inputs = read_trace(path)
    clk = Clock()
    st = TableStation(settings_from_header(header), tmp_path / "j.sqlite", clock=clk)
    st.start()
    feed(st, clk, inputs, 0, 400)
    st.stop()
    j = sqlite3.connect(tmp_path / "j.sqlite")
    with j:
        j.execute("UPDATE records SET record = replace(record, '\"deducted\": 200', "
                  "'\"deducted\": 2000') WHERE type='bet_accepted'")
    j.close()
    st2 = TableStation(settings_from_header(header), tmp_path / "j.sqlite", clock=clk)
    with pytest.raises(JournalError, match="first differ"):
        st2.recover()


def test_bet_sent_twice_with_its_ref_is_placed_once(tmp_path):
    from station.games.pokdeng.tools.script import PokDengScript

    s = PokDengScript().wallet("u1", 1000)
    s.start_shoe("2D", ["KC", "KD"]).open_round()
    header, inputs = read_trace(s.write(tmp_path / "t.jsonl"))
    clk = Clock()
    st = TableStation(settings_from_header(header), tmp_path / "j.sqlite", clock=clk)
    st.start()
    feed(st, clk, inputs)
    bet = {"account": "u1", "spot": "P1", "amount": 100, "ref": "platform-42"}
    first, again = st.place_bets([bet, bet])
    other = st.place_bets([{**bet, "ref": "platform-43"}])[0]
    st.stop()
    assert first["type"] == "bet_accepted" and again == first
    assert other["type"] == "bet_accepted"
    st2 = TableStation(settings_from_header(header), tmp_path / "j.sqlite", clock=clk)
    st2.recover()
    assert st2.core.balances["u1"] == 1000 - 400


def test_station_refuses_a_journal_of_another_table(tmp_path):
    from station.core.settings import TableSettings

    TableStation(TableSettings(table="PD-01"), tmp_path / "j.sqlite").journal.close()
    with pytest.raises(JournalError, match="belongs to table PD-01"):
        TableStation(TableSettings(table="PD-02"), tmp_path / "j.sqlite")


def test_restart_from_a_snapshot(tmp_path):
    """With snapshots every 50 inputs a restart re-applies only the inputs after the newest
    one, and carries on to exactly the records of an uninterrupted run."""
    path = TRACES / "clean_shoe" / "trace.jsonl"
    header, inputs = read_trace(path)
    settings = settings_from_header(header)
    clk = Clock()
    st = TableStation(settings, tmp_path / "j.sqlite", clock=clk, signing_key=KEY)
    st.snapshot_every = 50
    st.start()
    feed(st, clk, inputs, 0, 1234)
    st.stop()
    st2 = TableStation(settings, tmp_path / "j.sqlite", clock=clk, signing_key=KEY)
    st2.snapshot_every = 50
    st2.start()
    assert st2.inputs_applied < 50  # not the whole journal
    feed(st2, clk, inputs, 1234)
    st2.stop()
    import json

    j = sqlite3.connect(tmp_path / "j.sqlite")
    stored = [json.loads(r) for (r,) in j.execute("SELECT record FROM records ORDER BY seq")]
    assert stored == [r for r in replay_records(path) if r["type"] != "balances"]
    assert j.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0] == 1


def test_a_journal_keeps_the_settings_it_was_started_with(tmp_path):
    from station.core.settings import TableSettings

    TableStation(TableSettings(betting_seconds=15), tmp_path / "j.sqlite").journal.close()
    st = TableStation(TableSettings(betting_seconds=5), tmp_path / "j.sqlite")
    assert st.core.settings.betting_seconds == 15
    st.journal.close()


def test_station_time_never_goes_backwards_and_only_the_core_moves_it(tmp_path, monkeypatch):
    """Station time runs on the monotonic clock from where the start sits on the journal's
    time line; the wall clock is read once, at start. A clock that steps back, a wall clock
    that jumps, and other threads asking the time move nothing."""
    import inspect
    import threading
    import time as time_module

    from station.core.journal import Journal
    from station.core.settings import TableSettings

    assert inspect.signature(TableStation).parameters["clock"].default is time_module.monotonic
    clk = Clock()
    st = TableStation(TableSettings(camera=False), tmp_path / "j.sqlite", clock=clk)
    st.start()
    stop = threading.Event()

    def ask() -> None:  # the console asks the time all along
        while not stop.is_set():
            st.now_us()

    asker = threading.Thread(target=ask)
    asker.start()
    try:
        for t, step in ((1001.0, None), (1002.5, None), (1000.2, "back"), (1003.0, "jump")):
            clk.t = t
            if step == "jump":  # the wall clock is stepped an hour ahead (NTP)
                monkeypatch.setattr(time_module, "time", lambda: 10.0**10)
            st.submit("wallet", {"account": "u1", "balance": int(t)})
    finally:
        stop.set()
        asker.join()
        st.stop()
    times = [inp.t_us for _, inp in Journal(tmp_path / "j.sqlite").inputs()]
    assert times == sorted(times)
    assert [round(t / US, 1) for t in times] == [1.0, 2.5, 2.5, 3.0]


class _Planted:
    """What someone with write access to the journal file (not the key) could store as a
    snapshot: unpickling it runs a command."""

    def __init__(self, mark: Path) -> None:
        self.mark = mark

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.mark}",))


def test_a_snapshot_not_tagged_by_the_table_key_is_never_unpickled(tmp_path):
    """Snapshots are outside the hash chain: a pickle planted in the journal, or a tagged
    snapshot moved to another entry, is refused before anything is unpickled, and the station
    re-applies the journal from its first input to the same records."""
    import pickle

    from station.core import snapshot

    path = TRACES / "clean_shoe" / "trace.jsonl"
    header, inputs = read_trace(path)
    settings = settings_from_header(header)
    clk = Clock()
    st = TableStation(settings, tmp_path / "j.sqlite", clock=clk, signing_key=KEY)
    st.start()
    feed(st, clk, inputs, 0, 300)
    st.stop()
    mark = tmp_path / "ran"
    j = sqlite3.connect(tmp_path / "j.sqlite")
    last = j.execute("SELECT MAX(seq) FROM inputs").fetchone()[0]
    j.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?)", (last, pickle.dumps(_Planted(mark))))
    j.commit()
    st2 = TableStation(settings, tmp_path / "j.sqlite", clock=clk, signing_key=KEY)
    assert st2.recover() == last  # every input re-applied
    assert not mark.exists()
    # a snapshot the station tagged, moved to another entry, is refused as well
    blob = snapshot.dump(st2.core, KEY, table=settings.table,
                         journal_id=st2.journal.journal_id, seq=last)
    with pytest.raises(snapshot.StaleSnapshot, match="not the table key"):
        snapshot.load(blob, KEY, table=settings.table, journal_id=st2.journal.journal_id,
                      seq=last - 1)
    with pytest.raises(snapshot.StaleSnapshot, match="not the table key"):
        snapshot.load(blob, b"x" * 32, table=settings.table,
                      journal_id=st2.journal.journal_id, seq=last)
    with pytest.raises(snapshot.StaleSnapshot, match="no signing key"):
        snapshot.load(blob, None, table=settings.table, journal_id=st2.journal.journal_id,
                      seq=last)
    st2.journal.close()
    # and without a key the station neither keeps nor loads snapshots
    st3 = TableStation(settings, tmp_path / "k.sqlite", clock=clk)
    st3.snapshot_every = 5
    st3.start()
    feed(st3, clk, inputs, 0, 40)
    st3.stop()
    assert sqlite3.connect(tmp_path / "k.sqlite").execute(
        "SELECT COUNT(*) FROM snapshots").fetchone()[0] == 0


def test_listeners_hear_records_after_the_view_that_holds_them(tmp_path):
    """A player's stream answers each batch of records with the view it reads then, on its
    own thread: the view must already hold the batch, or under load the page keeps the table
    as it was before the batch (seen: a seat page still in betting after the last call)."""
    from station.core.view import public_view

    path = TRACES / "mismatch_cancel" / "trace.jsonl"
    header, inputs = read_trace(path)
    clk = Clock()
    st = TableStation(settings_from_header(header), tmp_path / "j.sqlite", clock=clk)
    stale: list[tuple[int, str]] = []
    heard = 0

    def listener(records):
        nonlocal heard
        heard += 1
        # on the owner thread: the core has applied the batch; the published view must be it
        now = public_view(st.core)
        published = {k: v for k, v in st.view.items() if k != "version"}
        if published != now:
            stale.append((st.view_version, records[-1]["type"]))

    st.add_listener(listener)
    st.start()
    feed(st, clk, inputs)
    st.stop()
    assert heard > 10
    assert stale == []
