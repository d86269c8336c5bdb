"""A settlement consumer process serves its own /metrics (`station settlement consume
--metrics-port`): what it applied, the durables it owns and their lag on the bus, and how far
the ledger is with each of its tables — the figures a studio's Prometheus scrapes from every
partition's process. A real consumer process, a real nats-server and PostgreSQL, a real
station outbox publishing, a real HTTP scrape."""

from __future__ import annotations

import signal
import urllib.error
import urllib.request

import pytest

from station.settlement.core import SettlementCore
from station.settlement.ledger.progress import applied_up_to
from tests.ports import free_port
from tests.studio.test_partitions import consume_process, publish, sessions
from tests.waiting import wait_for

pytestmark = pytest.mark.postgres


def scrape(port: int) -> dict[str, float]:
    """The page's samples, by their line's name and labels."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        assert reply.headers["Content-Type"].startswith("text/plain")
        text = reply.read().decode("utf-8")
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            samples[name] = float(value)
    return samples


def test_a_partition_process_serves_its_tables_progress_and_lag(tmp_path, local_nats,
                                                                   studio_ledger):
    mine, other = ["PD-71", "PD-72"], "PD-73"
    plans = sessions([*mine, other], rounds=3)
    core = SettlementCore(studio_ledger, pool_size=2)
    port = free_port()
    proc = consume_process(studio_ledger, local_nats.url, "--tables", ",".join(mine),
                           "--metrics-port", str(port))
    try:
        # started once it says so (its progress tables made, its page served)
        first = proc.stdout.readline()
        assert f"metrics http://127.0.0.1:{port}/metrics" in first, first
        for name in [*mine, other]:
            publish(tmp_path, local_nats.url, name, plans[name].messages)
        want = {n: len(plans[n].messages) for n in mine}
        wait_for(lambda: {n: applied_up_to(core.store).get(n) for n in mine} == want, 120,
                 lambda: f"the partition's tables applied: {applied_up_to(core.store)}")

        def page() -> dict[str, float] | None:
            try:
                return scrape(port)
            except (urllib.error.URLError, ConnectionError):
                return None

        samples = wait_for(page, 30, "the consumer's /metrics to answer")
        durable = '{durable="settlement"}'
        assert samples[f"station_settlement_consumer_applied_total{durable}"] == sum(want.values())
        assert samples[f"station_settlement_consumer_durables{durable}"] == 2
        assert samples[f"station_settlement_consumer_ledger_up{durable}"] == 1
        for name in mine:
            assert samples[f'station_studio_applied_outbox_seq{{table="{name}"}}'] == want[name]
            assert samples[f'station_studio_consumer_lag_messages{{durable="settlement-{name}"}}'] == 0
        # a table another process owns is not on this one's page
        assert not [k for k in samples if other in k], [k for k in samples if other in k]
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10)
        assert refused.value.code == 404
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    core.close()


def test_a_port_already_taken_is_a_clear_error(tmp_path, local_nats, studio_ledger):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = consume_process(studio_ledger, local_nats.url, "--metrics-port", str(port))
        out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2, out
    assert f"/metrics on 127.0.0.1:{port}" in out


def test_with_the_ledger_away_a_scrape_answers_at_once_and_says_so(tmp_path, local_nats):
    """PostgreSQL stopped under a running consumer: the page still answers, well inside a
    scraper's 10 s, with `ledger_up 0` and the process's own counters; and 1 again once the
    database is back."""
    import time

    from station.studio.servers import LocalPostgres

    pg = LocalPostgres(fsync=False, port=free_port()).start()
    proc = None
    try:
        ledger = pg.create_database("metrics")
        port = free_port()
        proc = consume_process(ledger, local_nats.url, "--metrics-port", str(port))
        first = proc.stdout.readline()
        assert "metrics http://" in first, first
        up = 'station_settlement_consumer_ledger_up{durable="settlement"}'
        assert scrape(port)[up] == 1
        pg.stop(immediate=True)
        began = time.monotonic()
        samples = scrape(port)
        assert time.monotonic() - began < 8.0  # the page waits 2 s for the ledger, then says so
        assert samples[up] == 0
        assert 'station_settlement_consumer_applied_total{durable="settlement"}' in samples
        pg.start()
        wait_for(lambda: scrape(port)[up] == 1, 60, "the page to read the ledger again")
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=60)
        pg.stop()
