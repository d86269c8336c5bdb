"""How far settlement is with each table: `station studio status`, and the same as metrics.

From the ledger: each table's highest outbox sequence applied (`table_progress`), when, and
the gaps it waited on; who holds which durable (`consumer_leases`). From the bus, when given:
each durable consumer's lag (messages the stream holds that it has not taken, and those it
took and has not acknowledged) and each table's messages in the stream.
"""

from __future__ import annotations

import asyncio
from typing import Any

from station.metrics import REGISTRY, Registry
from station.settlement.ledger import Store
from station.settlement.ledger.progress import ensure_progress_tables, progress_rows


def ledger_status(store: Store) -> dict[str, Any]:
    if not store.read_only:
        ensure_progress_tables(store)
    return progress_rows(store)


def bus_status(url: str, timeout_s: float = 5.0) -> dict[str, Any]:
    """{"consumers": {durable: {"pending", "ack_pending", "delivered"}}, "subjects": {table: n}}"""
    from station.settlement.bus import SETTLE_PREFIX, SETTLE_STREAM

    async def ask() -> dict[str, Any]:
        import nats

        nc = await nats.connect(url, connect_timeout=2, allow_reconnect=False)
        try:
            jsm = nc.jetstream(timeout=timeout_s)
            info = await jsm.stream_info(SETTLE_STREAM, subjects_filter=SETTLE_PREFIX + "*")
            subjects = {s[len(SETTLE_PREFIX):]: n for s, n in (info.state.subjects or {}).items()}
            consumers = {}
            for c in await jsm.consumers_info(SETTLE_STREAM):
                consumers[c.name] = {"pending": c.num_pending, "ack_pending": c.num_ack_pending,
                                     "delivered": c.delivered.stream_seq,
                                     "ack_floor": c.ack_floor.stream_seq}
            return {"stream_messages": info.state.messages, "subjects": subjects,
                    "consumers": consumers}
        finally:
            await nc.close()

    return asyncio.run(ask())


def status(store: Store, bus_url: str | None = None) -> dict[str, Any]:
    out = ledger_status(store)
    if bus_url:
        try:
            out["bus"] = bus_status(bus_url)
        except Exception as exc:  # noqa: BLE001 - the ledger's side still stands
            out["bus"] = {"error": repr(exc)[:300]}
    return out


def publish_metrics(report: dict[str, Any], registry: Registry = REGISTRY) -> None:
    """The status as metrics (station/metrics.py's API)."""
    applied = registry.gauge("station_studio_applied_outbox_seq",
                             "the highest outbox sequence of the table the ledger has applied")
    gaps = registry.gauge("station_studio_outbox_gaps",
                          "gaps in the table's outbox the ledger waited on (messages re-sent)")
    age = registry.gauge("station_studio_applied_age_seconds",
                         "seconds since the ledger last applied a message of the table")
    for row in report.get("tables", ()):
        applied.set(row["outbox_seq"], table=row["table"])
        gaps.set(row["gaps"], table=row["table"])
        age.set(max(0.0, report["now"] - row["applied_at"]), table=row["table"])
    bus = report.get("bus") or {}
    lag = registry.gauge("station_studio_consumer_lag_messages",
                         "messages the stream holds that the settlement consumer has not taken")
    unacked = registry.gauge("station_studio_consumer_unacked_messages",
                             "messages the settlement consumer took and has not acknowledged")
    for name, c in (bus.get("consumers") or {}).items():
        lag.set(c["pending"], durable=name)
        unacked.set(c["ack_pending"], durable=name)


def format_status(report: dict[str, Any]) -> str:
    lines = []
    bus = report.get("bus") or {}
    subjects = bus.get("subjects") or {}
    if "error" in bus:
        lines.append(f"bus: not reachable: {bus['error']}")
    lines.append(f"{'table':<16} {'applied up to':>13} {'on the bus':>10} {'gaps':>5} {'last applied':>13}")
    seen = set()
    for row in report.get("tables", ()):
        seen.add(row["table"])
        ago = report["now"] - row["applied_at"]
        lines.append(f"{row['table']:<16} {row['outbox_seq']:>13} "
                     f"{subjects.get(row['table'], '-'):>10} {row['gaps']:>5} {ago:>11.1f} s")
    for table in sorted(set(subjects) - seen):
        lines.append(f"{table:<16} {'nothing':>13} {subjects[table]:>10} {'-':>5} {'never':>13}")
    if bus.get("consumers"):
        lines.append("")
        lines.append(f"{'durable':<32} {'lag':>7} {'unacked':>8} {'owner (lease)':<40}")
        leases = {row["name"]: row for row in report.get("leases", ())}
        for name, c in sorted(bus["consumers"].items()):
            lease = leases.get(name)
            owner = (f"{lease['owner']} ({lease['expires_in_s']:.0f} s)" if lease
                     and lease["expires_in_s"] > 0 else "none")
            lines.append(f"{name:<32} {c['pending']:>7} {c['ack_pending']:>8} {owner:<40}")
    return "\n".join(lines)
