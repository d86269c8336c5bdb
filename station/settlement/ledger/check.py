"""`ledger check`: the books verified from the raw rows, trusting no cached figure.

Sums are exact on both engines and can never overflow: PostgreSQL's SUM of BIGINT is a
NUMERIC, and on SQLite the check sums with its own aggregate in Python integers (SQLite's own
SUM stops with "integer overflow"). A balance read back is an int or it is reported; nothing
here becomes a float.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from station.settlement.ledger.confirmations import released_confirmed
from station.settlement.ledger.store import SqliteStore, Store, Tx
from station.settlement.pot import pot_problems, reservation_figures, reservation_problems

#: at most this many problems are listed one by one; the rest are counted
MAX_LISTED_PROBLEMS = 50


@dataclass
class CheckReport:
    """What `station ledger check` prints: `ok` is true only when `problems` is empty."""

    ok: bool
    problems: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "problems": self.problems, "figures": self.figures}


class _ExactSum:
    """SQLite aggregate: the exact sum in Python integers; returned as text when it does not
    fit SQLite's 64-bit integer (the check compares and prints it, never stores it)."""

    def __init__(self) -> None:
        self.total = 0
        self.bad = False

    def step(self, value: Any) -> None:
        if value is None:
            return
        if isinstance(value, int):
            self.total += value
        else:
            self.bad = True  # a REAL or TEXT amount: reported by the caller
            try:
                self.total += int(value)
            except (TypeError, ValueError, OverflowError):
                pass

    def finalize(self) -> Any:
        if self.bad:
            return f"{self.total} (not all integers)"
        if -(2**63) <= self.total < 2**63:
            return self.total
        return str(self.total)


def _num(value: Any) -> Any:
    """A sum or balance as an exact int where it is one (Decimal from PostgreSQL, text from the
    SQLite aggregate beyond 64 bits); anything else as it is, to be shown in a problem."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return value


def check_books(store: Store, *, require_closed: bool = False) -> CheckReport:
    """Verify the books from the raw rows, trusting none of the cached figures.

    - all postings sum to zero, and so does every entry;
    - every account's cached balance is an integer equal to the sum of its postings; no
      wallet is negative;
    - every bet was deducted exactly once (its own two postings: its wallet, its table's
      in_play) and is closed (settled or refunded) at most once (the schema allows no more),
      exactly once if its round is over, by its round's entry; a refund returns exactly what
      was deducted;
    - every closing entry posted, account by account, exactly what the bets it closed
      returned (and its table's in_play and house their counterparts);
    - each table's ``in_play`` holds exactly what its open bets deducted;
    - every pot account (`station.settlement.pot`) of a closed game is at zero.
    With `require_closed`, a bet still open (its round not yet settled) is also a problem:
    auditors use it at the end of a session, when every round is over.
    """
    problems: list[str] = []
    more = 0

    def problem(text: str) -> None:
        nonlocal more
        if len(problems) < MAX_LISTED_PROBLEMS:
            problems.append(text)
        else:
            more += 1

    total_fn = "SUM"
    if isinstance(store, SqliteStore):
        store.connection.create_aggregate("exact_sum", 1, _ExactSum)
        total_fn = "exact_sum"
    with store.transaction(read_only=True) as tx:
        figures = _check(tx, total_fn, problem, require_closed)
    if more:
        problems.append(f"... and {more} more problems")
    return CheckReport(ok=not problems, problems=problems, figures=figures)


def _check(tx: Tx, s: str, problem: Any, require_closed: bool) -> dict[str, Any]:
    total, n_postings = tx.one(f"SELECT {s}(amount), COUNT(*) FROM postings")
    total = _num(total) if total is not None else 0
    if total != 0:
        problem(f"postings sum to {total}, not 0")
    for entry_id, key, posted in tx.execute(
        f"SELECT e.id, e.key, {s}(p.amount) FROM postings p JOIN entries e ON e.id = p.entry_id"
        f" GROUP BY e.id, e.key HAVING {s}(p.amount) != 0"
    ):
        problem(f"entry {entry_id} ({key}) is unbalanced by {_num(posted)}")
    for kind, table, name, cached, posted in tx.execute(
        f"SELECT a.kind, a.table_id, a.name, a.balance, {s}(p.amount) FROM accounts a"
        " LEFT JOIN postings p ON p.account_id = a.id"
        " GROUP BY a.id, a.kind, a.table_id, a.name, a.balance"
    ):
        posted = 0 if posted is None else _num(posted)
        label = f"{kind} account {name!r}" + (f" of table {table!r}" if table else "")
        if type(cached) is not int:
            problem(f"{label}: balance {cached!r} is not a whole number of minor units")
        elif cached != posted:
            problem(f"{label}: balance {cached} but postings sum to {posted}")
        if kind == "wallet" and type(cached) is int and cached < 0:
            problem(f"wallet {name!r} is negative: {cached}")

    system: dict[tuple[str, str], int] = {
        (table, name): int(id_) for table, name, id_ in tx.execute(
            "SELECT table_id, name, id FROM accounts WHERE kind = 'system'")
    }
    counts = {"open": 0, "settled": 0, "refunded": 0, "released": 0}
    open_deducted: dict[str, int] = defaultdict(int)
    rows = tx.execute(
        """
        SELECT b.table_id, b.key, b.deducted, c.outcome, c.returned, c.entry_id, r.status,
               r.entry_id, COUNT(p.id),
               SUM(CASE WHEN p.account_id = ip.id AND p.amount = b.deducted THEN 1 ELSE 0 END),
               SUM(CASE WHEN p.account_id = b.account_id AND p.amount = -b.deducted
                        THEN 1 ELSE 0 END)
        FROM bets b
        LEFT JOIN accounts ip ON ip.kind = 'system' AND ip.table_id = b.table_id
                             AND ip.name = 'in_play'
        LEFT JOIN bet_closures c ON c.bet_id = b.id
        LEFT JOIN rounds r ON r.table_id = b.table_id AND r.round_id = b.round_id
        LEFT JOIN postings p ON p.bet_id = b.id
        GROUP BY b.id, b.table_id, b.key, b.deducted, c.outcome, c.returned, c.entry_id,
                 r.status, r.entry_id
        """
    )
    for (table, key, deducted, outcome, returned, closed_by, round_status, round_entry,
         n_naming, n_in_play, n_wallet) in rows:
        label = f"bet {key}" + (f" of table {table!r}" if table else "")
        if not (n_naming == 2 and n_in_play == 1 and n_wallet == 1):
            problem(f"{label}: not deducted exactly once from its wallet into play"
                    f" ({n_naming} postings name it)")
        if outcome is None:
            counts["open"] += 1
            open_deducted[table] += deducted
            if round_status is not None:
                problem(f"{label}: neither settled nor refunded though its round was"
                        f" {round_status}")
            elif require_closed:
                problem(f"{label}: neither settled nor refunded")
            continue
        counts[outcome] = counts.get(outcome, 0) + 1
        # a released reservation (never listed by its table) closes with either kind of round
        expected_round = {"settled": ("settled",), "refunded": ("cancelled",),
                          "released": ("settled", "cancelled")}.get(outcome, ())
        if round_status not in expected_round:
            problem(f"{label}: {outcome} but its round is {round_status or 'not closed'}")
        elif closed_by != round_entry:
            problem(f"{label}: {outcome} by entry {closed_by}, its round by {round_entry}")
        if outcome in ("refunded", "released") and returned != deducted:
            problem(f"{label}: {outcome} {returned} of {deducted}")

    # The closing entries must move exactly what their closures say, account by account.
    due: dict[tuple[int, int], int] = defaultdict(int)
    for entry_id, table, account_id, deducted, returned in tx.execute(
        f"""
        SELECT c.entry_id, b.table_id, b.account_id, {s}(b.deducted), {s}(c.returned)
        FROM bet_closures c JOIN bets b ON b.id = c.bet_id
        GROUP BY c.entry_id, b.table_id, b.account_id
        """
    ):
        deducted, returned = _num(deducted), _num(returned)
        due[(entry_id, account_id)] += returned
        in_play, house = system.get((table, "in_play")), system.get((table, "house"))
        due[(entry_id, in_play)] -= deducted
        due[(entry_id, house)] += deducted - returned
    posted_by: dict[tuple[int, int], int] = defaultdict(int)
    for entry_id, account_id, amount in tx.execute(
        f"SELECT p.entry_id, p.account_id, {s}(p.amount) FROM postings p"
        " JOIN entries e ON e.id = p.entry_id"
        " WHERE e.kind IN ('hand', 'round_cancelled') GROUP BY p.entry_id, p.account_id"
    ):
        posted_by[(entry_id, account_id)] += _num(amount)
    names = {int(i): n for i, n in tx.execute("SELECT id, name FROM accounts")}
    entry_keys: dict[int, str] = {}
    for entry_id, account_id in sorted(set(due) | set(posted_by), key=lambda k: (k[0], k[1] or 0)):
        want, got = due.get((entry_id, account_id), 0), posted_by.get((entry_id, account_id), 0)
        if want != got:
            if not entry_keys:
                entry_keys = dict(tx.execute("SELECT id, key FROM entries"
                                             " WHERE kind IN ('hand', 'round_cancelled')"))
            problem(
                f"entry {entry_id} ({entry_keys.get(entry_id)}): {names.get(account_id)!r} was"
                f" posted {got}, the bets it closed account for {want}"
            )

    in_play_total = 0
    for table, balance in tx.execute(
        "SELECT table_id, balance FROM accounts WHERE kind = 'system' AND name = 'in_play'"
    ):
        in_play_total += balance if type(balance) is int else 0
        if balance != open_deducted.get(table, 0):
            where = f" of table {table!r}" if table else ""
            problem(f"in_play{where} holds {balance} but the open bets deducted"
                    f" {open_deducted.get(table, 0)}")
    tables_without = set(open_deducted) - {t for (t, n) in system if n == "in_play"}
    for table in sorted(tables_without):
        problem(f"table {table!r} has open bets but no in_play account")

    # pot games: a closed game's pot is empty; an open one only at the end
    for text in pot_problems(tx, require_closed=require_closed):
        problem(text)
    for text in reservation_problems(tx):
        problem(text)
    # a bet its table accepted is never released as a reservation it did not
    for text in released_confirmed(tx):
        problem(text)
    pot_reserved = reservation_figures(tx)

    def count(sql: str) -> int:
        row = tx.one(sql)
        return int(row[0]) if row else 0

    # bets tables took on their own credit while the ledger was away, whose wallets could not
    # cover them when they came (station/settlement/core.py `_bet`): the floor settles these
    credit = [json.loads(r)["credit"] for (r,) in tx.execute(
        "SELECT result FROM entries WHERE kind = 'bet' AND result LIKE '%\"credit\":%'")]

    return {
        "postings": int(n_postings),
        "wallets": count("SELECT COUNT(*) FROM accounts WHERE kind = 'wallet'"),
        # the tables that sent the ledger anything: a settlement process makes its default
        # table's system accounts when it opens the ledger, which is no table of the studio
        "tables": count("SELECT COUNT(*) FROM (SELECT table_id FROM entries UNION"
                        " SELECT table_id FROM refusals) AS t"),
        "messages": count("SELECT COUNT(*) FROM entries"),
        "rounds_settled": count("SELECT COUNT(*) FROM rounds WHERE status = 'settled'"),
        "rounds_cancelled": count("SELECT COUNT(*) FROM rounds WHERE status = 'cancelled'"),
        "bets_open": counts["open"],
        "bets_settled": counts["settled"],
        "bets_refunded": counts["refunded"],
        "bets_released": counts["released"],
        "bets_on_credit": len(credit),
        "credit_extended": sum(credit),
        # pot games' draws reserved by studio tables: taken by their games, or released
        "pot_draws_taken": pot_reserved["taken"],
        "pot_draws_released": pot_reserved["released"],
        "in_play": in_play_total,
        # refused messages that never applied since: on record, alarmed, never posted
        "refused": count("SELECT COUNT(*) FROM refusals r WHERE NOT EXISTS (SELECT 1 FROM"
                         " entries e WHERE e.table_id = r.table_id AND e.key = r.key)"),
    }
