"""Wallets shared across tables: each table's bet intake reserves its bets in the studio ledger
over the bus before accepting them; the outbox then carries the same bets; a reservation the
table never listed is released when its round closes."""

from __future__ import annotations

import threading

from station.cards import parse_card
from station.games import get_game
from station.settlement.bus import NatsTransport, Reserver
from station.settlement.core import SettlementCore
from station.settlement.sim import MiniStation
from tests.studio.test_bus import RunningConsumer

CARDS = {"P1": ["7H", "2H"], "P2": ["AS", "2C"], "P3": ["KS", "QS"], "P4": ["5D", "5C"],
         "P5": ["3H", "4D"], "B": ["6S", "TC"]}


def bet(table: str, n: int, account: str = "shared") -> dict:
    return {"key": f"bet:{table}-R1:{n}", "kind": "bet", "round_id": f"{table}-R1",
            "game": "pokdeng", "account": account, "spot": "P1", "amount": 50, "deducted": 100}


def test_tables_reserve_a_shared_wallet_and_settle_through_the_bus(tmp_path, local_nats,
                                                                   studio_ledger):
    game = get_game("pokdeng")
    hands = {p: [parse_card(c) for c in cs] for p, cs in CARDS.items()}
    core = SettlementCore(studio_ledger)
    core.apply({"key": "wallet:1", "kind": "wallet", "account": "shared", "balance": 1000},
               table="CAGE")
    consumer = RunningConsumer(core, local_nats.url)
    tables = ("PD-01", "PD-02", "PD-03")
    answers: dict[str, list[tuple[dict, dict]]] = {t: [] for t in tables}
    try:
        consumer.wait_subscribed()  # the consumer's reservation service is on the bus

        def intake(table: str) -> None:
            reserver = Reserver(local_nats.url, table)
            for n in range(1, 6):  # 15 bets of 100 on a wallet of 1,000, from three tables
                message = bet(table, n)
                answers[table].append((message, reserver.reserve(message, timeout_s=5)))
            reserver.close()

        threads = [threading.Thread(target=intake, args=(t,)) for t in tables]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        reserved = {t: [m for m, a in answers[t] if a["answer"] == "reserved"] for t in tables}
        others = [a["answer"] for t in tables for _, a in answers[t] if a["answer"] != "reserved"]
        assert sum(len(v) for v in reserved.values()) == 10  # exactly the wallet, never more
        assert set(others) == {"insufficient_funds"} and len(others) == 5
        assert core.balances() == {"shared": 0}
        # one station died after the ledger reserved its last bet and before it journaled the
        # answer: that bet is in no record of the table, so its hand does not list it
        crashed = next(t for t in tables if reserved[t])
        orphan = reserved[crashed].pop()
        expected_total = 0
        for table in tables:
            messages = list(reserved[table])
            settlement = []
            for m in messages:
                r = game.returned(m["spot"], m["amount"], hands)
                expected_total += r
                settlement.append({k: m[k] for k in ("account", "spot", "amount", "deducted")}
                                  | {"returned": r})
            messages.append({"key": f"hand:{table}-R1", "kind": "hand", "round_id": f"{table}-R1",
                             "game": "pokdeng", "cards": CARDS, "validated_by": ["shoe", "camera"],
                             "settlement": settlement})
            transport = NatsTransport(local_nats.url, table)
            station = MiniStation(tmp_path / f"{table}.db", transport)
            assert station.run(messages, drain_timeout=30)
            station.close()
            transport.close()
        wanted = sum(len(reserved[t]) + 1 for t in tables)
        consumer.wait_applied(wanted)
    finally:
        consumer.stop()
    assert consumer.consumer.refused == 0
    assert core.balances() == {"shared": expected_total + orphan["deducted"]}
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["bets_released"] == 1
    assert report.figures["refused"] == 0  # a reservation refused is an answer, not an alarm
    if orphan:
        assert core.applied("hand:PD-01-R1", table="PD-01")["released"] == 1
    core.close()
