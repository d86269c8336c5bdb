"""The settlement core: applies the table core's messages to the ledger, each exactly once.

Messages (the hand-off contract, see docs/settlement.md) are dicts with a unique ``key`` and a
``kind``: ``wallet``, ``bet``, ``hand`` or ``round_cancelled``, or one of a pot game's
(``pot_in``, ``pot_settled``, ``pot_cancelled``: `station.settlement.pot`). Applying a message posts its
money movement and records the key with its result in the same transaction, so a message that
arrives twice (a retry after a crash, a replayed HTTP request) returns the first result and
posts nothing. A round is closed once: a second hand or cancellation for it is refused.

The core trusts the table core for *which* bets were accepted, but not for arithmetic: it
recomputes every return from the cards with the game module and refuses a hand whose
settlement list differs, in bets or in amounts. A refusal posts nothing and is recorded in
the ledger (``refusals``); the delivery worker reports it to the supervisor and goes on with
the messages behind it, so one message that can never apply never stops a table's books.

Every amount is bounded (station/money.py, and `MAX_BALANCE` for what an account may hold):
a message beyond the bounds is refused ``out_of_bounds`` before any arithmetic reaches the
database, so nothing overflows and no balance becomes a float.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.games import get_game
from station.games.base import BetError, Game, OutcomeError
from station.money import AmountError, check_amount
from station.settlement import checkpoints, pot
from station.settlement.ledger import CheckReport, Store, Tx, check_books, confirmations, open_store
from station.settlement.ledger.schema import MAX_BALANCE
from station.settlement.ledger.store import ensure_system_accounts
from station.settlement.pot import POT_KINDS

log = logging.getLogger("station.settlement")

MESSAGE_KINDS = ("wallet", "bet", "hand", "round_cancelled", *POT_KINDS, "checkpoint")
#: what a table may reserve before it takes the money: a bet at its intake, a pot game's pot_in
RESERVABLE = ("bet", "pot_in")
#: balances moved by one statement at most (its parameters stay far below either engine's limit)
MOVE_CHUNK = 2000
#: PostgreSQL's advisory locks of rounds (two-key form: this class, a hash of table/round),
#: apart from the one-key locks of schema creation and leases
ROUND_LOCK_CLASS = 25_001
#: at most this many bets are applied together by the fast path for runs of bets
BET_RUN_MAX = 500
#: the largest message time ``t`` accepted, in seconds (table clock or epoch)
MAX_T = 1e12
#: how much of a refused message the ledger keeps on record, in characters
MAX_RECORDED_BODY = 1_000_000


class SettlementRefused(Exception):
    """The core will not apply a message. Nothing of it was posted."""

    def __init__(self, key: str | None, reason: str, detail: str) -> None:
        super().__init__(f"{key}: {reason}: {detail}")
        self.key = key
        self.reason = reason
        self.detail = detail

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "reason": self.reason, "detail": self.detail}


@dataclass
class BatchOutcome:
    """Results of the messages applied, in order; `refused` stops the batch at that message."""

    results: list[dict[str, Any]] = field(default_factory=list)
    refused: SettlementRefused | None = None


def message_digest(message: Mapping[str, Any]) -> str:
    """A fingerprint of a message's content, so a key reused for other content is caught."""
    canonical = json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                           allow_nan=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _need(message: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = message.get(name)
    if isinstance(value, bool) or not isinstance(value, kind):
        raise SettlementRefused(
            message.get("key"), "malformed", f"field {name!r} missing or not {_kind_name(kind)}"
        )
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _need_text(message: Mapping[str, Any], name: str) -> str:
    value = _need(message, name, str)
    if not value:
        raise SettlementRefused(message.get("key"), "malformed", f"field {name!r} is empty")
    return value


def _refused_for_bounds(key: str, exc: AmountError) -> SettlementRefused:
    return SettlementRefused(key, "out_of_bounds", str(exc))


# -- the fast path for runs of messages (bets, wallet sets) -------------------------------

def _plain_key(m: Mapping[str, Any], table: str) -> str | None:
    """A message's key when its envelope lets the fast path take it (a key, the table it came
    for, a finite time); None when the general path must decide it."""
    try:
        key = _need_text(m, "key")
    except SettlementRefused:
        return None
    own = m.get("table")
    if own is not None and own != table:
        return None
    t = m.get("t")
    if t is not None and (isinstance(t, bool) or not isinstance(t, int | float) or not abs(t) <= MAX_T):
        return None
    return key


def _new_keys(tx: Tx, table: str, keys: list[str]) -> int:
    """How many of `keys`, from the first, are new to the table's ledger and not repeated
    within the run."""
    frag, params = tx.in_list(keys)
    known = {k for (k,) in tx.execute(
        f"SELECT key FROM entries WHERE table_id = ? AND key{frag}", [table, *params])}
    seen: set[str] = set()
    for n, k in enumerate(keys):
        if k in known or k in seen:
            return n
        seen.add(k)
    return len(keys)


def _insert_entries(tx: Tx, table: str, kind: str,
                    rows: list[tuple[str, Mapping[str, Any], str | None, str, dict[str, Any]]],
                    ) -> dict[str, int]:
    """One statement for a run's entries, each (key, message, round id, digest, result);
    returns each key's entry id."""
    now = time.time()
    made = tx.execute(
        "INSERT INTO entries (table_id, key, kind, round_id, t, applied_at, digest, result)"
        " VALUES " + ",".join(["(?,?,?,?,?,?,?,?)"] * len(rows)) + " RETURNING id, key",
        [v for key, m, round_id, digest, result in rows for v in (
            table, key, kind, round_id, None if m.get("t") is None else float(m["t"]),
            now, digest, json.dumps(result, separators=(",", ":")))])
    return {k: int(i) for i, k in made}


class SettlementCore:
    """The settlement side of the hand-off, on its ledger: a file or a database URL
    (`station.settlement.ledger.store`).

    Thread-safe. On SQLite every transaction holds the file's one connection in turn; on
    PostgreSQL each takes a connection from the pool, so threads of one service, and other
    service processes on the same database, apply batches at the same time: row locks keep a
    shared wallet right and a lost race is retried whole.

    Each message belongs to a table; its key is unique within that table. The table is the
    call's `table` argument, else the message's own ``table`` field, else the core's default
    (the empty string: a single table's ledger).
    """

    #: runs of plain bets and of wallet sets take the fast path (a test compares it with the
    #: general path by turning it off)
    fast_runs = True

    def __init__(self, ledger: str | Path, *, table: str = "", pool_size: int = 4,
                 max_retries: int = 30) -> None:
        self.store: Store = open_store(ledger, pool_size=pool_size)
        #: where the books are, fit for a screen (a path, or a URL without its password)
        self.ledger_path = self.store.where
        self.table = table
        self.max_retries = max_retries
        self._games: dict[str, Game] = {}
        self._system: dict[str, dict[str, int]] = {}
        self._meta_lock = threading.Lock()
        try:
            pot.ensure_reservations_table(self.store)
            confirmations.ensure_confirmations_table(self.store)
            self._system_accounts(table)
        except BaseException:
            self.store.close()
            raise

    # -- public API ---------------------------------------------------------------------

    def apply(self, message: Mapping[str, Any], *, table: str | None = None) -> dict[str, Any]:
        """Apply one message; raises SettlementRefused (nothing posted) if it cannot be."""
        outcome = self.apply_batch([message], table=table)
        if outcome.refused is not None:
            raise outcome.refused
        return outcome.results[0]

    def apply_batch(self, messages: Sequence[Mapping[str, Any]], *,
                    table: str | Sequence[str] | None = None,
                    reservation: bool = False,
                    in_tx: Callable[[Tx, int], None] | None = None) -> BatchOutcome:
        """Apply messages in order in one durable transaction (one commit for the batch).

        Stops at the first refusal: the messages before it are committed, it and the rest are
        not; the refusal itself is recorded in the ledger's ``refusals`` (same commit). Each
        message runs under its own savepoint so a refusal leaves no partial posting.
        `table` is one table for all, or one per message (a consumer of the studio bus).
        `reservation`: the messages are bets a table's intake reserves before accepting them
        (docs/studio.md); the same bet arriving later through the outbox is then a repeat.
        `in_tx(tx, answered)`: called inside the transaction just before its commit with the
        number of messages it answered (applied, plus the refusal if any): the bus consumer
        renews its lease and records each table's progress in the same commit.
        """
        tables = self._tables_for(messages, table)
        for name in set(tables):
            self._system_accounts(name)
        attempt = 0
        while True:
            try:
                return self._apply_batch_once(messages, tables, reservation, in_tx)
            except self.store.retryable:
                # lost a race with another transaction (a deadlock, a key another process
                # inserted first): nothing of this attempt stands; try the whole batch again
                attempt += 1
                if attempt > self.max_retries:
                    raise
                time.sleep(random.uniform(0, min(0.2, 0.002 * 2**attempt)))

    def balances(self) -> dict[str, int]:
        """Every wallet's balance, by account name."""
        with self.store.transaction(read_only=True) as tx:
            return {name: int(b) for name, b in
                    tx.execute("SELECT name, balance FROM accounts WHERE kind = 'wallet'")}

    def check(self, *, require_closed: bool = False) -> CheckReport:
        return check_books(self.store, require_closed=require_closed)

    def applied(self, key: str, *, table: str | None = None) -> dict[str, Any] | None:
        """The result recorded for a message key, or None if it was never applied."""
        with self.store.transaction(read_only=True) as tx:
            row = tx.one("SELECT result FROM entries WHERE table_id = ? AND key = ?",
                         (self.table if table is None else table, key))
        return None if row is None else json.loads(row[0])

    def checkpoint(self, table: str, journal_id: str) -> dict[str, Any] | None:
        """The newest journal checkpoint the ledger holds for this table's journal
        (station/settlement/checkpoints.py): `seq`, `head`, `sig`, `t`; None if none came."""
        return checkpoints.newest(self.store, table, journal_id)

    def refusals(self, *, table: str | None = None) -> list[dict[str, Any]]:
        """Refused messages on record that never applied since, oldest first."""
        sql = ("SELECT r.table_id, r.key, r.kind, r.reason, r.detail, r.attempts, r.first_at,"
               " r.last_at FROM refusals r WHERE NOT EXISTS (SELECT 1 FROM entries e"
               " WHERE e.table_id = r.table_id AND e.key = r.key)")
        params: tuple = ()
        if table is not None:
            sql += " AND r.table_id = ?"
            params = (table,)
        with self.store.transaction(read_only=True) as tx:
            rows = tx.execute(sql + " ORDER BY r.first_at", params)
        names = ("table", "key", "kind", "reason", "detail", "attempts", "first_at", "last_at")
        return [dict(zip(names, row, strict=True)) for row in rows]

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> SettlementCore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- applying -------------------------------------------------------------------------

    def _tables_for(self, messages: Sequence[Any], table: str | Sequence[str] | None) -> list[str]:
        if isinstance(table, str):
            return [table] * len(messages)
        if table is not None:
            tables = list(table)
            if len(tables) != len(messages) or not all(isinstance(t, str) for t in tables):
                raise ValueError("one table name per message")
            return tables
        return [m["table"] if isinstance(m, Mapping) and isinstance(m.get("table"), str)
                else self.table for m in messages]

    def prepare_table(self, table: str) -> None:
        """Make the table's own accounts (cashier, in play, house) now, in a commit of their
        own, so its first message does not wait for them (a settlement process does this when
        it takes a table's durable, before the table deals)."""
        self._system_accounts(table)

    def _system_accounts(self, table: str) -> dict[str, int]:
        ids = self._system.get(table)
        if ids is None:
            with self._meta_lock:
                ids = self._system.get(table)
                if ids is None:
                    # its own committed transaction: the ids are cached, so they must stay
                    with self.store.transaction() as tx:
                        ids = ensure_system_accounts(tx, table)
                    self._system[table] = ids
        return ids

    def _apply_batch_once(self, messages: Sequence[Mapping[str, Any]],
                          tables: list[str], reservation: bool = False,
                          in_tx: Callable[[Tx, int], None] | None = None) -> BatchOutcome:
        outcome = BatchOutcome()
        store = self.store
        with store.transaction() as tx:
            i = 0
            while i < len(messages):
                run = self._run_for(messages[i]) if self.fast_runs and not reservation else None
                if run is not None:
                    # runs of plain new bets, or of wallet sets, in a few statements for all (a
                    # studio's traffic is mostly bets, and a table opens with its players'
                    # wallets); whatever the fast path does not take, the general one does
                    try:
                        with tx.savepoint():
                            taken = run(tx, tables[i], messages, tables, i)
                    except (store.retryable + store.unavailable):
                        raise
                    except Exception:  # noqa: BLE001 - undone; the general path decides
                        taken = []
                    if taken:
                        outcome.results.extend(taken)
                        i += len(taken)
                        continue
                message, table = messages[i], tables[i]
                i += 1
                try:
                    with tx.savepoint():
                        result = self._apply_one(tx, table, message, reservation)
                except SettlementRefused as refused:
                    outcome.refused = refused
                except (store.retryable + store.unavailable):
                    raise
                except Exception as exc:  # noqa: BLE001 - the books' constraints are the last line
                    # a message the checks let through but the schema refuses: refused, never
                    # half-posted, and never an error that would stop every later message
                    key = message.get("key") if isinstance(message, Mapping) else None
                    outcome.refused = SettlementRefused(
                        key if isinstance(key, str) else None, "error", repr(exc)[:1000])
                if outcome.refused is not None:
                    if not reservation:  # a reservation refused is the table's answer, not an alarm
                        self._record_refusal(tx, table, message, outcome.refused)
                    break
                outcome.results.append(result)
            if in_tx is not None:
                in_tx(tx, len(outcome.results) + (outcome.refused is not None))
        return outcome

    def _run_for(self, message: Any) -> Any:
        kind = message.get("kind") if isinstance(message, Mapping) else None
        return self._bet_run if kind == "bet" else self._wallet_run if kind == "wallet" else None

    def _wallet_run(self, tx: Tx, table: str, messages: Sequence[Any], tables: list[str],
                    start: int) -> list[dict[str, Any]]:
        """Apply the longest run of wallet sets from `start` that all apply plainly (well
        formed, a new key, every balance in bounds), with a handful of statements for the whole
        run; return their results ([] when the first does not). Each result is the one
        `_wallet` would give, an account set twice in the run included."""
        run: list[tuple[str, Mapping[str, Any], str]] = []
        for j in range(start, min(len(messages), start + BET_RUN_MAX)):
            m = messages[j]
            if tables[j] != table or not isinstance(m, Mapping) or m.get("kind") != "wallet":
                break
            try:
                key = _plain_key(m, table)
                if key is None or not isinstance(m.get("credit", False), bool):
                    break
                _need_text(m, "account")
                balance = _need(m, "balance", int)
                if balance < 0:
                    break
                check_amount(balance, what="a wallet balance", allow_zero=True)
                digest = message_digest(m)
            except (SettlementRefused, AmountError, ValueError):
                break
            run.append((key, m, digest))
        if not run:
            return []
        # up to the first repeat: the general path answers it
        run = run[:_new_keys(tx, table, [k for k, _, _ in run])]
        if not run:
            return []
        wallets = self._wallet_rows(tx, sorted({m["account"] for _, m, _ in run}))
        cashier = self._system_accounts(table)["cashier"]
        row = tx.one("SELECT balance FROM accounts WHERE id = ?" + tx.lock, (cashier,))
        if row is None:
            return []
        cash = int(row[0])
        # a wallet not in the ledger yet starts at 0, as `_wallet` creates it
        balance = {m["account"]: wallets[m["account"]][1] if m["account"] in wallets else 0
                   for _, m, _ in run}
        taken: list[tuple[str, Mapping[str, Any], str, dict[str, Any]]] = []
        for key, m, digest in run:
            name = m["account"]
            delta = m["balance"] - balance[name]
            if abs(delta) > MAX_BALANCE or abs(cash - delta) > MAX_BALANCE:
                break  # the general path refuses it out_of_bounds, on record
            balance[name] = m["balance"]
            cash -= delta
            taken.append((key, m, digest, {"key": key, "kind": "wallet", "account": name,
                                           "balance": m["balance"], "delta": delta}))
        if not taken:
            return []
        # in the order the messages name them, as the general path creates them
        new = list(dict.fromkeys(m["account"] for _, m, _, _ in taken if m["account"] not in wallets))
        if new:  # only the run's own accounts: a wallet set left to the general path makes its own
            tx.executemany("INSERT INTO accounts (kind, table_id, name) VALUES ('wallet', '', ?)"
                           " ON CONFLICT DO NOTHING", [(name,) for name in new])
            made = self._wallet_rows(tx, new)
            if set(made) != set(new) or any(b != 0 for _, b in made.values()):
                # another settlement process made one of them meanwhile: its balance is not
                # the 0 reckoned with; the general path, which reads it first, decides
                raise RuntimeError("a wallet appeared while the run was reckoned")
            wallets.update(made)
        entry_of = _insert_entries(tx, table, "wallet",
                                   [(key, m, None, digest, result) for key, m, digest, result in taken])
        moves: dict[int, int] = defaultdict(int)
        postings = []
        for key, m, _, result in taken:
            delta = result["delta"]
            if delta == 0:
                continue  # as `_post`: an entry, no posting
            wallet_id = wallets[m["account"]][0]
            moves[wallet_id] += delta
            moves[cashier] -= delta
            postings.append((entry_of[key], wallet_id, delta, None))
            postings.append((entry_of[key], cashier, -delta, None))
        self._move(tx, taken[0][0], {a: d for a, d in moves.items() if d})
        if postings:
            tx.executemany(
                "INSERT INTO postings (entry_id, account_id, amount, bet_id) VALUES (?,?,?,?)",
                postings)
        return [result for _, _, _, result in taken]

    def _bet_run(self, tx: Tx, table: str, messages: Sequence[Any], tables: list[str],
                 start: int) -> list[dict[str, Any]]:
        """Apply the longest run of bets from `start` that all apply plainly, with a handful of
        statements for the whole run; return their results ([] when the first does not).

        A bet is taken only if every check of `_bet` passes (and its key is new, its round
        open, its wallet there and holding enough after the run's earlier bets); the run stops
        before the first that does not, which the general path then applies or refuses. Each
        result is the one `_bet` would give, so a repeat later returns the same.
        """
        run: list[tuple[str, Mapping[str, Any], Game, str]] = []
        for j in range(start, min(len(messages), start + BET_RUN_MAX)):
            m = messages[j]
            if tables[j] != table or not isinstance(m, Mapping) or m.get("kind") != "bet":
                break
            try:
                key = _plain_key(m, table)
                if key is None or not isinstance(m.get("credit", False), bool):
                    break
                _need_text(m, "round_id"), _need_text(m, "account"), _need_text(m, "spot")
                amount, deducted = _need(m, "amount", int), _need(m, "deducted", int)
                check_amount(amount)
                check_amount(deducted)
                game = self._game(key, m.get("game"))
                digest = message_digest(m)
            except (SettlementRefused, AmountError, BetError, ValueError):
                break
            run.append((key, m, game, digest))
        if not run:
            return []
        # up to the first repeat: the general path answers it
        run = run[:_new_keys(tx, table, [k for k, _, _, _ in run])]
        if not run:
            return []
        rounds = sorted({m["round_id"] for _, m, _, _ in run})
        frag, params = tx.in_list(rounds)
        closed = {r for (r,) in tx.execute(
            f"SELECT round_id FROM rounds WHERE table_id = ? AND round_id{frag}", [table, *params])}
        wallets = self._wallet_rows(tx, sorted({m["account"] for _, m, _, _ in run}))
        balance = {name: b for name, (_, b) in wallets.items()}
        held = self._held_bets(tx, table, rounds)
        taken: list[tuple[str, Mapping[str, Any], Game, str, dict[str, Any]]] = []
        for key, m, game, digest in run:
            name = m["account"]
            mine = held.setdefault((m["round_id"], name), [])
            try:
                if game.check_bet(m["spot"], m["amount"], tuple(mine)) != m["deducted"]:
                    break
            except BetError:
                break
            if (m["round_id"] in closed or name not in wallets
                    or balance[name] < m["deducted"]):
                break
            mine.append((m["spot"], m["amount"]))
            balance[name] -= m["deducted"]
            result = {"key": key, "kind": "bet", "round_id": m["round_id"], "account": name,
                      "spot": m["spot"], "amount": m["amount"], "deducted": m["deducted"],
                      "balance": balance[name]}
            taken.append((key, m, game, digest, result))
        if not taken:
            return []
        entry_of = _insert_entries(tx, table, "bet", [(key, m, m["round_id"], digest, result)
                                                      for key, m, _, digest, result in taken])
        rows = tx.execute(
            "INSERT INTO bets (table_id, key, round_id, game, account_id, spot, amount, deducted)"
            " VALUES " + ",".join(["(?,?,?,?,?,?,?,?)"] * len(taken)) + " RETURNING id, key",
            [v for key, m, game, _, _ in taken for v in (
                table, key, m["round_id"], game.name, wallets[m["account"]][0], m["spot"],
                m["amount"], m["deducted"])])
        bet_of = {k: int(i) for i, k in rows}
        in_play = self._system_accounts(table)["in_play"]
        moves: dict[int, int] = defaultdict(int)
        postings = []
        for key, m, _, _, _ in taken:
            wallet_id = wallets[m["account"]][0]
            moves[wallet_id] -= m["deducted"]
            moves[in_play] += m["deducted"]
            postings.append((entry_of[key], wallet_id, -m["deducted"], bet_of[key]))
            postings.append((entry_of[key], in_play, m["deducted"], bet_of[key]))
        if abs(moves[in_play]) > MAX_BALANCE:
            raise SettlementRefused(taken[0][0], "out_of_bounds", "a run of bets beyond the bound")
        self._move(tx, taken[0][0], dict(moves))
        tx.executemany(
            "INSERT INTO postings (entry_id, account_id, amount, bet_id) VALUES (?,?,?,?)", postings)
        return [result for _, _, _, _, result in taken]

    def record_refusal(self, message: Mapping[str, Any], refused: SettlementRefused, *,
                       table: str | None = None) -> None:
        """On record, like the core's own refusals: a message refused before the core saw it
        (the settlement service's HTTP layer refused its body; `message` says what it was)."""
        with self.store.transaction() as tx:
            self._record_refusal(tx, self.table if table is None else table, message, refused)

    @staticmethod
    def _record_refusal(tx: Tx, table: str, message: Any, refused: SettlementRefused) -> None:
        try:
            body = json.dumps(message, separators=(",", ":"), default=repr)
        except (TypeError, ValueError):
            body = repr(message)
        kind = message.get("kind") if isinstance(message, Mapping) else None
        now = time.time()
        tx.execute(
            "INSERT INTO refusals (table_id, key, kind, reason, detail, body, first_at, last_at)"
            " VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (table_id, key) DO UPDATE SET"
            " reason = excluded.reason, detail = excluded.detail, body = excluded.body,"
            " last_at = excluded.last_at, attempts = refusals.attempts + 1",
            (table, refused.key if isinstance(refused.key, str) else "",
             kind if isinstance(kind, str) else None, refused.reason, refused.detail[:4000],
             body[:MAX_RECORDED_BODY], now, now),
        )

    def _apply_one(self, tx: Tx, table: str, message: Mapping[str, Any],
                   reservation: bool = False) -> dict[str, Any]:
        if not isinstance(message, Mapping):
            raise SettlementRefused(None, "malformed", f"a message is an object, got {type(message).__name__}")
        key = _need_text(message, "key")
        kind = _need_text(message, "kind")
        own = message.get("table")
        if own is not None and own != table:
            raise SettlementRefused(key, "malformed",
                                    f"the message names table {own!r}, it came for {table!r}")
        t = message.get("t")
        if t is not None and (isinstance(t, bool) or not isinstance(t, int | float)
                              or not abs(t) <= MAX_T):  # NaN fails this too
            raise SettlementRefused(key, "malformed", "field 't' is not a finite time")
        try:
            digest = message_digest(message)
        except ValueError as exc:  # NaN or infinity somewhere: not JSON, never an amount
            raise SettlementRefused(key, "malformed", str(exc)) from None
        row = tx.one("SELECT result, digest, kind FROM entries WHERE table_id = ? AND key = ?",
                     (table, key))
        if row is not None:
            if row[1] != digest:
                raise SettlementRefused(key, "key_reused", "this key was applied with other content")
            if row[2] == "pot_in" and not reservation:
                pot.taken(tx, table, key)  # a reserved pot_in its game took (station/settlement/pot.py)
            elif row[2] == "bet" and not reservation:
                confirmations.confirm(tx, table, key)  # a reserved bet its table accepted
            return json.loads(row[0])
        if reservation and kind not in RESERVABLE:
            raise SettlementRefused(key, "malformed", f"only a bet or a pot_in is reserved, not a {kind!r}")
        if kind == "wallet":
            result, round_id, finish = self._wallet(tx, table, key, message)
        elif kind == "bet":
            result, round_id, finish = self._bet(tx, table, key, message, reservation)
        elif kind == "hand":
            result, round_id, finish = self._hand(tx, table, key, message)
        elif kind == "round_cancelled":
            result, round_id, finish = self._cancel(tx, table, key, message)
        elif kind in POT_KINDS:
            result, round_id, finish = pot.apply(self, tx, table, kind, key, message, reservation)
        elif kind == "checkpoint":
            try:
                result, round_id, finish = checkpoints.apply(tx, table, key, message)
            except checkpoints.ChainRestarted as exc:
                raise SettlementRefused(key, "chain_restarted", str(exc)) from None
            except ValueError as exc:
                raise SettlementRefused(key, "malformed", str(exc)) from None
        else:
            raise SettlementRefused(key, "unknown_kind", f"kind {kind!r} (known: {', '.join(MESSAGE_KINDS)})")
        entry_id = tx.insert_id(
            "INSERT INTO entries (table_id, key, kind, round_id, t, applied_at, digest, result)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (table, key, kind, round_id, None if t is None else float(t), time.time(), digest,
             json.dumps(result, separators=(",", ":"))),
        )
        finish(entry_id)
        return result

    def _post(self, tx: Tx, key: str, entry_id: int,
              rows: Iterable[tuple[int, int, int | None]]) -> None:
        """Write postings (account, amount, bet) and move the cached balances with them.

        No balance may leave ±MAX_BALANCE (refused `out_of_bounds`, the savepoint undoes it):
        bounded inputs keep every sum of the books inside 64 bits.
        """
        rows = [r for r in rows if r[1] != 0]
        if not rows:
            return
        moves: dict[int, int] = defaultdict(int)
        for account_id, amount, _ in rows:
            moves[account_id] += amount
        for delta in moves.values():
            if abs(delta) > MAX_BALANCE:
                raise SettlementRefused(key, "out_of_bounds",
                                        f"a movement of {delta} is beyond the ledger's bound")
        self._move(tx, key, {a: d for a, d in moves.items() if d})
        tx.executemany(
            "INSERT INTO postings (entry_id, account_id, amount, bet_id) VALUES (?,?,?,?)",
            [(entry_id, a, amt, bet) for a, amt, bet in rows],
        )

    @staticmethod
    def _move(tx: Tx, key: str, moves: dict[int, int]) -> None:
        """Move cached balances by `moves` (account id -> delta) in one statement (one round
        trip to the database for a hand's thousands of players too); refused `out_of_bounds`
        if any would leave ±MAX_BALANCE (the caller's savepoint undoes the statement)."""
        for i in range(0, len(moves), MOVE_CHUNK):
            ids = sorted(moves)[i:i + MOVE_CHUNK]  # one lock order for every transaction
            rows = tx.execute(
                "WITH v(id, d) AS (VALUES " + ",".join(["(?, ?)"] * len(ids)) + ")"
                " UPDATE accounts SET balance = accounts.balance + v.d FROM v"
                " WHERE accounts.id = v.id RETURNING accounts.id, accounts.balance",
                [x for a in ids for x in (a, moves[a])])
            if len(rows) != len(ids):
                raise SettlementRefused(key, "error", "an account to post to does not exist")
            for account_id, balance in rows:
                if type(balance) is not int or abs(balance) > MAX_BALANCE:
                    raise SettlementRefused(
                        key, "out_of_bounds",
                        f"account {account_id} would hold {balance}, beyond ±{MAX_BALANCE}")

    def _game(self, key: str, name: object) -> Game:
        if not isinstance(name, str):
            raise SettlementRefused(key, "malformed", "field 'game' missing or not a string")
        game = self._games.get(name)
        if game is None:
            try:
                game = self._games[name] = get_game(name)
            except ValueError as exc:
                raise SettlementRefused(key, "unknown_game", str(exc)) from None
        return game

    @staticmethod
    def _wallet_rows(tx: Tx, names: Sequence[str]) -> dict[str, tuple[int, int]]:
        """The wallets of `names` that exist, name -> (id, balance), locked until commit on
        PostgreSQL (in id order, one lock order for every transaction)."""
        frag, params = tx.in_list(list(names))
        return {name: (int(id_), int(balance)) for id_, name, balance in tx.execute(
            "SELECT id, name, balance FROM accounts WHERE kind = 'wallet' AND table_id = ''"
            f" AND name{frag} ORDER BY id{tx.lock}", params)}

    @staticmethod
    def _wallet_row(tx: Tx, name: str) -> tuple[int, int] | None:
        row = tx.one("SELECT id, balance FROM accounts WHERE kind = 'wallet' AND table_id = ''"
                     " AND name = ?" + tx.lock, (name,))
        return None if row is None else (int(row[0]), int(row[1]))

    @staticmethod
    def _round_status(tx: Tx, table: str, round_id: str) -> str | None:
        """Whether the round is closed, its status. On PostgreSQL the round is held first,
        until this transaction ends: a reservation (applied as it comes, by any settlement
        process) and the message that closes its round (applied in the table's order by the
        round's owner) are then one before the other. Without it a reservation that found
        the round open could commit after the hand that closed it had looked for the
        round's bets: held in play for a round already closed (the studio drill's bus cut,
        a reservation's request held in the network while the table went on)."""
        if tx.lock:
            tx.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))",
                       (ROUND_LOCK_CLASS, f"{table}/{round_id}"))
        row = tx.one("SELECT status FROM rounds WHERE table_id = ? AND round_id = ?",
                     (table, round_id))
        return None if row is None else row[0]

    def _wallet(self, tx: Tx, table: str, key: str, m: Mapping[str, Any]) -> tuple:
        account = _need_text(m, "account")
        balance = _need(m, "balance", int)
        if balance < 0:
            raise SettlementRefused(key, "malformed", f"a wallet balance cannot be negative: {balance}")
        try:
            check_amount(balance, what="a wallet balance", allow_zero=True)
        except AmountError as exc:
            raise _refused_for_bounds(key, exc) from None
        found = self._wallet_row(tx, account)
        if found is None:
            tx.execute("INSERT INTO accounts (kind, table_id, name) VALUES ('wallet', '', ?)"
                       " ON CONFLICT DO NOTHING", (account,))
            found = self._wallet_row(tx, account)
            assert found is not None
        account_id, current = found
        delta = balance - current
        cashier = self._system_accounts(table)["cashier"]
        rows = [(account_id, delta, None), (cashier, -delta, None)]
        result = {"key": key, "kind": "wallet", "account": account, "balance": balance, "delta": delta}
        return result, None, lambda entry_id: self._post(tx, key, entry_id, rows)

    def _bet(self, tx: Tx, table: str, key: str, m: Mapping[str, Any],
             reservation: bool = False) -> tuple:
        round_id = _need_text(m, "round_id")
        game = self._game(key, m.get("game"))
        account = _need_text(m, "account")
        spot = _need_text(m, "spot")
        amount = _need(m, "amount", int)
        deducted = _need(m, "deducted", int)
        try:
            check_amount(amount, what="a bet's amount")
            check_amount(deducted, what="a bet's deduction")
        except AmountError as exc:
            if amount > 0 and deducted > 0:
                raise _refused_for_bounds(key, exc) from None
        try:
            # what the account already holds this round: a game's rules may weigh it (a
            # bet on both sides of one door is no bet)
            held = self._held_bets(tx, table, [round_id]).get((round_id, account), [])
            expected = game.check_bet(spot, amount, tuple(held))
        except BetError as exc:
            raise SettlementRefused(key, "bad_bet", f"{exc.reason}: {exc}") from None
        if deducted != expected:
            raise SettlementRefused(
                key, "bad_deduction", f"{spot} {amount} deducts {expected}, the message says {deducted}"
            )
        status = self._round_status(tx, table, round_id)
        if status is not None:
            raise SettlementRefused(key, "round_closed", f"round {round_id} is already {status}")
        found = self._wallet_row(tx, account)  # locked until commit on PostgreSQL
        if found is None:
            raise SettlementRefused(key, "no_wallet", f"no wallet {account!r} in the ledger")
        account_id, balance = found
        credit = m.get("credit", False)
        if not isinstance(credit, bool):
            raise SettlementRefused(key, "malformed", "field 'credit' is true or false")
        # a bet the table took on its own credit while this ledger did not answer (its
        # policy `credit`, station/live/reservations.py): what the wallet cannot cover is
        # the table's credit to the player, from the table's cashier, in the bet's result
        shortfall = deducted - balance if credit and not reservation and balance < deducted else 0
        if balance + shortfall < deducted:
            raise SettlementRefused(
                key, "insufficient_funds", f"wallet {account!r} holds {balance}, the bet deducts {deducted}"
            )
        in_play = self._system_accounts(table)["in_play"]

        def record_bet(entry_id: int) -> None:
            bet_id = tx.insert_id(
                "INSERT INTO bets (table_id, key, round_id, game, account_id, spot, amount,"
                " deducted, reserved) VALUES (?,?,?,?,?,?,?,?,?)",
                (table, key, round_id, game.name, account_id, spot, amount, deducted,
                 int(reservation)),
            )
            credited = [(account_id, shortfall, None),
                        (self._system_accounts(table)["cashier"], -shortfall, None)]
            self._post(tx, key, entry_id, [(account_id, -deducted, bet_id),
                                           (in_play, deducted, bet_id),
                                           *(credited if shortfall else [])])

        result = {
            "key": key, "kind": "bet", "round_id": round_id, "account": account, "spot": spot,
            "amount": amount, "deducted": deducted, "balance": balance + shortfall - deducted,
        }
        if shortfall:
            result["credit"] = shortfall
            log.warning("table %s: bet %s taken on the table's credit while the ledger was"
                        " away: wallet %r held %d of its %d; %d booked as the table's credit",
                        table, key, account, balance, deducted, shortfall)
        return result, round_id, record_bet

    @staticmethod
    def _held_bets(tx: Tx, table: str, rounds: list[str]) -> dict[tuple[str, str], list[tuple[str, int]]]:
        """(round, account) -> the bets booked, as (spot, amount) in the order they came."""
        frag, params = tx.in_list(rounds)
        held: dict[tuple[str, str], list[tuple[str, int]]] = {}
        for round_id, name, spot, amount in tx.execute(
                "SELECT b.round_id, a.name, b.spot, b.amount FROM bets b"
                " JOIN accounts a ON a.id = b.account_id"
                f" WHERE b.table_id = ? AND b.round_id{frag} ORDER BY b.id", [table, *params]):
            held.setdefault((round_id, name), []).append((spot, amount))
        return held

    @staticmethod
    def _open_bets(tx: Tx, table: str, round_id: str) -> list[tuple]:
        return tx.execute(
            "SELECT b.id, b.account_id, a.name, b.spot, b.amount, b.deducted, b.game, b.reserved,"
            " f.bet_id IS NOT NULL"
            " FROM bets b JOIN accounts a ON a.id = b.account_id"
            " LEFT JOIN bet_confirmations f ON f.bet_id = b.id"
            " WHERE b.table_id = ? AND b.round_id = ? ORDER BY b.id",
            (table, round_id),
        )

    def _hand(self, tx: Tx, table: str, key: str, m: Mapping[str, Any]) -> tuple:
        round_id = _need_text(m, "round_id")
        game = self._game(key, m.get("game"))
        status = self._round_status(tx, table, round_id)
        if status is not None:
            raise SettlementRefused(key, "round_closed", f"round {round_id} is already {status}")
        try:
            outcome = game.outcome(m)  # what the game settles on: its positions' cards, say
        except OutcomeError as exc:
            raise SettlementRefused(key, exc.reason, str(exc)) from None
        computed = game.evaluate(outcome)
        if "results" in m and m["results"] != computed:
            raise SettlementRefused(
                key, "results_mismatch",
                f"the cards give {json.dumps(computed, sort_keys=True)}, the message says "
                f"{json.dumps(m['results'], sort_keys=True, default=repr)}",
            )
        theirs = self._settlement_list(key, m, "settlement")
        held = self._open_bets(tx, table, round_id)
        # One pass over the round's bets (50,000 in a big round) computes each return, the
        # lines to compare with the message, each player's credit and the totals.
        memo: dict[tuple[str, int], int] = {}  # returned() is pure in (spot, amount, outcome)
        lines: list[tuple[str, str, int, int, int]] = []
        closures: list[tuple[int, int, str]] = []
        credits: dict[int, int] = defaultdict(int)
        total_deducted = total_returned = 0
        for _, _, name, spot, amount, deducted, bet_game, _, _ in held:
            if bet_game != game.name:
                raise SettlementRefused(key, "bet_mismatch",
                                        f"round {round_id} holds {bet_game} bets, the hand is {game.name}")
            r = memo.get((spot, amount))
            if r is None:
                r = memo[(spot, amount)] = game.returned(spot, amount, outcome)
            lines.append((name, spot, amount, deducted, r))
        mine, released = self._unlisted_reservations(held, lines, theirs)
        self._compare(key, round_id, mine, theirs, "returned")
        for i, (bet_id, account_id, _, _, _, deducted, _, _, _) in enumerate(held):
            r = deducted if i in released else lines[i][4]
            closures.append((bet_id, r, "released" if i in released else "settled"))
            credits[account_id] += r
            total_deducted += deducted
            total_returned += r
        ids = self._system_accounts(table)
        # one posting per account (the itemised detail is in bet_closures): a round of 50,000
        # bets among 2,000 players writes 2,002 postings, not 100,000
        rows: list[tuple[int, int, int | None]] = [(a, amt, None) for a, amt in credits.items()]
        rows.append((ids["in_play"], -total_deducted, None))
        rows.append((ids["house"], total_deducted - total_returned, None))

        def close_round(entry_id: int) -> None:
            self._post(tx, key, entry_id, rows)
            tx.executemany(
                "INSERT INTO bet_closures (bet_id, entry_id, outcome, returned) VALUES (?, ?, ?, ?)",
                [(bet_id, entry_id, outcome, r) for bet_id, r, outcome in closures],
            )
            tx.execute(
                "INSERT INTO rounds (table_id, round_id, status, entry_id) VALUES (?, ?, 'settled', ?)",
                (table, round_id, entry_id),
            )

        result = {
            "key": key, "kind": "hand", "round_id": round_id, "status": "settled",
            "bets": len(held), "deducted": total_deducted, "returned": total_returned,
            "house": total_deducted - total_returned,
        }
        if released:
            result["released"] = len(released)
        return result, round_id, close_round

    def _cancel(self, tx: Tx, table: str, key: str, m: Mapping[str, Any]) -> tuple:
        round_id = _need_text(m, "round_id")
        reason = _need_text(m, "reason")
        status = self._round_status(tx, table, round_id)
        if status is not None:
            raise SettlementRefused(key, "round_closed", f"round {round_id} is already {status}")
        held = self._open_bets(tx, table, round_id)
        released: set[int] = set()
        if "refunds" in m:
            # optional: the table core's own refund list, held to the same standard as a hand's
            theirs = self._settlement_list(key, m, "refunds")
            lines = [(name, spot, amount, d, d) for _, _, name, spot, amount, d, _, _, _ in held]
            mine, released = self._unlisted_reservations(held, lines, theirs)
            self._compare(key, round_id, mine, theirs, "refund")
        refunds: dict[int, int] = defaultdict(int)
        for _, account_id, _, _, _, deducted, _, _, _ in held:
            refunds[account_id] += deducted
        total = sum(refunds.values())
        rows: list[tuple[int, int, int | None]] = [(a, amt, None) for a, amt in refunds.items()]
        rows.append((self._system_accounts(table)["in_play"], -total, None))

        def close_round(entry_id: int) -> None:
            self._post(tx, key, entry_id, rows)
            tx.executemany(
                "INSERT INTO bet_closures (bet_id, entry_id, outcome, returned) VALUES (?, ?, ?, ?)",
                [(b[0], entry_id, "released" if i in released else "refunded", b[5])
                 for i, b in enumerate(held)],
            )
            tx.execute(
                "INSERT INTO rounds (table_id, round_id, status, entry_id, reason)"
                " VALUES (?, ?, 'cancelled', ?, ?)",
                (table, round_id, entry_id, reason),
            )

        result = {
            "key": key, "kind": "round_cancelled", "round_id": round_id, "status": "cancelled",
            "reason": reason, "bets": len(held), "refunded": total,
        }
        if released:
            result["released"] = len(released)
        return result, round_id, close_round

    @staticmethod
    def _unlisted_reservations(held: list[tuple], lines: list[tuple],
                               theirs: Counter) -> tuple[Counter, set[int]]:
        """The round's lines to hold to the table's list, and the indexes in `held` of the
        reservations that list does not name: the table never
        accepted them (it did not live to journal the ledger's answer, or it had given up
        waiting), so the round's close releases them to their wallets instead of refusing a
        mismatch. Only reservations the table never sent back through its outbox: a bet it
        accepted is confirmed (station/settlement/ledger/confirmations.py), and of two bets
        alike line for line, the one accepted is closed by the list and the other released."""
        mine = Counter(lines)
        if dict.__eq__(mine, theirs) or not any(b[7] and not b[8] for b in held):
            return mine, set()
        unlisted = mine - theirs
        released: set[int] = set()
        for i in range(len(held) - 1, -1, -1):
            if held[i][7] and not held[i][8] and unlisted[lines[i]] > 0:
                unlisted[lines[i]] -= 1
                released.add(i)
        return Counter(line for i, line in enumerate(lines) if i not in released), released

    @staticmethod
    def _settlement_list(key: str, m: Mapping[str, Any], name: str) -> Counter:
        items = m.get(name)
        if not isinstance(items, list):
            raise SettlementRefused(key, "malformed", f"field {name!r} missing or not a list")
        try:
            # the fast path for a well-formed list (50,000 lines in a big round)
            lines = [(i["account"], i["spot"], i["amount"], i["deducted"], i["returned"])
                     for i in items]
        except (KeyError, TypeError):
            lines = None
        # `type(x) is int` also keeps out bool, which is never an amount
        if lines is None or not all(
            type(a) is str and type(s) is str and type(x) is int and type(d) is int
            and type(r) is int for a, s, x, d, r in lines
        ):
            for i, item in enumerate(items):
                fields = ("account", "spot", "amount", "deducted", "returned")
                if not isinstance(item, Mapping) or any(f not in item for f in fields):
                    raise SettlementRefused(
                        key, "malformed", f"{name}[{i}] is not an object with {', '.join(fields)}")
            raise SettlementRefused(key, "malformed", f"a {name} line has a field of the wrong type")
        return Counter(lines)

    @staticmethod
    def _compare(key: str, round_id: str, mine: Counter, theirs: Counter, what: str) -> None:
        # plain dict equality runs in C; no count is ever zero, so it means the same as Counter's
        if dict.__eq__(mine, theirs):
            return
        bets_mine = Counter()
        bets_theirs = Counter()
        for k, n in mine.items():
            bets_mine[k[:4]] += n
        for k, n in theirs.items():
            bets_theirs[k[:4]] += n

        def show(c: Counter) -> str:
            items = sorted(c.elements())[:3]
            return ", ".join(str(list(i)) for i in items) + (" ..." if c.total() > 3 else "")

        if bets_mine != bets_theirs:
            raise SettlementRefused(
                key, "bet_mismatch",
                f"round {round_id}: the ledger holds {mine.total()} open bets, the message lists "
                f"{theirs.total()}; only in the ledger: {show(bets_mine - bets_theirs) or 'none'}; "
                f"only in the message: {show(bets_theirs - bets_mine) or 'none'}",
            )
        raise SettlementRefused(
            key, f"{what}_mismatch",
            f"round {round_id}: computed [account, spot, amount, deducted, {what}] "
            f"{show(mine - theirs)}; the message says {show(theirs - mine)}",
        )
