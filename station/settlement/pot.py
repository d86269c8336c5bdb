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

A studio table whose wallets other tables share (`settlement.reserve`, docs/studio.md "Pot
games in the studio") reserves each `pot_in` before its game takes the money: the same message,
applied early with `reservation=True` and kept in `pot_reservations` as `held`. When the table's
outbox brings it again (a repeat: the ledger answers its first result) it becomes `taken`. A
reservation still `held` when its game closes is one the table never took (no answer in time, or
the table died before its journal kept the answer): `pot_settled` and `pot_cancelled` first pay it
back from the pot to its wallet (`released`, in the closing entry) and then compare the table's
payouts or refunds with what the pot holds. The table's outbox brings every `pot_in` it took
before the game's close (one table's messages apply in outbox order), so nothing it took is
released.

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
#: ledgers made before pot reservations get the table when a settlement process opens them
RESERVATIONS_SCHEMA = """
CREATE TABLE IF NOT EXISTS pot_reservations (
    table_id   TEXT NOT NULL,
    key        TEXT NOT NULL,
    round_id   TEXT NOT NULL,
    account_id {int} NOT NULL REFERENCES accounts(id),
    amount     {int} NOT NULL CHECK (amount > 0),
    state      TEXT NOT NULL CHECK (state IN ('held', 'taken', 'released')),
    PRIMARY KEY (table_id, key)
);
CREATE INDEX IF NOT EXISTS pot_reservations_by_round ON pot_reservations(table_id, round_id)
"""
POT_PREFIX = "pot:"
WHAT = ("ante", "bet", "buy_in")


def _core_names():
    # the core imports this module for its dispatch; its helpers are taken at call time
    from station.settlement.core import SettlementRefused, _need_text

    return SettlementRefused, _need_text


def ensure_reservations_table(store: Any) -> None:
    from station.settlement.ledger.progress import create_tables

    create_tables(store, RESERVATIONS_SCHEMA, 7162536)


def taken(tx: Tx, table: str, key: str) -> None:
    """The table's outbox brought a reserved `pot_in` again: its game took the money."""
    tx.execute("UPDATE pot_reservations SET state = 'taken'"
               " WHERE table_id = ? AND key = ? AND state = 'held'", (table, key))


def _held(tx: Tx, table: str, round_id: str) -> list[tuple[str, int, int, str]]:
    """Reservations of the game its table never took: (key, wallet id, amount, wallet name)."""
    return [(str(k), int(w), int(a), str(n)) for k, w, a, n in tx.execute(
        "SELECT r.key, r.account_id, r.amount, a.name FROM pot_reservations r"
        " JOIN accounts a ON a.id = r.account_id"
        " WHERE r.table_id = ? AND r.round_id = ? AND r.state = 'held' ORDER BY r.key",
        (table, round_id))]


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
          m: Mapping[str, Any], reservation: bool = False,
          ) -> tuple[dict[str, Any], str, Callable[[int], None]]:
    """Check a pot message and return (result, round id, what to write once its entry is)."""
    Refused, _need_text = _core_names()
    round_id = _need_text(m, "round_id")
    status = core._round_status(tx, table, round_id)
    if status is not None:
        raise Refused(key, "round_closed", f"game {round_id} is already {status}")
    if kind == "pot_in":
        return _pot_in(core, tx, table, key, round_id, m, reservation)
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
    # reservations the table never took go back to their wallets before anything is compared
    orphans = _held(tx, table, round_id) if pot is not None else []
    released: dict[str, int] = defaultdict(int)
    for _key, _wallet, amount, name in orphans:
        released[name] += amount
    held -= sum(released.values())
    if kind == "pot_cancelled":
        put_in: dict[str, int] = defaultdict(int)
        for name, amount in released.items():
            put_in[name] -= amount
        if pot is not None:
            # what each wallet moved into this pot, entry by entry
            for name, amount in tx.execute(
                "SELECT a.name, w.amount FROM postings w"
                " JOIN accounts a ON a.id = w.account_id AND a.kind = 'wallet'"
                " JOIN postings p ON p.entry_id = w.entry_id AND p.account_id = ? AND p.amount > 0",
                (pot[0],),
            ):
                put_in[name] -= int(amount)
        put_in = defaultdict(int, {a: m for a, m in put_in.items() if m})
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
    for _key, wallet, amount, _name in orphans:
        rows.append((wallet, amount, None))
    if pot is not None:
        rows.append((pot[0], -(total + sum(released.values())), None))
    reason = m.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise Refused(key, "malformed", "field 'reason' is not text")

    def close_game(entry_id: int) -> None:
        core._post(tx, key, entry_id, rows)
        if orphans:
            keys, params = tx.in_list([k for k, *_ in orphans])
            tx.execute(f"UPDATE pot_reservations SET state = 'released'"
                       f" WHERE table_id = ? AND key{keys}", [table, *params])
        tx.execute(
            "INSERT INTO rounds (table_id, round_id, status, entry_id, reason) VALUES (?, ?, ?, ?, ?)",
            (table, round_id, status_to, entry_id, reason),
        )

    result = {"key": key, "kind": kind, "round_id": round_id, "status": status_to,
              what.replace(" ", "_"): total}
    if orphans:
        result["released"] = sum(released.values())
    return result, round_id, close_game


def _pot_in(core: SettlementCore, tx: Tx, table: str, key: str, round_id: str,
            m: Mapping[str, Any], reservation: bool = False,
            ) -> tuple[dict[str, Any], str, Callable[[int], None]]:
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
        if reservation:
            tx.execute("INSERT INTO pot_reservations (table_id, key, round_id, account_id,"
                       " amount, state) VALUES (?, ?, ?, ?, ?, 'held')",
                       (table, key, round_id, wallet, amount))

    result = {"key": key, "kind": "pot_in", "round_id": round_id, "account": account,
              "amount": amount, "what": what}
    if reservation:
        result["balance"] = balance - amount  # the table's mirror takes the ledger's word
    return result, round_id, move_in


def _has_reservations(tx: Tx) -> bool:
    """A ledger no settlement process of this code has opened yet has no reservations table."""
    return tx.has_table("pot_reservations")


def reservation_figures(tx: Tx) -> dict[str, int]:
    """How the pot games' reservations ended: taken by their games, released, still held."""
    counts = {"taken": 0, "released": 0, "held": 0}
    if _has_reservations(tx):
        for state, n in tx.execute("SELECT state, COUNT(*) FROM pot_reservations GROUP BY state"):
            counts[str(state)] = int(n)
    return counts


def reservation_problems(tx: Tx) -> list[str]:
    """A game closes by releasing every reservation its table did not take: none of a
    closed game may still be held."""
    if not _has_reservations(tx):
        return []
    return [f"reservation {key} of game {round_id} of table {table!r} is still held after"
            f" the game was {status}"
            for table, key, round_id, status in tx.execute(
                "SELECT r.table_id, r.key, r.round_id, g.status FROM pot_reservations r"
                " JOIN rounds g ON g.table_id = r.table_id AND g.round_id = r.round_id"
                " WHERE r.state = 'held' ORDER BY r.key")]


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
