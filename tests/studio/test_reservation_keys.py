"""Reservation keys at a studio table's bet intake (docs/studio.md): every reservation request
asks under a key of its own, so an attempt the table never accepted — the ledger answered too
late, or the table crashed before its journal kept the answer — never blocks the round's next
bet with `key_reused`; the ledger releases the orphan when the hand closes the round, and the
ledger's answers become TRACES.md §3 reasons. A real Pok Deng station and a real ledger file;
the request/reply the bus would carry is a direct call here."""

from __future__ import annotations

import random

from station.cards import parse_card
from station.core.inputs import US, parse_input
from station.core.journal import Journal
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.core.settings import TableSettings
from station.games.pokdeng.tools.script import GAME, PokDengScript, hands_of
from station.live.table_station import TableStation
from station.settlement.core import SettlementCore
from station.settlement.outbox import DeliveryWorker

TABLE = "PD-51"
TRACES_REASONS = {"no_round", "betting_closed", "paused", "bad_spot", "bad_amount", "limit",
                  "insufficient_funds"}


class Ledger:
    """The reservation service and the outbox's delivery, without the bus: the same calls
    the settlement process makes (`apply_batch(..., reservation=True)` for a request)."""

    def __init__(self, path) -> None:
        self.core = SettlementCore(path)
        self.late: set[str] = set()  # accounts whose next reservation commits, then times out
        self.asked: list[str] = []

    def reserve(self, bet: dict) -> dict:
        self.asked.append(bet["key"])
        outcome = self.core.apply_batch([bet], table=TABLE, reservation=True)
        if bet["account"] in self.late:
            self.late.discard(bet["account"])
            raise TimeoutError("no answer within the reservation timeout")
        if outcome.refused is not None:
            return {"answer": outcome.refused.reason, "detail": outcome.refused.detail}
        return {"answer": "reserved", "result": outcome.results[0]}

    def deliver(self, messages: list[dict]):
        return self.core.apply_batch(messages, table=TABLE)

    def close(self) -> None:
        pass


class Crash(BaseException):
    """The table PC loses power: nothing after this point of the transaction is kept."""


def shoe(seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    deck = sorted(str(c) for c in GAME.deck.elements())
    rng.shuffle(deck)
    first = deck.pop()
    burns = [deck.pop() for _ in range(GAME.burn_count(parse_card(first)))]
    cards = [deck.pop() for _ in range(GAME.cards_per_round)]
    s = PokDengScript(table=TABLE, settings={"betting_seconds": 10})
    s.start_shoe(first, burns).open_round()
    before = list(s.lines)
    s.wait(0.5).deal(cards).until_closed().reveal(hands_of(cards)).clear_zones()
    return before, s.lines[len(before):]


class Table:
    def __init__(self, journal, ledger: Ledger, now_s: float = 0.0) -> None:
        self.now_s = now_s  # a restarted table's clock goes on from where it stopped
        self.journal = journal
        self.station = TableStation(TableSettings(table=TABLE, betting_seconds=10), journal,
                                    clock=lambda: self.now_s, journal_sync="normal")
        self.station.reserve_bet = ledger.reserve
        self.station.start()

    def feed(self, lines) -> None:
        for n, line in enumerate(lines):
            inp = parse_input(line, n + 2)
            self.now_s = inp.t_us / US
            self.station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)

    def bet(self, account: str, spot: str, amount: int) -> dict:
        return self.station.place_bets([{"account": account, "spot": spot, "amount": amount}])[0]


def settle(journal, ledger: Ledger) -> None:
    worker = DeliveryWorker(journal, ledger)
    assert worker.drain(30)


def replays_alone(journal_path) -> None:
    """The journal re-applies to its stored records input by input, with no ledger."""
    journal = Journal(journal_path)
    try:
        kernel = TableKernel(settings_from_header(journal.header), journal_id=journal.journal_id)
        remade = []
        for _, inp in journal.inputs():
            kernel.apply(inp)
            remade.extend(kernel.take_outputs()[0])
        assert remade == list(journal.stored_records())
    finally:
        journal.close()


def closures(ledger: Ledger) -> dict[str, str]:
    """How the ledger closed each of the table's bets, by key."""
    with ledger.core.store.transaction() as tx:
        return {key: outcome for key, outcome in tx.execute(
            "SELECT b.key, c.outcome FROM bets b JOIN bet_closures c ON c.bet_id = b.id"
            " WHERE b.table_id = ?", (TABLE,))}


def fund(ledger: Ledger, **balances: int) -> None:
    for n, (account, balance) in enumerate(balances.items()):
        ledger.core.apply({"key": f"wallet:{n + 1}", "kind": "wallet", "account": account,
                           "balance": balance}, table="CAGE")


def test_a_reservation_answered_too_late_does_not_block_the_rounds_next_bets(tmp_path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    fund(ledger, A=10_000, B=10_000)
    before, after = shoe(7)
    table = Table(tmp_path / "t.journal.sqlite", ledger)
    try:
        table.feed(before)
        ledger.late.add("A")  # the ledger commits A's reservation; its answer comes too late
        first = table.bet("A", "P1", 100)
        others = [table.bet("B", "P2", 100), table.bet("A", "P3", 100)]
        assert first["type"] == "bet_rejected" and first["reason"] == "insufficient_funds"
        assert [d["type"] for d in others] == ["bet_accepted", "bet_accepted"]
        assert len(set(ledger.asked)) == 3  # each attempt its own key
        table.feed(after)
    finally:
        table.station.stop()
    settle(table.journal, ledger)
    report = ledger.core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["bets_released"] == 1 and report.figures["bets_settled"] == 2
    assert report.figures["refused"] == 0
    replays_alone(table.journal)
    ledger.core.close()


def test_a_crash_between_the_ledgers_commit_and_the_journals_leaves_no_key_behind(tmp_path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    fund(ledger, A=10_000, B=10_000)
    before, after = shoe(11)
    journal = tmp_path / "t.journal.sqlite"
    table = Table(journal, ledger)

    def commit_then_die(bet: dict) -> dict:
        ledger.reserve(bet)
        raise Crash()

    try:
        table.feed(before)
        table.station.reserve_bet = commit_then_die
        try:
            table.bet("A", "P1", 100)
        except Exception:  # noqa: BLE001 - the caller hears the table stopped
            pass
    finally:
        table.station.stop()
    assert len(ledger.asked) == 1  # reserved in the ledger, unknown to the journal
    orphan = ledger.asked[0]
    table = Table(journal, ledger, table.now_s)  # the table PC restarts on its journal
    try:
        # the player bets again, the same line: two bets of A on P1 for 100 in the ledger
        decisions = [table.bet("B", "P2", 100), table.bet("A", "P1", 100)]
        assert [d["type"] for d in decisions] == ["bet_accepted", "bet_accepted"]
        table.feed(after)
    finally:
        table.station.stop()
    accepted = ledger.asked[-1]
    settle(journal, ledger)
    report = ledger.core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["bets_released"] == 1 and report.figures["bets_settled"] == 2
    # the ledger tells the two alike apart: the bet the table accepted is settled, the
    # reservation it never knew is released (not the other way round, which moves the same
    # money but puts the wrong record on each key)
    outcome = closures(ledger)
    assert (outcome[orphan], outcome[accepted]) == ("released", "settled"), outcome
    replays_alone(journal)
    ledger.core.close()


def test_every_answer_but_reserved_is_a_traces_reason(tmp_path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    fund(ledger, A=250)  # a bet on a P spot deducts twice its amount
    before, _ = shoe(3)
    table = Table(tmp_path / "t.journal.sqlite", ledger)
    answers = iter([{"answer": "no_wallet", "detail": "no wallet for C"},
                    {"answer": "key_reused", "detail": "other content"},
                    {"answer": "malformed", "detail": "?"}])
    try:
        table.feed(before)
        got = [table.bet("A", "P1", 100)["type"], table.bet("A", "P2", 100)["reason"]]
        table.station.reserve_bet = lambda bet: next(answers)
        got += [table.bet(a, "P3", 10)["reason"] for a in ("C", "A", "A")]
    finally:
        table.station.stop()
    assert got == ["bet_accepted"] + ["insufficient_funds"] * 4
    assert set(got[1:]) <= TRACES_REASONS
    ledger.core.close()


def test_one_unanswered_reservation_does_not_silence_the_rest_of_its_call(tmp_path) -> None:
    """A single reservation left unanswered (a slow moment of a live ledger) is refused alone:
    the other bets of the same call are still asked and reserved. Only a few unanswered in a
    row make the table stop asking for the rest of the call (the bus is away)."""
    ledger = Ledger(tmp_path / "ledger.sqlite")
    fund(ledger, A=10_000, B=10_000, C=10_000, D=10_000)
    before, after = shoe(8)
    table = Table(tmp_path / "t.journal.sqlite", ledger)
    try:
        table.feed(before)
        ledger.late.add("A")
        decided = table.station.place_bets(
            [{"account": a, "spot": f"P{n + 1}", "amount": 100} for n, a in enumerate("ABCD")])
        assert [d["type"] for d in decided] == ["bet_rejected"] + ["bet_accepted"] * 3
        assert decided[0]["ledger"] == "unavailable"
        assert len(ledger.asked) == 4
        table.feed(after)
    finally:
        table.station.stop()
    settle(tmp_path / "t.journal.sqlite", ledger)
    replays_alone(tmp_path / "t.journal.sqlite")
