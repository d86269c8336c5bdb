"""A scripted Si Zhi Dao table for staged scenarios: the game on virtual time with the
kernel's small API (tests/sizhidao/flow_harness.TracePort), driven by named steps."""

from __future__ import annotations

from typing import Any

from station.cards import parse_card
from station.games.sizhidao.game import GameSettings, SiZhiDaoGame
from tests.sizhidao.flow_harness import TracePort


class Scripted:
    def __init__(self, ante: int = 100, **seconds: float) -> None:
        self.port = TracePort("SZ-09")
        self.game = SiZhiDaoGame(
            self.port,
            GameSettings.from_seconds(
                ante,
                seconds.get("decision", 15),
                seconds.get("arrange", 10),
                seconds.get("buy_in", 10),
            ),
        )
        self.handlers = self.game.timer_handlers()
        self.paused = False

    # time
    def at(self, t: float) -> Scripted:
        t_us = round(t * 1e6)
        while self.port.timers:
            name, due = min(self.port.timers.items(), key=lambda kv: kv[1])
            if due > t_us:
                break
            del self.port.timers[name]
            self.port.now_us = due
            self.handlers[name]()
        self.port.now_us = t_us
        return self

    # inputs
    def wallet(self, account: str, balance: int) -> None:
        self.port.purse.balances[account] = balance
        self.game.wallet_changed(account)

    def sit(self, *pairs: tuple[str, str], balance: int = 10_000) -> None:
        for account, seat in pairs:
            self.wallet(account, balance)
            self.game.player(account, "sit", {"seat": seat}, paused=self.paused)

    def act(self, account: str, action: str, **fields: Any) -> list[dict[str, Any]]:
        n = len(self.port.records)
        self.game.player(account, action, fields, paused=self.paused)
        return self.port.records[n:]

    def open(self) -> str | None:
        reason = self.game.open_betting_refusal(paused=self.paused) or self.game.open_betting()
        if reason:
            self.port.emit("action_refused", action="open_betting", user=None, reason=reason)
        return reason

    def deal(self, hands: dict[str, str]) -> None:
        """Open the deal that is due and read the hands in its plan's order."""
        d = self.game.open_deal()
        cards = {s: [parse_card(c) for c in h.split()] for s, h in hands.items()}
        assert set(cards) == set(d.contestants), (sorted(cards), d.contestants)
        taken = {s: 0 for s in cards}
        for seat in d.plan:
            self.game.read(cards[seat][taken[seat]], paused=self.paused)
            taken[seat] += 1

    def show(self) -> None:
        assert self.game.awaiting_showdown()
        self.game.showdown_confirmed()

    def pause(self) -> None:
        self.paused = True
        self.game.pause()

    def resume(self) -> None:
        self.paused = False
        self.game.resume()

    # reading the records
    def of(self, type_: str) -> list[dict[str, Any]]:
        return [r for r in self.port.records if r["type"] == type_]

    def last(self, type_: str) -> dict[str, Any]:
        return self.of(type_)[-1]

    def refusals(self) -> list[tuple[Any, str, str]]:
        return [(r.get("account"), r["action"], r["reason"]) for r in self.of("action_refused")]

    def balances(self) -> dict[str, int]:
        return dict(self.port.purse.balances)
