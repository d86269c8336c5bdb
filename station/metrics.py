"""Metrics for `/metrics`, through `prometheus_client` (the Prometheus text format).

The console fills in what the tables' public views hold (rounds, faults by kind, shoe link
counters) at each scrape (`render_tables`, a collector over the views). Figures that other
parts of the station measure as they happen come in through `REGISTRY`, which those parts set
without importing the console (this module stands on its own, beside the data path, so the
table core, the camera feed, the bet API and the settlement worker can report without
importing up):

    from station.metrics import REGISTRY, CAMERA_FPS, RECOGNITION_LATENCY
    REGISTRY.gauge(CAMERA_FPS, "frames per second from the overhead camera").set(24.8, table="T-01")
    REGISTRY.histogram(RECOGNITION_LATENCY).observe(0.031, table="T-01")

Labels are given at each use, as keywords; a metric keeps the label names of its first use.
The latencies are histograms with buckets chosen for each (`BUCKETS`): an input journaled
is milliseconds (one fsync), a frame read is tens of milliseconds, a hand acknowledged by
settlement is up to seconds (a remote service, the studio bus). The console's device panel
shows the last camera figures from the same registry (`Gauge.get`, `Histogram.last`).
"""

from __future__ import annotations

import threading
from collections import Counter as Counter_
from collections.abc import Iterable
from typing import Any

import prometheus_client
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

# `<name>_created` series double every counter and histogram; no dashboard of ours reads them
prometheus_client.disable_created_metrics()

Labels = tuple[tuple[str, str], ...]

CAMERA_FPS = "station_camera_fps"
RECOGNITION_LATENCY = "station_recognition_latency_seconds"
SETTLEMENT_LATENCY = "station_settlement_latency_seconds"
INPUT_LATENCY = "station_input_latency_seconds"
BET_INTAKE_LATENCY = "station_bet_intake_latency_seconds"
SETTLEMENT_PENDING = "station_settlement_outbox_pending"
SHOE_READER_RESTARTS = "station_shoe_reader_restarts_total"

#: the latencies and their buckets (seconds)
BUCKETS: dict[str, tuple[float, ...]] = {
    # input received → journaled (one fsync on the table's SSD) and applied
    INPUT_LATENCY: (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    # a camera frame → every zone's reading (steady frames ≤ 10 ms, a turned card ≤ 33 ms)
    RECOGNITION_LATENCY: (0.001, 0.0025, 0.005, 0.01, 0.02, 0.033, 0.05, 0.1, 0.25, 0.5, 1.0),
    # a hand (or a bet) in the outbox → acknowledged by settlement (embedded: ms; remote or
    # the studio bus: a network, retries while it is down)
    SETTLEMENT_LATENCY: (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
    # a bet request → the table's answer (journaled with its group)
    BET_INTAKE_LATENCY: (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
}


#: the camera reports at least once a second (its heartbeat); this long without an observation
#: of a table's camera (station time) is a camera lost (PROCEDURE.md's camera_lost, 3 s)
CAMERA_SILENT_S = 3.0


def _labels(labels: dict[str, Any]) -> Labels:
    return tuple(sorted((k, str(v)) for k, v in labels.items()))


class _Values(dict):
    """The last value per label set, kept beside the prometheus metric for the console's
    panels; clearing it clears the metric's series too."""

    def __init__(self, owner: _Metric) -> None:
        super().__init__()
        self._owner = owner

    def clear(self) -> None:
        super().clear()
        self._owner._clear()


class _Metric:
    kind = "untyped"

    def __init__(self, name: str, help_: str, registry: CollectorRegistry) -> None:
        self.name, self.help = name, help_
        self._registry = registry
        self._prom: Any = None
        self._names: tuple[str, ...] | None = None
        self._lock = threading.Lock()
        self.values: _Values = _Values(self)

    def _make(self, names: tuple[str, ...]) -> Any:
        raise NotImplementedError

    def _child(self, labels: Labels) -> Any:
        names = tuple(k for k, _ in labels)
        with self._lock:
            if self._prom is None:
                self._prom = self._make(names)
                self._names = names
        if names != self._names:
            raise ValueError(f"metric {self.name} has labels {self._names}, not {names}")
        return self._prom.labels(**dict(labels)) if names else self._prom

    def _clear(self) -> None:
        if self._prom is not None and self._names:
            self._prom.clear()


class Gauge(_Metric):
    kind = "gauge"

    def _make(self, names: tuple[str, ...]) -> Any:
        return prometheus_client.Gauge(self.name, self.help, names, registry=self._registry)

    def set(self, value: float, **labels: Any) -> None:
        k = _labels(labels)
        self._child(k).set(value)
        self.values[k] = value

    def get(self, **labels: Any) -> float | None:
        return self.values.get(_labels(labels))

    def set_function(self, fn: Any, **labels: Any) -> None:
        """The gauge's value is `fn()`, asked at each scrape (a count another part keeps)."""
        self._child(_labels(labels)).set_function(fn)

    def remove(self, **labels: Any) -> None:
        """Forget one series (a part that stopped: its figure is no longer true)."""
        k = _labels(labels)
        self.values.pop(k, None)
        if self._prom is not None and self._names:
            try:
                self._prom.remove(*(v for _, v in k))
            except KeyError:
                pass


class Counter(_Metric):
    kind = "counter"

    def _make(self, names: tuple[str, ...]) -> Any:
        return prometheus_client.Counter(self.name, self.help, names, registry=self._registry)

    def inc(self, amount: float = 1, **labels: Any) -> None:
        k = _labels(labels)
        self._child(k).inc(amount)
        with self._lock:
            self.values[k] = self.values.get(k, 0) + amount

    def get(self, **labels: Any) -> float | None:
        return self.values.get(_labels(labels))


class Histogram(_Metric):
    """An observed quantity (a latency) in buckets; `last` is the latest observation."""

    kind = "histogram"

    def __init__(self, name: str, help_: str, registry: CollectorRegistry,
                 buckets: tuple[float, ...]) -> None:
        super().__init__(name, help_, registry)
        self.buckets = buckets

    def _make(self, names: tuple[str, ...]) -> Any:
        return prometheus_client.Histogram(self.name, self.help, names, registry=self._registry,
                                           buckets=self.buckets)

    def observe(self, value: float, **labels: Any) -> None:
        k = _labels(labels)
        self._child(k).observe(value)
        self.values[k] = value

    def last(self, **labels: Any) -> float | None:
        return self.values.get(_labels(labels))


class Registry:
    """Metrics by name over one `prometheus_client.CollectorRegistry`."""

    def __init__(self) -> None:
        self.prom = CollectorRegistry(auto_describe=True)
        self._metrics: dict[str, _Metric] = {}
        self._lock = threading.Lock()

    def _get(self, cls: type[_Metric], name: str, help_: str, **kw: Any) -> Any:
        with self._lock:
            m = self._metrics.get(name)
            if m is None:
                m = self._metrics[name] = cls(name, help_ or name, self.prom, **kw)
            elif type(m) is not cls:
                raise ValueError(f"metric {name} is a {m.kind}, not a {cls.kind}")
            return m

    def gauge(self, name: str, help_: str = "") -> Gauge:
        return self._get(Gauge, name, help_)

    def counter(self, name: str, help_: str = "") -> Counter:
        return self._get(Counter, name, help_)

    def histogram(self, name: str, help_: str = "", buckets: Iterable[float] | None = None) -> Histogram:
        chosen = tuple(buckets) if buckets is not None else BUCKETS.get(name)
        if chosen is None:
            raise ValueError(f"histogram {name}: give its buckets (no default for this name)")
        return self._get(Histogram, name, help_, buckets=chosen)

    def summary(self, name: str, help_: str = "") -> Histogram:
        """A latency by its earlier name: the histogram of `BUCKETS`."""
        return self.histogram(name, help_)

    def find(self, name: str) -> _Metric | None:
        with self._lock:
            return self._metrics.get(name)

    def render(self) -> str:
        return generate_latest(self.prom).decode("utf-8")


#: the station-wide registry other parts set (table core, camera, bet API, settlement worker);
#: the console renders it
REGISTRY = Registry()


class _TablesCollector:
    """The figures every table's public view holds, read at each scrape."""

    def __init__(self, views: list[dict[str, Any]]) -> None:
        self.views = views

    def collect(self) -> Iterable[Any]:
        t = ["table"]
        paused = GaugeMetricFamily("station_table_paused", "1 while the table is paused on a fault", labels=t)
        state = GaugeMetricFamily("station_table_state", "1 for the table's current procedure state",
                                  labels=["state", "table"])
        settled = CounterMetricFamily("station_rounds_settled", "rounds validated and settled", labels=t)
        rounds = GaugeMetricFamily("station_shoe_rounds", "rounds opened in the current shoe", labels=t)
        cards = GaugeMetricFamily("station_shoe_cards_out", "cards out of the current shoe", labels=t)
        faults = CounterMetricFamily("station_faults", "faults raised, by kind", labels=["kind", "table"])
        active = GaugeMetricFamily("station_faults_active", "faults waiting for the supervisor", labels=t)
        link = GaugeMetricFamily("station_shoe_link_up", "1 while the shoe link is up", labels=t)
        linkc = CounterMetricFamily("station_shoe_link_events",
                                    "shoe link counters: frames, bad CRC, duplicates, gaps, noise bytes…",
                                    labels=["counter", "table"])
        degraded = GaugeMetricFamily("station_table_degraded", "1 when no camera is fitted (shoe alone)",
                                     labels=t)
        camera_up = GaugeMetricFamily("station_camera_up",
                                      "1 while the camera's observations arrive (a table with a camera)",
                                      labels=t)
        active_kind = GaugeMetricFamily("station_faults_active_kind",
                                        "faults waiting for the supervisor, by kind",
                                        labels=["kind", "table"])
        for v in self.views:
            name = str(v["table"])
            paused.add_metric([name], 1 if v.get("paused") else 0)
            state.add_metric([str(v.get("state")), name], 1)
            settled.add_metric([name], int(v.get("rounds_settled", 0)))
            shoe = v.get("shoe") or {}
            rounds.add_metric([name], int(shoe.get("rounds", 0)))
            cards.add_metric([name], int(shoe.get("cards_out", 0)))
            for kind, n in sorted((v.get("fault_counts") or {}).items()):
                faults.add_metric([kind, name], int(n))
            active.add_metric([name], len(v.get("faults") or []))
            lk = v.get("link") or {}
            link.add_metric([name], 1 if lk.get("up") else 0)
            for counter, n in sorted((lk.get("counters") or {}).items()):
                linkc.add_metric([counter, name], int(n))
            degraded.add_metric([name], 1 if v.get("degraded") else 0)
            for kind, n in sorted(Counter_(f.get("kind") for f in v.get("faults") or []).items()):
                active_kind.add_metric([str(kind), name], n)
            camera = v.get("camera") or {}
            if camera.get("fitted"):
                last, now = camera.get("last_seen"), v.get("t")
                up = last is not None and now is not None and now - last < CAMERA_SILENT_S
                camera_up.add_metric([name], 1 if up else 0)
        return [paused, state, settled, rounds, cards, faults, active, active_kind, link, linkc,
                degraded, camera_up]


def render_tables(views: list[dict[str, Any]]) -> str:
    """The figures every table's public view holds, as Prometheus text."""
    reg = CollectorRegistry(auto_describe=False)
    reg.register(_TablesCollector(views))  # type: ignore[arg-type]
    return generate_latest(reg).decode("utf-8")
