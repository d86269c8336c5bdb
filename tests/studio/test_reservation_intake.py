"""The reservation answer as an input of the table: two real Pok Deng stations bet one shared
wallet at once through their bet intake, which reserves each bet in the studio ledger over the
bus and journals the ledger's answer before the bet; the wallet never goes below zero, the
rounds settle through the bus, and each journal re-applies to the same records without the
ledger being asked again."""

from __future__ import annotations

import random
import shutil
import threading
from collections import Counter

from station.cards import parse_card
from station.core.inputs import US, parse_input
from station.core.journal import Journal
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.core.settings import TableSettings
from station.games.pokdeng.tools.script import GAME, PokDengScript, hands_of
from station.live.table_station import TableStation
from station.settlement.bus import NatsTransport, Reserver
from station.settlement.core import SettlementCore
from station.settlement.outbox import DeliveryWorker
from tests.studio.test_bus import RunningConsumer
from tests.waiting import pace

WALLET = 3_000
BETS_PER_TABLE = 20  # 40 bets of 100 (deducted 200 on P-spots) on a wallet of 3,000


class Table:
    def __init__(self, name: str, seed: int, folder, bus: str) -> None:
        rng = random.Random(seed)
        deck = sorted(str(c) for c in GAME.deck.elements())
        rng.shuffle(deck)
        first = deck.pop()
        burns = [deck.pop() for _ in range(GAME.burn_count(parse_card(first)))]
        cards = [deck.pop() for _ in range(GAME.cards_per_round)]
        s = PokDengScript(table=name, settings={"betting_seconds": 10})
        s.start_shoe(first, burns).open_round()
        self.before_bets = list(s.lines)
        s.wait(0.5).deal(cards).until_closed().reveal(hands_of(cards)).clear_zones()
        self.after_bets = s.lines[len(self.before_bets):]
        self.now_s = 0.0
        self.journal = folder / f"{name}.journal.sqlite"
        self.station = TableStation(TableSettings(table=name, betting_seconds=10), self.journal,
                                    clock=lambda: self.now_s, journal_sync="normal")
        self.reserver = Reserver(bus, name)
        self.station.reserve_bet = lambda bet: self.reserver.reserve(bet, timeout_s=5)
        self.transport = NatsTransport(bus, name)
        self.worker = DeliveryWorker(self.journal, self.transport)
        self.station.on_outbox = self.worker.wake
        self.station.start()
        self.worker.start()

    def feed(self, lines) -> None:
        for n, line in enumerate(lines):
            inp = parse_input(line, n + 2)
            self.now_s = inp.t_us / US
            self.station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)

    def close(self) -> None:
        self.station.stop()
        self.worker.stop()
        self.transport.close()
        self.reserver.close()


def test_tables_sharing_a_wallet_reserve_at_intake_and_replay_without_the_ledger(
        tmp_path, local_nats, studio_ledger):
    core = SettlementCore(studio_ledger)
    core.apply({"key": "wallet:1", "kind": "wallet", "account": "shared", "balance": WALLET},
               table="CAGE")
    consumer = RunningConsumer(core, local_nats.url)
    tables = [Table(name, seed, tmp_path, local_nats.url)
              for name, seed in (("PD-41", 1), ("PD-42", 2))]
    decisions: dict[str, list[dict]] = {}
    lowest: list[int] = []
    try:
        consumer.wait_subscribed()  # the consumer's reservation service is on the bus
        for t in tables:
            t.feed(t.before_bets)  # a shoe started, betting open
        stop = threading.Event()

        def watch() -> None:  # the shared wallet as the ledger has it, while the tables bet
            while not stop.is_set():
                lowest.append(core.balances().get("shared", 0))
                pace(0.01)  # the watcher's look every hundredth of a second

        def bettor(t: Table) -> None:
            decisions[t.station.settings.table] = [
                t.station.place_bets([{"account": "shared", "spot": f"P{1 + n % 5}",
                                       "amount": 100}])[0]
                for n in range(BETS_PER_TABLE)]

        watcher = threading.Thread(target=watch)
        watcher.start()
        threads = [threading.Thread(target=bettor, args=(t,)) for t in tables]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        stop.set()
        watcher.join(10)
        accepted = [d for ds in decisions.values() for d in ds if d["type"] == "bet_accepted"]
        rejected = Counter(d["reason"] for ds in decisions.values() for d in ds
                           if d["type"] == "bet_rejected")
        # exactly what the wallet covers was accepted across both tables, never more
        assert sum(d["deducted"] for d in accepted) == WALLET
        assert rejected == {"insufficient_funds": 2 * BETS_PER_TABLE - len(accepted)}
        assert min(lowest) >= 0 and core.balances()["shared"] == 0
        # each table's own mirror of the shared wallet follows the ledger's answers
        for t in tables:
            assert t.station.core.balances["shared"] >= 0
            t.feed(t.after_bets)  # the round is dealt, validated and settled
            assert t.worker.drain(30)
        messages = sum(t.worker.delivered for t in tables)
        consumer.wait_applied(messages)
    finally:
        consumer.stop()
        for t in tables:
            t.close()
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["refused"] == 0 and report.figures["bets_released"] == 0
    assert report.figures["bets_settled"] == len(accepted)

    for t in tables:
        # the answers are in the journal, each just before its bet
        journal = Journal(t.journal)
        inputs = [inp for _, inp in journal.inputs()]
        answers = [inp for inp in inputs if inp.kind == "reservation_answer"]
        assert len(answers) == BETS_PER_TABLE
        assert {a.value["answer"] for a in answers} <= {"reserved", "insufficient_funds"}
        # replay without any ledger: the same records, input by input
        kernel = TableKernel(settings_from_header(journal.header),
                             journal_id=journal.journal_id)
        remade = []
        for inp in inputs:
            kernel.apply(inp)
            remade.extend(kernel.take_outputs()[0])
        assert remade == list(journal.stored_records())
        journal.close()
        # and a station restarted on a copy of the journal carries on without asking
        copy = tmp_path / f"copy-{t.journal.name}"
        shutil.copy(t.journal, copy)
        again = TableStation(t.station.settings, copy, clock=lambda: 0.0)

        def never(bet):
            raise AssertionError(f"replay asked the ledger about {bet['key']}")

        again.reserve_bet = never
        assert again.recover() == len(inputs)
        assert again.core.balances == t.station.core.balances
        again.journal.close()
    core.close()
