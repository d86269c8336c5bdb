"""Settlement: the station's books. Bets, validated hands and cancellations become double-entry
postings on the settlement ledger, each exactly once (docs/settlement.md)."""

from __future__ import annotations

from station.settlement.core import BatchOutcome, SettlementCore, SettlementRefused
from station.settlement.ledger import CheckReport, LedgerError
from station.settlement.outbox import (
    OUTBOX_SCHEMA,
    DeliveryWorker,
    Transport,
    TransportError,
    enqueue,
)
from station.settlement.transport import HttpTransport, InProcessTransport

__all__ = [
    "OUTBOX_SCHEMA",
    "BatchOutcome",
    "CheckReport",
    "DeliveryWorker",
    "HttpTransport",
    "InProcessTransport",
    "LedgerError",
    "SettlementCore",
    "SettlementRefused",
    "Transport",
    "TransportError",
    "enqueue",
]
