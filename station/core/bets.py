"""Money at one table: wallets as the platform set them, bets in the order they came, and the
platform's idempotency refs. Every movement is also an outbox message for settlement, whose
key is unique per table and per journal (`<table>/<journal id>/…`), so many tables and a
new journal can share one ledger."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Bet:
    account: str
    spot: str
    amount: int
    deducted: int


@dataclass(slots=True)
class Purse:
    balances: dict[str, int] = field(default_factory=dict)
    wallet_seq: int = 0
    #: the platform's idempotency refs, per shoe (a retried bet comes within seconds)
    refs: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    last_decision: dict[str, Any] | None = None

    def credit(self, account: str, amount: int) -> None:
        self.balances[account] = self.balances.get(account, 0) + amount

    def debit(self, account: str, amount: int) -> None:
        self.balances[account] = self.balances.get(account, 0) - amount

    def balance(self, account: str) -> int:
        return self.balances.get(account, 0)


def refund_lines(bets: list[Bet]) -> list[dict[str, Any]]:
    """A cancelled round's refunds: every bet returned in full."""
    return [{"account": b.account, "spot": b.spot, "amount": b.amount, "deducted": b.deducted,
             "returned": b.deducted} for b in bets]
