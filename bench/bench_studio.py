"""The studio: many tables settled at once through the bus into one ledger.

    ./run.sh bench studio [--loads=paced,beside,stations,flood] [--tables=100] [--consumers=1,2,4] ...

Every replayed table replays a recorded shoe (tests/data/traces, through the table core: the
wallet sets, bets, hands and cancellations it produced), each table with its own players, its
own journal and outbox (SQLite, as at a table PC) and its own delivery worker publishing to a
local nats-server (JetStream, file storage); settlement consumers (processes of their own)
apply the bus to one PostgreSQL ledger (fsync on), acknowledging after each commit. The tables
deal from `--table-processes` processes, their journals on a memory disk (`--table-disk`): in a
studio each table is a PC with its own disk, and one interpreter or one disk for a hundred
tables would measure the bench, not the path. For the same reason the tables' processes run at
`--table-nice` (10), each in a session of its own whose autogroup is niced too (`yield_cpu`):
on this one machine they yield the CPU to the studio's own servers (the consumers,
PostgreSQL, nats-server), whose CPU the tables' PCs would not share. It is an approximation:
the tables still take the CPU the servers leave, and a starved table's own publishing counts
in the latency. `--table-nice=0` makes them compete as equals (the figures before 2026-12-04).

The loads, each on a fresh stream and database:

- **paced**: each table journals the rounds of its shoe's first `--seconds` (100) at their
  recorded times (`--speedup` 1: as dealt, a round every ~36 s per table), the tables opening
  spread over `--stagger` (36) seconds; the figure is the latency from a message's commit at the
  table (its outbox row) to the ledger's commit of it: p50, p99, max. Goal: p99 < 100 ms at
  100 tables.
- **beside**: the paced load again while `--beside` (20) more tables flood their whole shoes,
  through the largest `--consumers` count; the latency is the paced tables' (goal as above).
- **stations**: `--stations` (24) real stations (station/studio/tables.py: the table kernel
  with its game's procedure, journal, outbox, bus, player API), every game's in turn, each
  dealing `--station-rounds` of its studio session a round every `--station-pace` seconds, opening
  spread over one round; the same latency figures.
- **flood**: every table journals its whole shoe at once, once per `--consumers` count (1: one
  durable; more: hash partitions); hands/s and bets/s from the first table commit to the last
  ledger commit (the capacity of the path). Goal: 2,000 bets/s, or 80 % of the one-table SQLite
  figure of the same run if that is lower.

Baseline, the same run: one table on the single-table path (SQLite ledger, in-process
delivery), paced and flooded.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from station.settlement.core import SettlementCore
from station.settlement.outbox import DeliveryWorker, enqueue
from station.settlement.sim import open_journal
from station.settlement.transport import InProcessTransport

TRACES = Path(__file__).resolve().parents[1] / "tests" / "data" / "traces"
SHOES = ("clean_shoe", "noisy_shoe", "mismatch_cancel", "order_fault", "degraded_no_camera")


def recorded_shoes() -> dict[str, list[dict[str, Any]]]:
    """Each recorded trace replayed through the table core: the messages it sent settlement."""
    from station.core.replay import replay_file

    shoes = {}
    for name in SHOES:
        messages: list[dict[str, Any]] = []
        replay_file(TRACES / name / "trace.jsonl", lambda record: None, messages.extend)
        shoes[name] = messages
    return shoes


def for_table(messages: list[dict[str, Any]], table: str) -> list[dict[str, Any]]:
    """A shoe's messages as another table's: its name in the messages' table, keys and round
    ids, and its own players (accounts prefixed)."""
    out = []
    for m in messages:
        m = json.loads(json.dumps(m))
        own = m.get("table")
        if own:  # the replayed table's name is in its keys and round ids: this table's now
            m["table"] = table
            for field in ("key", "round_id"):
                if isinstance(m.get(field), str) and m[field].startswith(own + "/"):
                    m[field] = table + m[field][len(own):]
        if "account" in m:
            m["account"] = f"{table}.{m['account']}"
        for line in m.get("settlement", ()) or ():
            line["account"] = f"{table}.{line['account']}"
        for line in m.get("refunds", ()) or ():
            line["account"] = f"{table}.{line['account']}"
        out.append(m)
    return out


def first_rounds(messages: list[dict[str, Any]], seconds: float) -> list[dict[str, Any]]:
    """The messages of the rounds a shoe closed within its first `seconds` of table time."""
    t0 = messages[0].get("t") or 0.0
    end = 0
    for i, m in enumerate(messages):
        if m["kind"] in ("hand", "round_cancelled") and (m.get("t") or t0) - t0 <= seconds:
            end = i + 1
    return messages[:end]


def play_table(journal: Path, messages: list[dict[str, Any]], worker: DeliveryWorker,
               start: float, speedup: float | None) -> None:
    """Journal the messages (one transaction per message, as the table core does) at their
    recorded times / speedup from `start`, or all at once from `start` when `speedup` is None."""
    conn = open_journal(journal)
    t0 = messages[0].get("t") or 0.0
    time.sleep(max(0.0, start - time.time()))
    for step, message in enumerate(messages):
        if speedup:
            due = start + ((message.get("t") or t0) - t0) / speedup
            delay = due - time.time()
            if delay > 0:
                time.sleep(delay)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO journal (step, t, record) VALUES (?, ?, ?)",
                     (step, time.time(), json.dumps(message)))
        enqueue(conn, message)
        conn.execute("COMMIT")
        worker.wake()
    conn.close()


def committed_at_table(journal: Path) -> dict[str, float]:
    import sqlite3

    with sqlite3.connect(journal) as conn:
        return dict(conn.execute("SELECT key, enqueued_at FROM settlement_outbox"))


def published_at(journal: Path) -> dict[str, float]:
    """When the stream had each message (its outbox row marked delivered)."""
    import sqlite3

    with sqlite3.connect(journal) as conn:
        return dict(conn.execute("SELECT key, delivered_at FROM settlement_outbox"))


def last_published(journal: Path) -> float:
    """When the table's last message was stored by the stream (its outbox row marked)."""
    import sqlite3

    with sqlite3.connect(journal) as conn:
        return conn.execute("SELECT MAX(delivered_at) FROM settlement_outbox").fetchone()[0]


def _consumer_process(ledger: str, bus: str, batch: int, out: str, ready: Any, stop: Any,
                      partition: tuple[int, int] | None = None) -> None:
    from station.settlement.bus import BusConsumer
    from station.settlement.partitions import Partition

    core = SettlementCore(ledger, pool_size=2)
    commits: list[tuple[str, str, float]] = []
    consumer = BusConsumer(
        core, bus, batch=batch, partition=Partition(*partition) if partition else None,
        on_commit=lambda applied, t: commits.extend((table, r["key"], t) for table, r in applied))
    thread = threading.Thread(target=consumer.run, daemon=True)
    thread.start()
    ready.set()
    stop.wait()
    consumer.stop()
    thread.join(30)
    report = core.check(require_closed=True)
    core.close()
    Path(out).write_text(json.dumps({"commits": commits, "ok": report.ok,
                                     "problems": report.problems[:5],
                                     "figures": report.figures}))


def yield_cpu(nice: int) -> None:
    """This process stands for tables' PCs: on this one machine it yields the CPU to the
    studio's servers. Linux shares the CPU between sessions first when `autogroup` is on
    (PostgreSQL and nats-server run in sessions of their own), so a plain nice would only
    weigh the tables against the consumers; the process takes a session of its own and
    lowers that group's weight too."""
    if not nice:
        return
    os.setsid()
    try:
        with open("/proc/self/autogroup", "w") as group:
            group.write(str(nice))
    except OSError:
        pass  # no autogroup on this kernel: the process's niceness below is what counts
    os.nice(nice)


def _tables_process(root: str, label: str, bus: str, group: list[tuple[str, list[dict[str, Any]],
                     float | None, float | None]], ready: Any, go: Any, start_at: Any,
                    nice: int = 0) -> None:
    """A group of tables in a process of its own (in a studio each table is its own PC; on
    one machine a process per group keeps one group's journaling and publishing from holding
    another's interpreter lock). Each table is (name, messages, speedup or None for all at
    once, its opening offset in seconds): connected to the bus, then dealt from `start_at`
    once `go` is set; returns when every table's outbox is on the bus."""
    from station.settlement.bus import NatsTransport

    yield_cpu(nice)
    workers, transports, threads = {}, {}, []
    for table, _, _, _ in group:
        transports[table] = NatsTransport(bus, table)
        transports[table].connect()  # a table's station is on the bus before it deals
        workers[table] = DeliveryWorker(Path(root) / f"{label}-{table}.db", transports[table],
                                        poll_interval=0.5, max_backoff=0.5)
        workers[table].start()
    ready.set()
    go.wait()
    start = start_at.value
    for table, messages, speedup, offset in group:
        threads.append(threading.Thread(target=play_table, args=(
            Path(root) / f"{label}-{table}.db", messages, workers[table], start + offset,
            speedup)))
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for worker in workers.values():
        worker.drain(300)
    for table in workers:
        workers[table].stop()
        transports[table].close()


def _stations_process(folder: str, bus: str, group: list[tuple[str, str, int, float]],
                      rounds: int, pace_s: float, ready: Any, go: Any, start_at: Any,
                      out: str, nice: int = 0) -> None:
    """A group of real stations (station/studio/tables.py: the table kernel with its game's
    procedure, its journal and outbox, its delivery to the bus, its player API where players
    act) in a process of their own, each (name, game, seed) dealing `rounds` of its game's
    studio session, a round every `pace_s` wall seconds, opening `offset` seconds after
    `start_at` (a studio's tables do not deal in step)."""
    from station.studio.tables import StudioTable

    yield_cpu(nice)
    tables = [StudioTable(name, game, seed=seed, rounds=rounds, pace_s=pace_s, bus_url=bus,
                          folder=Path(folder), journal_sync="full")
              for name, game, seed, _ in group]
    for table in tables:
        table.transport.connect()  # on the bus before it deals, as a station starts
    ready.set()
    go.wait()
    for table, (_, _, _, offset) in sorted(zip(tables, group, strict=True),
                                           key=lambda pair: pair[1][3]):
        time.sleep(max(0.0, start_at.value + offset - time.time()))
        table.start()
    for table in tables:
        table.finished.wait()
    done = {table.name: {"delivered": table.drain(300), "rounds": table.rounds_done,
                         "failed": repr(table.failed) if table.failed else None,
                         "errors": table.errors[-3:]} for table in tables}
    for table in tables:
        table.close()
    Path(out).write_text(json.dumps(done))


def figures(latencies_ms: list[float], hands: int, bets: int, seconds: float) -> dict[str, Any]:
    lat = sorted(latencies_ms)

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")

    return {"hands_s": hands / seconds, "bets_s": bets / seconds, "p50_ms": pct(0.50),
            "p99_ms": pct(0.99), "max_ms": lat[-1] if lat else float("nan"),
            "messages": len(lat), "seconds": seconds}


def run_studio(tables: dict[str, list[dict[str, Any]]], speedup: float | None, root: Path,
               pg: Any, batch: int, label: str, stagger_s: float = 0.0, consumers: int = 1,
               flood_beside: dict[str, list[dict[str, Any]]] | None = None,
               table_processes: int = 4, journals: Path | None = None,
               stations: list[tuple[str, str, int, float]] | None = None,
               station_rounds: int = 0,
               station_pace_s: float = 0.0, table_nice: int = 0,
               flood_nice: int = 0) -> dict[str, Any]:
    """`tables` at `speedup` (None: all at once), through `consumers` settlement processes
    (one: the single durable; more: partitions by hash); with `flood_beside`, those tables
    journal their whole shoes at once meanwhile (the figures are of `tables` alone). The
    tables deal from `table_processes` processes (and the flood beside from as many more),
    their journals in `journals` (default `root`). With `stations`, real stations deal
    instead (`_stations_process`), `station_rounds` rounds each, and `tables` is what their
    outboxes sent."""
    from station.studio.tables import outbox_messages

    journals = journals or root
    if stations:
        (journals / label).mkdir(exist_ok=True)

    def journal_of(table: str) -> Path:
        if stations:
            return journals / label / f"{table}.journal.sqlite"
        return journals / f"{label}-{table}.db"

    from station.studio.servers import LocalNats

    ledger = pg.create_database(f"bench_{label}")
    ctx = multiprocessing.get_context("spawn")
    ready = [ctx.Event() for _ in range(consumers)]
    stop = ctx.Event()
    outs = [root / f"{label}-commits-{k}.json" for k in range(consumers)]
    flood_beside = flood_beside or {}
    with LocalNats(root / f"nats-{label}") as bus:
        procs = [ctx.Process(target=_consumer_process,
                             args=(ledger, bus.url, batch, str(outs[k]), ready[k], stop,
                                   (k, consumers) if consumers > 1 else None))
                 for k in range(consumers)]
        for proc in procs:
            proc.start()
        for event in ready:
            event.wait(60)
        # the tables in groups, each group a process (tables of one load share a group;
        # the flooding tables beside are groups of their own, as they are other PCs)
        plan = []
        for n, (table, messages) in enumerate(tables.items()):
            # tables of a studio do not open in the same second: spread over `stagger_s`
            plan.append((table, messages, speedup, stagger_s * n / len(tables) if speedup else 0.0))
        groups = [plan[k::table_processes] for k in range(min(table_processes, len(plan)))]
        nices = [table_nice] * len(groups)
        # the flood beside starts with the paced tables' first round, a third of the way in
        beside = [(table, messages, None, stagger_s / 3) for table, messages in flood_beside.items()]
        groups += [beside[k::table_processes] for k in range(min(table_processes, len(beside)))]
        # the flood's tables are the load, the paced ones are measured: the load yields first
        nices += [flood_nice] * (len(groups) - len(nices))
        go = ctx.Event()
        start_at = ctx.Value("d", 0.0)
        if stations:
            groups = [stations[k::table_processes] for k in range(min(table_processes,
                                                                      len(stations)))]
        table_ready = [ctx.Event() for _ in groups]
        station_outs = [root / f"{label}-stations-{k}.json" for k in range(len(groups))]
        dealers = [ctx.Process(target=_stations_process, args=(
                       str(journals / label), bus.url, group, station_rounds, station_pace_s,
                       table_ready[k], go, start_at, str(station_outs[k]), table_nice))
                   if stations else
                   ctx.Process(target=_tables_process, args=(str(journals), label, bus.url, group,
                                                             table_ready[k], go, start_at,
                                                             nices[k]))
                   for k, group in enumerate(groups)]
        for proc in dealers:
            proc.start()
        for event in table_ready:
            event.wait(120)
        start_at.value = time.time() + 0.5
        go.set()
        for proc in dealers:
            proc.join(900)
        if stations:  # what the stations sent is in their outboxes
            tables = {name: outbox_messages(journal_of(name)) for name, _, _, _ in stations}
            dealt = {}
            for out in station_outs:
                dealt.update(json.loads(out.read_text()) if out.exists() else {})
        total = sum(len(m) for m in [*tables.values(), *flood_beside.values()])
        # wait for the ledger: the consumer writes its commits when stopped, so poll the books
        import psycopg

        deadline = time.time() + 300
        with psycopg.connect(ledger) as conn:
            while time.time() < deadline:
                (n,) = conn.execute("SELECT COUNT(*) FROM entries WHERE table_id != ''").fetchone()
                conn.commit()
                if n >= total:
                    break
                time.sleep(0.1)
        stop.set()
        for proc in procs:
            proc.join(120)
    parts = [json.loads(out.read_text()) for out in outs]
    result = {"commits": [c for part in parts for c in part["commits"]],
              # each process checks the whole books at its end: clean only if all say so
              "ok": all(part["ok"] for part in parts),
              "problems": [p for part in parts for p in part["problems"]][:5]}
    # the figures are of `tables`; a flood beside them is the load they bear
    flood_applied = [t for table, _, t in result["commits"] if table in flood_beside]
    result["commits"] = [c for c in result["commits"] if c[0] in tables]
    table_commit: dict[tuple[str, str], float] = {}
    for table in tables:
        for key, t in committed_at_table(journal_of(table)).items():
            table_commit[(table, key)] = t
    first_commit: dict[tuple[str, str], float] = {}
    for table, key, t in result["commits"]:  # a redelivered copy answers again, later
        first_commit.setdefault((table, key), t)
    latencies = [(t - table_commit[k]) * 1000 for k, t in first_commit.items() if k in table_commit]
    on_bus: dict[tuple[str, str], float] = {}
    for table in tables:
        for key, t in published_at(journal_of(table)).items():
            on_bus[(table, key)] = t
    to_bus = sorted((on_bus[k] - table_commit[k]) * 1000 for k in first_commit
                    if k in table_commit and on_bus.get(k))
    kinds = Counter(m["kind"] for ms in tables.values() for m in ms)
    first = min(table_commit.values())
    # where the tail is: by kind of message, and when (seconds into the run)
    kind_of = {(t, m["key"]): m["kind"] for t, ms in tables.items() for m in ms}
    by_kind: dict[str, list[float]] = {}
    slow_at: Counter = Counter()
    slow_split: list[tuple[float, float]] = []  # (table -> bus, bus -> ledger) of slow ones
    for k, t in first_commit.items():
        if k in table_commit:
            ms = (t - table_commit[k]) * 1000
            by_kind.setdefault(kind_of.get(k, "?"), []).append(ms)
            if ms > 100:
                slow_at[int((table_commit[k] - first) // 10) * 10] += 1
                if on_bus.get(k):
                    slow_split.append(((on_bus[k] - table_commit[k]) * 1000,
                                       (t - on_bus[k]) * 1000))
    last = max(t for _, _, t in result["commits"])
    fig = figures(latencies, kinds["hand"] + kinds["round_cancelled"], kinds["bet"], last - first)
    # where the time went: the bus had everything at `published_s`, the ledger at `seconds`
    fig["stagger_s"] = stagger_s
    fig["published_s"] = max(last_published(journal_of(t)) for t in tables) - first
    if flood_beside:  # the load beside: when its shoes were on the bus, and in the ledger
        fig["beside_s"] = (max(last_published(journals / f"{label}-{t}.db") for t in flood_beside)
                           - first, max(flood_applied) - first, len(flood_applied))
    fig["books_clean"] = result["ok"]
    # where the latency goes: table commit -> the stream's acknowledgement (the rest is the
    # consumer's fetch, the ledger's transaction and its commit)
    if to_bus:
        fig["to_bus_p50_ms"] = to_bus[len(to_bus) // 2]
        fig["to_bus_p99_ms"] = to_bus[min(len(to_bus) - 1, int(0.99 * len(to_bus)))]
    fig["by_kind"] = {kind: (len(v), sorted(v)[min(len(v) - 1, int(0.99 * len(v)))])
                      for kind, v in sorted(by_kind.items())}
    fig["slow_at"] = dict(sorted(slow_at.items()))
    if slow_split:
        fig["slow_split_ms"] = (sorted(a for a, _ in slow_split)[len(slow_split) // 2],
                                sorted(b for _, b in slow_split)[len(slow_split) // 2])
    fig["problems"] = result["problems"]
    fig["applied"] = len(first_commit)
    fig["answered_again"] = len(result["commits"]) - len(first_commit)
    fig["expected"] = sum(len(m) for m in tables.values())
    fig["consumers"] = consumers
    if stations:
        fig["stations"] = dealt
        fig["rounds"] = sum(d["rounds"] for d in dealt.values())
        fig["problems"] += [f"{name}: {d}" for name, d in dealt.items()
                            if not d["delivered"] or d["failed"] or d["rounds"] < station_rounds]
    return fig


def run_single(messages: list[dict[str, Any]], speedup: float | None, root: Path,
               label: str) -> dict[str, Any]:
    """The single-table path: an SQLite ledger in the station's process, in-process delivery."""
    core = SettlementCore(root / f"{label}-ledger.sqlite")
    commits: dict[str, float] = {}

    class Timed(InProcessTransport):
        def deliver(self, batch: list[dict[str, Any]]) -> Any:
            outcome = super().deliver(batch)
            now = time.time()
            for r in outcome.results:
                commits[r["key"]] = now
            return outcome

    journal = root / f"{label}-journal.db"
    worker = DeliveryWorker(journal, Timed(core), poll_interval=0.5)
    worker.start()
    start = time.time() + 0.2
    play_table(journal, messages, worker, start, speedup)
    worker.drain(120)
    worker.stop()
    ok = core.check(require_closed=True).ok
    core.close()
    at_table = committed_at_table(journal)
    latencies = [(commits[k] - at_table[k]) * 1000 for k in commits]
    kinds = Counter(m["kind"] for m in messages)
    fig = figures(latencies, kinds["hand"] + kinds["round_cancelled"], kinds["bet"],
                  max(commits.values()) - min(at_table.values()))
    fig["books_clean"] = ok
    return fig


def show(name: str, f: dict[str, Any]) -> None:
    print(f"  {name:<44} {f['hands_s']:8.1f} hands/s {f['bets_s']:9.1f} bets/s   latency p50 "
          f"{f['p50_ms']:7.1f} ms  p99 {f['p99_ms']:7.1f} ms  max {f['max_ms']:7.1f} ms"
          f"   books {'clean' if f['books_clean'] else 'NOT CLEAN'}", flush=True)
    if "to_bus_p50_ms" in f:
        print(f"  {'':<44} of which table commit -> stored by the bus: p50 "
              f"{f['to_bus_p50_ms']:7.1f} ms  p99 {f['to_bus_p99_ms']:7.1f} ms", flush=True)
    if "by_kind" in f:
        print(f"  {'':<44} p99 by kind: " + ", ".join(
            f"{kind} {p99:.0f} ms ({n})" for kind, (n, p99) in f["by_kind"].items()), flush=True)
    if f.get("slow_at"):
        print(f"  {'':<44} messages over 100 ms by when they were committed at the table: "
              + ", ".join(f"{t}-{t + 10} s: {n}" for t, n in f["slow_at"].items()), flush=True)
    if f.get("slow_split_ms"):
        to_bus, to_ledger = f["slow_split_ms"]
        print(f"  {'':<44} of those, median table commit -> stored by the bus {to_bus:.1f} ms,"
              f" stored -> ledger commit {to_ledger:.1f} ms", flush=True)
    if "published_s" in f:
        print(f"  {'':<44} last message on the bus after {f['published_s']:.1f} s, in the ledger"
              f" after {f['seconds']:.1f} s", flush=True)
    if "beside_s" in f:
        bus_s, ledger_s, n = f["beside_s"]
        print(f"  {'':<44} the flood beside ({n} messages, from {f['stagger_s'] / 3:.0f} s): on"
              f" the bus after {bus_s:.1f} s, in the ledger after {ledger_s:.1f} s", flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench studio")
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--speedup", type=float, default=1.0,
                        help="paced load: how much faster than the shoes were dealt (1: as dealt)")
    parser.add_argument("--seconds", type=float, default=100.0,
                        help="paced load: the rounds each shoe closed in its first SECONDS")
    parser.add_argument("--stagger", type=float, default=36.0,
                        help="paced load: tables open spread over this many seconds (one round)")
    parser.add_argument("--batch", type=int, default=1024,
                        help="the most messages a consumer's round takes")
    parser.add_argument("--loads", default="paced,beside,stations,flood",
                        help="which loads to run: paced, beside (paced with a flood beside it),"
                             " stations (real stations dealing), flood; comma-separated")
    parser.add_argument("--consumers", default="1,2,4",
                        help="flood: settlement processes to run it with, comma-separated")
    parser.add_argument("--beside", type=int, default=20,
                        help="beside: how many tables flood beside the paced ones")
    parser.add_argument("--stations", type=int, default=24,
                        help="stations: how many real stations deal (every game's in turn)")
    parser.add_argument("--station-rounds", type=int, default=10,
                        help="stations: rounds each deals")
    parser.add_argument("--station-pace", type=float, default=6.0,
                        help="stations: wall seconds per round (a table deals one about every"
                             " 36 s; 6 is six times as fast)")
    parser.add_argument("--table-disk", choices=("own", "shared"), default="own",
                        help="own: the tables' journals on a memory disk (each table a PC with"
                             " its disk); shared: on the ledger's disk")
    parser.add_argument("--table-processes", type=int, default=4,
                        help="processes the tables deal from (and as many for the flood beside):"
                             " a studio's tables are PCs of their own")
    parser.add_argument("--table-nice", type=int, default=10,
                        help="the niceness of the tables' processes (0 to 19): a studio's tables"
                             " are PCs of their own, so on this one machine they yield the CPU"
                             " to the studio's servers (consumers, PostgreSQL, nats-server);"
                             " 0: they compete for it as equals")
    parser.add_argument("--flood-nice", type=int, default=19,
                        help="beside: the niceness of the flooding tables' processes (0 to 19):"
                             " they are the load beside the measured tables, other PCs too, so"
                             " on this one machine they yield to the measured tables as well")
    args = parser.parse_args(argv)
    for name in ("table_nice", "flood_nice"):
        if not 0 <= getattr(args, name) <= 19:
            parser.error(f"--{name.replace('_', '-')}: 0 to 19")
    loads = {x.strip() for x in args.loads.split(",") if x.strip()}
    if not loads or loads - {"paced", "flood", "beside", "stations"}:
        parser.error("--loads: paced, flood, beside, stations, comma-separated")
    consumer_counts = [int(x) for x in args.consumers.split(",") if x.strip()]

    from station.studio.servers import LocalPostgres

    shoes = recorded_shoes()
    names = list(shoes)
    tables = {f"T{i:03d}": for_table(shoes[names[i % len(names)]], f"T{i:03d}")
              for i in range(args.tables)}
    kinds = Counter(m["kind"] for ms in tables.values() for m in ms)
    print(f"tables dealt from {args.table_processes} processes at niceness {args.table_nice}"
          f" (a flood beside them at {args.flood_nice}),"
          f" journals on {'a memory disk' if args.table_disk == 'own' else 'the ledger disk'}",
          flush=True)
    print(f"{args.tables} tables, recorded shoes {', '.join(names)}: {kinds['hand']} hands,"
          f" {kinds['round_cancelled']} cancelled rounds, {kinds['bet']} bets,"
          f" {kinds['wallet']} wallet sets", flush=True)
    rc = 0
    # the studio's tables are PCs with disks of their own: their journals' fsyncs do not queue
    # at the ledger's disk, as on one machine they would (--table-disk=shared puts them there)
    own_disks = args.table_disk == "own" and Path("/dev/shm").is_dir()
    with tempfile.TemporaryDirectory(prefix="bench-studio-") as tmp, \
            tempfile.TemporaryDirectory(prefix="bench-studio-tables-",
                                        dir="/dev/shm" if own_disks else None) as tables_tmp:
        root = Path(tmp)
        journals = Path(tables_tmp)
        one = for_table(shoes["clean_shoe"], "S001")
        paced_tables = {t: first_rounds(m, args.seconds) for t, m in tables.items()}
        paced_kinds = Counter(m["kind"] for ms in paced_tables.values() for m in ms)
        results: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        # how the tables deal: from how many processes, at what niceness
        dealing = {"table_processes": args.table_processes, "table_nice": args.table_nice,
                   "flood_nice": args.flood_nice}
        with LocalPostgres(fsync=True) as pg:  # its own folder: the server runs as postgres
            if "paced" in loads:
                base = run_single(first_rounds(one, args.seconds), args.speedup, root,
                                  "single-paced")
                results["paced"] = (run_studio(paced_tables, args.speedup, root, pg,
                                               args.batch, "paced", stagger_s=args.stagger,
                                               **dealing,
                                               journals=journals), base)
            if "beside" in loads:
                flooders = {f"F{i:03d}": for_table(shoes[names[i % len(names)]], f"F{i:03d}")
                            for i in range(args.beside)}
                base = run_single(first_rounds(one, args.seconds), args.speedup, root,
                                  "single-beside")
                results["beside"] = (run_studio(
                    paced_tables, args.speedup, root, pg, args.batch, "beside",
                    stagger_s=args.stagger, consumers=max(consumer_counts),
                    flood_beside=flooders, **dealing,
                                               journals=journals), base)
            if "stations" in loads:
                from station.games.tools import games_with

                games = games_with("studio_session")
                # the stations open spread over one round, as a studio's tables do
                stations = [(f"S{i:03d}", games[i % len(games)], 100 + i,
                             args.station_pace * i / args.stations) for i in range(args.stations)]
                base = run_single(first_rounds(one, args.seconds), args.speedup, root,
                                  "single-stations")
                results["stations"] = (run_studio(
                    {}, None, root, pg, args.batch, "stations",
                    consumers=max(consumer_counts), **dealing,
                    journals=journals, stations=stations, station_rounds=args.station_rounds,
                    station_pace_s=args.station_pace), base)
            if "flood" in loads:
                base = run_single(one, None, root, "single-flood")
                for n in consumer_counts:
                    results[f"flood{n}"] = (run_studio(tables, None, root, pg, args.batch,
                                                       f"flood{n}", consumers=n,
                                                       **dealing,
                                               journals=journals), base)
        if "paced" in results:
            paced, base_paced = results["paced"]
            print(f"paced: the rounds of each shoe's first {args.seconds:g} s ({paced_kinds['hand']}"
                  f" hands, {paced_kinds['bet']} bets), {args.speedup:g}x the recorded deal, tables"
                  f" opening over {args.stagger:g} s (latency = table commit to ledger commit):")
            show(f"studio: {args.tables} tables, bus, PostgreSQL", paced)
            show("baseline: 1 table, in-process, SQLite", base_paced)
        if "beside" in results:
            beside, base_beside = results["beside"]
            print(f"paced as above, {args.beside} more tables flooding their whole shoes beside"
                  f" them, {beside['consumers']} consumers (latency of the paced tables):")
            show(f"studio: {args.tables} tables, bus, PostgreSQL", beside)
            show("baseline: 1 table, in-process, SQLite", base_beside)
        if "stations" in results:
            st, base_st = results["stations"]
            games = sorted({g for _, g, _, _ in stations})
            print(f"stations: {args.stations} real stations (the table kernel, journal, outbox,"
                  f" bus; {', '.join(games)} in turn), {args.station_rounds} rounds each, one"
                  f" every {args.station_pace:g} s, {st['consumers']} consumers"
                  f" ({st['rounds']} rounds dealt; latency = outbox commit to ledger commit):")
            show(f"studio: {args.stations} stations, bus, PostgreSQL", st)
            show("baseline: 1 table, in-process, SQLite, paced", base_st)
        floods = [k for k in results if k.startswith("flood")]
        if floods:
            print("flood, every shoe journaled at once (capacity):")
            for k in floods:
                f, base_flood = results[k]
                show(f"studio: {args.tables} tables, bus, PostgreSQL, {f['consumers']} consumer"
                     f"{'s' if f['consumers'] > 1 else ''}", f)
            show("baseline: 1 table, in-process, SQLite", base_flood)
            best = max(results[k][0]["bets_s"] for k in floods)
            goal = min(2000.0, 0.8 * base_flood["bets_s"])
            print(f"goal flood >= {goal:.0f} bets/s (2,000, or 80% of the one-table SQLite figure"
                  f" if lower): {'met' if best >= goal else 'NOT met'} ({best:.0f} bets/s)")
        for name, (f, _) in results.items():
            if not f["books_clean"] or f["applied"] < f["expected"]:
                print(f"  {name}: {f['applied']} of {f['expected']} applied; problems {f['problems']}")
                rc = 1
        for name in ("paced", "beside", "stations"):
            if name in results:
                p99 = results[name][0]["p99_ms"]
                what = f"{args.stations} stations" if name == "stations" else f"{args.tables} tables"
                print(f"goal p99 < 100 ms at {what} ({name}): "
                      f"{'met' if p99 < 100 else 'NOT met'} ({p99:.1f} ms)")
    return rc
