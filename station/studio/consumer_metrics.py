"""`/metrics` of a settlement consumer process (`station settlement consume --metrics-port`).

A studio runs one consumer process per partition, each on a machine of its own, and the
studio's Prometheus scrapes each: what the process applied, refused, took again after a
redelivery and held back on a gap, the durables it owns, how long ago it last committed, and,
for the tables it owns (every table for an unpartitioned consumer), how far the ledger is
with each (its highest applied outbox sequence, gaps, seconds since the last apply) and each
durable's lag on the bus. The figures are read at each scrape (`station studio status` reads
the same: `station.studio.status`), into a registry of the scrape's own, so a table the
process no longer owns drops out of its page.
"""

from __future__ import annotations

import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from station.metrics import Registry
from station.settlement.bus import BusConsumer
from station.settlement.core import SettlementCore
from station.settlement.ledger.progress import progress_rows
from station.studio.status import bus_status, publish_metrics

log = logging.getLogger("station.settlement")

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def consumer_page(consumer: BusConsumer, core: SettlementCore, bus_url: str | None) -> str:
    """The Prometheus text of one scrape."""
    registry = Registry()
    durable = {"durable": consumer.durable}
    for name, help_, value in (
            ("station_settlement_consumer_applied", "messages this process applied to the ledger",
             consumer.applied),
            ("station_settlement_consumer_refused", "messages the ledger refused (kept, alarmed)",
             consumer.refused),
            ("station_settlement_consumer_redelivered", "messages the bus delivered again",
             consumer.redelivered),
            ("station_settlement_consumer_held", "messages held back behind a gap in a table's"
             " outbox", consumer.held),
            ("station_settlement_consumer_gaps", "gaps this process waited on",
             consumer.gaps_seen),
            ("station_settlement_consumer_durables", "durables this process owns now",
             len(consumer.owned_durables()))):
        registry.gauge(name, help_).set(value, **durable)
    last = getattr(consumer, "last_commit_at", None)
    if last is not None:
        registry.gauge("station_settlement_consumer_commit_age_seconds",
                       "seconds since this process last committed a round"
                       ).set(max(0.0, time.time() - last), **durable)
    report: dict[str, Any] = {"tables": [], "now": time.time()}
    try:
        report = progress_rows(core.store)
    except Exception as exc:  # noqa: BLE001 - the process's own figures still stand
        log.warning("settlement metrics: the ledger's progress not read: %r", exc)
        registry.gauge("station_settlement_consumer_ledger_up",
                       "1 when the scrape read the ledger's progress").set(0, **durable)
    else:
        registry.gauge("station_settlement_consumer_ledger_up",
                       "1 when the scrape read the ledger's progress").set(1, **durable)
    owned = _owned_tables(consumer)
    if owned is not None:
        report = dict(report, tables=[r for r in report.get("tables", ()) if r["table"] in owned])
    if bus_url:
        try:
            bus = bus_status(bus_url, timeout_s=2.0)
        except Exception as exc:  # noqa: BLE001 - said by its gauge, not fatal to the page
            log.warning("settlement metrics: the bus's consumers not read: %r", exc)
        else:
            mine = set(consumer.owned_durables())
            bus["consumers"] = {n: c for n, c in bus.get("consumers", {}).items() if n in mine}
            report = dict(report, bus=bus)
    publish_metrics(report, registry)
    return registry.render()


def _owned_tables(consumer: BusConsumer) -> set[str] | None:
    """The tables whose durables this process holds; None: one durable takes every table."""
    if not consumer.partitioned:
        return None
    prefix = consumer.durable + "-"
    return {d[len(prefix):] for d in consumer.owned_durables() if d.startswith(prefix)}


class MetricsServer:
    """A small HTTP server of `/metrics` beside the consumer (its own thread)."""

    def __init__(self, consumer: BusConsumer, core: SettlementCore, bus_url: str | None,
                 host: str, port: int) -> None:
        page = consumer_page

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                if self.path.split("?", 1)[0] != "/metrics":
                    self.send_error(404, "only /metrics is served here")
                    return
                try:
                    body = page(consumer, core, bus_url).encode("utf-8")
                except Exception as exc:  # noqa: BLE001 - a scrape's failure is the scraper's
                    log.exception("settlement metrics: scrape failed")
                    self.send_error(500, f"scrape failed: {exc!r}"[:200])
                    return
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:  # scrapes are not news
                return

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="consumer-metrics",
                                        daemon=True)

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
