"""The studio bus on a real nats-server (JetStream) and a real PostgreSQL ledger: tables publish
their outbox, the settlement consumer applies it once, a station cut off keeps going."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from station.settlement.bus import DEFAULT_DURABLE, SETTLE_STREAM, BusConsumer, NatsTransport
from station.settlement.core import SettlementCore
from station.settlement.sim import MiniStation, plan_session
from station.studio.tables import StudioTable, balances_from_outbox
from tests.waiting import pace, wait_for

#: how long the bus is away in the cut-off test (the acceptance figure is 60 s; set
#: STUDIO_OUTAGE_S=60 to run that length)
OUTAGE_S = float(os.environ.get("STUDIO_OUTAGE_S", "3"))


def table_session(name: str, seed: int, rounds: int):
    session = plan_session(seed, rounds, table=name, account_prefix=f"{name}.")
    return session


def consumer_info(url: str, durable: str = DEFAULT_DURABLE):
    """The bus's own account of the settlement consumer (JetStream's consumer info), or None
    while it does not exist or the bus does not answer."""
    import asyncio

    import nats

    async def ask():
        nc = await nats.connect(url, connect_timeout=2, allow_reconnect=False)
        try:
            return await nc.jetstream(timeout=5).consumer_info(SETTLE_STREAM, durable)
        finally:
            await nc.close()

    try:
        return asyncio.run(ask())
    except Exception:  # noqa: BLE001 - not there yet
        return None


class RunningConsumer:
    def __init__(self, core: SettlementCore, url: str) -> None:
        self.url = url
        self.consumer = BusConsumer(core, url, batch=64)
        self.thread = threading.Thread(target=self.consumer.run, daemon=True)
        self.thread.start()

    def wait_applied(self, n: int, timeout_s: float = 60) -> None:
        wait_for(lambda: self.consumer.applied + self.consumer.refused >= n, timeout_s,
                 lambda: f"{n} messages applied or refused by the consumer "
                         f"(applied {self.consumer.applied}, refused {self.consumer.refused})",
                 poll_s=0.05)

    def wait_subscribed(self, timeout_s: float = 30) -> None:
        """Until the consumer is on the bus: it answers reservations before it makes its
        durable consumer, so once the bus has that durable it takes reservations too."""
        wait_for(lambda: consumer_info(self.url) is not None, timeout_s,
                 "the settlement consumer to subscribe to the bus", poll_s=0.05)

    def wait_caught_up(self, timeout_s: float = 30) -> None:
        """Until the consumer has taken and acknowledged every message the stream holds."""
        def caught_up() -> bool:
            info = consumer_info(self.url)
            return info is not None and info.num_pending == 0 and info.num_ack_pending == 0

        wait_for(caught_up, timeout_s, lambda: f"the consumer to catch up with the stream: "
                                               f"{consumer_info(self.url)}", poll_s=0.05)

    def stop(self) -> None:
        self.consumer.stop()
        self.thread.join(20)
        assert not self.thread.is_alive()


def outbox(journal: Path) -> list[tuple[str, bool, dict | None]]:
    with sqlite3.connect(journal) as conn:
        return [(k, d is not None, json.loads(r) if r else None) for k, d, r in conn.execute(
            "SELECT key, delivered_at, result FROM settlement_outbox ORDER BY seq")]


def test_tables_settle_through_the_bus_once_and_a_republished_outbox_changes_nothing(
        tmp_path, local_nats, studio_ledger):
    sessions = {name: table_session(name, seed, 12) for seed, name in ((1, "PD-01"), (2, "PD-02"))}
    core = SettlementCore(studio_ledger)
    consumer = RunningConsumer(core, local_nats.url)
    try:
        for name, session in sessions.items():
            transport = NatsTransport(local_nats.url, name)
            station = MiniStation(tmp_path / f"{name}.db", transport)
            assert station.run(session.messages, drain_timeout=30)
            station.close()
            transport.close()
        total = sum(len(s.messages) for s in sessions.values())
        consumer.wait_applied(total)
        before = core.check(require_closed=True)
        assert before.ok, before.problems
        # a station that crashed after the stream stored its messages but before it marked
        # them publishes them all again: the stream drops the copies (same message ids)
        journal = tmp_path / "PD-01.db"
        rows = outbox(journal)
        assert all(d and r["bus"]["seq"] > 0 for _, d, r in rows)
        with sqlite3.connect(journal) as conn:
            conn.execute("UPDATE settlement_outbox SET delivered_at = NULL, result = NULL")
        transport = NatsTransport(local_nats.url, "PD-01")
        station = MiniStation(journal, transport)
        assert station.worker.drain(30)
        station.close()
        transport.close()
        assert all(r["bus"]["duplicate"] for _, _, r in outbox(journal))
        consumer.wait_caught_up()  # whatever the stream holds has been applied: no copy
        assert consumer.consumer.applied == total and consumer.consumer.refused == 0
    finally:
        consumer.stop()
    expected = {}
    for session in sessions.values():
        expected.update(session.balances)
    assert core.balances() == expected
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["messages"] == sum(len(s.messages) for s in sessions.values())
    core.close()


def test_a_station_cut_off_from_the_bus_keeps_dealing_and_catches_up(
        tmp_path, local_nats, studio_ledger):
    """A real station (table kernel, journal and outbox, delivery worker) deals Pok Deng while
    nats-server is away for OUTAGE_S: it keeps journaling, its outbox holds what the bus
    missed, the outage is reported, and once the bus is back everything is settled once."""
    core = SettlementCore(studio_ledger)
    consumer = RunningConsumer(core, local_nats.url)
    table = StudioTable("PD-07", "pokdeng", seed=7, rounds=40, pace_s=0.1 + OUTAGE_S / 40,
                        bus_url=local_nats.url, folder=tmp_path, max_backoff=0.5)
    table.start()
    try:
        # the table deals and settles through the bus for a while
        wait_for(lambda: consumer.consumer.applied >= 5, 60, "the first settlements over the bus")
        local_nats.stop()  # the bus goes away while the table deals
        cut_at, at_cut = time.monotonic(), len(table.outbox())
        # the table goes on journaling on its own; its outbox holds what the bus missed
        wait_for(lambda: len(table.outbox()) > at_cut and table.worker.pending() > 0, OUTAGE_S + 60,
                 lambda: f"the table to journal while the bus is away (outbox {len(table.outbox())}, "
                         f"{at_cut} at the cut; pending {table.worker.pending()})")
        pace(max(0.0, OUTAGE_S - (time.monotonic() - cut_at)))  # the outage lasts OUTAGE_S
        assert len(table.outbox()) > at_cut
        assert table.worker.pending() > 0
        local_nats.start()
        assert table.finished.wait(OUTAGE_S + 90)
        assert table.failed is None and table.rounds_done == 40
        assert table.drain(60)
        assert table.errors, "the outage was reported to the supervisor"
        messages = table.outbox()
        consumer.wait_applied(len(messages), timeout_s=60)
    finally:
        consumer.stop()
        table.close()
    assert core.balances() == balances_from_outbox(messages)
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["messages"] == len(messages)
    assert consumer.consumer.refused == 0
    with core.store.transaction(read_only=True) as tx:
        applied = [k for (k,) in tx.execute(
            "SELECT key FROM entries WHERE table_id = ? ORDER BY id", ("PD-07",))]
    assert applied == [m["key"] for m in messages]  # once each, in the table's order
    core.close()


@pytest.mark.parametrize("bad", [b"not json", b'{"key": "wallet:poison", "kind": "wallet", '
                                 b'"account": "x", "balance": 9223372036854775808}'])
def test_a_poison_message_on_the_bus_is_refused_on_record_and_the_queue_flows(
        tmp_path, local_nats, studio_ledger, bad):
    import asyncio

    import nats

    from station.settlement.bus import ALARM_PREFIX, SETTLE_PREFIX, SETTLE_STREAM, ensure_streams

    async def publish_bad() -> None:
        nc = await nats.connect(local_nats.url)
        js = nc.jetstream()
        await ensure_streams(js)
        await js.publish(SETTLE_PREFIX + "PD-09", bad, stream=SETTLE_STREAM)
        await nc.close()

    asyncio.run(publish_bad())
    session = table_session("PD-09", 9, 5)
    core = SettlementCore(studio_ledger)
    consumer = RunningConsumer(core, local_nats.url)
    try:
        transport = NatsTransport(local_nats.url, "PD-09")
        station = MiniStation(tmp_path / "PD-09.db", transport)
        assert station.run(session.messages, drain_timeout=30)
        station.close()
        transport.close()
        consumer.wait_applied(len(session.messages) + 1)
    finally:
        consumer.stop()
    assert consumer.consumer.refused == 1
    assert core.balances() == session.balances
    (refusal,) = core.refusals()
    assert refusal["table"] == "PD-09"
    assert refusal["reason"] in ("malformed", "out_of_bounds")

    async def alarms() -> list[dict]:
        nc = await nats.connect(local_nats.url)
        sub = await nc.jetstream().subscribe(ALARM_PREFIX + "PD-09", ordered_consumer=True)
        msg = await sub.next_msg(timeout=5)
        await nc.close()
        return [json.loads(msg.data)]

    (alarm,) = asyncio.run(alarms())
    assert alarm["table"] == "PD-09" and alarm["reason"] == refusal["reason"]
    assert core.check(require_closed=True).ok
    core.close()


def test_what_a_dead_consumer_left_unacknowledged_is_applied_before_anything_newer(
        tmp_path, local_nats, studio_ledger):
    """A consumer took 40 messages, acknowledged 5 and died. JetStream would hand the other 35
    to the next consumer only after their ack wait (30 s), newer messages first: a hand before
    its bets. The next consumer applies them first, straight from the stream."""
    import asyncio

    import nats
    from nats.js import api

    from station.settlement.bus import DEFAULT_DURABLE, SETTLE_PREFIX, SETTLE_STREAM

    session = table_session("PD-05", 5, 12)
    transport = NatsTransport(local_nats.url, "PD-05")
    station = MiniStation(tmp_path / "PD-05.db", transport)
    assert station.run(session.messages, drain_timeout=30)
    station.close()
    transport.close()

    async def take_and_die() -> None:
        nc = await nats.connect(local_nats.url)
        js = nc.jetstream()
        config = api.ConsumerConfig(durable_name=DEFAULT_DURABLE, ack_wait=30.0,
                                    ack_policy=api.AckPolicy.EXPLICIT,
                                    filter_subject=SETTLE_PREFIX + "*")
        sub = await js.pull_subscribe(SETTLE_PREFIX + "*", durable=DEFAULT_DURABLE,
                                      stream=SETTLE_STREAM, config=config)
        msgs = await sub.fetch(40, timeout=5)
        assert len(msgs) == 40
        for msg in msgs[:5]:
            await msg.ack_sync()
        await nc.close()  # dies without acknowledging the rest

    asyncio.run(take_and_die())
    core = SettlementCore(studio_ledger)
    # messages 1-5 were acknowledged, so that consumer had applied them (done here by hand)
    assert core.apply_batch(session.messages[:5], table="PD-05").refused is None
    started = time.monotonic()
    consumer = RunningConsumer(core, local_nats.url)
    try:
        consumer.wait_applied(len(session.messages) - 5, timeout_s=20)
    finally:
        consumer.stop()
    assert time.monotonic() - started < 20  # not waiting for the 30 s ack wait
    assert consumer.consumer.refused == 0
    assert core.balances() == session.balances
    assert core.check(require_closed=True).ok
    core.close()


def test_a_message_too_large_for_the_bus_is_refused_and_alarmed_and_the_queue_flows(
        tmp_path, local_nats, studio_ledger):
    import asyncio

    import nats

    from station.settlement.bus import ALARM_PREFIX
    from station.settlement.outbox import OUTBOX_SCHEMA, DeliveryWorker, enqueue

    journal = tmp_path / "PD-08.journal.sqlite"
    conn = sqlite3.connect(journal, isolation_level=None)
    conn.executescript(OUTBOX_SCHEMA)
    wallet = {"key": "wallet:1", "kind": "wallet", "account": "PD-08.u1", "balance": 500}
    big = dict(wallet, key="wallet:2", note="x" * (9 * 1024 * 1024))  # over max_payload 8 MiB
    for message in (wallet, big, dict(wallet, key="wallet:3", balance=700)):
        enqueue(conn, message)
    conn.close()
    core = SettlementCore(studio_ledger)
    consumer = RunningConsumer(core, local_nats.url)
    alarms: list[str] = []
    transport = NatsTransport(local_nats.url, "PD-08")
    worker = DeliveryWorker(journal, transport, on_error=lambda exc, key: alarms.append(key))
    try:
        assert worker.drain(30) and worker.pending() == 0
        assert [r["key"] for r in worker.refused()] == ["wallet:2"] and alarms == ["wallet:2"]
        consumer.wait_applied(2)
    finally:
        worker.stop()
        transport.close()
        consumer.stop()
    assert core.balances() == {"PD-08.u1": 700}

    async def first_alarm() -> dict:
        nc = await nats.connect(local_nats.url)
        sub = await nc.jetstream().subscribe(ALARM_PREFIX + "PD-08", ordered_consumer=True)
        msg = await sub.next_msg(timeout=5)
        await nc.close()
        return json.loads(msg.data)

    alarm = asyncio.run(first_alarm())
    assert alarm["key"] == "wallet:2" and alarm["reason"] == "too_large"
    assert alarm["refused_at"] == "bus" and alarm["table"] == "PD-08"
    core.close()
