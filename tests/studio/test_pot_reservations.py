"""A pot game on shared wallets (docs/studio.md, "Pot games in the studio"): a real Si Zhi Dao
station with `reserve` reserves each ante, bet and buy-in in the studio ledger over the bus
before its game takes the money, journals the answers as inputs, and its books close; an
orphaned reservation is released when the game settles; and a Pok Deng table and a Si Zhi Dao
table spending one player's wallet at once never take it below zero."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from station.cli import main as station_main
from station.core.inputs import US, parse_input
from station.core.journal import Journal
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.core.settings import TableSettings
from station.games.sizhidao.script import SzTraceScript
from station.games.sizhidao.settings import SiZhiDaoSettings
from station.live.table_station import TableStation
from station.settlement.bus import NatsTransport, Reserver
from station.settlement.core import SettlementCore
from station.settlement.outbox import DeliveryWorker
from tests.studio.test_bus import RunningConsumer
from tests.studio.test_reservation_intake import Table as PokDengTable
from tests.waiting import pace, wait_for

ACES = "AS AD AC AH".split()
LOW = "2C 3C 4H 5H".split()
MID = "6C 7S 8S 9S".split()


class SzTable:
    """A real Si Zhi Dao station on its journal, its outbox on the bus, reserving in the studio
    ledger; fed script lines on a virtual clock."""

    def __init__(self, name: str, folder: Path, bus: str, *, reserve=None,
                 timeout_s: float = 5) -> None:
        self.name = name
        self.now_s = 0.0
        self.journal = folder / f"{name}.journal.sqlite"
        self.settings = TableSettings(table=name, game="sizhidao", camera=True,
                                      game_settings=SiZhiDaoSettings(
                                          ante=100, decision_seconds=15, arrange_seconds=10,
                                          buy_in_seconds=10))
        self.station = TableStation(self.settings, self.journal, clock=lambda: self.now_s,
                                    journal_sync="normal")
        self.reserver = Reserver(bus, name)
        self.requests: list[dict[str, Any]] = []

        def ask(request: dict[str, Any]) -> dict[str, Any]:
            self.requests.append(request)
            if reserve is not None:
                return reserve(self.reserver, request)
            return self.reserver.reserve(request, timeout_s=timeout_s)

        self.station.reserve_bet = ask
        self.transport = NatsTransport(bus, name)
        self.worker = DeliveryWorker(self.journal, self.transport)
        self.station.on_outbox = self.worker.wake
        self.records: list[dict[str, Any]] = []
        self.station.add_listener(self.records.extend)
        self.station.start()
        self.worker.start()

    def feed(self, line: dict[str, Any]) -> None:
        inp = parse_input(line, 2)
        self.now_s = inp.t_us / US
        if inp.kind != "end":
            self.station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)

    def follow(self, s: SzTraceScript) -> SzTraceScript:
        """Feed the script's lines so far, then each as it is written (the devices live)."""
        for line in s.lines:
            self.feed(line)
        s.on_line = self.feed
        self.script = s
        return s

    def act(self, account: str, action: str, after_s: float = 1.0,
            **fields: Any) -> list[dict[str, Any]]:
        """A player's action through the player API's path, `after_s` after the last line
        (the shoe and the camera go on meanwhile)."""
        self.script.wait(after_s)
        self.now_s = self.script.t
        return self.station.player_action({"account": account, "action": action, **fields})

    def close(self) -> None:
        self.station.stop()
        self.worker.stop()
        self.transport.close()
        self.reserver.close()


def script(sz: SzTable, seats: list[tuple[str, str]]) -> SzTraceScript:
    """Players sit (no wallet lines: the wallets are the studio's), the dealer opens a game
    (the antes) and shuffles."""
    s = sz.follow(SzTraceScript(table=sz.name))
    for account, seat in seats:
        s.player(account, "sit", seat=seat).wait(0.5)
    s.wait(1).dealer("open_betting").wait(1).shuffle()
    return s


def replays_to_its_records(journal_path: Path) -> list[dict[str, Any]]:
    """Re-apply the journal's inputs on a fresh kernel without any ledger; the answers."""
    journal = Journal(journal_path)
    try:
        inputs = [inp for _, inp in journal.inputs()]
        kernel = TableKernel(settings_from_header(journal.header), journal_id=journal.journal_id)
        remade = []
        for inp in inputs:
            kernel.apply(inp)
            remade.extend(kernel.take_outputs()[0])
        assert remade == list(journal.stored_records())
        return [inp.value for inp in inputs if inp.kind == "reservation_answer"]
    finally:
        journal.close()


def exports_and_replays_to_its_records(journal_path: Path, folder: Path) -> int:
    """`station journal export` of the journal, then `station replay` of that trace: the
    records the table made, the reservation answers read from the trace (no ledger asked).
    Returns how many answers the trace carries."""
    trace = folder / f"{journal_path.stem}.trace.jsonl"
    out = folder / f"{journal_path.stem}.replayed.jsonl"
    assert station_main(["journal", "export", str(journal_path), str(trace)]) == 0
    assert station_main(["replay", str(trace), "--out", str(out)]) == 0
    replayed = [json.loads(line) for line in out.read_text().splitlines()]
    journal = Journal(journal_path)
    try:
        stored = list(journal.stored_records())
    finally:
        journal.close()
    # the replay ends with the wallets' balances (TRACES.md §3), which a journal does not store
    assert replayed[-1]["type"] == "balances"
    assert replayed[:-1] == stored
    return sum(1 for line in trace.read_text().splitlines() if '"reservation_answer"' in line)


def fund(core: SettlementCore, wallets: dict[str, int]) -> None:
    for n, (account, balance) in enumerate(wallets.items()):
        core.apply({"key": f"wallet:{n}", "kind": "wallet", "account": account,
                    "balance": balance}, table="CAGE")


def test_a_si_zhi_dao_table_reserves_its_pot_and_releases_what_it_never_took(
        tmp_path, local_nats, studio_ledger):
    core = SettlementCore(studio_ledger)
    fund(core, {"a": 1_000, "b": 1_000, "c": 250})
    consumer = RunningConsumer(core, local_nats.url)
    late = []

    def reserve(reserver: Reserver, request: dict[str, Any]) -> dict[str, Any]:
        answer = reserver.reserve(request, timeout_s=5)
        if request["account"] == "b" and request["what"] == "bet" and not late:
            # the ledger reserved b's first call, but its answer came after the table's
            # timeout: the table refuses the call, the reservation is an orphan
            late.append(answer)
            return {"answer": "unavailable", "detail": "no answer within the timeout"}
        return answer

    sz = SzTable("SZ-41", tmp_path, local_nats.url, reserve=reserve)
    try:
        consumer.wait_subscribed()
        s = script(sz, [("a", "S1"), ("b", "S2"), ("c", "S3")])
        hands = {"S1": ACES, "S2": LOW, "S3": MID}
        s.deal(hands, leader="S1")
        assert [r["type"] for r in sz.act("a", "bet", amount=300)] == ["player_action"]
        refused = sz.act("b", "call")
        assert refused[0]["type"] == "action_refused" and refused[0]["reason"] == "insufficient_funds"
        assert refused[0]["ledger"] == "unavailable"  # the player hears why, as a bettor does
        assert late and late[0]["answer"] == "reserved"  # the ledger did take it
        assert sz.act("b", "call")[0]["type"] == "player_action"
        # c's wallet holds 150 after the ante: all in for exactly that
        all_in = sz.act("c", "all_in")[0]
        assert all_in["type"] == "player_action" and all_in["amount"] == 150
        # nobody arranges: automatic at the end of the 10 s; the hands turned up, cleared
        s.wait(10.5).reveal(hands).clear()
        wait_for(lambda: any(r["type"] == "game_settled" for r in sz.records), 10,
                 "the Si Zhi Dao game to settle")
        settled = [r for r in sz.records if r["type"] == "game_settled"]
        assert len(settled) == 1 and settled[0]["payouts"] == {"a": 300 + 300 + 250}
        assert sz.worker.drain(30)
        consumer.wait_caught_up()
        mirror = dict(sz.station.core.balances)
    finally:
        consumer.stop()
        sz.close()
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["refused"] == 0
    assert (report.figures["pot_draws_taken"], report.figures["pot_draws_released"]) == (6, 1)
    # the orphan went back to b's wallet: the ledger and the table agree on every wallet
    balances = core.balances()
    assert {a: balances[a] for a in "abc"} == {"a": 1_000 - 300 + 850, "b": 700, "c": 0}
    # the table's mirror took the ledger's word at each reservation; b's last word (500) came
    # while the orphan was held, and the release is the ledger's alone: the next reservation
    # of b's brings the mirror up to it
    assert {a: mirror[a] for a in "abc"} == {**{a: balances[a] for a in "ac"}, "b": 500}
    with core.store.transaction(read_only=True) as tx:
        states = Counter(r[0] for r in tx.execute("SELECT state FROM pot_reservations"))
    assert states == {"taken": 6, "released": 1}  # 3 antes, a's bet, b's call, c's all-in
    # the journal holds every answer; it re-applies to its records without the ledger
    answers = replays_to_its_records(sz.journal)
    assert Counter(a["answer"] for a in answers) == {"reserved": 6, "unavailable": 1}
    # and its export replays through `station replay` to the same records
    assert exports_and_replays_to_its_records(sz.journal, tmp_path) == 7


def test_a_shared_wallet_spent_at_a_pok_deng_and_a_si_zhi_dao_table_at_once(
        tmp_path, local_nats, studio_ledger):
    """The acceptance: one player's wallet, a game of each at once; never below zero, both
    books close."""
    wallet = 1_000
    core = SettlementCore(studio_ledger)
    fund(core, {"p1": wallet, "x": 5_000, "y": 5_000})
    consumer = RunningConsumer(core, local_nats.url)
    pd = PokDengTable("PD-51", 5, tmp_path, local_nats.url)
    sz = SzTable("SZ-51", tmp_path, local_nats.url)
    lowest: list[int] = []
    try:
        consumer.wait_subscribed()
        pd.feed(pd.before_bets)  # a Pok Deng round open for bets
        s = script(sz, [("p1", "S1"), ("x", "S2"), ("y", "S3")])
        s.deal({"S1": ACES, "S2": LOW, "S3": MID}, leader="S1")
        # p1's ante taken: p1 leads the betting with 900 in the wallet
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                lowest.append(core.balances()["p1"])
                pace(0.01)  # the watcher's look every hundredth of a second

        decisions: list[dict[str, Any]] = []

        def bet_at_pok_deng() -> None:
            for n in range(8):  # 8 bets of 100, each deducting 100 or 200
                decisions.extend(pd.station.place_bets(
                    [{"account": "p1", "spot": f"P{1 + n % 5}", "amount": 100}]))

        sz_answer: list[dict[str, Any]] = []
        watcher = threading.Thread(target=watch)
        bettor = threading.Thread(target=bet_at_pok_deng)
        watcher.start()
        bettor.start()
        sz_answer.extend(sz.act("p1", "all_in"))  # the whole 900, at the same time
        bettor.join(60)
        stop.set()
        watcher.join(10)
        went_all_in = sz_answer[0]["type"] == "player_action"
        if not went_all_in:
            assert sz_answer[0]["reason"] == "insufficient_funds"
            assert sz.act("p1", "fold")[0]["type"] == "player_action"
        # the others fold: the game ends without a showdown
        sz.act("x", "fold")
        sz.act("y", "fold")
        taken_pd = sum(d["deducted"] for d in decisions if d["type"] == "bet_accepted")
        taken_sz = 100 + (sz_answer[0]["amount"] if went_all_in else 0)
        assert taken_pd + taken_sz <= wallet
        # the two tables asked for more than the wallet held: one of them was refused
        assert not went_all_in or any(d["type"] == "bet_rejected" for d in decisions)
        assert {d["reason"] for d in decisions if d["type"] == "bet_rejected"} <= {"insufficient_funds"}
        assert min(lowest) >= 0 and core.balances()["p1"] >= 0
        pd.feed(pd.after_bets)  # the Pok Deng round dealt, validated, settled
        wait_for(lambda: any(r["type"] == "game_settled" for r in sz.records), 10,
                 "the Si Zhi Dao game to settle")
        assert pd.worker.drain(30) and sz.worker.drain(30)
        consumer.wait_caught_up()
        mirror_sz = sz.station.core.balances["p1"]
    finally:
        consumer.stop()
        pd.close()
        sz.close()
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert report.figures["refused"] == 0
    assert core.balances()["p1"] >= 0
    assert mirror_sz >= 0
    # each reserving table, of each kind, exports to a trace `station replay` takes to its
    # records: the answers are in the trace
    answers = {}
    for journal in (pd.journal, sz.journal):
        replays_to_its_records(journal)
        answers[journal] = exports_and_replays_to_its_records(journal, tmp_path)
    assert answers[pd.journal] == 8 and answers[sz.journal] == 4  # 8 bets; 3 antes, the all-in


def test_a_pot_games_draws_are_refused_while_the_ledger_does_not_answer(
        tmp_path, local_nats, studio_ledger):
    """The bus down (docs/studio.md): a Si Zhi Dao table's antes cannot be reserved, so no
    game opens (each player's ante `bet_rejected`, `insufficient_funds`; the journal keeps
    `unavailable`, asked once for the action, the others not waited for); once the bus is
    back the dealer opens the game and its antes are reserved."""
    core = SettlementCore(studio_ledger)
    fund(core, {"a": 1_000, "b": 1_000, "c": 1_000})
    sz = SzTable("SZ-71", tmp_path, local_nats.url, timeout_s=0.5)
    consumer = None
    try:
        s = sz.follow(SzTraceScript(table="SZ-71"))
        for account, seat in (("a", "S1"), ("b", "S2"), ("c", "S3")):
            s.player(account, "sit", seat=seat).wait(0.5)
        local_nats.stop()
        s.wait(1).dealer("open_betting").wait(1)
        rejected = [r for r in sz.records if r["type"] == "bet_rejected"]
        assert [(r["account"], r["reason"]) for r in rejected] == [
            ("a", "insufficient_funds"), ("b", "insufficient_funds"), ("c", "insufficient_funds")]
        assert any(r["type"] == "action_refused" and r.get("reason") == "not_enough_players"
                   for r in sz.records)
        assert len(sz.requests) == 1  # the first ante found the ledger away; no more waits
        local_nats.start()
        consumer = RunningConsumer(core, local_nats.url)
        consumer.wait_subscribed()

        def open_game() -> bool:
            # the dealer tries again until the table's bus client has reconnected
            s.wait(1).dealer("open_betting").wait(1)
            return any(r["type"] == "game_open" for r in sz.records)

        wait_for(open_game, 30, "the game to open once the ledger answers", poll_s=0.2)
        assert core.balances() == {"a": 900, "b": 900, "c": 900}
    finally:
        if consumer is not None:
            consumer.stop()
        sz.close()
    answers = replays_to_its_records(sz.journal)
    assert [a["answer"] for a in answers[:3]] == ["unavailable"] * 3
    assert [a["answer"] for a in answers[-3:]] == ["reserved"] * 3
    core.close()


def test_a_games_antes_are_taken_all_or_none_while_the_ledger_does_not_answer(
        tmp_path, local_nats, studio_ledger):
    """The ledger reserves the first ante, but its answer to the second is lost: the game does
    not open without that player — every ante is refused, the reserved one included (held in
    the ledger) —; the dealer opens it again, the same game, whose close releases the held
    ante back to its wallet."""
    core = SettlementCore(studio_ledger)
    fund(core, {"a": 1_000, "b": 1_000, "c": 1_000})
    consumer = RunningConsumer(core, local_nats.url)
    asked: list[dict[str, Any]] = []

    def reserve(reserver: Reserver, request: dict[str, Any]) -> dict[str, Any]:
        asked.append(request)
        if len(asked) == 2:  # b's ante: the answer is lost on the way
            return {"answer": "unavailable", "detail": "no answer within the timeout"}
        return reserver.reserve(request, timeout_s=5)

    sz = SzTable("SZ-73", tmp_path, local_nats.url, reserve=reserve)
    try:
        consumer.wait_subscribed()
        s = sz.follow(SzTraceScript(table="SZ-73"))
        for account, seat in (("a", "S1"), ("b", "S2"), ("c", "S3")):
            s.player(account, "sit", seat=seat).wait(0.5)
        s.wait(1).dealer("open_betting").wait(1)
        assert not any(r["type"] == "game_open" for r in sz.records)
        assert [(r["account"], r["reason"]) for r in sz.records if r["type"] == "bet_rejected"
                ] == [("a", "insufficient_funds"), ("b", "insufficient_funds"),
                      ("c", "insufficient_funds")]
        assert len(asked) == 2  # c's was not asked once b's went unanswered
        s.dealer("open_betting").wait(1).shuffle()
        opened = [r for r in sz.records if r["type"] == "game_open"]
        assert len(opened) == 1 and set(opened[0]["players"].values()) == {"a", "b", "c"}
        s.deal({"S1": ACES, "S2": LOW, "S3": MID}, leader="S1")
        assert sz.act("a", "bet", amount=300)[0]["type"] == "player_action"
        sz.act("b", "fold")
        sz.act("c", "fold")
        wait_for(lambda: any(r["type"] == "game_settled" for r in sz.records), 10,
                 "the Si Zhi Dao game to settle")
        assert sz.worker.drain(30)
        consumer.wait_caught_up()
    finally:
        consumer.stop()
        sz.close()
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert (report.figures["pot_draws_taken"], report.figures["pot_draws_released"]) == (4, 1)
    # a's first ante, reserved and never taken, went back: a won the three antes and its bet
    assert {k: v for k, v in core.balances().items() if k in "abc"} == {
        "a": 1_000 + 200, "b": 900, "c": 900}
    answers = replays_to_its_records(sz.journal)
    assert [a["answer"] for a in answers[:3]] == ["unavailable"] * 3
    assert answers[0]["detail"].startswith("reserved, not taken")
    core.close()
