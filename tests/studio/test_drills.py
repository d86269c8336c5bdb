"""Studio drills: tables of the three games deal (each a real station in its own process: the
table kernel, its journal with the outbox in it, its delivery worker publishing to the bus)
while the settlement consumer is SIGKILLed, PostgreSQL is restarted as after a crash, and
nats-server is stopped and started again. Afterwards every bet of every table is settled
exactly once or refunded, every pot is paid out or refunded, `ledger check --all-closed` is
clean, and the studio ledger equals what the tables' own journals' outboxes say."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from station.settlement.core import SettlementCore
from station.studio.servers import LocalNats, LocalPostgres
from station.studio.tables import balances_from_outbox, outbox_messages
from tests.ports import free_port
from tests.settlement.helpers import REPO, env_with_secret, kill
from tests.waiting import pace, wait_for

TABLES = {"PD-01": "pokdeng", "WZ-02": "paigow", "SZ-03": "sizhidao"}
ROUNDS = 30
PACE_S = 0.25  # per round: each table deals for about 7.5 s


def journal_of(tmp_path: Path, table: str) -> Path:
    return tmp_path / f"{table}.journal.sqlite"


def start_table(tmp_path: Path, table: str, seed: int, bus: str, *extra: str,
                game: str | None = None, rounds: int = ROUNDS,
                pace_s: float = PACE_S) -> subprocess.Popen:
    """A studio table as its own process (`python -m station.studio.tables`); `extra`: more of
    its arguments (e.g. --reserve)."""
    return subprocess.Popen(
        [sys.executable, "-m", "station.studio.tables", "--journal", str(journal_of(tmp_path, table)),
         "--seed", str(seed), "--rounds", str(rounds), "--pace", str(pace_s), "--bus", bus,
         "--table", table, "--game", game or TABLES[table], "--max-backoff", "0.5", *extra],
        cwd=REPO, env=env_with_secret(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def table_done(table: str, proc: subprocess.Popen, timeout_s: float = 180) -> dict:
    """The JSON line a table process prints once it has dealt its session and delivered its
    outbox; the process must have ended well."""
    out, err = proc.communicate(timeout=timeout_s)
    assert proc.returncode == 0, (table, err.decode()[-3000:])
    return json.loads(out.decode().splitlines()[-1])


def start_consumer(ledger: str, bus: str, log: Path, *extra: str,
                   wait_started: bool = True) -> subprocess.Popen:
    """`station settlement consume` as its own process; `extra`: more of its arguments (e.g.
    --tables A,B --lease 2)."""
    with open(log, "ab") as err:  # what the consumer says, for the assertion messages
        proc = subprocess.Popen(
            [sys.executable, "-m", "station", "settlement", "consume", "--ledger", ledger,
             "--bus", bus, "--ack-wait", "5", "--batch", "64", *extra],
            cwd=REPO, env=env_with_secret(), stdout=subprocess.PIPE, stderr=err)
    if wait_started:
        line = proc.stdout.readline().decode()
        assert "settlement consumer" in line, log.read_text()[-2000:]
    return proc


def ledger_check_all_closed(ledger: str) -> None:
    """`station ledger check --all-closed` as the floor runs it, as its own process: clean."""
    done = subprocess.run(
        [sys.executable, "-m", "station", "ledger", "check", "--ledger", ledger, "--all-closed"],
        cwd=REPO, env=env_with_secret(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def journal_books(journal: Path) -> tuple[dict[str, int], list[str], int]:
    """What a table's own journal says (its outbox): every wallet's balance, its message
    keys, its bets."""
    messages = outbox_messages(journal)
    bets = sum(1 for m in messages if m["kind"] == "bet")
    return balances_from_outbox(messages), [m["key"] for m in messages], bets


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.parametrize("seed", [16, 61])
def test_tables_deal_through_consumer_kills_and_postgres_and_bus_restarts(tmp_path, seed):
    rng = random.Random(seed)
    # ports of their own: both servers come back on theirs after going down
    pg = LocalPostgres(fsync=True, port=free_port()).start()
    bus = LocalNats(port=free_port()).start()
    consumer = tables = None
    consumer_log = tmp_path / "consumer.log"
    try:
        ledger = pg.create_database("studio")
        consumer = start_consumer(ledger, bus.url, consumer_log)
        tables = {t: start_table(tmp_path, t, seed * 10 + i, bus.url) for i, t in enumerate(TABLES)}
        # the blows come at random moments while the tables deal (each gap is the drill's
        # own time; what the test checks is the books once the tables are done)
        pace(rng.uniform(0.8, 1.5))
        kill(consumer)  # kill -9 the settlement service in the middle of a batch
        pace(rng.uniform(0.2, 0.8))
        consumer = start_consumer(ledger, bus.url, consumer_log)
        pace(rng.uniform(0.5, 1.0))
        pg.restart(immediate=True)  # PostgreSQL goes down as in a crash and comes back
        pace(rng.uniform(0.5, 1.0))
        bus.stop()  # the bus goes away while the tables deal, then comes back
        pace(rng.uniform(1.0, 2.0))
        bus.start()
        pace(rng.uniform(0.2, 0.6))
        kill(consumer)
        consumer = start_consumer(ledger, bus.url, consumer_log)
        for table, proc in tables.items():
            done = table_done(table, proc)
            assert done["delivered"] is True and done["rounds"] == ROUNDS, done

        expected: dict[str, int] = {}
        keys: dict[str, list[str]] = {}
        bets = 0
        for table in TABLES:
            balances, keys[table], n = journal_books(journal_of(tmp_path, table))
            expected.update(balances)
            bets += n
        total = sum(len(k) for k in keys.values())

        with SettlementCore(ledger) as core:
            def all_applied() -> bool:
                with core.store.transaction(read_only=True) as tx:
                    return tx.one("SELECT COUNT(*) FROM entries WHERE table_id != ''")[0] >= total
            wait_for(all_applied, 120, lambda: "the consumer to apply every table's messages: "
                     + consumer_log.read_text()[-3000:], poll_s=0.2)
            assert core.balances() == expected
            report = core.check(require_closed=True)
            assert report.ok, report.problems
            assert report.figures["bets_settled"] + report.figures["bets_refunded"] == bets
            assert report.figures["refused"] == 0
            with core.store.transaction(read_only=True) as tx:
                for table in TABLES:
                    applied = [k for (k,) in tx.execute(
                        "SELECT key FROM entries WHERE table_id = ? ORDER BY id", (table,))]
                    # every message of the table applied once, in the table's order
                    assert applied == keys[table]
        ledger_check_all_closed(ledger)
    finally:
        if consumer is not None:
            kill(consumer)
        for proc in (tables or {}).values():
            kill(proc)
        bus.close()
        pg.close()
