"""The settlement core: applies the table core's messages to the ledger, each exactly once.

Messages (the hand-off contract, see docs/settlement.md) are dicts with a unique ``key`` and a
``kind``: ``wallet``, ``bet``, ``hand`` or ``round_cancelled``. Applying a message posts its
money movement and records the key with its result in the same transaction, so a message that
arrives twice (a retry after a crash, a replayed HTTP request) returns the first result and
posts nothing. A round is closed once: a second hand or cancellation for it is refused.

The core trusts the table core for *which* bets were accepted, but not for arithmetic: it
recomputes every return from the cards with the game module and refuses a hand whose
settlement list differs, in bets or in amounts. A refusal posts nothing; the message stays
undelivered in the station's outbox and the delivery worker reports it to the supervisor.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.cards import Card, CardError, parse_card
from station.games import get_game
from station.games.base import BetError, Game
from station.settlement import pot
from station.settlement.ledger import CheckReport, check_books, connect
from station.settlement.pot import POT_KINDS

MESSAGE_KINDS = ("wallet", "bet", "hand", "round_cancelled", *POT_KINDS)


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


class SettlementCore:
    """The settlement side of the hand-off, on its own ledger file.

    Thread-safe: one lock serialises every use of the connection, so the HTTP service can call
    it from worker threads.
    """

    def __init__(self, ledger_path: str | Path) -> None:
        self.ledger_path = Path(ledger_path)
        self._conn = connect(self.ledger_path)
        self._lock = threading.RLock()
        self._games: dict[str, Game] = {}
        self._system: dict[str, int] = {
            name: id_
            for id_, name in self._conn.execute("SELECT id, name FROM accounts WHERE kind='system'")
        }

    # -- public API ---------------------------------------------------------------------

    def apply(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Apply one message; raises SettlementRefused (nothing posted) if it cannot be."""
        outcome = self.apply_batch([message])
        if outcome.refused is not None:
            raise outcome.refused
        return outcome.results[0]

    def apply_batch(self, messages: Sequence[Mapping[str, Any]]) -> BatchOutcome:
        """Apply messages in order in one durable transaction (one fsync for the batch).

        Stops at the first refusal: the messages before it are committed, it and the rest are
        not. Each message runs under its own savepoint so a refusal leaves no partial posting.
        """
        outcome = BatchOutcome()
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                for message in messages:
                    conn.execute("SAVEPOINT message")
                    try:
                        result = self._apply_one(message)
                    except SettlementRefused as refused:
                        conn.execute("ROLLBACK TO message")
                        conn.execute("RELEASE message")
                        outcome.refused = refused
                        break
                    except (sqlite3.IntegrityError, ValueError, TypeError, KeyError) as exc:
                        # A message the checks above let through but the books refuse (the
                        # schema's constraints are the last line): refused, never half-posted.
                        conn.execute("ROLLBACK TO message")
                        conn.execute("RELEASE message")
                        key = message.get("key") if isinstance(message, Mapping) else None
                        outcome.refused = SettlementRefused(key, "error", repr(exc))
                        break
                    conn.execute("RELEASE message")
                    outcome.results.append(result)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        return outcome

    def balances(self) -> dict[str, int]:
        """Every wallet's balance, by account name."""
        with self._lock:
            return dict(
                self._conn.execute("SELECT name, balance FROM accounts WHERE kind='wallet'")
            )

    def check(self, *, require_closed: bool = False) -> CheckReport:
        with self._lock:
            return check_books(self._conn, require_closed=require_closed)

    def applied(self, key: str) -> dict[str, Any] | None:
        """The result recorded for a message key, or None if it was never applied."""
        with self._lock:
            row = self._conn.execute("SELECT result FROM entries WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SettlementCore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- applying -------------------------------------------------------------------------

    def _apply_one(self, message: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(message, Mapping):
            raise SettlementRefused(None, "malformed", f"a message is an object, got {type(message).__name__}")
        key = _need_text(message, "key")
        kind = _need_text(message, "kind")
        digest = message_digest(message)
        row = self._conn.execute(
            "SELECT result, digest FROM entries WHERE key = ?",
            (key,),
        ).fetchone()
        if row is not None:
            if row[1] != digest:
                raise SettlementRefused(key, "key_reused", "this key was applied with other content")
            return json.loads(row[0])
        t = message.get("t")
        if t is not None and (isinstance(t, bool) or not isinstance(t, int | float)):
            raise SettlementRefused(key, "malformed", "field 't' is not a number")
        if kind == "wallet":
            result, postings, round_id = self._wallet(key, message)
        elif kind == "bet":
            result, postings, round_id = self._bet(key, message)
        elif kind == "hand":
            result, postings, round_id = self._hand(key, message)
        elif kind == "round_cancelled":
            result, postings, round_id = self._cancel(key, message)
        elif kind in POT_KINDS:
            result, postings, round_id = pot.apply(self, kind, key, message)
        else:
            raise SettlementRefused(key, "unknown_kind", f"kind {kind!r} (known: {', '.join(MESSAGE_KINDS)})")
        cur = self._conn.execute(
            "INSERT INTO entries (key, kind, round_id, t, applied_at, digest, result)"
            " VALUES (?,?,?,?,?,?,?)",
            (key, kind, round_id, t, time.time(), digest, json.dumps(result, separators=(",", ":"))),
        )
        entry_id = cur.lastrowid
        if postings.deferred_bet is not None:
            postings.deferred_bet(entry_id)
        self._post(entry_id, postings.rows)
        for finish in postings.after:
            finish(entry_id)
        return result

    def _post(self, entry_id: int, rows: Iterable[tuple[int, int, int | None]]) -> None:
        """Write postings (account, amount, bet) and move the cached balances with them."""
        rows = [r for r in rows if r[1] != 0]
        if not rows:
            return
        self._conn.executemany(
            "INSERT INTO postings (entry_id, account_id, amount, bet_id) VALUES (?,?,?,?)",
            [(entry_id, a, amt, bet) for a, amt, bet in rows],
        )
        moves: dict[int, int] = defaultdict(int)
        for account_id, amount, _ in rows:
            moves[account_id] += amount
        self._conn.executemany(
            "UPDATE accounts SET balance = balance + ? WHERE id = ?",
            [(amt, a) for a, amt in moves.items() if amt],
        )

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

    def _wallet_id(self, name: str) -> int | None:
        row = self._conn.execute(
            "SELECT id FROM accounts WHERE kind='wallet' AND name = ?", (name,)
        ).fetchone()
        return None if row is None else row[0]

    def _round_status(self, round_id: str) -> str | None:
        row = self._conn.execute(
            "SELECT status FROM rounds WHERE round_id = ?", (round_id,)
        ).fetchone()
        return None if row is None else row[0]

    def _wallet(self, key: str, m: Mapping[str, Any]) -> tuple[dict, _Postings, None]:
        account = _need_text(m, "account")
        balance = _need(m, "balance", int)
        if balance < 0:
            raise SettlementRefused(key, "malformed", f"a wallet balance cannot be negative: {balance}")
        account_id = self._wallet_id(account)
        if account_id is None:
            account_id = self._conn.execute(
                "INSERT INTO accounts (kind, name) VALUES ('wallet', ?)", (account,)
            ).lastrowid
            current = 0
        else:
            current = self._conn.execute(
                "SELECT balance FROM accounts WHERE id = ?", (account_id,)
            ).fetchone()[0]
        delta = balance - current
        postings = _Postings(rows=[(account_id, delta, None), (self._system["cashier"], -delta, None)])
        result = {"key": key, "kind": "wallet", "account": account, "balance": balance, "delta": delta}
        return result, postings, None

    def _bet(self, key: str, m: Mapping[str, Any]) -> tuple[dict, _Postings, str]:
        round_id = _need_text(m, "round_id")
        game = self._game(key, m.get("game"))
        account = _need_text(m, "account")
        spot = _need_text(m, "spot")
        amount = _need(m, "amount", int)
        deducted = _need(m, "deducted", int)
        try:
            expected = game.check_bet(spot, amount)
        except BetError as exc:
            raise SettlementRefused(key, "bad_bet", f"{exc.reason}: {exc}") from None
        if deducted != expected:
            raise SettlementRefused(
                key, "bad_deduction", f"{spot} {amount} deducts {expected}, the message says {deducted}"
            )
        status = self._round_status(round_id)
        if status is not None:
            raise SettlementRefused(key, "round_closed", f"round {round_id} is already {status}")
        account_id = self._wallet_id(account)
        if account_id is None:
            raise SettlementRefused(key, "no_wallet", f"no wallet {account!r} in the ledger")
        balance = self._conn.execute(
            "SELECT balance FROM accounts WHERE id = ?", (account_id,)
        ).fetchone()[0]
        if balance < deducted:
            raise SettlementRefused(
                key, "insufficient_funds", f"wallet {account!r} holds {balance}, the bet deducts {deducted}"
            )
        in_play = self._system["in_play"]
        postings = _Postings()

        def record_bet(entry_id: int) -> None:
            bet_id = self._conn.execute(
                "INSERT INTO bets (key, round_id, game, account_id, spot, amount, deducted)"
                " VALUES (?,?,?,?,?,?,?)",
                (key, round_id, game.name, account_id, spot, amount, deducted),
            ).lastrowid
            postings.rows.extend([(account_id, -deducted, bet_id), (in_play, deducted, bet_id)])

        postings.deferred_bet = record_bet
        result = {
            "key": key, "kind": "bet", "round_id": round_id, "account": account, "spot": spot,
            "amount": amount, "deducted": deducted, "balance": balance - deducted,
        }
        return result, postings, round_id

    def _open_bets(self, round_id: str) -> list[tuple[int, int, str, str, int, int, str]]:
        rows = self._conn.execute(
            "SELECT id, account_id, spot, amount, deducted, game FROM bets"
            " WHERE round_id = ? ORDER BY id",
            (round_id,),
        ).fetchall()
        if not rows:
            return []
        # names from one pass over the wallets rather than a join per bet (50,000 in a round)
        names = dict(self._conn.execute("SELECT id, name FROM accounts WHERE kind = 'wallet'"))
        return [(b, a, names[a], s, x, d, g) for b, a, s, x, d, g in rows]

    def _hand(self, key: str, m: Mapping[str, Any]) -> tuple[dict, _Postings, str]:
        round_id = _need_text(m, "round_id")
        game = self._game(key, m.get("game"))
        status = self._round_status(round_id)
        if status is not None:
            raise SettlementRefused(key, "round_closed", f"round {round_id} is already {status}")
        hands = self._parse_hands(key, game, _need(m, "cards", dict))
        computed = game.evaluate(hands)
        if "results" in m and m["results"] != computed:
            raise SettlementRefused(
                key, "results_mismatch",
                f"the cards give {json.dumps(computed, sort_keys=True)}, the message says "
                f"{json.dumps(m['results'], sort_keys=True)}",
            )
        theirs = self._settlement_list(key, m, "settlement")
        held = self._open_bets(round_id)
        # One pass over the round's bets (50,000 in a big round) computes each return, the
        # lines to compare with the message, each player's credit and the totals.
        memo: dict[tuple[str, int], int] = {}  # returned() is pure in (spot, amount, hands)
        lines: list[tuple[str, str, int, int, int]] = []
        closures: list[tuple[int, int]] = []
        credits: dict[int, int] = defaultdict(int)
        total_deducted = total_returned = 0
        other_game = None
        for bet_id, account_id, name, spot, amount, deducted, bet_game in held:
            r = memo.get((spot, amount))
            if r is None:
                if bet_game != game.name:
                    other_game = bet_game
                    break
                r = memo[(spot, amount)] = game.returned(spot, amount, hands)
            lines.append((name, spot, amount, deducted, r))
            closures.append((bet_id, r))
            credits[account_id] += r
            total_deducted += deducted
            total_returned += r
        if other_game is not None or any(g != game.name for g in {b[6] for b in held}):
            raise SettlementRefused(key, "bet_mismatch",
                                    f"round {round_id} holds {other_game} bets, the hand is {game.name}")
        self._compare(key, round_id, Counter(lines), theirs, "returned")
        # one posting per account (the itemised detail is in bet_closures): a round of 50,000
        # bets among 2,000 players writes 2,002 postings, not 100,000
        rows: list[tuple[int, int, int | None]] = [(a, amt, None) for a, amt in credits.items()]
        rows.append((self._system["in_play"], -total_deducted, None))
        rows.append((self._system["house"], total_deducted - total_returned, None))
        postings = _Postings(rows=rows)

        def close_round(entry_id: int) -> None:
            self._conn.executemany(
                "INSERT INTO bet_closures (bet_id, entry_id, outcome, returned)"
                " VALUES (?, ?, 'settled', ?)",
                [(bet_id, entry_id, r) for bet_id, r in closures],
            )
            self._conn.execute(
                "INSERT INTO rounds (round_id, status, entry_id) VALUES (?, 'settled', ?)",
                (round_id, entry_id),
            )

        postings.after.append(close_round)
        result = {
            "key": key, "kind": "hand", "round_id": round_id, "status": "settled",
            "bets": len(held), "deducted": total_deducted, "returned": total_returned,
            "house": total_deducted - total_returned,
        }
        return result, postings, round_id

    def _cancel(self, key: str, m: Mapping[str, Any]) -> tuple[dict, _Postings, str]:
        round_id = _need_text(m, "round_id")
        reason = _need_text(m, "reason")
        status = self._round_status(round_id)
        if status is not None:
            raise SettlementRefused(key, "round_closed", f"round {round_id} is already {status}")
        held = self._open_bets(round_id)
        if "refunds" in m:
            # optional: the table core's own refund list, held to the same standard as a hand's
            theirs = self._settlement_list(key, m, "refunds")
            mine = Counter((name, spot, amount, d, d) for _, _, name, spot, amount, d, _ in held)
            self._compare(key, round_id, mine, theirs, "refund")
        refunds: dict[int, int] = defaultdict(int)
        for _, account_id, _, _, _, deducted, _ in held:
            refunds[account_id] += deducted
        total = sum(refunds.values())
        rows: list[tuple[int, int, int | None]] = [(a, amt, None) for a, amt in refunds.items()]
        rows.append((self._system["in_play"], -total, None))
        postings = _Postings(rows=rows)

        def close_round(entry_id: int) -> None:
            self._conn.executemany(
                "INSERT INTO bet_closures (bet_id, entry_id, outcome, returned)"
                " VALUES (?, ?, 'refunded', ?)",
                [(b[0], entry_id, b[5]) for b in held],
            )
            self._conn.execute(
                "INSERT INTO rounds (round_id, status, entry_id, reason) VALUES (?, 'cancelled', ?, ?)",
                (round_id, entry_id, reason),
            )

        postings.after.append(close_round)
        result = {
            "key": key, "kind": "round_cancelled", "round_id": round_id, "status": "cancelled",
            "reason": reason, "bets": len(held), "refunded": total,
        }
        return result, postings, round_id

    @staticmethod
    def _parse_hands(key: str, game: Game, cards: Mapping[str, Any]) -> dict[str, list[Card]]:
        if set(cards) != set(game.positions):
            raise SettlementRefused(
                key, "bad_cards",
                f"a {game.name} hand names positions {sorted(game.positions)}, got {sorted(cards)}",
            )
        hands: dict[str, list[Card]] = {}
        for position, texts in cards.items():
            if not isinstance(texts, list):
                raise SettlementRefused(key, "bad_cards", f"{position}: not a list of cards")
            try:
                hands[position] = [parse_card(c) for c in texts]
            except CardError as exc:
                raise SettlementRefused(key, "bad_cards", f"{position}: {exc}") from None
        return hands

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


@dataclass
class _Postings:
    """What a message will post, built before its entry row exists."""

    rows: list[tuple[int, int, int | None]] = field(default_factory=list)
    deferred_bet: Any = None
    after: list[Any] = field(default_factory=list)
