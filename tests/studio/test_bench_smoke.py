"""The studio benchmark's script runs end to end with tiny numbers (its figures are measured
by `./run.sh bench studio`, never here): both loads, each beside its baseline, books clean."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.settlement.helpers import REPO, env_with_secret


@pytest.mark.slow
@pytest.mark.postgres  # the benchmark starts its own PostgreSQL and nats-server
def test_bench_studio_runs_with_tiny_numbers():
    done = subprocess.run(
        [sys.executable, "-m", "bench", "studio", "--tables=2", "--seconds=60", "--stagger=1",
         "--speedup=20", "--batch=16", "--consumers=1,2", "--beside=1", "--stations=3",
         "--station-rounds=2", "--station-pace=0.5", "--table-processes=2"],
        cwd=REPO, env=env_with_secret(), capture_output=True, text=True, timeout=400)
    out = done.stdout
    assert done.returncode == 0, done.stderr[-3000:]  # the goal not met is said, not failed
    assert "2 tables, recorded shoes" in out
    for load in ("paced:", "flood, every shoe journaled at once", "flooding their whole shoes"
                 " beside them, 2 consumers"):
        assert load in out, out
    # paced, paced with a flood beside, the flood with one consumer and with two
    assert out.count("studio: 2 tables, bus, PostgreSQL") == 4
    assert "PostgreSQL, 2 consumers" in out
    # real stations of every game, their rounds dealt and settled
    assert "stations: 3 real stations" in out and "(6 rounds dealt;" in out, out
    assert out.count("studio: 3 stations, bus, PostgreSQL") == 1
    assert out.count("baseline: 1 table, in-process, SQLite") == 4
    assert "NOT CLEAN" not in out and out.count("books clean") == 9
    assert "of which table commit -> stored by the bus" in out
    assert "goal p99 < 100 ms at 2 tables (paced):" in out
    assert "goal p99 < 100 ms at 2 tables (beside):" in out
    assert "goal p99 < 100 ms at 3 stations (stations):" in out
    assert "goal flood >= " in out
    assert " applied; problems " not in out, out
