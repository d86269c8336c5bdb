"""A pot game's money in the books: every ante, bet and buy-in moves from the
player's wallet into the game's own pot account, and the game ends by paying the whole pot
out to its winners or back to those who put it in. A pot account is a system account of the
game's table named `pot:<game round id>`; `check_books` proves every closed game's pot is at
zero (`pot_problems`).

Messages (from the table's outbox):

- `pot_in`: `round_id`, `account`, `amount`, `what` (`ante` | `bet` | `buy_in`);
- `pot_settled`: `round_id`, `payouts` (account -> amount): must empty the pot exactly;
- `pot_cancelled`: `round_id`, `refunds` (list of `account`, `amount`): each account gets back
  exactly what it put in.

Written once for both ledger engines (the `Tx` API of `station.settlement.ledger.store`): the
wallet and pot rows are locked before they are read on PostgreSQL, every amount is bounded by
station/money.py before any arithmetic reaches the database, and the postings go through the
core's `_post`, which keeps every balance inside ±`MAX_BALANCE`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from station.money import AmountError, check_amount

if TYPE_CHECKING:
    from station.settlement.core import SettlementCore
    from station.settlement.ledger.store import Tx

POT_KINDS = ("pot_in", "pot_settled", "pot_cancelled")
POT_PREFIX = "pot:"
WHAT = ("ante", "bet", "buy_in")


def _core_names():
    # the core imports this module for its dispatch; its helpers are taken at call time
    from station.settlement.core import SettlementRefused, _need_text

    return SettlementRefused, _need_text


def _pot_row(tx: Tx, table: str, round_id: str, *, create: bool) -> tuple[int, int] | None:
    """The game's pot account (id, balance), locked for the transaction on PostgreSQL."""
    name = POT_PREFIX + round_id
    if create:
        tx.execute(
            "INSERT INTO accounts (kind, table_id, name) VALUES ('system', ?, ?)"
            " ON CONFLICT DO NOTHING",
            (table, name),
        )
    row = tx.one(
        "SELECT id, balance FROM accounts WHERE kind = 'system' AND table_id = ? AND name = ?"
        + tx.lock,
        (table, name),
    )
    return None if row is None else (int(row[0]), int(row[1]))


def _amount(key: str, value: Any, what: str) -> int:
    Refused, _ = _core_names()
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise Refused(key, "malformed", f"{what} must be a positive whole amount, got {value!r}")
    try:
        check_amount(value, what=what)
    except AmountError as exc:
        raise Refused(key, "out_of_bounds", str(exc)) from None
    return value


def apply(core: SettlementCore, tx: Tx, table: str, kind: str, key: str,
          m: Mapping[str, Any]) -> tuple[dict[str, Any], str, Callable[[int], None]]:
    """Check a pot message and return (result, round id, what to write once its entry is)."""
    Refused, _need_text = _core_names()
    round_id = _need_text(m, "round_id")
    status = core._round_status(tx, table, round_id)
    if status is not None:
        raise Refused(key, "round_closed", f"game {round_id} is already {status}")
    if kind == "pot_in":
        return _pot_in(core, tx, table, key, round_id, m)
    if kind == "pot_settled":
        raw = m.get("payouts")
        if not isinstance(raw, Mapping):
            raise Refused(key, "malformed", "'payouts' must map accounts to amounts")
        lines = {str(a): _amount(key, v, f"the payout of {a}") for a, v in raw.items()}
        status_to, what = "settled", "paid out"
    else:
        raw = m.get("refunds")
        if not isinstance(raw, list):
            raise Refused(key, "malformed", "'refunds' must be a list of account and amount")
        lines = {}
        for item in raw:
            if not isinstance(item, Mapping) or not isinstance(item.get("account"), str):
                raise Refused(key, "malformed",
                              f"a refund is an account and an amount, got {item!r}")
            lines[item["account"]] = (lines.get(item["account"], 0)
                                      + _amount(key, item.get("amount"), "a refund"))
        status_to, what = "cancelled", "refunded"

    pot = _pot_row(tx, table, round_id, create=False)
    held = 0 if pot is None else pot[1]
    if kind == "pot_cancelled":
        put_in: dict[str, int] = defaultdict(int)
        if pot is not None:
            # what each wallet moved into this pot, entry by entry
            for name, amount in tx.execute(
                "SELECT a.name, w.amount FROM postings w"
                " JOIN accounts a ON a.id = w.account_id AND a.kind = 'wallet'"
                " JOIN postings p ON p.entry_id = w.entry_id AND p.account_id = ? AND p.amount > 0",
                (pot[0],),
            ):
                put_in[name] -= int(amount)
        if dict(put_in) != lines:
            raise Refused(key, "pot_mismatch",
                          f"game {round_id}: refunds {lines} but the players put in {dict(put_in)}")
    total = sum(lines.values())
    if total != held:
        raise Refused(key, "pot_mismatch", f"game {round_id}: {what} {total} but its pot holds {held}")
    rows: list[tuple[int, int, int | None]] = []
    for account in sorted(lines):
        found = core._wallet_row(tx, account)
        if found is None:
            raise Refused(key, "no_wallet", f"no wallet {account!r} in the ledger")
        rows.append((found[0], lines[account], None))
    if pot is not None:
        rows.append((pot[0], -total, None))
    reason = m.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise Refused(key, "malformed", "field 'reason' is not text")

    def close_game(entry_id: int) -> None:
        core._post(tx, key, entry_id, rows)
        tx.execute(
            "INSERT INTO rounds (table_id, round_id, status, entry_id, reason) VALUES (?, ?, ?, ?, ?)",
            (table, round_id, status_to, entry_id, reason),
        )

    result = {"key": key, "kind": kind, "round_id": round_id, "status": status_to,
              what.replace(" ", "_"): total}
    return result, round_id, close_game


def _pot_in(core: SettlementCore, tx: Tx, table: str, key: str, round_id: str,
            m: Mapping[str, Any]) -> tuple[dict[str, Any], str, Callable[[int], None]]:
    Refused, _need_text = _core_names()
    account = _need_text(m, "account")
    amount = _amount(key, m.get("amount"), "amount")
    what = _need_text(m, "what")
    if what not in WHAT:
        raise Refused(key, "malformed", f"'what' is one of {', '.join(WHAT)}, got {what!r}")
    found = core._wallet_row(tx, account)  # locked until commit on PostgreSQL
    if found is None:
        raise Refused(key, "no_wallet", f"no wallet {account!r} in the ledger")
    wallet, balance = found
    if balance < amount:
        raise Refused(key, "insufficient_funds", f"wallet {account!r} holds {balance}, {what} is {amount}")
    pot = _pot_row(tx, table, round_id, create=True)
    assert pot is not None

    def move_in(entry_id: int) -> None:
        core._post(tx, key, entry_id, [(wallet, -amount, None), (pot[0], amount, None)])

    result = {"key": key, "kind": "pot_in", "round_id": round_id, "account": account,
              "amount": amount, "what": what}
    return result, round_id, move_in


def pot_problems(tx: Tx, *, require_closed: bool = False) -> list[str]:
    """Every pot account of a closed game must be at zero; an open game's never below (and,
    with `require_closed`, every game must be over)."""
    out = []
    for table, name, balance, status in tx.execute(
        "SELECT a.table_id, a.name, a.balance, r.status FROM accounts a"
        " LEFT JOIN rounds r ON r.table_id = a.table_id AND r.round_id = SUBSTR(a.name, 5)"
        " WHERE a.kind = 'system' AND a.name LIKE 'pot:%' ORDER BY a.id"
    ):
        round_id = name[len(POT_PREFIX):]
        where = f" of table {table!r}" if table else ""
        if status is not None and balance != 0:
            out.append(f"pot of game {round_id}{where} ({status}) holds {balance}, not 0")
        elif balance < 0:
            out.append(f"pot of game {round_id}{where} is negative: {balance}")
        elif status is None and require_closed:
            out.append(f"game {round_id}{where} is neither settled nor cancelled;"
                       f" its pot holds {balance}")
    return out
