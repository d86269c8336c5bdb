"""A journal write that fails because the disk is full — a real, small tmpfs filled to its
last block, or SQLite refusing to grow the file past its page limit — stops the table with
`device_fault`: the input is not taken, the shoe hears no ACK for it, nothing journaled
before is lost; once writes succeed the table goes on by itself, and its journal holds
exactly the records a table that never met a full disk made. The outage itself is
journaled: the first entry after it is a `station_fault` saying since when the table stood,
how many writes failed, how many inputs were refused and why, and the round's evidence pack
shows it in its timeline."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from station.core.inputs import US, read_trace
from station.core.replay import settings_from_header
from station.core.verify import verify
from station.live.table_station import StationStopped, TableStation
from tests.waiting import retry_until

DATA = Path(__file__).parents[1] / "data"
TRACE = DATA / "traces" / "clean_shoe" / "trace.jsonl"
KEY = b"disk-full-key-0123456789abcdef01"


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def small_disk(tmp_path):
    """A 16 MiB tmpfs (root mounts it; elsewhere the test cannot run and says so)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({p.stderr.strip()}): run as root")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(disk: Path) -> Path:
    """Fill the filesystem to its last byte."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):
            while True:
                try:
                    os.write(fd, b"\0" * size)
                except OSError as e:
                    assert e.errno == errno.ENOSPC
                    break
    finally:
        os.close(fd)
    return filler


def _station_faults(path: Path) -> list[tuple[int, float, dict]]:
    c = sqlite3.connect(path)
    try:
        rows = c.execute("SELECT seq, t_us, line FROM inputs ORDER BY seq").fetchall()
    finally:
        c.close()
    return [(s, t_us / US, json.loads(line)["station_fault"]) for s, t_us, line in rows
            if "station_fault" in json.loads(line)]


def _run(path: Path, inputs, commands: list) -> TableStation:
    clk = Clock()
    header, _ = read_trace(TRACE)
    st = TableStation(settings_from_header(header), path, clock=clk, journal_sync="full",
                      signing_key=KEY, on_shoe_command=commands.append)
    st._test_clock = clk
    return st


def test_a_full_disk_stops_the_table_and_it_goes_on_once_space_is_freed(small_disk, tmp_path):
    header, inputs = read_trace(TRACE)
    inputs = [i for i in inputs if i.kind != "end"][:900]
    commands: list[tuple[str, ...]] = []
    st = _run(small_disk / "journal.sqlite", inputs, commands)
    st.write_probe_s = 0.0  # the test's own pace: every submission tries the disk
    st.start()
    clk = st._test_clock

    def submit(inp):
        clk.t = 1000.0 + inp.t_us / US
        return st.submit(inp.kind, inp.value, inp.user)

    for inp in inputs[:300]:
        submit(inp)
    conn = sqlite3.connect(small_disk / "journal.sqlite")
    (before,), = conn.execute("SELECT COUNT(*) FROM inputs").fetchall()
    filler = _fill(small_disk)
    # the WAL reuses its own space for a while: the first input the disk refuses stops it
    failed_at = None
    for k, inp in enumerate(inputs[300:], 300):
        sent = len(commands)
        try:
            submit(inp)
        except StationStopped as e:
            assert "cannot be written" in str(e) and "full" in str(e)
            failed_at = k
            assert len(commands) == sent, "the shoe heard of an input that was not journaled"
            break
    assert failed_at is not None, "the full disk never refused a write"
    view = st.view
    fault = [f for f in view["faults"] if f["kind"] == "device_fault"]
    assert fault and "cannot be written" in fault[0]["detail"] and view["paused"]
    assert st.fatal is None  # the station stands, it did not die
    (journaled,), = conn.execute("SELECT COUNT(*) FROM inputs").fetchall()
    assert journaled >= before
    # the same input again: still refused while the disk is full
    with pytest.raises(StationStopped):
        submit(inputs[failed_at])
    os.unlink(filler)
    # space again: the table takes the input it refused, and everything after
    retry_until(lambda: submit(inputs[failed_at]), StationStopped, 10,
                "the table to take its input once the disk has room")
    assert not [f for f in st.view["faults"] if f.get("station")]
    for inp in inputs[failed_at + 1:]:
        submit(inp)
    st.stop()
    conn.close()
    # nothing lost, nothing twice: the same records as a table that never met a full disk
    ref_cmds: list = []
    ref = _run(tmp_path / "ref.sqlite", inputs, ref_cmds)
    ref.start()
    for inp in inputs:
        ref._test_clock.t = 1000.0 + inp.t_us / US
        ref.submit(inp.kind, inp.value, inp.user)
    ref.stop()

    def records(p: Path) -> list[str]:
        c = sqlite3.connect(p)
        try:
            return [r for (r,) in c.execute("SELECT record FROM records ORDER BY seq")]
        finally:
            c.close()

    assert records(small_disk / "journal.sqlite") == records(tmp_path / "ref.sqlite")
    # the outage is in the journal: its first entry once it could write, before the input
    # it had refused
    faults = _station_faults(small_disk / "journal.sqlite")
    assert len(faults) == 1, faults
    seq, t, fault = faults[0]
    assert fault["kind"] == "device_fault" and "full" in fault["error"]
    assert fault["attempts"] >= 2 and fault["refused"] >= 2 and fault["since"] <= t
    assert seq == journaled + 1
    c = sqlite3.connect(small_disk / "journal.sqlite")
    try:
        v = verify(c, KEY)
    finally:
        c.close()
    assert v.ok, v.first_bad


@pytest.mark.browser
def test_an_outage_mid_round_is_journaled_and_the_rounds_pack_shows_it(tmp_path):
    """SQLite refuses to grow the journal past its page limit (`max_page_count`, a real
    failing write of the real file, "database or disk is full") while a round is open; the
    limit lifted, the table goes on, and the round's evidence pack holds the outage."""
    from station.dispute.gather import gather
    from station.dispute.page import render
    from tests.browser import chromium, new_page

    _, inputs = read_trace(TRACE)
    inputs = [i for i in inputs if i.kind != "end"][:400]
    commands: list[tuple[str, ...]] = []
    path = tmp_path / "journal.sqlite"
    st = _run(path, inputs, commands)
    st.write_probe_s = 0.0
    st.start()
    clk = st._test_clock

    def submit(inp):
        clk.t = 1000.0 + inp.t_us / US
        return st.submit(inp.kind, inp.value, inp.user)

    k, rid = 0, None
    while rid is None:  # the table's second round opens
        records = submit(inputs[k])
        k += 1
        opened = [r["round_id"] for r in records if r["type"] == "round_open"]
        if opened and opened[0].endswith("-R2"):
            rid = opened[0]
    conn = st.journal.conn
    (pages,), = conn.execute("PRAGMA page_count").fetchall()
    conn.execute(f"PRAGMA max_page_count = {pages}")
    failed_at = None
    for j in range(k, len(inputs)):
        sent = len(commands)
        try:
            records = submit(inputs[j])
        except StationStopped as e:
            assert "cannot be written" in str(e) and "full" in str(e)
            assert len(commands) == sent, "the shoe heard of an input that was not journaled"
            failed_at = j
            break
        assert not any(r["type"] in ("settlement", "round_cancelled") for r in records), \
            "the round ended before the journal refused a write"
    assert failed_at is not None, "the journal never refused a write"
    with pytest.raises(StationStopped):
        submit(inputs[failed_at])
    conn.execute("PRAGMA max_page_count = 1073741823")
    retry_until(lambda: submit(inputs[failed_at]), StationStopped, 10,
                "the table to take its input once the journal writes again")
    for inp in inputs[failed_at + 1:]:
        submit(inp)
    st.stop()
    faults = _station_faults(path)
    assert len(faults) == 1
    seq, t, fault = faults[0]
    assert fault["kind"] == "device_fault" and "full" in fault["error"]
    assert fault["attempts"] >= 2 and fault["refused"] >= 2 and fault["since"] <= t
    ev, frames = gather(path, rid, key=KEY)
    first, last = ev["entries"]
    assert first < seq < last, "the outage lies inside the round"
    assert [e["input"]["value"] for e in ev["timeline"] if e["input"]["kind"] == "station_fault"] \
        == [fault]
    assert ev["station_faults"] == [{"seq": seq, "t": t, **fault}]
    assert ev["proof"]["replay_equal"] is True and ev["proof"]["chain"]["through_round"] is True
    assert any(r["type"] == "settlement" for r in ev["result"])
    page_file = tmp_path / "index.html"
    page_file.write_text(render(ev, frames))
    with chromium() as browser, new_page(browser, 1280, 900, "the pack of a round with an outage") as page:
        page.goto(page_file.as_uri())
        row = page.locator("#station-faults tr").nth(1).inner_text()
        assert "device_fault" in row and "full" in row
        assert page.locator("#timeline tr[data-kind='station_fault']").count() == 1


def test_the_fault_says_since_when_the_journal_first_failed_to_write(tmp_path):
    """The table stands idle 30 s after its last entry, then the journal refuses a write
    (SQLite's page limit, a real failing write): the fault's `since` is that moment, on the
    table's clock. A later write that fails too (the probe passes, the outage's own entry
    does not) leaves it there, on the console's view as in the `station_fault` entry."""
    _, inputs = read_trace(TRACE)
    inputs = [i for i in inputs if i.kind != "end"][:200]
    path = tmp_path / "journal.sqlite"
    st = _run(path, inputs, [])
    st.write_probe_s = 0.0
    st.start()
    clk = st._test_clock
    for inp in inputs[:100]:
        clk.t = 1000.0 + inp.t_us / US
        st.submit(inp.kind, inp.value, inp.user)
    last_entry = st.journal.last_t_us() / US
    conn = st.journal.conn
    (pages,), = conn.execute("PRAGMA page_count").fetchall()
    conn.execute(f"PRAGMA max_page_count = {pages}")
    failed_at = None
    for k in range(100, len(inputs)):
        clk.t = 1000.0 + inputs[k].t_us / US + 30.0
        try:
            st.submit(inputs[k].kind, inputs[k].value, inputs[k].user)
        except StationStopped:
            failed_at = clk.t - 1000.0
            break
    assert failed_at is not None, "the journal never refused a write"
    assert failed_at > last_entry + 30
    assert st.write_fault["since"] == pytest.approx(failed_at, abs=1e-6)
    clk.t += 20.0
    with pytest.raises(StationStopped):
        st.submit(inputs[k].kind, inputs[k].value, inputs[k].user)
    assert st._outage["attempts"] >= 2, "the outage's own entry was never tried"
    assert st.write_fault["since"] == pytest.approx(failed_at, abs=1e-6)
    assert [f["since"] for f in st.view["faults"] if f["kind"] == "device_fault"] == \
        [pytest.approx(failed_at, abs=1e-6)]
    conn.execute("PRAGMA max_page_count = 1073741823")
    clk.t += 20.0
    retry_until(lambda: st.submit(inputs[k].kind, inputs[k].value, inputs[k].user),
                StationStopped, 10, "the table to take its input once the journal writes again")
    st.stop()
    [(_, t, fault)] = _station_faults(path)
    assert fault["since"] == pytest.approx(failed_at, abs=1e-6) and t > failed_at + 20 - 1e-6
