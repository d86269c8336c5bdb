"""`/metrics` through prometheus_client: the whole text parses as the Prometheus format, the
latencies are histograms with their own buckets (input → journal, frame → zone reading,
outbox → settlement acknowledgement, bet intake), and the figures the alert rules in
docs/ops/ read (link up, camera up, faults by kind) are there."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from station.metrics import (
    BUCKETS,
    INPUT_LATENCY,
    REGISTRY,
    SETTLEMENT_LATENCY,
    Registry,
    render_tables,
)


def families(text: str) -> dict[str, object]:
    return {f.name: f for f in text_string_to_metric_families(text)}


def bucket_bounds(family) -> list[float]:
    return sorted({float(s.labels["le"]) for s in family.samples if s.name.endswith("_bucket")})


def test_the_console_metrics_parse_and_the_input_latency_is_a_histogram(make_table, serve):
    table = make_table("order_fault")
    con = serve(table)
    table.feed(lambda inp: inp.t_us >= 65_050_000)
    text = httpx.get(con.url + "/metrics").text
    fam = families(text)  # raises on any line that is not the Prometheus text format
    lat = fam["station_input_latency_seconds"]
    assert lat.type == "histogram"
    assert bucket_bounds(lat)[:-1] == list(BUCKETS[INPUT_LATENCY])
    count = next(s.value for s in lat.samples
                 if s.name.endswith("_count") and s.labels.get("table") == "PD-01")
    assert count >= table.station.inputs_applied > 0
    assert fam["station_faults"].type == "counter"  # station_faults_total, as before
    assert 'station_faults_active_kind{kind="order",table="PD-01"} 1.0' in text
    assert 'station_shoe_link_up{table="PD-01"}' in text


def test_camera_up_follows_the_last_observation():
    fitted = {"table": "T1", "t": 100.0, "camera": {"fitted": True, "last_seen": 99.5}}
    silent = {"table": "T2", "t": 100.0, "camera": {"fitted": True, "last_seen": 96.0}}
    never = {"table": "T3", "t": 100.0, "camera": {"fitted": True, "last_seen": None}}
    none = {"table": "T4", "t": 100.0, "camera": {"fitted": False, "last_seen": None}}
    text = render_tables([fitted, silent, never, none])
    assert 'station_camera_up{table="T1"} 1.0' in text
    assert 'station_camera_up{table="T2"} 0.0' in text
    assert 'station_camera_up{table="T3"} 0.0' in text
    assert 'station_camera_up{table="T4"}' not in text  # no camera: degraded, not lost


def test_a_registry_keeps_its_label_names_and_buckets():
    reg = Registry()
    h = reg.histogram("x_seconds", "x", buckets=(0.1, 1.0))
    h.observe(0.5, table="A")
    assert h.last(table="A") == 0.5
    fam = families(reg.render())["x_seconds"]
    assert [s.value for s in fam.samples if s.name == "x_seconds_bucket"] == [0.0, 1.0, 1.0]
    try:
        h.observe(0.5, table="A", kind="hand")
    except ValueError as e:
        assert "labels" in str(e)
    else:
        raise AssertionError("a metric took another set of label names")
    g = reg.gauge("g", "g")
    g.set(3, table="A")
    g.values.clear()
    assert "g{" not in reg.render()


def test_a_delivered_message_is_timed_from_outbox_to_acknowledgement(tmp_path):
    from station.settlement.core import SettlementCore
    from station.settlement.outbox import DeliveryWorker, enqueue
    from station.settlement.sim import open_journal
    from station.settlement.transport import InProcessTransport

    journal = tmp_path / "journal.db"
    conn = open_journal(journal)
    conn.execute("BEGIN")
    enqueue(conn, {"key": "wallet:m1", "kind": "wallet", "account": "u1", "balance": 1000,
                   "table": "MT-01"})
    conn.execute("COMMIT")
    hist = REGISTRY.histogram(SETTLEMENT_LATENCY)

    def count() -> float:
        fam = families(REGISTRY.render()).get(SETTLEMENT_LATENCY)
        return sum(s.value for s in fam.samples if s.name.endswith("_count")
                   and s.labels == {"kind": "wallet", "table": "MT-01"}) if fam else 0.0

    before = count()
    with SettlementCore(tmp_path / "ledger.sqlite") as core:
        worker = DeliveryWorker(journal, InProcessTransport(core))
        assert worker.drain(timeout=10) is True
        worker.stop()
    assert count() == before + 1
    assert 0 <= hist.last(kind="wallet", table="MT-01") < 10


def test_the_dashboards_and_alert_rules_read_only_metrics_the_station_exports():
    import json
    import re
    from pathlib import Path

    from station.metrics import CAMERA_FPS, SETTLEMENT_PENDING

    ops = Path(__file__).resolve().parents[2] / "docs" / "ops"
    view = {"table": "T1", "t": 1.0, "state": "betting", "paused": False, "rounds_settled": 1,
            "shoe": {"rounds": 1, "cards_out": 3}, "fault_counts": {"order": 1},
            "faults": [{"kind": "order"}], "link": {"up": True, "counters": {"frames": 3}},
            "degraded": False, "camera": {"fitted": True, "last_seen": 0.5}}
    exported = {f for f in families(render_tables([view]))} | set(BUCKETS) | {CAMERA_FPS, SETTLEMENT_PENDING}
    used: set[str] = set()
    for name in ("grafana-table.json", "grafana-studio.json"):
        board = json.loads((ops / name).read_text())
        exprs = [t["expr"] for p in board["panels"] for t in p.get("targets", [])]
        assert exprs, name
        for e in exprs:
            used |= set(re.findall(r"\bstation_[a-z_]+", e))
    alerts = (ops / "prometheus-alerts.yml").read_text()
    rules = re.findall(r"^\s+- alert: (\w+)", alerts, re.M)
    assert {"ShoeLinkLost", "CameraLost", "SettlementBacklog", "StationDiskLow"} <= set(rules)
    for e in re.findall(r"^\s+expr: (.+)$", alerts, re.M):
        used |= set(re.findall(r"\bstation_[a-z_]+", e))
    base = {re.sub(r"_(bucket|count|sum|total)$", "", n) for n in used}
    missing = sorted(n for n in base if n not in exported and n + "_total" not in exported)
    assert not missing, missing


def test_a_bet_through_the_bet_api_is_timed(tmp_path):
    from station.live.bet_api import make_bet_app
    from station.metrics import BET_INTAKE_LATENCY
    from tests.settlement.helpers import serve_in_thread
    from tests.settlement.test_bet_api import LiveTable

    live = LiveTable(tmp_path / "journal.sqlite")
    try:
        live.set_wallet("u1", 1000)
        live.open_round()
        hist = REGISTRY.histogram(BET_INTAKE_LATENCY)

        def count() -> float:
            fam = families(REGISTRY.render()).get(BET_INTAKE_LATENCY)
            return sum(s.value for s in fam.samples if s.name.endswith("_count")
                       and s.labels == {"table": "BI-01"}) if fam else 0.0

        before = count()
        app = make_bet_app(live.station.place_bets, {"k1": "p1"}, table="BI-01")
        with serve_in_thread(app) as url:
            r = httpx.post(url + "/v1/bets", json={"account": "u1", "spot": "P1", "amount": 100},
                           headers={"Authorization": "Bearer k1"}, timeout=10)
        assert r.status_code == 200, r.text
        assert count() == before + 1
        assert 0 < hist.last(table="BI-01") < 10
    finally:
        live.stop()
