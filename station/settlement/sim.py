"""A simulated table for settlement drills, benchmarks and demos.

The real table core (journal, procedure, shoe and camera) is not needed to exercise settlement:
this module keeps only what settlement sees of it.

- `plan_session` deals a session of one game's rounds (the station's default game unless
  told) from its shuffled shoe with bets, wallet top-ups and some cancelled rounds, decided against a mirror of the balances exactly
  as the table core decides, and returns the messages in order together with the balances an
  uninterrupted run must end with (computed with the game module alone, not with the ledger).
- `MiniStation` journals each step and enqueues its message in the same transaction, then
  delivers through a `DeliveryWorker`; restarted after a crash it continues after the last
  journaled step. ``python -m station.settlement.sim`` runs one as a process for crash drills.
- `BetBook` is a small bet intake for the HTTP bet API: it enforces the open round, its
  closing time, the game's spots and amounts and the balance, journals every decision and
  enqueues accepted bets.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.cards import RANKS, SUITS, Card
from station.core.settings import default_table
from station.games import DEFAULT_GAME, GAMES, get_game
from station.games.base import BURN, BetError
from station.settlement.outbox import OUTBOX_SCHEMA, DeliveryWorker, Transport, enqueue

JOURNAL_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal (
    step   INTEGER PRIMARY KEY,
    t      REAL NOT NULL,
    record TEXT NOT NULL
);
"""

AMOUNTS = (20, 50, 100, 200, 500, 1000)
CANCEL_REASONS = ("card_mismatch", "extra_card", "link_lost", "shoe_exhausted")
#: cards left behind the cut card when the shoe is changed
CUT_CARD_RESERVE = 52


@dataclass
class Session:
    messages: list[dict[str, Any]]
    #: every wallet's balance after all messages, computed without the ledger
    balances: dict[str, int]
    bets: int = 0
    rounds_settled: int = 0
    rounds_cancelled: int = 0
    bet_keys: list[str] = field(default_factory=list)


def new_shoe(rng: random.Random, deck: int | Counter[Card]) -> list[Card]:
    """A shuffled shoe: `deck` full 52-card decks, or a game's card multiset (`Game.deck`)."""
    if isinstance(deck, int):
        cards = [Card(r, s) for r in RANKS for s in SUITS] * deck
    else:
        cards = list(deck.elements())
    rng.shuffle(cards)
    return cards


def plan_session(
    seed: int,
    rounds: int = 100,
    *,
    table: str | None = None,
    accounts: int = 12,
    bets_per_round: tuple[int, int] = (3, 14),
    cancel_rate: float = 0.08,
    game_name: str = DEFAULT_GAME,
    account_prefix: str = "",
) -> Session:
    """`table` None: the first table of the game's prefix."""
    rng = random.Random(seed)
    game = get_game(game_name)
    table = table or default_table(game_name)
    messages: list[dict[str, Any]] = []
    mirror: dict[str, int] = {}
    t = 0.0
    wallet_n = 0

    def set_wallet(account: str, balance: int) -> None:
        nonlocal wallet_n
        wallet_n += 1
        mirror[account] = balance
        messages.append({"key": f"wallet:{wallet_n}", "kind": "wallet", "t": t,
                         "account": account, "balance": balance})

    # a studio's tables share one ledger: `account_prefix` keeps each table's players apart
    names = [f"{account_prefix}u{i:02d}" for i in range(1, accounts + 1)]
    for name in names:
        set_wallet(name, rng.choice((300, 2_000, 20_000, 50_000, 100_000)))
    session = Session(messages=messages, balances=mirror)
    # each spot in one order, so a seed deals the same session
    spots = sorted(game.spots)
    deck = game.deck
    # a game whose plan is known only during the round (it waits for dice, say) deals its
    # positions in turn: on a shuffled shoe the order does not change what a hand is worth
    plan = game.deal_plan or tuple(game.positions) * (game.cards_per_round // len(game.positions))
    reserve = min(CUT_CARD_RESERVE, sum(deck.values()) // 4) + len(plan)
    shoe_no = 1
    shoe = new_shoe(rng, deck)
    round_no = 0
    for _ in range(rounds):
        if len(shoe) < reserve:
            shoe_no += 1
            round_no = 0
            shoe = new_shoe(rng, deck)
        round_no += 1
        round_id = f"{table}-S{shoe_no}-R{round_no}"
        t += 20.0
        if rng.random() < 0.05:
            who = rng.choice(names)
            set_wallet(who, mirror[who] + 5_000)  # a cashier top-up between rounds
        if not spots:  # a pot game: players act for a pot, no bet spots
            t = _pot_round(rng, session, round_id, names, t, cancel_rate)
            continue
        accepted: list[dict[str, Any]] = []
        held: dict[str, list[tuple[str, int]]] = {}
        for _ in range(rng.randint(*bets_per_round)):
            account, spot, amount = rng.choice(names), rng.choice(spots), rng.choice(AMOUNTS)
            try:
                deducted = game.check_bet(spot, amount, held.get(account, ()))
            except BetError:
                continue  # refused (a spot in conflict with the account's others this round)
            if mirror[account] < deducted:
                continue  # refused (insufficient_funds): the table core sends nothing
            mirror[account] -= deducted
            held.setdefault(account, []).append((spot, amount))
            t += 0.1
            bet = {"key": f"bet:{round_id}:{len(accepted) + 1}", "kind": "bet", "t": t,
                   "round_id": round_id, "game": game.name, "account": account, "spot": spot,
                   "amount": amount, "deducted": deducted}
            accepted.append(bet)
            messages.append(bet)
            session.bet_keys.append(bet["key"])
        session.bets += len(accepted)
        hands: dict[str, list[Card]] = {p: [] for p in game.positions}
        for target in plan:
            card = shoe.pop()
            if target != BURN:
                hands[target].append(card)
        t += 15.0
        if rng.random() < cancel_rate:
            messages.append({"key": f"cancel:{round_id}", "kind": "round_cancelled", "t": t,
                             "round_id": round_id, "reason": rng.choice(CANCEL_REASONS)})
            for bet in accepted:
                mirror[bet["account"]] += bet["deducted"]
            session.rounds_cancelled += 1
            continue
        settlement = []
        for bet in accepted:
            returned = game.returned(bet["spot"], bet["amount"], hands)
            mirror[bet["account"]] += returned
            settlement.append({k: bet[k] for k in ("account", "spot", "amount", "deducted")}
                              | {"returned": returned})
        messages.append({
            "key": f"hand:{round_id}", "kind": "hand", "t": t, "round_id": round_id,
            "game": game.name, "cards": {p: [str(c) for c in cs] for p, cs in hands.items()},
            "results": game.evaluate(hands), "validated_by": ["shoe", "camera"],
            "settlement": settlement,
        })
        session.rounds_settled += 1
    return session


def _pot_round(rng: random.Random, session: Session, round_id: str, names: list[str],
               t: float, cancel_rate: float) -> float:
    """A pot game's round: two to four players put antes and bets into the game's pot, which
    goes to the winners (or, cancelled, back to who put it in). Returns the time after it."""
    mirror, messages = session.balances, session.messages
    players = rng.sample(names, min(len(names), rng.randint(2, 4)))
    put_in: dict[str, int] = {}
    n = 0
    for what in ("ante", "bet", "bet"):
        for account in players:
            amount = rng.choice(AMOUNTS)
            if mirror[account] < amount:
                continue  # the table takes no action the player cannot pay for
            mirror[account] -= amount
            put_in[account] = put_in.get(account, 0) + amount
            n += 1
            t += 0.5
            messages.append({"key": f"pot_in:{round_id}:{n}", "kind": "pot_in", "t": t,
                             "round_id": round_id, "account": account, "amount": amount,
                             "what": what})
    t += 15.0
    if not put_in:
        return t
    if rng.random() < cancel_rate:
        messages.append({"key": f"pot_cancelled:{round_id}", "kind": "pot_cancelled", "t": t,
                         "round_id": round_id, "reason": rng.choice(CANCEL_REASONS),
                         "refunds": [{"account": a, "amount": x} for a, x in put_in.items()]})
        for account, amount in put_in.items():
            mirror[account] += amount
        session.rounds_cancelled += 1
        return t
    pot = sum(put_in.values())
    winners = rng.sample(sorted(put_in), rng.randint(1, min(2, len(put_in))))
    payouts = {w: pot // len(winners) for w in winners}
    payouts[winners[0]] += pot - sum(payouts.values())
    messages.append({"key": f"pot_settled:{round_id}", "kind": "pot_settled", "t": t,
                     "round_id": round_id, "payouts": payouts})
    for account, amount in payouts.items():
        mirror[account] += amount
    session.rounds_settled += 1
    return t


def open_journal(path: str | Path) -> sqlite3.Connection:
    """The station side's SQLite file: its journal and the settlement outbox, durable."""
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.executescript(JOURNAL_SCHEMA + OUTBOX_SCHEMA)
    return conn


class MiniStation:
    """Journals steps and enqueues their messages atomically; delivers with a worker."""

    def __init__(self, journal_path: str | Path, transport: Transport,
                 *, on_error: Callable[[Exception, str | None], None] | None = None,
                 max_backoff: float = 5.0) -> None:
        self.journal_path = Path(journal_path)
        self.conn = open_journal(self.journal_path)
        self.worker = DeliveryWorker(self.journal_path, transport, on_error=on_error,
                                     max_backoff=max_backoff)

    def journaled_steps(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0]

    def run(self, messages: list[dict[str, Any]], *, pace: float = 0.0,
            drain_timeout: float = 120.0) -> bool:
        """Journal every step not yet journaled, then deliver all. True when all delivered."""
        done = self.journaled_steps()
        self.worker.start()
        for step in range(done, len(messages)):
            message = messages[step]
            self.conn.execute("BEGIN IMMEDIATE")
            self.conn.execute("INSERT INTO journal (step, t, record) VALUES (?, ?, ?)",
                              (step, time.time(), json.dumps(message)))
            enqueue(self.conn, message)
            self.conn.execute("COMMIT")
            self.worker.wake()
            if pace and message["kind"] in ("hand", "round_cancelled"):
                time.sleep(pace)
        return self.worker.drain(drain_timeout)

    def close(self) -> None:
        self.worker.stop()
        self.conn.close()


class BetBook:
    """A small, real bet intake for the HTTP bet API and its benchmark.

    Decides each bet like the table core (first applicable TRACES.md reason of ``no_round``,
    ``betting_closed``, ``bad_spot``, ``bad_amount``, ``limit``, ``insufficient_funds``),
    journals the decisions of one call and enqueues the accepted bets in one transaction.
    """

    def __init__(self, journal_path: str | Path, *, game: str = DEFAULT_GAME,
                 clock: Callable[[], float] = time.time, limit: int | None = None) -> None:
        self.conn = open_journal(journal_path)
        self.game = get_game(game)
        self.clock = clock
        self.limit = limit
        self.round_id: str | None = None
        self.closes_at = 0.0
        self.balances: dict[str, int] = {}
        self._lock = threading.Lock()
        self._wallet_n = 0
        self._bet_n = 0
        self._step = self.conn.execute("SELECT COUNT(*) FROM journal").fetchone()[0]

    def _journal(self, record: Mapping[str, Any], message: Mapping[str, Any] | None) -> None:
        self.conn.execute("INSERT INTO journal (step, t, record) VALUES (?, ?, ?)",
                          (self._step, self.clock(), json.dumps(record)))
        self._step += 1
        if message is not None:
            enqueue(self.conn, message)

    def set_wallet(self, account: str, balance: int) -> None:
        with self._lock:
            self._wallet_n += 1
            message = {"key": f"wallet:{self._wallet_n}", "kind": "wallet", "t": self.clock(),
                       "account": account, "balance": balance}
            self.conn.execute("BEGIN IMMEDIATE")
            self._journal({"wallet": {"account": account, "balance": balance}}, message)
            self.conn.execute("COMMIT")
            self.balances[account] = balance

    def open_round(self, round_id: str, closes_at: float) -> None:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            self._journal({"round_open": round_id, "closes_at": closes_at}, None)
            self.conn.execute("COMMIT")
            self.round_id, self.closes_at = round_id, closes_at
            self._bet_n = 0

    def place_bets(self, bets: list[dict[str, Any]]) -> list[dict[str, Any]]:
        with self._lock:
            now = self.clock()
            records = []
            self._accepted_in_call: list[dict[str, Any]] = []
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                for bet in bets:
                    record, message = self._decide(now, bet)
                    self._journal({"bet": bet, "decision": record}, message)
                    records.append(record)
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            for record in records:  # only once durable does the mirror move
                if record["type"] == "bet_accepted":
                    self.balances[record["account"]] -= record["deducted"]
            return records

    def _decide(self, now: float, bet: Mapping[str, Any]) -> tuple[dict[str, Any], dict | None]:
        account, spot, amount = bet["account"], bet["spot"], bet["amount"]
        base = {"t": now, "account": account, "spot": spot, "amount": amount}

        def rejected(reason: str) -> tuple[dict[str, Any], None]:
            return {"type": "bet_rejected", **base, "reason": reason}, None

        if self.round_id is None:
            return rejected("no_round")
        if now >= self.closes_at:
            return rejected("betting_closed")
        try:
            deducted = self.game.check_bet(spot, amount)
        except BetError as exc:
            return rejected(exc.reason)
        if self.limit is not None and amount > self.limit:
            return rejected("limit")
        # what this call has already accepted is not yet in the mirror
        pending = sum(m["deducted"] for m in self._accepted_in_call if m["account"] == account)
        if self.balances.get(account, 0) - pending < deducted:
            return rejected("insufficient_funds")
        self._bet_n += 1
        message = {"key": f"bet:{self.round_id}:{self._bet_n}", "kind": "bet", "t": now,
                   "round_id": self.round_id, "game": self.game.name, "account": account,
                   "spot": spot, "amount": amount, "deducted": deducted}
        self._accepted_in_call.append(message)
        record = {"type": "bet_accepted", **base, "round_id": self.round_id, "deducted": deducted}
        return record, message


def _main(argv: list[str]) -> int:
    """One mini station process for the crash drills (see tests/settlement)."""
    from station.settlement.core import SettlementCore
    from station.settlement.transport import HttpTransport, InProcessTransport

    parser = argparse.ArgumentParser(prog="python -m station.settlement.sim")
    parser.add_argument("--journal", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--pace", type=float, default=0.0, help="seconds to wait after each round")
    parser.add_argument("--accounts", type=int, default=12)
    parser.add_argument("--bets-per-round", type=int, nargs=2, default=(3, 14), metavar=("MIN", "MAX"))
    parser.add_argument("--ledger", help="settle in-process on this ledger file")
    parser.add_argument("--url", help="settle through `station settlement serve` at this URL")
    parser.add_argument("--secret-env", default="SETTLEMENT_SECRET")
    parser.add_argument("--bus", help="publish to the studio bus (NATS JetStream) at this URL")
    parser.add_argument("--game", default=DEFAULT_GAME, help="the game dealt (default %(default)s)")
    parser.add_argument("--table", help="the table's name (round ids, bus subject; default: the "
                                        "first of the game's prefix)")
    parser.add_argument("--account-prefix", default="", help="prefix of the players' accounts")
    parser.add_argument("--max-backoff", type=float, default=0.5,
                        help="longest wait between delivery retries, seconds")
    args = parser.parse_args(argv)
    if args.game not in GAMES:
        parser.error(f"--game {args.game!r}: no such game (games: {', '.join(GAMES)})")
    args.table = args.table or default_table(args.game)
    session = plan_session(args.seed, args.rounds, accounts=args.accounts,
                           bets_per_round=tuple(args.bets_per_round), table=args.table,
                           game_name=args.game, account_prefix=args.account_prefix)
    core = None
    if args.bus:
        from station.settlement.bus import NatsTransport

        transport = NatsTransport(args.bus, args.table, publish_timeout_s=2.0)
    elif args.url:
        transport: Transport = HttpTransport(args.url, os.environ[args.secret_env], timeout=10)
    elif args.ledger:
        core = SettlementCore(args.ledger)
        transport = InProcessTransport(core)
    else:
        parser.error("give --ledger or --url")
    station = MiniStation(args.journal, transport, max_backoff=args.max_backoff,
                          on_error=lambda exc, key: print(f"delivery: {exc}", file=sys.stderr))
    ok = station.run(session.messages, pace=args.pace)
    station.close()
    transport.close()
    if core is not None:
        core.close()
    print(json.dumps({"delivered": ok, "steps": len(session.messages)}), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
