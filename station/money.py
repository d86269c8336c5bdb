"""Money at the table: integers in minor units, and the bounds every part holds to.

Every amount (a bet, a deduction, a return, a wallet balance set by the platform) is an `int`
of minor units, never a float. The bounds below keep the sums the station makes — a whole
round's bets, a pot, a wallet's balance — inside a signed 64-bit integer, which is what SQLite
and PostgreSQL store (2^63 is about 9.2 × 10^18): 10^15 minor units is ten trillion in a
currency of cents, and a thousand such amounts sum to 10^18. The settlement ledger holds every
account to ±10^18 and refuses a message that would go beyond, so no sum it keeps overflows.
"""

from __future__ import annotations

from typing import Any

#: the largest single amount (bet, ante, buy-in, raise) or wallet balance the station accepts
MAX_AMOUNT = 10**15
#: the longest platform reference (`ref`) of a bet or action, in characters
MAX_REF_CHARS = 128
#: the longest account name, in characters
MAX_ACCOUNT_CHARS = 64


class AmountError(ValueError):
    """An amount that is not a whole number of minor units inside the station's bounds."""


def check_amount(value: Any, *, what: str = "amount", allow_zero: bool = False) -> int:
    """`value` as an amount in minor units, or AmountError saying why not.

    Booleans are refused although Python counts them as integers: `true` is not money.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise AmountError(f"{what} must be a whole number of minor units")
    if value < 0 or (value == 0 and not allow_zero):
        raise AmountError(f"{what} must be {'zero or more' if allow_zero else 'positive'}")
    if value > MAX_AMOUNT:
        raise AmountError(f"{what} is above the station's maximum of {MAX_AMOUNT}")
    return value
