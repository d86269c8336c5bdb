"""What the table takes in from the betting platform — bets and wallet balances — checked once.

The bet API checks every bet and wallet here *before* anything is journaled, and replay of a
journal or a trace checks every `bet` and `wallet` line with the same functions
(`station.core.inputs`). So whatever the intake once accepted, replay accepts again: a station
can never journal an input that stops it from starting (a 200-character `ref` used to be
answered, journaled, and then refused on every restart).

The bounds are `station.money`'s. What is *not* decided here is whether a bet is taken: a
well-formed bet on a closed round, a bad spot or an amount of zero reaches the table core,
which answers with its TRACES.md reason (`betting_closed`, `bad_spot`, `bad_amount`, ...).
"""

from __future__ import annotations

from typing import Any

from station.money import MAX_ACCOUNT_CHARS, MAX_AMOUNT, MAX_REF_CHARS, AmountError, check_amount

#: the longest spot name; every game's spots are far shorter (`P5PAIR`, `SHUN_WIN`)
MAX_SPOT_CHARS = 32


class IntakeError(ValueError):
    """An input the table must never see; `field` names the part that is wrong."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _name(value: Any, field: str, max_chars: int, min_chars: int = 1) -> str:
    if not isinstance(value, str) or not min_chars <= len(value) <= max_chars:
        raise IntakeError(f"{field} must be a string of {min_chars} to {max_chars} characters", field)
    return value


def check_bet(value: Any) -> dict[str, Any]:
    """A bet as the table takes it: `{"account", "spot", "amount"[, "ref"]}`.

    `amount` may be any JSON value the core then judges (`bad_amount` for 0, negatives and
    non-integers, as TRACES.md says), except an integer beyond ±MAX_AMOUNT: a number no bet
    can be, refused here so that no sum of the table's ever leaves 64 bits. `ref`, when
    present, is the platform's idempotency key: 1 to MAX_REF_CHARS characters (an empty one
    would be silently no key, and a retry would deduct twice).
    """
    if not isinstance(value, dict):
        raise IntakeError("a bet is an object {account, spot, amount}")
    account = _name(value.get("account"), "account", MAX_ACCOUNT_CHARS)
    # an empty or unknown spot is the core's `bad_spot`, not a malformed input
    spot = _name(value.get("spot"), "spot", MAX_SPOT_CHARS, min_chars=0)
    if "amount" not in value:
        raise IntakeError("a bet needs an amount", "amount")
    amount = value["amount"]
    if isinstance(amount, int) and not isinstance(amount, bool) and abs(amount) > MAX_AMOUNT:
        raise IntakeError(f"amount is beyond the station's maximum of {MAX_AMOUNT} minor units",
                          "amount")
    if isinstance(amount, dict | list) or (isinstance(amount, str) and len(amount) > MAX_SPOT_CHARS):
        raise IntakeError("amount must be a number of minor units", "amount")
    bet: dict[str, Any] = {"account": account, "spot": spot, "amount": amount}
    if "ref" in value and value["ref"] is not None:
        bet["ref"] = _name(value["ref"], "ref", MAX_REF_CHARS)
    return bet


def check_wallet(value: Any) -> dict[str, Any]:
    """A balance set by the platform: `{"account", "balance"}`, 0 ≤ balance ≤ MAX_AMOUNT."""
    if not isinstance(value, dict):
        raise IntakeError("a wallet is an object {account, balance}")
    account = _name(value.get("account"), "account", MAX_ACCOUNT_CHARS)
    balance = value.get("balance")
    try:
        check_amount(balance, what="balance", allow_zero=True)
    except AmountError:
        raise IntakeError(f"balance must be a non-negative integer of minor units, at most "
                          f"{MAX_AMOUNT}, got {str(balance)[:40]!r}", "balance") from None
    return {"account": account, "balance": balance}
