"""Settlement speed: one big round settled durably, and bet intake over HTTP on loopback, for
every game of the station that declares the round it is measured on (its
`settlement_bench_round` tool, station/games/tools.py: the round's cards, the spots its bets
are spread on, the spots of the HTTP bet load), found in the registry.

    ./run.sh bench settlement [--bets N] [--baseline-bets N] [--runs N] [--http-seconds S]
                              [--clients N]

1. One round with `--bets` (50,000) open bets is settled by `SettlementCore.apply` in one
   durable transaction (goal <= 1 s; the median of `--runs` runs on copies of one ledger).
   Baseline in the same run: the same bets settled one commit per bet (the obvious loop),
   measured on `--baseline-bets` of them and scaled to the round.
2. Bets through the HTTP bet API (a real uvicorn server in its own process, a journaled bet
   book behind it) from `--clients` keep-alive client threads: single bets and batches of 100
   (goal >= 2,000 bets/s, p99 <= 50 ms): closed loop (as fast as answers come) for capacity,
   and open loop (2,000 bets/s offered on a schedule) for the latency at that rate.
   Baseline: the same bet book called in-process, one bet per call.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import shutil
import sqlite3
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from station.cards import parse_card
from station.games import GAMES, get_game
from station.games.tools import game_tool
from station.settlement.core import SettlementCore
from station.settlement.sim import AMOUNTS, BetBook

API_KEY = "bench-key"


def _ledger_with_open_round(path: Path, name: str, piece: dict[str, Any], bets: int,
                            seed: int = 1) -> tuple[SettlementCore, dict]:
    """A ledger holding `bets` open bets of round R1 of game `name`, spread on the spots of
    its `piece` (the game's settlement_bench_round), and the hand message that settles them."""
    game = get_game(name)
    cards = piece["cards"]
    rng = random.Random(seed)
    core = SettlementCore(path)
    accounts = [f"u{i:05d}" for i in range(2_000)]
    core.apply_batch([{"key": f"wallet:{i}", "kind": "wallet", "account": a,
                       "balance": 10_000_000} for i, a in enumerate(accounts)])
    hands = {p: [parse_card(c) for c in cs] for p, cs in cards.items()}
    spots = list(piece["spots"])
    messages, settlement = [], []
    for n in range(1, bets + 1):
        account, spot, amount = rng.choice(accounts), rng.choice(spots), rng.choice(AMOUNTS)
        deducted = game.check_bet(spot, amount)
        messages.append({"key": f"bet:R1:{n}", "kind": "bet", "round_id": "R1", "game": name,
                         "account": account, "spot": spot, "amount": amount, "deducted": deducted})
        settlement.append({"account": account, "spot": spot, "amount": amount,
                           "deducted": deducted, "returned": game.returned(spot, amount, hands)})
    for i in range(0, len(messages), 5_000):
        outcome = core.apply_batch(messages[i:i + 5_000])
        assert outcome.refused is None, outcome.refused
    hand = {"key": "hand:R1", "kind": "hand", "round_id": "R1", "game": name, "cards": cards,
            "results": game.evaluate(hands), "settlement": settlement}
    return core, hand


def _settle_one_commit_per_bet(path: Path, hand: dict, limit: int) -> tuple[float, int]:
    """The baseline: the same postings as the core, but each bet in its own transaction."""
    game = get_game(hand["game"])
    hands = {p: [parse_card(c) for c in cs] for p, cs in hand["cards"].items()}
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    in_play = conn.execute("SELECT id FROM accounts WHERE name='in_play' AND kind='system'").fetchone()[0]
    house = conn.execute("SELECT id FROM accounts WHERE name='house' AND kind='system'").fetchone()[0]
    entry = conn.execute("INSERT INTO entries (key, kind, round_id, applied_at, digest, result)"
                         " VALUES ('hand:R1', 'hand', 'R1', 0, '', '{}')").lastrowid
    bets = conn.execute("SELECT id, account_id, spot, amount, deducted FROM bets"
                        " WHERE round_id='R1' ORDER BY id LIMIT ?", (limit,)).fetchall()
    start = time.perf_counter()
    for bet_id, account_id, spot, amount, deducted in bets:
        returned = game.returned(spot, amount, hands)
        conn.execute("BEGIN IMMEDIATE")
        conn.executemany(
            "INSERT INTO postings (entry_id, account_id, amount, bet_id) VALUES (?,?,?,NULL)",
            [(entry, in_play, -deducted), (entry, account_id, returned),
             (entry, house, deducted - returned)])
        conn.execute("UPDATE accounts SET balance = balance - ? WHERE id = ?", (deducted, in_play))
        conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?", (returned, account_id))
        conn.execute("UPDATE accounts SET balance = balance + ? WHERE id = ?",
                     (deducted - returned, house))
        conn.execute("INSERT INTO bet_closures (bet_id, entry_id, outcome, returned)"
                     " VALUES (?, ?, 'settled', ?)", (bet_id, entry, returned))
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return elapsed, len(bets)


def _copy_ledger(source: Path, target: Path) -> None:
    shutil.copyfile(source, target)


def bench_round(name: str, piece: dict[str, Any], bets: int, baseline_bets: int, runs: int,
                workdir: Path) -> bool:
    print(f"-- one round with {bets:,} bets, settled durably (WAL, synchronous=FULL) in {workdir}")
    t0 = time.perf_counter()
    core, hand = _ledger_with_open_round(workdir / "round.db", name, piece, bets)
    core.store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every run starts from the same file
    core.close()
    setup = time.perf_counter() - t0
    times = []
    for run in range(runs):
        path = workdir / f"round-{run}.db"
        _copy_ledger(workdir / "round.db", path)
        core = SettlementCore(path)
        start = time.perf_counter()
        result = core.apply(hand)
        times.append(time.perf_counter() - start)
        if run == 0:
            start = time.perf_counter()
            report = core.check(require_closed=True)
            check = time.perf_counter() - start
            assert result["bets"] == bets and report.ok, report.problems
        core.close()
    settle = statistics.median(times)

    base_core, base_hand = _ledger_with_open_round(workdir / "baseline.db", name, piece,
                                                   max(baseline_bets, 1))
    base_core.close()
    base_time, base_n = _settle_one_commit_per_bet(workdir / "baseline.db", base_hand, baseline_bets)
    scaled = base_time / base_n * bets
    print(f"   {'':34} {'settlement core':>18} {'baseline':>22}")
    print(f"   {'what':34} {'one transaction':>18} {'one commit per bet':>22}")
    print(f"   {'bets settled':34} {bets:>18,} {base_n:>22,}")
    print(f"   {'time (median of ' + str(runs) + ' runs)':34} {settle:>17.3f}s {base_time:>21.3f}s")
    print(f"   {'time for the round (scaled)':34} {settle:>17.3f}s {scaled:>21.3f}s")
    print(f"   {'bets per second':34} {bets / settle:>18,.0f} {base_n / base_time:>22,.0f}")
    print(f"   runs: {', '.join(f'{t:.3f}s' for t in times)}; goal <= 1 s:"
          f" {'met' if settle <= 1.0 else 'MISSED'}; {scaled / settle:.0f}x the baseline;"
          f" load {os.getloadavg()[0]:.1f}")
    print(f"   (setup, not timed: {setup:.1f}s for {bets:,} bet messages applied in batches;"
          f" ledger check of the settled round: {check:.2f}s)")
    return settle <= 1.0


def _open_book(journal: str | Path, name: str, accounts: int) -> BetBook:
    """A bet book of game `name` with `accounts` funded accounts and a round open for an hour."""
    book = BetBook(journal, game=name)
    for i in range(accounts):
        book.set_wallet(f"u{i:05d}", 10**12)
    book.open_round(f"{get_game(name).table_prefix}01-S1-R1", closes_at=time.time() + 3600)
    return book


def _serve_bets(journal: str, name: str, port: int, accounts: int, ready: Any) -> None:
    import uvicorn

    from station.live.bet_api import make_bet_app

    book = _open_book(journal, name, accounts)
    app = make_bet_app(book.place_bets, {API_KEY: "bench"})
    ready.set()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _hammer(url: str, spots: tuple[str, ...], seconds: float, clients: int, batch: int,
            offered: float | None = None) -> tuple[int, float, list[float]]:
    """Send bets on `spots` for `seconds` from `clients` keep-alive threads.

    Without `offered` each client sends as fast as answers come (throughput at saturation).
    With `offered` (bets/s in all) each client sends on a fixed schedule and latency counts
    from the scheduled moment, so a stalled server is not hidden by clients that wait for it.
    """
    latencies: list[float] = []
    counted = [0]
    lock = threading.Lock()
    begin = time.perf_counter() + 0.2
    stop_at = begin + seconds
    interval = None if offered is None else clients * batch / offered

    host, port = url.removeprefix("http://").split(":")
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}

    def client(n: int) -> None:
        rng = random.Random(n)
        mine, done, k = [], 0, 0
        # the standard library's keep-alive client: on a 2-core box a heavier client would
        # take the CPU the server under test needs
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            while True:
                if interval is None:
                    scheduled = time.perf_counter()
                else:
                    scheduled = begin + (k + n / clients) * interval
                    k += 1
                    pause = scheduled - time.perf_counter()
                    if pause > 0:
                        time.sleep(pause)
                if scheduled >= stop_at:
                    break
                bets = [{"account": f"u{rng.randrange(1000):05d}", "spot": rng.choice(spots),
                         "amount": 100} for _ in range(batch)]
                path, body = ("/v1/bets", bets[0]) if batch == 1 else ("/v1/bets/batch", bets)
                conn.request("POST", path, body=json.dumps(body), headers=headers)
                answer = conn.getresponse()
                text = answer.read()
                mine.append(time.perf_counter() - scheduled)
                if answer.status != 200:
                    raise RuntimeError(f"{answer.status}: {text[:200]!r}")
                done += batch
        finally:
            conn.close()
        with lock:
            latencies.extend(mine)
            counted[0] += done

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return counted[0], time.perf_counter() - begin, latencies


def bench_http(name: str, spots: tuple[str, ...], seconds: float, clients: int,
               workdir: Path) -> bool:
    print(f"-- bet intake over HTTP on loopback: uvicorn in its own process, {clients} client threads")
    port = _free_port()
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    server = ctx.Process(target=_serve_bets, args=(str(workdir / "bets.db"), name, port, 1000, ready),
                         daemon=True)
    server.start()
    try:
        ready.wait(60)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.post(url + "/v1/bets", json={}, timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        single = _hammer(url, spots, seconds, clients, 1)
        paced_single = _hammer(url, spots, seconds, clients, 1, offered=2000)
        batched = _hammer(url, spots, seconds, clients, 100)
        paced_batch = _hammer(url, spots, seconds, clients, 20, offered=2000)
    finally:
        server.kill()
        server.join(10)

    book = _open_book(workdir / "inproc.db", name, 1000)
    rng = random.Random(0)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < min(seconds, 2.0):
        book.place_bets([{"account": f"u{rng.randrange(1000):05d}", "spot": spots[0], "amount": 100}])
        n += 1
    inproc_rate = n / (time.perf_counter() - start)

    def row(name: str, figures: tuple[int, float, list[float]]) -> tuple[float, float]:
        bets, elapsed, lat = figures
        rate = bets / elapsed
        p50, p99 = statistics.median(lat) * 1000, _percentile(lat, 0.99) * 1000
        print(f"   {name:38} {rate:>12,.0f} {p50:>10.1f} {p99:>10.1f} {len(lat):>10,}")
        return rate, p99

    print(f"   {'':38} {'bets/s':>12} {'p50 ms':>10} {'p99 ms':>10} {'requests':>10}")
    row("single bets, as fast as answered", single)
    single_rate, single_p99 = row("single bets, 2,000/s offered", paced_single)
    row("batches of 100, as fast as answered", batched)
    batch_rate, batch_p99 = row("batches of 20, 2,000/s offered", paced_batch)
    print(f"   {'baseline: in-process, 1 by 1':38} {inproc_rate:>12,.0f}")
    met_single = single_rate >= 1900 and single_p99 <= 50
    met_batch = batch_rate >= 1900 and batch_p99 <= 50
    print(f"   goal 2,000 bets/s with p99 <= 50 ms: single bets {'met' if met_single else 'MISSED'},"
          f" batches of 20 {'met' if met_batch else 'MISSED'} (cpus: {os.cpu_count()},"
          f" load {os.getloadavg()[0]:.1f}; clients and server share them)")
    return met_single or met_batch


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="bench settlement")
    parser.add_argument("--bets", type=int, default=50_000)
    parser.add_argument("--baseline-bets", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=3, help="timed settlements of the round")
    parser.add_argument("--http-seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args(argv)
    ok = True
    for name in GAMES:
        round_of = game_tool(name, "settlement_bench_round")
        title = get_game(name).title or name
        if round_of is None:
            print(f"{title}: no settlement benchmark round declared\n")
            continue
        piece = round_of()
        print(f"{title}:")
        with tempfile.TemporaryDirectory(prefix="bench-settlement-") as tmp:
            ok_round = bench_round(name, piece, args.bets, args.baseline_bets, args.runs, Path(tmp))
            print()
            ok_http = bench_http(name, tuple(piece["intake_spots"]), args.http_seconds,
                                 args.clients, Path(tmp))
        ok = ok and ok_round and ok_http
        print()
    return 0 if ok else 1
