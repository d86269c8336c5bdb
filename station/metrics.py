"""Metrics in the Prometheus text format (version 0.0.4), for `/metrics`.

The console fills in what the tables' public views hold (rounds, faults by kind, shoe link
counters, input latency). Figures only other parts of the station know — the camera's frame
rate and recognition latency, settlement delivery latency — come in through `REGISTRY`, which
those parts set without importing the console (this module stands on its own, beside the
data path, so the camera feed and the settlement worker can report without importing up):

    from station.metrics import REGISTRY
    REGISTRY.gauge("station_camera_fps", "frames per second from the overhead camera").set(24.8, table="T-01")
    REGISTRY.summary("station_recognition_latency_seconds", "frame to zone reading").observe(0.031, table="T-01")
    REGISTRY.summary("station_settlement_latency_seconds", "hand to settlement ack").observe(0.012, table="T-01")

The console's device panel shows the camera figures from the same registry.
"""

from __future__ import annotations

import math
import threading
from typing import Any

Labels = tuple[tuple[str, str], ...]


def _labels(labels: dict[str, Any]) -> Labels:
    return tuple(sorted((k, str(v)) for k, v in labels.items()))


def _escape(v: str) -> str:
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _fmt_labels(labels: Labels, extra: Labels = ()) -> str:
    items = labels + extra
    if not items:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in items) + "}"


def _fmt_value(v: float) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return repr(float(v))


class _Metric:
    kind = "untyped"

    def __init__(self, name: str, help_: str) -> None:
        self.name, self.help = name, help_
        self._lock = threading.Lock()

    def header(self) -> list[str]:
        return [f"# HELP {self.name} {self.help}", f"# TYPE {self.name} {self.kind}"]


class Gauge(_Metric):
    kind = "gauge"

    def __init__(self, name: str, help_: str) -> None:
        super().__init__(name, help_)
        self.values: dict[Labels, float] = {}

    def set(self, value: float, **labels: Any) -> None:
        with self._lock:
            self.values[_labels(labels)] = value

    def get(self, **labels: Any) -> float | None:
        with self._lock:
            return self.values.get(_labels(labels))

    def lines(self) -> list[str]:
        with self._lock:
            items = sorted(self.values.items())
        return [f"{self.name}{_fmt_labels(k)} {_fmt_value(v)}" for k, v in items]


class Counter(Gauge):
    kind = "counter"

    def inc(self, amount: float = 1, **labels: Any) -> None:
        with self._lock:
            k = _labels(labels)
            self.values[k] = self.values.get(k, 0) + amount


class Summary(_Metric):
    """Count, sum and the last value of an observed quantity (latencies), per label set."""

    kind = "summary"

    def __init__(self, name: str, help_: str) -> None:
        super().__init__(name, help_)
        self.values: dict[Labels, list[float]] = {}  # [count, sum, last]

    def observe(self, value: float, **labels: Any) -> None:
        with self._lock:
            v = self.values.setdefault(_labels(labels), [0, 0.0, 0.0])
            v[0] += 1
            v[1] += value
            v[2] = value

    def last(self, **labels: Any) -> float | None:
        with self._lock:
            v = self.values.get(_labels(labels))
            return v[2] if v else None

    def lines(self) -> list[str]:
        with self._lock:
            items = sorted((k, list(v)) for k, v in self.values.items())
        out = []
        for k, (count, total, _last) in items:
            out.append(f"{self.name}_count{_fmt_labels(k)} {int(count)}")
            out.append(f"{self.name}_sum{_fmt_labels(k)} {_fmt_value(total)}")
        return out


class Registry:
    def __init__(self) -> None:
        self._metrics: dict[str, _Metric] = {}
        self._lock = threading.Lock()

    def _get(self, cls: type[_Metric], name: str, help_: str) -> Any:
        with self._lock:
            m = self._metrics.get(name)
            if m is None:
                m = self._metrics[name] = cls(name, help_)
            elif type(m) is not cls:
                raise ValueError(f"metric {name} is a {m.kind}, not a {cls.kind}")
            return m

    def gauge(self, name: str, help_: str = "") -> Gauge:
        return self._get(Gauge, name, help_ or name)

    def counter(self, name: str, help_: str = "") -> Counter:
        return self._get(Counter, name, help_ or name)

    def summary(self, name: str, help_: str = "") -> Summary:
        return self._get(Summary, name, help_ or name)

    def find(self, name: str) -> _Metric | None:
        with self._lock:
            return self._metrics.get(name)

    def render(self) -> str:
        with self._lock:
            metrics = sorted(self._metrics.values(), key=lambda m: m.name)
        out: list[str] = []
        for m in metrics:
            body = m.lines()  # type: ignore[attr-defined]
            if body:
                out += m.header() + body
        return "\n".join(out) + "\n" if out else ""


#: the station-wide registry other parts set (camera, settlement); the console renders it
REGISTRY = Registry()

CAMERA_FPS = "station_camera_fps"
RECOGNITION_LATENCY = "station_recognition_latency_seconds"
SETTLEMENT_LATENCY = "station_settlement_latency_seconds"


def render_tables(views: list[dict[str, Any]], latencies: dict[str, list[int]]) -> str:
    """The figures every table's public view holds, as Prometheus text."""
    reg = Registry()
    up = reg.gauge("station_table_paused", "1 while the table is paused on a fault")
    state = reg.gauge("station_table_state", "1 for the table's current procedure state")
    settled = reg.counter("station_rounds_settled_total", "rounds validated and settled")
    rounds = reg.gauge("station_shoe_rounds", "rounds opened in the current shoe")
    cards = reg.gauge("station_shoe_cards_out", "cards out of the current shoe")
    faults = reg.counter("station_faults_total", "faults raised, by kind")
    active = reg.gauge("station_faults_active", "faults waiting for the supervisor")
    link = reg.gauge("station_shoe_link_up", "1 while the shoe link is up")
    linkc = reg.counter("station_shoe_link_events_total",
                        "shoe link counters: frames, bad CRC, duplicates, gaps, noise bytes…")
    degraded = reg.gauge("station_table_degraded", "1 when no camera is fitted (shoe alone)")
    lat = reg.summary("station_input_latency_seconds", "input received to journaled and applied")
    for v in views:
        t = v["table"]
        up.set(1 if v.get("paused") else 0, table=t)
        state.set(1, table=t, state=v.get("state"))
        settled.set(int(v.get("rounds_settled", 0)), table=t)
        shoe = v.get("shoe") or {}
        rounds.set(int(shoe.get("rounds", 0)), table=t)
        cards.set(int(shoe.get("cards_out", 0)), table=t)
        for kind, n in sorted((v.get("fault_counts") or {}).items()):
            faults.set(int(n), table=t, kind=kind)
        active.set(len(v.get("faults") or []), table=t)
        lk = v.get("link") or {}
        link.set(1 if lk.get("up") else 0, table=t)
        for name, n in sorted((lk.get("counters") or {}).items()):
            linkc.set(int(n), table=t, counter=name)
        degraded.set(1 if v.get("degraded") else 0, table=t)
        for us in latencies.get(t, []):
            lat.observe(us / 1e6, table=t)
    return reg.render()
