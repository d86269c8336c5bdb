"""A running table whose shoe reader dies (an error nobody foresaw inside the reading) reads
again and says so where the engineer looks: the log and `/metrics`
(`station_shoe_reader_restarts_total`). A real pty, the shoe simulator, the real runtime; the
one failure is the station's own intake raising once."""

from __future__ import annotations

import logging
import threading

from firmware_bridge.shoe.simulator import ShoeSimulator
from station.live.config import parse_config
from station.live.journal_key import make_key_file
from station.live.table_station import TableStation
from station.metrics import REGISTRY, SHOE_READER_RESTARTS
from station.runtime import start_runtime
from tests.waiting import wait_for


def test_a_dead_shoe_reader_reads_again_and_is_counted_and_logged(tmp_path, monkeypatch, caplog):
    failed = threading.Event()
    feed = TableStation.feed_shoe_bytes

    def feed_failing_once(self, data: bytes):
        if not failed.is_set():
            failed.set()
            raise RuntimeError("the intake broke once")
        return feed(self, data)

    monkeypatch.setattr(TableStation, "feed_shoe_bytes", feed_failing_once)
    counter = REGISTRY.counter(SHOE_READER_RESTARTS)
    before = counter.get(table="PD-09") or 0
    with ShoeSimulator(seed=4) as shoe:
        config = parse_config({
            "table": {"name": "PD-09"},
            "storage": {"dir": str(tmp_path / "var")},
            "shoe": {"url": shoe.serve_pty()},
            "camera": {"enabled": False},
            "journal": {"signing_key_file": str(make_key_file(tmp_path / "keys" / "PD-09.key"))},
        }, source="test")
        with caplog.at_level(logging.ERROR, logger="station.runtime"):
            rt = start_runtime(config, with_console=False, with_bet_api=False)
            try:
                wait_for(lambda: rt.port.counters["reader_died"] == 1, 20,
                         "the shoe reader to die once")
                wait_for(lambda: rt.station.core.link.boot_id is not None, 20,
                         lambda: "the shoe's HELLO to reach the table after the reader restarted")
            finally:
                rt.stop()
    assert "the shoe reader at" in caplog.text and "RuntimeError: the intake broke once" in caplog.text
    assert counter.get(table="PD-09") == before + 1
    assert 'station_shoe_reader_restarts_total{table="PD-09"} ' in REGISTRY.render()
