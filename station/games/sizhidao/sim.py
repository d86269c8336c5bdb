"""A whole simulated Si Zhi Dao table: a dealer, a one-deck shoe, a camera and bots, on
virtual time. The session is written as a trace (`SzTraceScript`) while a table kernel runs
on it in lockstep, so the bots see what a player would (whose turn, the level, their own
cards) and the trace replays to exactly what the table did. Used by the soak tests and as
the demo's players when no one joins."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from station.cards import ALL_CARDS
from station.core.inputs import parse_input
from station.core.kernel import TableKernel
from station.core.settings import TableSettings
from station.games.sizhidao.bots import (
    PROFILES,
    Profile,
    TableSight,
    decide_arrangement,
    decide_bet,
    decide_buy_in,
    drops_connection,
)
from station.games.sizhidao.script import SzTraceScript
from station.games.sizhidao.seats import SEATS


@dataclass
class SimReport:
    games: int = 0
    deals: int = 0
    tie_rounds: int = 0
    cancelled: int = 0
    refused: list[dict[str, Any]] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)


class SimTable:
    def __init__(
        self,
        seed: int,
        *,
        table: str = "SZ-90",
        players: int = 5,
        wallet: int = 20_000,
        cancel_rate: float = 0.0,
        short_stacks: bool = True,
    ) -> None:
        self.rng = random.Random(seed)
        #: chance per deal that the floor supervisor cancels the game once it is dealt
        self.cancel_rate = cancel_rate
        self._cancel_rng = random.Random(seed + 1)  # the sessions without cancels stay as they were
        self.kernel = TableKernel(TableSettings(table=table, game="sizhidao"))
        self.script = SzTraceScript(table=table, note=f"simulated session, seed {seed}")
        self.records: list[dict[str, Any]] = []
        self.script.on_line = self._feed
        self._n = 1
        self.profiles: dict[str, Profile] = {}
        self.accounts = [f"bot{i + 1}" for i in range(players + 2)]
        self.wallet = wallet
        #: some players start short (all-ins and side pots happen); without, every player's
        #: wallet is `wallet`, and a bot goes all in only when its bets outgrow it
        self.short_stacks = short_stacks
        self.report = SimReport()

    # the kernel in lockstep with the trace
    def _feed(self, line: dict[str, Any]) -> None:
        self._n += 1
        if "end" in line:
            return
        self.kernel.apply(parse_input(line, self._n))
        records, _m, _c = self.kernel.take_outputs()
        self.records.extend(records)
        for r in records:
            if r["type"] == "action_refused":
                self.report.refused.append(r)
            elif r["type"] == "fault":
                self.report.faults.append(r["kind"])

    @property
    def sz(self):
        return self.kernel.proc.sz

    def run(self, games: int) -> SimReport:
        s = self.script
        seats = self.rng.sample(SEATS, len(self.accounts) - 2)
        # some short stacks, so that all-ins and side layers happen
        self.stacks = {a: self.rng.choice([300, 600, 1500, self.wallet]) if self.short_stacks
                       else self.wallet for a in self.accounts}
        for acc in self.accounts:
            s.wallet(acc, self.stacks[acc]).wait(0.1)
        for acc, seat in zip(self.accounts, seats, strict=False):
            self.profiles[acc] = self.rng.choice(PROFILES)
            s.player(acc, "sit", seat=seat).wait(0.3)
        for _ in range(games):
            self._between_games()
            if len(self.sz.seating.seats) < 3:
                continue
            self._game()
        s.end()
        return self.report

    def _between_games(self) -> None:
        s = self.script
        sz = self.sz
        for acc in self.accounts:
            seat = sz.seating.seat_of(acc)
            if acc in sz.disconnected:
                s.wait(0.3).player(acc, "reconnect")
            if seat is not None and self.rng.random() < 0.08 and len(sz.seating.seats) > 3:
                s.wait(0.3).player(acc, "leave")
            elif seat is None and self.rng.random() < 0.3:
                free = [x for x in SEATS if x not in sz.seating.seats]
                if free:
                    self.profiles[acc] = self.rng.choice(PROFILES)
                    s.wait(0.3).player(acc, "sit", seat=self.rng.choice(free))
            if self.kernel.balances.get(acc, 0) < 200:
                s.wait(0.2).wallet(acc, self.stacks[acc])

    def _game(self) -> None:
        s = self.script
        s.wait(1).dealer("open_betting").wait(1)
        if not self.sz.game_in_progress:
            return
        self.report.games += 1
        gone = {
            a for a in self.sz.game.players.values() if drops_connection(self.rng, self.profiles[a])
        }
        while self.sz.game_in_progress:
            s.shuffle()
            d = self.sz.deal()
            if d is None or d.phase == "done":
                break  # the deck did not open a deal (should not happen)
            self.report.deals += 1
            self.report.tie_rounds += d.number > 1
            deck = list(ALL_CARDS)
            self.rng.shuffle(deck)
            hands = {
                seat: [str(c) for c in deck[4 * i : 4 * i + 4]]
                for i, seat in enumerate(d.contestants)
            }
            s.deal(hands, leader=self.sz.game.leader)
            if self.cancel_rate and self._cancel_rng.random() < self.cancel_rate:
                # the floor supervisor voids the game: every ante, bet and buy-in refunded
                s.wait(1.5).supervisor("cancel_round").wait(1).clear()
                self.report.cancelled += 1
                break
            self._betting(gone)
            self._arranging(hands)
            self._buy_ins()

    def _betting(self, gone: set[str]) -> None:
        s = self.script
        sz = self.sz
        decision_s = sz.settings.decision_us / 1e6
        while True:
            d = sz.deal()
            if d is None or d.phase != "betting" or d.betting is None or d.betting.over:
                return
            b = d.betting
            seat = b.to_act
            acc = sz.game.account_of(seat)
            if acc in gone and acc not in sz.disconnected and self.rng.random() < 0.5:
                s.wait(0.5).player(acc, "disconnect")
                continue
            sight = TableSight(
                b.level, b.totals()[seat], b.wallets()[seat], sz.settings.ante, not b.opened
            )
            move = decide_bet(self.rng, self.profiles[acc], d.reads[seat], sight)
            if move.delay_s >= decision_s:
                s.wait(decision_s)  # silence: folded at its time, seen at the next line
                while b.to_act == seat and not b.over:
                    s.wait(0.3)
                continue
            s.wait(move.delay_s)
            fields = {"amount": move.amount} if move.amount is not None else {}
            s.player(acc, move.action, **fields)

    def _arranging(self, hands: dict[str, list[str]]) -> None:
        s = self.script
        sz = self.sz
        d = sz.deal()
        if d is None or d.phase != "arranging":
            s.clear()
            return
        start = s.t
        arrange_s = sz.settings.arrange_us / 1e6
        plans = []
        for seat in d.betting.still_in():
            acc = sz.game.account_of(seat)
            move = decide_arrangement(self.rng, self.profiles[acc], d.reads[seat], arrange_s)
            if move is not None and acc not in sz.disconnected:
                plans.append((move.delay_s, acc, move))
        for delay, acc, move in sorted(plans, key=lambda p: p[0]):
            s.at_least(start + delay)
            if sz.deal() is d and d.phase == "arranging":
                s.player(acc, "arrange", front=list(move.front), back=list(move.back))
        s.at_least(start + arrange_s)
        while d.phase == "arranging":  # the arrange clock fires with the next line
            s.wait(0.3)
        s.reveal({seat: hands[seat] for seat in d.shown}).clear()

    def _buy_ins(self) -> None:
        s = self.script
        sz = self.sz
        g = sz.game
        if g is None or g.window is None:
            return
        w = g.window
        start = s.t
        buy_in_s = sz.settings.buy_in_us / 1e6
        plans = []
        for seat in w.eligible:
            acc = g.account_of(seat)
            move = decide_buy_in(
                self.rng, self.profiles[acc], w.price, self.kernel.balances.get(acc, 0), buy_in_s
            )
            if move is not None:
                plans.append((move.delay_s, acc, move.action))
        for delay, acc, action in sorted(plans):
            s.at_least(start + delay).player(acc, action)
        s.at_least(start + buy_in_s)
        while sz.game is g and g.window is not None:
            s.wait(0.3)
