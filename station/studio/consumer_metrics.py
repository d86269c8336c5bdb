"""`/metrics` of a settlement consumer process (`station settlement consume --metrics-port`).

A studio runs one consumer process per partition, each on a machine of its own, and the
studio's Prometheus scrapes each: what the process applied, refused, read back from the stream
after another owner, took again after a redelivery and held back on a gap (counters since the
process started), the durables it owns, how long ago it last committed, and, for the tables
it owns (every table for an unpartitioned consumer), how far the ledger is with each (its
highest applied outbox sequence, gaps, seconds since the last apply) and each durable's lag
on the bus. The figures are read at each scrape (`station studio status` reads the same:
`station.studio.status`), into a registry of the scrape's own, so a table the process no
longer owns drops out of its page.

The page reads the ledger through a read-only connection of its own, waiting at most
READ_TIMEOUT_S for it: with the database away, a scrape answers at once with
`…_ledger_up 0` (Prometheus gives up on a scrape after 10 s) and never takes a connection
the consumer's rounds or the reservations need. Scrapes are served one at a time.
"""

from __future__ import annotations

import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from station.metrics import Registry
from station.settlement.bus import BusConsumer
from station.settlement.ledger import Store
from station.settlement.ledger.progress import progress_rows
from station.studio.status import bus_status, publish_metrics

log = logging.getLogger("station.settlement")

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
#: how long a scrape waits for the ledger's connection, and for the bus's answer
READ_TIMEOUT_S = 2.0

#: the process's own totals: (name, help, attribute of the consumer)
TOTALS = (
    ("station_settlement_consumer_applied", "messages this process applied to the ledger",
     "applied"),
    ("station_settlement_consumer_refused", "messages the ledger refused (kept, alarmed)",
     "refused"),
    ("station_settlement_consumer_recovered", "messages read back from the stream that an"
     " earlier owner was given and did not acknowledge", "recovered"),
    ("station_settlement_consumer_redelivered", "messages the bus delivered again",
     "redelivered"),
    ("station_settlement_consumer_held", "messages held back behind a gap in a table's outbox",
     "held"),
    ("station_settlement_consumer_gaps", "gaps in a table's outbox this process waited on",
     "gaps_seen"),
)


def consumer_page(consumer: BusConsumer, ledger: Store | None, bus_url: str | None) -> str:
    """The Prometheus text of one scrape; `ledger`: a store to read the progress from (None:
    the ledger could not be opened)."""
    registry = Registry()
    durable = {"durable": consumer.durable}
    for name, help_, attribute in TOTALS:  # since the process started: counters
        registry.counter(name, help_ + " since the process started").inc(
            getattr(consumer, attribute), **durable)
    registry.gauge("station_settlement_consumer_durables", "durables this process owns now"
                   ).set(len(consumer.owned_durables()), **durable)
    last = consumer.last_commit_at
    if last is not None:
        registry.gauge("station_settlement_consumer_commit_age_seconds",
                       "seconds since this process last committed a round"
                       ).set(max(0.0, time.time() - last), **durable)
    report: dict[str, Any] = {"tables": [], "now": time.time()}
    up = registry.gauge("station_settlement_consumer_ledger_up",
                        "1 when the scrape read the ledger's progress")
    try:
        if ledger is None:
            raise ConnectionError("the ledger could not be opened")
        report = progress_rows(ledger, timeout_s=READ_TIMEOUT_S)
    except Exception as exc:  # noqa: BLE001 - the process's own figures still stand
        log.warning("settlement metrics: the ledger's progress not read: %r", exc)
        up.set(0, **durable)
    else:
        up.set(1, **durable)
    owned = _owned_tables(consumer)
    if owned is not None:
        report = dict(report, tables=[r for r in report.get("tables", ()) if r["table"] in owned])
    if bus_url:
        try:
            bus = bus_status(bus_url, timeout_s=READ_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - said by the missing lag, not fatal to the page
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
    """A small HTTP server of `/metrics` beside the consumer (its own thread), reading the
    ledger at `ledger_url` through a read-only connection of its own."""

    def __init__(self, consumer: BusConsumer, ledger_url: str, bus_url: str | None,
                 host: str, port: int) -> None:
        self.consumer, self.ledger_url, self.bus_url = consumer, ledger_url, bus_url
        self._store: Store | None = None
        self._lock = threading.Lock()  # one scrape at a time
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                if self.path.split("?", 1)[0] != "/metrics":
                    self.send_error(404, "only /metrics is served here")
                    return
                try:
                    body = server.page().encode("utf-8")
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

    def _ledger(self) -> Store | None:
        """The page's own read-only store, opened at the first scrape that can."""
        if self._store is None:
            from station.settlement.ledger import open_store

            try:
                self._store = open_store(self.ledger_url, read_only=True, pool_size=1)
            except Exception as exc:  # noqa: BLE001 - said on the page (ledger_up 0)
                log.warning("settlement metrics: the ledger not opened: %r", exc)
        return self._store

    def page(self) -> str:
        with self._lock:
            return consumer_page(self.consumer, self._ledger(), self.bus_url)

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._store is not None:
            self._store.close()
