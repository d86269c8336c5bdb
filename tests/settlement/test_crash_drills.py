"""Crash drills: SIGKILL the station, and separately the settlement service, at random points of
a 100-round session with bets; after restarts every bet is settled or refunded exactly once,
the books are clean, and the balances are those of an uninterrupted session.

The station here is the mini station of `station.settlement.sim` (journal and outbox in one
transaction, a DeliveryWorker); the settlement service is the real `station settlement serve`.
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from station.settlement.core import SettlementCore
from station.settlement.sim import plan_session
from tests import waiting
from tests.settlement.backends import run_sql
from tests.settlement.helpers import REPO, env_with_secret, free_port, kill, start_service

ROUNDS = 100
PACE = 0.04  # seconds per round: the session runs ~4 s when nobody kills it
KILLS = 6


def journaled(journal: Path) -> int:
    if not journal.exists():
        return 0
    try:
        with sqlite3.connect(journal, timeout=10) as conn:
            return conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # killed before it created its tables


def start_station(journal: Path, seed: int, target: list[str], shape: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "station.settlement.sim", "--journal", str(journal),
         "--seed", str(seed), *shape, *target],
        cwd=REPO, env=env_with_secret(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )


def run_drill(tmp_path: Path, seed: int, *, over_http: bool, rounds: int = ROUNDS,
              accounts: int = 12, bets_per_round: tuple[int, int] = (3, 14),
              pace: float = PACE, wait: tuple[float, float] = (0.15, 0.7),
              ledger: Path | str | None = None) -> None:
    rng = random.Random(seed * 7919 + int(time.time()))
    session = plan_session(seed, rounds, accounts=accounts, bets_per_round=bets_per_round)
    shape = ["--rounds", str(rounds), "--pace", str(pace), "--accounts", str(accounts),
             "--bets-per-round", *map(str, bets_per_round)]
    journal = tmp_path / "journal.db"
    ledger = ledger or tmp_path / "ledger.db"
    service = None
    if over_http:
        port = free_port()
        service = start_service(ledger, port)
        target = ["--url", f"http://127.0.0.1:{port}"]
    else:
        target = ["--ledger", str(ledger)]
    station = start_station(journal, seed, target, shape)
    log: list[str] = []
    mid_session_station_kills = mid_session_service_kills = 0
    # over HTTP, kill each side half of the time, in a random order
    victims = ["station", "service"] * (KILLS // 2) if over_http else ["station"] * KILLS
    rng.shuffle(victims)
    if over_http:
        # each side must be killed mid-session at least once: the first two kills are one of
        # each (in a random order), before the session can have run out
        victims.remove("station")
        victims.remove("service")
        victims[:0] = rng.sample(["station", "service"], 2)
    try:
        for victim in victims:
            waiting.pace(rng.uniform(*wait))  # the station deals until the next blow
            if station.poll() is not None:
                break
            if victim == "service":
                kill(service)
                steps = journaled(journal)
                log.append(f"killed the service at step {steps}")
                mid_session_service_kills += steps < len(session.messages)
                waiting.pace(rng.uniform(0.0, 0.5))  # the station carries on journaling meanwhile
                service = start_service(ledger, port)
            else:
                kill(station)
                steps = journaled(journal)
                log.append(f"killed the station at step {steps}")
                mid_session_station_kills += steps < len(session.messages)
                station = start_station(journal, seed, target, shape)
        out, err = station.communicate(timeout=120)
        assert station.returncode == 0, f"{log}\n{out.decode()}\n{err.decode()[-2000:]}"
    finally:
        kill(station)
        if service is not None:
            kill(service)
    assert mid_session_station_kills >= 1, log
    if over_http:
        assert mid_session_service_kills >= 1, log

    with SettlementCore(ledger) as core:
        report = core.check(require_closed=True)
        assert report.ok, (log, report.problems)
        assert core.balances() == session.balances, log
        assert report.figures["messages"] == len(session.messages)
        assert report.figures["bets_settled"] + report.figures["bets_refunded"] == session.bets
        assert report.figures["rounds_settled"] == session.rounds_settled
        assert report.figures["rounds_cancelled"] == session.rounds_cancelled
    keys = sorted(k for (k,) in run_sql(ledger, "SELECT key FROM bets"))
    ((closings,),) = run_sql(ledger, "SELECT COUNT(*) FROM bet_closures")
    assert keys == sorted(session.bet_keys)
    assert closings == session.bets  # one closure per bet: settled or refunded once
    with sqlite3.connect(journal) as conn:
        assert conn.execute(
            "SELECT COUNT(*) FROM settlement_outbox WHERE delivered_at IS NULL").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0] == len(session.messages)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [101, 202])
def test_station_killed_at_random_points_settles_everything_once(tmp_path, seed):
    run_drill(tmp_path, seed, over_http=False)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [303, 404])
def test_station_and_service_killed_at_random_points_settle_everything_once(tmp_path, seed):
    run_drill(tmp_path, seed, over_http=True)


@pytest.mark.slow
@pytest.mark.postgres
def test_station_and_service_killed_at_random_points_on_postgresql(tmp_path, request):
    """The same drill with the service's ledger on PostgreSQL."""
    ledger = request.getfixturevalue("local_postgres").create_database("crash_drill")
    run_drill(tmp_path, 606, over_http=True, ledger=ledger)


@pytest.mark.slow
@pytest.mark.postgres
def test_station_killed_at_random_points_settling_in_process_on_postgresql(tmp_path, request):
    ledger = request.getfixturevalue("local_postgres").create_database("crash_drill_local")
    run_drill(tmp_path, 707, over_http=False, ledger=ledger)


@pytest.mark.slow
def test_station_killed_while_it_settles_big_rounds_in_process(tmp_path):
    """Rounds of thousands of bets: kills land inside the settlement transactions too."""
    run_drill(tmp_path, 505, over_http=False, rounds=3, accounts=300,
              bets_per_round=(2000, 3000), pace=0.0, wait=(0.2, 0.8))
