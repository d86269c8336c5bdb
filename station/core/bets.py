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
    #: a studio table's shared wallets (docs/studio.md, "Pot games in the studio"): while an
    #: input that may take money is applied, the studio ledger's journaled answers to its
    #: reservations, not this mirror, say whether a wallet can pay (None: the mirror says)
    answers: list[dict[str, Any]] | None = None
    #: the station's probe of such an input: every wallet can pay (the ledger will say)
    probing: bool = False
    #: what bets took on the table's credit per account while the studio ledger did not
    #: answer (station/live/reservations.py), since it last did
    on_credit: dict[str, int] = field(default_factory=dict)

    def can_pay(self, account: str, amount: int) -> bool:
        """Whether the game may take `amount` from the wallet now."""
        if self.probing:
            return True
        if self.answers is None:
            return self.balance(account) >= amount
        return self._answer_for(account, amount) is not None

    def take_answer(self, account: str, amount: int) -> dict[str, Any] | None:
        """The reserved answer this draw was made under (used once); None if there is none.
        The mirror takes the ledger's balance after it."""
        answer = self._answer_for(account, amount)
        if answer is not None:
            assert self.answers is not None
            self.answers.remove(answer)
            self.balances[account] = answer["balance"]
        return answer

    def _answer_for(self, account: str, amount: int) -> dict[str, Any] | None:
        for a in self.answers or ():
            if a["answer"] == "reserved" and a.get("account") == account and a.get("amount") == amount:
                return a
        return None

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
