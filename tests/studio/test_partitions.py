"""Settlement scaled out on a real nats-server and a real PostgreSQL ledger: partitions of
tables among consumer processes, a second consumer on a durable fenced off by its lease, a
partition taken over from a SIGKILLed owner, and a message the stream lost re-sent from the
station's outbox (docs/studio.md, "Partitions" and "Reconciliation")."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psycopg
import pytest

from station.metrics import Registry
from station.settlement.bus import BusConsumer, NatsTransport
from station.settlement.core import SettlementCore
from station.settlement.ledger.progress import applied_up_to, progress_rows
from station.settlement.partitions import Partition, partition_of
from station.settlement.sim import MiniStation, plan_session
from station.studio.status import publish_metrics
from tests.waiting import wait_for

pytestmark = pytest.mark.postgres
REPO = Path(__file__).resolve().parents[2]


def sessions(names: list[str], rounds: int = 6) -> dict:
    return {name: plan_session(seed, rounds, table=name, account_prefix=f"{name}.")
            for seed, name in enumerate(names, 1)}


def publish(tmp_path: Path, url: str, name: str, messages: list, transport=None,
            pace: float = 0.0) -> None:
    transport = transport or NatsTransport(url, name)
    station = MiniStation(tmp_path / f"{name}.db", transport)
    assert station.run(messages, drain_timeout=60, pace=pace)
    station.close()
    transport.close()


def entries_in_order(core: SettlementCore, table: str) -> list[str]:
    with core.store.transaction(read_only=True) as tx:
        return [k for (k,) in tx.execute(
            "SELECT key FROM entries WHERE table_id = ? ORDER BY id", (table,))]


def studio_status(ledger: str, bus: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "station", "studio", "status", "--ledger", ledger, "--bus", bus,
         "--json"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Running:
    def __init__(self, core: SettlementCore, url: str, **kw) -> None:
        self.consumer = BusConsumer(core, url, batch=64, **kw)
        self.thread = threading.Thread(target=self.consumer.run, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.consumer.stop()
        self.thread.join(30)
        assert not self.thread.is_alive()


def test_two_partitions_by_hash_split_the_tables_and_each_applies_its_own_in_order(
        tmp_path, local_nats, studio_ledger):
    names = ["PD-11", "PD-12", "PD-13", "PD-14", "PD-15", "PD-16"]
    assert {partition_of(n, 2) for n in names} == {0, 1}  # both partitions have tables
    plans = sessions(names)
    cores = [SettlementCore(studio_ledger, pool_size=2) for _ in range(2)]
    parts = [Running(cores[k], local_nats.url, partition=Partition(k, 2), owner=f"p{k}")
             for k in range(2)]
    try:
        for name, plan in plans.items():
            publish(tmp_path, local_nats.url, name, plan.messages)
        total = sum(len(p.messages) for p in plans.values())
        wait_for(lambda: sum(p.consumer.applied for p in parts) >= total, 120,
                 lambda: f"{total} messages applied by the two partitions: "
                         f"{[p.consumer.applied for p in parts]}", poll_s=0.05)
        for k, part in enumerate(parts):
            mine = {n for n in names if partition_of(n, 2) == k}
            assert part.consumer.owned_durables() == sorted(f"settlement-{n}" for n in mine)
            assert part.consumer.applied == sum(len(plans[n].messages) for n in mine)
        status = progress_rows(cores[0].store)
        leases = {row["name"]: row["owner"] for row in status["leases"]}
        assert leases == {f"settlement-{n}": f"p{partition_of(n, 2)}" for n in names}
        # what the floor sees: every table applied up to its last outbox message, each
        # table's durable with nothing left to take
        shown = studio_status(studio_ledger, local_nats.url)
        assert {r["table"]: r["outbox_seq"] for r in shown["tables"]} == {
            n: len(p.messages) for n, p in plans.items()}
        assert shown["bus"]["subjects"] == {n: len(p.messages) for n, p in plans.items()}
        consumers = shown["bus"]["consumers"]
        assert set(consumers) == {f"settlement-{n}" for n in names}
        wait_for(lambda: all(c["pending"] == 0 and c["ack_pending"] == 0 for c in
                             studio_status(studio_ledger, local_nats.url)["bus"]["consumers"].values()),
                 30, "every durable to have acknowledged everything")
        # and as metrics (station/metrics.py's exposition)
        registry = Registry()
        publish_metrics(shown, registry)
        exposed = registry.render()
        for n, p in plans.items():
            assert f'station_studio_applied_outbox_seq{{table="{n}"}} {len(p.messages)}' in exposed
        assert 'station_studio_consumer_lag_messages{durable="settlement-PD-11"}' in exposed
        text = subprocess.run(
            [sys.executable, "-m", "station", "studio", "status", "--ledger", studio_ledger,
             "--bus", local_nats.url], cwd=REPO, capture_output=True, text=True, timeout=60)
        assert text.returncode == 0, text.stderr
        for n in names:
            assert f"settlement-{n}" in text.stdout and n in text.stdout
    finally:
        for part in parts:
            part.stop()
    core = cores[0]
    for name, plan in plans.items():
        assert entries_in_order(core, name) == [m["key"] for m in plan.messages]
    # the ledger knows how far each table's outbox is applied: all of it
    assert applied_up_to(core.store) == {n: len(p.messages) for n, p in plans.items()}
    expected = {}
    for plan in plans.values():
        expected.update(plan.balances)
    assert core.balances() == expected
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["tables"] == len(names)  # not the consumers' default table too
    # stopped consumers released their leases: the next owner need not wait
    assert progress_rows(core.store)["leases"] == []
    for c in cores:
        c.close()


def test_a_second_consumer_on_a_durable_is_fenced_off_until_the_first_stops(
        tmp_path, local_nats, studio_ledger):
    plans = sessions(["PD-21", "PD-22"], rounds=4)
    first_core, second_core = (SettlementCore(studio_ledger, pool_size=2) for _ in range(2))
    first = Running(first_core, local_nats.url, owner="first", lease_s=30)
    wait_for(lambda: first.consumer.owned_durables() == ["settlement"], 30,
             "the first consumer to lease the durable")
    second = Running(second_core, local_nats.url, owner="second", lease_s=30)
    try:
        publish(tmp_path, local_nats.url, "PD-21", plans["PD-21"].messages)
        n21 = len(plans["PD-21"].messages)
        wait_for(lambda: first.consumer.applied >= n21, 60, "the first consumer applying PD-21")
        # the second one is a standby: it applied nothing and holds no durable
        assert second.consumer.applied == 0 and second.consumer.owned_durables() == []
        first.stop()  # it releases its lease: the standby takes over at once
        publish(tmp_path, local_nats.url, "PD-22", plans["PD-22"].messages)
        n22 = len(plans["PD-22"].messages)
        wait_for(lambda: second.consumer.applied >= n22, 60,
                 lambda: f"the standby to take over (applied {second.consumer.applied})")
        assert first.consumer.applied == n21
    finally:
        second.stop()
    for name, plan in plans.items():
        assert entries_in_order(second_core, name) == [m["key"] for m in plan.messages]
    report = second_core.check(require_closed=True)
    assert report.ok, report.problems
    first_core.close()
    second_core.close()


def consume_process(ledger: str, url: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "station", "settlement", "consume", "--ledger", ledger,
         "--bus", url, "--batch", "8", *extra],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_a_partition_taken_over_from_a_sigkilled_owner_is_applied_once_in_order(
        tmp_path, local_nats, studio_ledger):
    """The owner of a partition is SIGKILLed mid-flow (messages fetched, not acknowledged);
    a process started for the same tables waits out its lease, first applies what the dead
    one left unacknowledged, then the rest: every message once, in each table's order."""
    names = ["PD-31", "PD-32", "PD-33"]
    plans = sessions(names, rounds=10)
    core = SettlementCore(studio_ledger, pool_size=2)
    owner = consume_process(studio_ledger, local_nats.url, "--tables", ",".join(names),
                            "--lease", "2")
    threads = [threading.Thread(target=publish, args=(tmp_path, local_nats.url, n, p.messages))
               for n, p in plans.items()]
    try:
        for th in threads:
            th.start()
        total = sum(len(p.messages) for p in plans.values())

        def applied() -> int:
            with core.store.transaction(read_only=True) as tx:
                return tx.one("SELECT COUNT(*) FROM entries")[0]

        wait_for(lambda: applied() >= total // 4, 120, "the owner to apply a quarter",
                 poll_s=0.02)
        owner.send_signal(signal.SIGKILL)  # mid-flow: nothing released, nothing acknowledged
        owner.wait(10)
        for th in threads:
            th.join(120)
        taker = consume_process(studio_ledger, local_nats.url, "--tables", ",".join(names),
                                "--lease", "2")
        try:
            wait_for(lambda: applied() >= total, 120,
                     lambda: f"the new owner to apply everything ({applied()} of {total})",
                     poll_s=0.05)
        finally:
            taker.send_signal(signal.SIGTERM)
            out, _ = taker.communicate(timeout=30)
        assert taker.returncode == 0, out
    finally:
        if owner.poll() is None:
            owner.kill()
    for name, plan in plans.items():
        assert entries_in_order(core, name) == [m["key"] for m in plan.messages]
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["refused"] == 0
    core.close()


class LosingTransport(NatsTransport):
    """The studio bus losing a message it acknowledged (a power cut of nats-server 2.9 within
    its sync interval): the first publish of `lose` is confirmed to the station and never
    stored."""

    def __init__(self, url: str, table: str, lose: str) -> None:
        super().__init__(url, table)
        self.lose = lose
        self.lost = 0

    async def _publish_one(self, js, message, body, seq):
        if message.get("key") == self.lose and not self.lost:
            self.lost += 1
            return type("Ack", (), {"stream": "STUDIO_SETTLE", "seq": 0, "duplicate": False})()
        return await super()._publish_one(js, message, body, seq)


def test_a_message_the_stream_lost_is_found_by_the_ledger_and_sent_again_from_the_outbox(
        tmp_path, local_nats, studio_ledger):
    plan = plan_session(5, 6, table="PD-41", account_prefix="PD-41.")
    bets = [m for m in plan.messages if m["kind"] == "bet"]
    lost_key = bets[len(bets) // 2]["key"]
    core = SettlementCore(studio_ledger, pool_size=2)
    consumer = Running(core, local_nats.url, gap_wait_s=0.2)
    transport = LosingTransport(local_nats.url, "PD-41", lost_key)
    station = MiniStation(tmp_path / "PD-41.db", transport)
    station.worker.reconcile_every_s = 0.3
    station.worker.resend_after_s = 0.5
    try:
        assert station.run(plan.messages, drain_timeout=60)
        assert transport.lost == 1
        # the ledger stops at the gap (a hand is never applied before its bet) ...
        wait_for(lambda: consumer.consumer.gaps, 60, "the ledger to see the gap")
        # ... and the station, seeing the ledger stand still short of its outbox, sends the
        # rest again; everything is then applied once, in the table's order
        wait_for(lambda: applied_up_to(core.store).get("PD-41") == len(plan.messages), 60,
                 lambda: f"the ledger to have the whole outbox: {applied_up_to(core.store)}, "
                         f"resent {station.worker.resent}", poll_s=0.05)
        assert station.worker.resent > 0
    finally:
        station.close()
        transport.close()
        consumer.stop()
    assert entries_in_order(core, "PD-41") == [m["key"] for m in plan.messages]
    assert core.balances() == plan.balances
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["refused"] == 0
    row = next(r for r in progress_rows(core.store)["tables"] if r["table"] == "PD-41")
    assert row["gaps"] >= 1
    core.close()


def test_a_partition_handed_to_another_process_mid_flow_is_applied_once_in_order(
        tmp_path, local_nats, studio_ledger):
    """While three tables deal, the partitions are re-drawn: PD-52 goes from the first process
    to the second. The first releases it, the second takes it and applies what the first left
    unacknowledged before anything newer; every message once, in each table's order."""
    names = ["PD-51", "PD-52", "PD-53"]
    plans = sessions(names, rounds=12)
    cores = [SettlementCore(studio_ledger, pool_size=2) for _ in range(2)]
    a = Running(cores[0], local_nats.url, tables=["PD-51", "PD-52"], owner="a", lease_s=30)
    b = Running(cores[1], local_nats.url, tables=["PD-53"], owner="b", lease_s=30)
    # the tables deal a round about every half second, so the handover falls mid-flow
    threads = [threading.Thread(target=publish, args=(tmp_path, local_nats.url, n, p.messages),
                                kwargs={"pace": 0.5}) for n, p in plans.items()]
    core = cores[0]

    def applied(table: str) -> int:
        with core.store.transaction(read_only=True) as tx:
            return tx.one("SELECT COUNT(*) FROM entries WHERE table_id = ?", (table,))[0]

    try:
        for th in threads:
            th.start()
        n52 = len(plans["PD-52"].messages)
        wait_for(lambda: applied("PD-52") >= n52 // 4, 120, "a quarter of PD-52 applied by a",
                 poll_s=0.02)
        a.consumer.reassign(tables=["PD-51"])  # mid-flow
        b.consumer.reassign(tables=["PD-52", "PD-53"])
        wait_for(lambda: b.consumer.owned_durables() == ["settlement-PD-52", "settlement-PD-53"]
                 and a.consumer.owned_durables() == ["settlement-PD-51"], 30,
                 lambda: f"the handover: a {a.consumer.owned_durables()}, "
                         f"b {b.consumer.owned_durables()}", poll_s=0.05)
        at_handover = applied("PD-52")
        assert at_handover < n52  # PD-52 was still dealing: the rest is b's to apply
        for th in threads:
            th.join(120)
        total = sum(len(p.messages) for p in plans.values())
        wait_for(lambda: sum(applied(n) for n in names) >= total, 120,
                 lambda: f"everything applied ({[applied(n) for n in names]})", poll_s=0.05)
        leases = {r["name"]: r["owner"] for r in progress_rows(core.store)["leases"]}
        assert leases["settlement-PD-52"] == "b"
    finally:
        a.stop()
        b.stop()
    for name, plan in plans.items():
        assert entries_in_order(core, name) == [m["key"] for m in plan.messages]
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["refused"] == 0
    for c in cores:
        c.close()


def test_a_running_process_re_draws_its_partition_from_its_file_on_sighup(
        tmp_path, local_nats, studio_ledger):
    """`--partition-file`: the engineer edits a process's map and sends SIGHUP; the process
    releases what it no longer names and the other takes it. A map it cannot read leaves the
    partition as it was."""
    plans = {name: plan_session(seed, 8, table=name, account_prefix=f"{name}.")
             for seed, name in enumerate(["PD-81", "PD-82"], 1)}
    halves = {name: len(p.messages) // 2 for name, p in plans.items()}
    maps = {"a": tmp_path / "a.partition", "b": tmp_path / "b.partition"}
    maps["a"].write_text("PD-81, PD-82\n")
    maps["b"].write_text("PD-82")  # a standby for PD-82 while a holds it
    core = SettlementCore(studio_ledger, pool_size=2)
    procs: dict[str, subprocess.Popen] = {}

    def start(k: str) -> None:
        procs[k] = consume_process(studio_ledger, local_nats.url, "--partition-file",
                                   str(maps[k]), "--lease", "30")
        line = procs[k].stdout.readline()  # its map read, its SIGHUP handled from here on
        assert "settlement consumer" in line, line + procs[k].stdout.read()

    def leases() -> dict[str, str]:
        return {r["name"]: r["owner"] for r in progress_rows(core.store)["leases"]}

    def applied() -> dict[str, int] | None:
        try:
            return applied_up_to(core.store)
        except psycopg.errors.UndefinedTable:
            return None  # the consumers make the table as they start

    try:
        start("a")
        for name, plan in plans.items():
            publish(tmp_path, local_nats.url, name, plan.messages[:halves[name]])
        wait_for(lambda: applied() == halves, 60, lambda: f"the first halves applied: {applied()}")
        first = leases()
        assert first["settlement-PD-81"] == first["settlement-PD-82"]  # a holds both
        start("b")
        maps["b"].write_text("PD-82 ?!")  # not a table: b keeps what it had
        procs["b"].send_signal(signal.SIGHUP)
        maps["a"].write_text("PD-81")
        procs["a"].send_signal(signal.SIGHUP)
        wait_for(lambda: leases().get("settlement-PD-82") not in (None, first["settlement-PD-82"]),
                 30, lambda: f"PD-82 taken by b: {leases()}", poll_s=0.1)
        assert leases()["settlement-PD-81"] == first["settlement-PD-81"]
        for name, plan in plans.items():  # the same stations go on with their second halves
            publish(tmp_path, local_nats.url, name, plan.messages)
        wait_for(lambda: applied() == {n: len(p.messages) for n, p in plans.items()}, 60,
                 lambda: f"everything applied: {applied()}")
    finally:
        for proc in procs.values():
            proc.send_signal(signal.SIGTERM)
        outs = {k: proc.communicate(timeout=30)[0] for k, proc in procs.items()}
    assert "not re-drawn" in outs["b"] and "partition re-drawn" in outs["a"], outs
    for name, plan in plans.items():
        assert entries_in_order(core, name) == [m["key"] for m in plan.messages]
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    core.close()
