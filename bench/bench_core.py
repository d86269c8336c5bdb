"""Table core figures: replay speed of a full shoe, and input → durable output latency.

Replay: the recorded 30-round clean shoe (860 s of table time) through the core, against two
baselines measured in the same run — reading the trace alone (the floor: JSON decoding), and
real time. Goal ≥ 1000× real time.

Latency: inputs submitted to the live station one at a time (a dealer's button, a camera
observation, a bet), timed from `submit` to the moment its records are durable and handed
back, with the journal on (SQLite WAL, synchronous=FULL: fsync per commit) and its hash chain and
signed checkpoints, and, as baselines in the same run, the same journal without the chain,
with synchronous=NORMAL and with the bare core (no journal). Goal p99 ≤ 2 ms.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from station.core.inputs import US, read_trace
from station.core.kernel import TableKernel as TableCore
from station.core.replay import replay_records, settings_from_header

TRACE = Path(__file__).parents[1] / "tests" / "data" / "traces" / "clean_shoe" / "trace.jsonl"


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def bench_replay(repeat: int = 5) -> None:
    header, inputs = read_trace(TRACE)
    span = inputs[-1].t_us / US
    parse = min(_timed(lambda: read_trace(TRACE)) for _ in range(repeat))
    full = min(_timed(lambda: replay_records(TRACE)) for _ in range(repeat))
    core_only = min(_timed(lambda: _apply_all(header, inputs)) for _ in range(repeat))
    print(f"replay of a full shoe ({len(inputs)} inputs, {span:.0f} s of table time):")
    print(f"  {'what':38} {'seconds':>9} {'x real time':>12}")
    print(f"  {'baseline: real time':38} {span:9.3f} {1:12.0f}")
    print(f"  {'baseline: reading the trace only':38} {parse:9.4f} {span / parse:12.0f}")
    print(f"  {'core only (trace already read)':38} {core_only:9.4f} {span / core_only:12.0f}")
    print(f"  {'station replay (read + core)':38} {full:9.4f} {span / full:12.0f}   goal >= 1000")


def _apply_all(header, inputs) -> None:
    core = TableCore(settings_from_header(header))
    for inp in inputs:
        core.apply(inp)
        core.take_outputs()


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bench_latency(n_inputs: int = 2000) -> None:
    header, inputs = read_trace(TRACE)
    inputs = [i for i in inputs if i.kind != "end"][:n_inputs]
    rows = []
    for label, sync, chained in (
            ("journal + chain, sync=full (default)", "FULL", True),
            ("baseline: journal, no chain, sync=full", "FULL", False),
            ("journal + chain, sync=normal", "NORMAL", True),
            ("baseline: journal, no chain, sync=normal", "NORMAL", False),
            ("baseline: core only, no journal", None, False)):
        lat = (_live_latencies(header, inputs, sync, chained) if sync
               else _core_latencies(header, inputs))
        rows.append((label, lat))
    print(f"input -> durable output latency, {len(inputs)} inputs of the clean shoe, one at a time:")
    print(f"  {'what':40} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for label, lat in rows:
        print(f"  {label:40} {statistics.median(lat):8.3f} {_pct(lat, .9):8.3f} "
              f"{_pct(lat, .99):8.3f} {max(lat):8.3f}")
    print("  goal: p99 <= 2 ms with the journal on (sync=full pays one fsync per input on this"
          " disk; sync=normal survives a station crash, not a power cut)")


def _live_latencies(header, inputs, sync: str, chained: bool = True) -> list[float]:
    from station.live.table_station import TableStation

    class Clock:
        t = 1000.0

        def __call__(self) -> float:
            return self.t

    clk = Clock()
    with tempfile.TemporaryDirectory() as d:
        st = TableStation(settings_from_header(header), Path(d) / "j.sqlite", clock=clk,
                          journal_sync=sync.lower(),
                          signing_key=b"bench-key-0123456789abcdef012345" if chained else None)
        if not chained:
            # the baseline: the same journal with its entries not hashed (and nothing signed)
            st.journal._chain_entry = lambda *entry: None
        st.start()
        out = []
        for inp in inputs:
            clk.t = 1000.0 + inp.t_us / US
            t = time.perf_counter()
            st.submit(inp.kind, inp.value, inp.user)
            out.append((time.perf_counter() - t) * 1000)
        st.stop()
    return out


def _core_latencies(header, inputs) -> list[float]:
    core = TableCore(settings_from_header(header))
    out = []
    for inp in inputs:
        t = time.perf_counter()
        core.apply(inp)
        core.take_outputs()
        out.append((time.perf_counter() - t) * 1000)
    return out


def main(argv: list[str]) -> int:
    bench_replay()
    print()
    bench_latency()
    return 0
