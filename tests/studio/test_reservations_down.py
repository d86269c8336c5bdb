"""A studio table with reservations on while the bus is down (docs/studio.md, "The bus
down"): its bets are refused, recorded `insufficient_funds` (TRACES.md) with the ledger's
`unavailable` journaled and told to the player, the alarm is up (the table's public state for
the studio console, a metric) until the ledger answers again, and then bets are reserved and
accepted. A real Pok Deng station, a real nats-server (stopped, then started) and a real
PostgreSQL ledger behind the real settlement consumer."""

from __future__ import annotations

import pytest

from station.core.inputs import US, parse_input
from station.core.journal import Journal
from station.core.settings import TableSettings
from station.live.reservations import ReservationHealth
from station.live.table_station import SILENT_AFTER, TableStation
from station.metrics import REGISTRY
from station.settlement.bus import Reserver
from station.settlement.core import SettlementCore
from station.studio.state import TableState
from tests.studio.test_bus import RunningConsumer
from tests.studio.test_reservation_keys import shoe
from tests.waiting import wait_for

pytestmark = pytest.mark.postgres
TABLE = "PD-61"


def feed(station: TableStation, now: dict, lines) -> None:
    """The round's inputs up to open betting, on the test's clock."""
    for n, line in enumerate(lines):
        inp = parse_input(line, n + 2)
        now["s"] = inp.t_us / US
        station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)


def test_bets_are_refused_unavailable_and_alarmed_while_the_bus_is_down(
        tmp_path, local_nats, studio_ledger):
    core = SettlementCore(studio_ledger)
    core.apply({"key": "wallet:1", "kind": "wallet", "account": "A", "balance": 1000},
               table="CAGE")
    now = {"s": 0.0}
    station = TableStation(TableSettings(table=TABLE, betting_seconds=10),
                           tmp_path / "t.journal.sqlite", clock=lambda: now["s"],
                           journal_sync="normal")
    reserver = Reserver(local_nats.url, TABLE)
    station.reserve_bet = lambda bet: reserver.reserve(bet, timeout_s=0.5)
    station.reservation_health = ReservationHealth(TABLE)
    state = TableState(station, None)
    station.start()
    consumer = None
    gauge = REGISTRY.find("station_reservations_down")
    try:
        before, _ = shoe(4)
        feed(station, now, before)
        local_nats.stop()  # the studio bus goes away while betting is open
        refused = station.place_bets([{"account": "A", "spot": "P1", "amount": 100}])[0]
        assert refused["type"] == "bet_rejected"
        assert refused["reason"] == "insufficient_funds"  # the record keeps to TRACES.md
        assert refused["ledger"] == "unavailable"  # what the player is told
        down = state.state()["reservations"]
        assert down["down"] and down["policy"] == "refuse" and down["refused_while_down"] == 1
        assert gauge is not None and gauge.get(table=TABLE) == 1
        local_nats.start()
        consumer = RunningConsumer(core, local_nats.url)
        consumer.wait_subscribed()
        accepted = station.place_bets([{"account": "A", "spot": "P1", "amount": 100}])[0]
        assert accepted["type"] == "bet_accepted", accepted
        assert "ledger" not in accepted
        assert state.state()["reservations"]["down"] is False
        assert gauge.get(table=TABLE) == 0
    finally:
        station.stop()
        reserver.close()
        if consumer is not None:
            consumer.stop()
    # the journal keeps each of the ledger's answers as an input of the table
    journal = Journal(tmp_path / "t.journal.sqlite")
    try:
        answers = [inp.value["answer"] for _, inp in journal.inputs()
                   if inp.kind == "reservation_answer"]
    finally:
        journal.close()
    assert answers == ["unavailable", "reserved"]
    assert core.balances() == {"A": 800}  # the accepted bet alone is reserved (P1 deducts 2x)
    core.close()


def test_bets_are_taken_on_the_tables_credit_within_its_limit_and_reconciled_when_the_bus_returns(
        tmp_path, local_nats, studio_ledger):
    """The policy `credit` (docs/studio.md, "The bus down"): while the ledger does not answer,
    an account's bets are taken on the table's credit up to its limit, journaled `credit`,
    alarmed and shown; over the limit they are refused. When the bus is back the outbox brings
    them to the ledger, which books what the wallet cannot cover as the table's credit."""
    from station.settlement.bus import NatsTransport
    from station.settlement.outbox import DeliveryWorker
    from station.studio.console import _down_text

    table = "PD-62"
    core = SettlementCore(studio_ledger)
    core.apply({"key": "wallet:1", "kind": "wallet", "account": "A", "balance": 300},
               table="CAGE")
    now = {"s": 0.0}
    journal = tmp_path / "t.journal.sqlite"
    station = TableStation(TableSettings(table=table, betting_seconds=10), journal,
                           clock=lambda: now["s"], journal_sync="normal")
    reserver = Reserver(local_nats.url, table)
    station.reserve_bet = lambda bet: reserver.reserve(bet, timeout_s=0.5)
    station.reservation_health = ReservationHealth(table, "credit")
    station.credit_limit_minor = 500
    state = TableState(station, None)
    transport = NatsTransport(local_nats.url, table)
    worker = DeliveryWorker(journal, transport, max_backoff=0.2)
    station.on_outbox = worker.wake
    station.start()
    worker.start()
    consumer = None
    credit_gauge = REGISTRY.find("station_reservations_on_credit_minor")

    def feed(lines) -> None:
        for n, line in enumerate(lines):
            inp = parse_input(line, n + 2)
            now["s"] = inp.t_us / US
            station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)

    try:
        before, after = shoe(5)
        feed(before)
        local_nats.stop()  # the studio bus goes away while betting is open
        # each P-spot bet of 100 deducts 200: two fit the limit of 500, the third does not
        taken = [station.place_bets([{"account": "A", "spot": f"P{n}", "amount": 100}])[0]
                 for n in (1, 2, 3)]
        assert [d["type"] for d in taken] == ["bet_accepted", "bet_accepted", "bet_rejected"]
        assert [d.get("ledger") for d in taken] == ["credit", "credit", "unavailable"]
        assert taken[2]["reason"] == "insufficient_funds"
        down = state.state()["reservations"]
        assert down["down"] and down["policy"] == "credit"
        assert (down["on_credit_bets"], down["on_credit"], down["refused_while_down"]) == (2, 400, 1)
        assert credit_gauge is not None and credit_gauge.get(table=table) == 400
        # the table's own console shows it too (its public view)
        wait_for(lambda: (station.view.get("reservations") or {}).get("on_credit") == 400, 10,
                 lambda: f"the table's view to show the credit: {station.view.get('reservations')}")
        assert _down_text({"table": table, "reservations": down}) == (
            f"{table} (on table credit: 2 bets, 400; refused 1)")
        local_nats.start()
        consumer = RunningConsumer(core, local_nats.url)
        consumer.wait_subscribed()
        feed(after)  # the round is dealt and settled; the outbox catches up on the bus
        assert worker.drain(60)
        consumer.wait_caught_up()
        assert state.state()["reservations"]["down"]  # no reservation was answered since
    finally:
        station.stop()
        worker.stop()
        transport.close()
        reserver.close()
        if consumer is not None:
            consumer.stop()
    j = Journal(journal)
    try:
        answers = [inp.value for _, inp in j.inputs() if inp.kind == "reservation_answer"]
    finally:
        j.close()
    assert [a["answer"] for a in answers] == ["credit", "credit", "unavailable"]
    assert [a.get("amount") for a in answers[:2]] == [200, 200]
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    # the wallet covered the first (300 of 400); 100 of the second is the table's credit
    assert report.figures["bets_on_credit"] == 1 and report.figures["credit_extended"] == 100
    assert report.figures["refused"] == 0 and report.figures["bets_settled"] == 2
    core.close()


def test_a_call_of_many_bets_asks_the_silent_ledger_once(tmp_path, local_nats, studio_ledger):
    """During a cut of the bus every reservation waits out its timeout on the table's input
    thread. Once a few went unanswered, the other bets that arrived with them are not asked:
    the call is decided in a few timeouts (40 timeouts of 0.5 s would outlast the 10 s its caller
    waits, while the table went on deciding), each refused bet journaled `unavailable` with
    why it was not asked, and the player told `unavailable`."""
    table = "PD-63"
    now = {"s": 0.0}
    journal = tmp_path / "t.journal.sqlite"
    station = TableStation(TableSettings(table=table, betting_seconds=10), journal,
                           clock=lambda: now["s"], journal_sync="normal")
    reserver = Reserver(local_nats.url, table)
    asked: list[str] = []

    def reserve(bet):
        asked.append(bet["key"])
        return reserver.reserve(bet, timeout_s=0.5)

    station.reserve_bet = reserve
    station.reservation_health = ReservationHealth(table)
    station.start()
    try:
        before, _ = shoe(6)
        feed(station, now, before)
        local_nats.stop()
        bets = [{"account": f"A{i}", "spot": f"P{1 + i % 5}", "amount": 10} for i in range(40)]
        decided = station.place_bets(bets)
        assert len(asked) == SILENT_AFTER, asked  # then the rest are not asked
        assert [d["type"] for d in decided] == ["bet_rejected"] * 40
        assert {d["ledger"] for d in decided} == {"unavailable"}
        assert station.reservation_health.state()["refused_while_down"] == 40
    finally:
        station.stop()
        reserver.close()
    j = Journal(journal)
    try:
        answers = [inp.value for _, inp in j.inputs() if inp.kind == "reservation_answer"]
    finally:
        j.close()
    assert [a["answer"] for a in answers] == ["unavailable"] * 40
    assert not any(a["detail"].startswith("not asked") for a in answers[:SILENT_AFTER])
    assert all(a["detail"].startswith("not asked") for a in answers[SILENT_AFTER:])
