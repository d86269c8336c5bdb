"""Journal proof figures: how long `station journal verify` takes on an untouched journal of
100,000 entries, beside reading the same rows without hashing them (the floor: SQLite and
Python's loop) measured in the same run. Goal < 1 s per 100,000 entries.

The journal is real: the clean 30-round shoe (tests/data/traces/clean_shoe) applied by the
table kernel again and again, each pass a fresh shoe later in time, every input journaled
with the records it made, chained and checkpointed as the live station does."""

from __future__ import annotations

import sqlite3
import tempfile
import time
from pathlib import Path

from station.core.chain import ends_round
from station.core.inputs import Input, TraceHeader, read_trace
from station.core.journal import Journal
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.core.verify import verify
from station.live.table_station import settings_dict

TRACE = Path(__file__).parents[1] / "tests" / "data" / "traces" / "clean_shoe" / "trace.jsonl"
KEY = b"bench-key-0123456789abcdef012345"
ENTRIES = 100_000


def build(path: Path, n: int) -> int:
    header, inputs = read_trace(TRACE)
    inputs = [i for i in inputs if i.kind != "end"]
    settings = settings_from_header(header)
    j = Journal(path, TraceHeader(settings.table, settings.game, settings.camera,
                                  settings_dict(settings)), sync="normal", signing_key=KEY)
    done, offset_us = 0, 0
    while done < n:
        kernel = TableKernel(settings, journal_id=j.journal_id)
        j.begin()
        for inp in inputs:
            if done == n:
                break
            moved = Input(inp.t_us + offset_us, inp.kind, inp.value, inp.user, inp.extra)
            seq = j.add_input(moved)
            kernel.apply(moved)
            records, messages, _ = kernel.take_outputs()
            j.add_outputs(seq, records, [])
            # signed where the station signs: at each entry that ends a round
            if ends_round(type(kernel.proc).round_end_records, (r["type"] for r in records)):
                j.checkpoint("round_end", moved.t_us)
            done += 1
        j.checkpoint("round_end")
        j.commit()
        offset_us = j.last_t_us() + 60_000_000
    j.close()
    return done


def read_only(conn: sqlite3.Connection) -> int:
    n = 0
    for _ in conn.execute("SELECT input_seq, record FROM records ORDER BY input_seq, seq"):
        n += 1
    for _ in conn.execute("SELECT seq, hash FROM chain ORDER BY seq"):
        n += 1
    for _ in conn.execute("SELECT seq, t_us, line FROM inputs ORDER BY seq"):
        n += 1
    return n


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "journal.sqlite"
        t = time.perf_counter()
        n = build(path, ENTRIES)
        built = time.perf_counter() - t
        conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        read_s, read_cpu = _best(lambda: read_only(conn))
        verdicts = []
        verify_s, verify_cpu = _best(lambda: verdicts.append(verify(conn, KEY)))
        conn.close()
        v = verdicts[-1]
        size_mb = path.stat().st_size / 1e6
    print(f"journal verify: {n} entries, {v.checkpoints} checkpoints, {size_mb:.1f} MB "
          f"(built in {built:.1f} s); verdict ok={v.ok}")
    # CPU seconds beside wall seconds: on a shared machine the wall clock counts the other
    # processes' turns too
    print(f"  {'what':44} {'wall s':>7} {'cpu s':>7} {'wall s/100k':>12}")
    print(f"  {'baseline: reading the rows, no hashing':44} {read_s:7.3f} {read_cpu:7.3f} "
          f"{read_s * 1e5 / n:12.3f}")
    print(f"  {'station journal verify (walk + hash + sigs)':44} {verify_s:7.3f} "
          f"{verify_cpu:7.3f} {verify_s * 1e5 / n:12.3f}   goal < 1 s per 100k")
    return 0 if v.ok else 1


def _best(fn, repeat: int = 3) -> tuple[float, float]:
    """The fastest of `repeat` runs: (wall seconds, CPU seconds of this process)."""
    runs = []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        runs.append((time.perf_counter() - w, time.process_time() - c))
    return min(runs)
