"""A pot game's money in the books (Si Zhi Dao): every ante, bet and buy-in moves from the
player's wallet into the game's own pot account, and the game ends by paying the whole pot
out to its winners or back to those who put it in. A pot account is a system account named
`pot:<game round id>`; `check_books` proves every closed game's pot is at zero.

Messages (from the table's outbox):

- `pot_in`: `round_id`, `account`, `amount`, `what` (`ante` | `bet` | `buy_in`);
- `pot_settled`: `round_id`, `payouts` (account -> amount): must empty the pot exactly;
- `pot_cancelled`: `round_id`, `refunds` (list of `account`, `amount`): each account gets back
  exactly what it put in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from station.settlement.core import SettlementCore

POT_KINDS = ("pot_in", "pot_settled", "pot_cancelled")
POT_PREFIX = "pot:"
WHAT = ("ante", "bet", "buy_in")


def _errors():
    from station.settlement.core import SettlementRefused, _need, _need_text, _Postings

    return SettlementRefused, _need, _need_text, _Postings


def _pot_account(core: SettlementCore, round_id: str, *, create: bool) -> int | None:
    name = POT_PREFIX + round_id
    row = core._conn.execute(
        "SELECT id FROM accounts WHERE kind='system' AND name = ?", (name,)
    ).fetchone()
    if row is not None:
        return row[0]
    if not create:
        return None
    return core._conn.execute(
        "INSERT INTO accounts (kind, name) VALUES ('system', ?)", (name,)
    ).lastrowid


def _amount(key: str, value: Any, what: str) -> int:
    Refused, *_ = _errors()
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise Refused(key, "malformed", f"{what} must be a positive whole amount, got {value!r}")
    return value


def apply(core: SettlementCore, kind: str, key: str, m: Mapping[str, Any]) -> tuple[dict, Any, str]:
    Refused, _need, _need_text, Postings = _errors()
    round_id = _need_text(m, "round_id")
    status = core._round_status(round_id)
    if status is not None:
        raise Refused(key, "round_closed", f"game {round_id} is already {status}")
    if kind == "pot_in":
        account = _need_text(m, "account")
        amount = _amount(key, m.get("amount"), "amount")
        what = _need_text(m, "what")
        if what not in WHAT:
            raise Refused(key, "malformed", f"'what' is one of {', '.join(WHAT)}, got {what!r}")
        wallet = core._wallet_id(account)
        if wallet is None:
            raise Refused(key, "unknown_account", f"no wallet {account!r}")
        balance = core._conn.execute(
            "SELECT balance FROM accounts WHERE id = ?", (wallet,)
        ).fetchone()[0]
        if balance < amount:
            raise Refused(
                key, "insufficient_funds", f"{account} holds {balance}, {what} is {amount}"
            )
        pot = _pot_account(core, round_id, create=True)
        postings = Postings(rows=[(wallet, -amount, None), (pot, amount, None)])
        result = {
            "key": key,
            "kind": kind,
            "round_id": round_id,
            "account": account,
            "amount": amount,
            "what": what,
        }
        return result, postings, round_id

    pot = _pot_account(core, round_id, create=False)
    held = (
        0
        if pot is None
        else core._conn.execute("SELECT balance FROM accounts WHERE id = ?", (pot,)).fetchone()[0]
    )
    if kind == "pot_settled":
        raw = m.get("payouts")
        if not isinstance(raw, Mapping):
            raise Refused(key, "malformed", "'payouts' must map accounts to amounts")
        lines = {str(a): _amount(key, v, f"payout of {a}") for a, v in raw.items()}
        status_to, what = "settled", "paid out"
    else:
        raw = m.get("refunds")
        if not isinstance(raw, list):
            raise Refused(key, "malformed", "'refunds' must be a list of account and amount")
        lines = {}
        for item in raw:
            if not isinstance(item, Mapping) or not isinstance(item.get("account"), str):
                raise Refused(
                    key, "malformed", f"a refund is an account and an amount, got {item!r}"
                )
            lines[item["account"]] = lines.get(item["account"], 0) + _amount(
                key, item.get("amount"), "refund"
            )
        status_to, what = "cancelled", "refunded"
        put_in: dict[str, int] = defaultdict(int)
        if pot is not None:
            for name, amount in core._conn.execute(
                "SELECT a.name, -p.amount FROM postings p JOIN accounts a ON a.id = p.account_id"
                " WHERE a.kind = 'wallet' AND p.entry_id IN"
                " (SELECT entry_id FROM postings WHERE account_id = ? AND amount > 0)",
                (pot,),
            ):
                put_in[name] += amount
        if dict(put_in) != lines:
            raise Refused(
                key,
                "pot_mismatch",
                f"game {round_id}: refunds {lines} but the players put in {dict(put_in)}",
            )
    total = sum(lines.values())
    if total != held:
        raise Refused(
            key, "pot_mismatch", f"game {round_id}: {what} {total} but its pot holds {held}"
        )
    rows: list[tuple[int, int, int | None]] = []
    for account, amount in lines.items():
        wallet = core._wallet_id(account)
        if wallet is None:
            raise Refused(key, "unknown_account", f"no wallet {account!r}")
        rows.append((wallet, amount, None))
    if pot is not None:
        rows.append((pot, -total, None))
    postings = Postings(rows=rows)

    def close_game(entry_id: int) -> None:
        core._conn.execute(
            "INSERT INTO rounds (round_id, status, entry_id, reason) VALUES (?, ?, ?, ?)",
            (round_id, status_to, entry_id, m.get("reason")),
        )

    postings.after.append(close_game)
    result = {
        "key": key,
        "kind": kind,
        "round_id": round_id,
        "status": status_to,
        what.replace(" ", "_"): total,
    }
    return result, postings, round_id


def pot_problems(conn, *, require_closed: bool = False) -> list[str]:
    """Every pot account of a closed game must be at zero; an open game's never below (and,
    with `require_closed`, every game must be over)."""
    out = []
    for name, balance in conn.execute(
        "SELECT name, balance FROM accounts WHERE kind = 'system' AND name LIKE 'pot:%'"
    ):
        round_id = name[len(POT_PREFIX) :]
        row = conn.execute("SELECT status FROM rounds WHERE round_id = ?", (round_id,)).fetchone()
        if row is not None and balance != 0:
            out.append(f"pot of game {round_id} ({row[0]}) holds {balance}, not 0")
        elif balance < 0:
            out.append(f"pot of game {round_id} is negative: {balance}")
        elif row is None and require_closed:
            out.append(f"game {round_id} is neither settled nor cancelled; its pot holds {balance}")
    return out
