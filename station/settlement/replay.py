"""Replay with settlement: a trace through the table kernel, its outbox messages applied by
the settlement core as the live station's delivery worker would, and the ledger's books
checked against the table's balances (`station replay`)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from station.core.replay import replay_file
from station.settlement.core import SettlementCore, SettlementRefused


def replay_settled(path: str | Path, *, ledger: str | Path | None = None,
                   settle: bool = True) -> tuple[list[dict[str, Any]], str | None]:
    """Replay with the settlement core applying the outbox messages as the live station's
    delivery worker would; the `balances` record is checked against the ledger's books.
    Returns the records and a description of any disagreement (None when the books agree)."""
    records: list[dict[str, Any]] = []
    if not settle:
        replay_file(path, records.append)
        return records, None
    with tempfile.TemporaryDirectory(prefix="station-replay-") as tmp:
        sc = SettlementCore(ledger or Path(tmp) / "ledger.sqlite")
        refused: list[str] = []

        def deliver(messages: list[dict[str, Any]]) -> None:
            for m in messages:
                try:
                    sc.apply(m)
                except SettlementRefused as e:
                    refused.append(f"{m.get('key')}: {e}")

        try:
            core = replay_file(path, records.append, deliver)
            problems: list[str] = list(refused)
            ledger_balances = sc.balances()
            mine = {a: b for a, b in core.balances.items()}
            if {a: b for a, b in ledger_balances.items() if a in mine or b} != mine:
                problems.append("ledger balances differ from the table core's")
            report = sc.check()
            if not report.ok:
                problems.extend(report.problems)
        finally:
            sc.close()
    return records, "; ".join(problems) if problems else None
