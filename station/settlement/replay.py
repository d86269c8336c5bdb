"""Replay with settlement: a trace through the table kernel, its outbox messages applied by
the settlement core as the live station's delivery worker would, and the ledger's books
checked against the table's balances (`station replay`)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from station.core.inputs import read_trace
from station.core.replay import replay_file
from station.settlement.core import SettlementCore, SettlementRefused

#: the replay ledger's stand-in for the studio's cage: it sets a shared wallet to what the
#: studio ledger said it held when it reserved the table's bet or draw
STUDIO_CAGE = "STUDIO"


def _reserved_answers(path: str | Path) -> dict[str, dict[str, Any]]:
    """A studio table's trace: the ledger's `reserved` answers, by their attempt (the last
    part of the reserved message's key)."""
    _header, inputs = read_trace(path)
    return {str(inp.value.get("attempt")): inp.value for inp in inputs
            if inp.kind == "reservation_answer" and inp.value.get("answer") == "reserved"}


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
        # a studio table's wallets are shared with other tables and live in the studio
        # ledger; what the table decided by is in its trace: each reserved answer says what
        # the wallet held after the reservation, so the replay's ledger is set to that before
        # the table's message is applied
        reserved = _reserved_answers(path)
        cage = [0]

        def deliver(messages: list[dict[str, Any]]) -> None:
            for m in messages:
                answer = reserved.get(str(m.get("key", "")).rsplit(":", 1)[-1])
                if answer is not None and m.get("kind") in ("bet", "pot_in"):
                    cage[0] += 1
                    took = m.get("deducted", m.get("amount"))
                    sc.apply({"key": f"studio-wallet:{cage[0]}", "kind": "wallet",
                              "account": m["account"], "balance": answer["balance"] + took},
                             table=STUDIO_CAGE)
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
