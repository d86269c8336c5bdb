"""Drive the Si Zhi Dao game (station.games.sizhidao.game) straight from a recorded trace,
without the table kernel: the shoe's frames through the real frame decoder and sequencer,
the shuffle check and LOAD, player and dealer lines, camera zones for the showdown, and the
game's clocks on the trace's virtual time. It checks the game's own decisions against the
traces' expected outcomes; the kernel's faults and zone checks are not part of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from firmware_bridge.shoe.events import CardRead, Load
from firmware_bridge.shoe.stream import ShoeStream
from station.cards import parse_card
from station.games.sizhidao.game import GameSettings, SiZhiDaoGame


class Wallets:
    def __init__(self) -> None:
        self.balances: dict[str, int] = {}

    def credit(self, account: str, amount: int) -> None:
        self.balances[account] = self.balances.get(account, 0) + amount

    def debit(self, account: str, amount: int) -> None:
        self.balances[account] = self.balances.get(account, 0) - amount

    def balance(self, account: str) -> int:
        return self.balances.get(account, 0)

    def can_pay(self, account: str, amount: int) -> bool:
        return self.balance(account) >= amount


class TracePort:
    """The kernel's small API over virtual time, as the game sees it."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.now_us = 0
        self.purse = Wallets()
        self.records: list[dict[str, Any]] = []
        self.messages: list[dict[str, Any]] = []
        self.timers: dict[str, int] = {}

    def emit(self, type_: str, **fields: Any) -> dict[str, Any]:
        rec = {"t": self.now_us / 1e6, "type": type_, **fields}
        self.records.append(rec)
        return rec

    def message(self, key: str, kind: str, **fields: Any) -> None:
        self.messages.append({"key": key, "kind": kind, **fields})

    def arm(self, name: str, due_us: int) -> None:
        self.timers[name] = due_us

    def disarm(self, *names: str) -> None:
        for n in names:
            self.timers.pop(n, None)


class FlowDriver:
    def __init__(self, header: dict[str, Any]) -> None:
        s = header.get("settings", {})
        self.port = TracePort(header["table"])
        self.game = SiZhiDaoGame(
            self.port,
            GameSettings.from_seconds(
                s.get("ante", 100),
                s.get("decision_seconds", 15),
                s.get("arrange_seconds", 10),
                s.get("buy_in_seconds", 10),
            ),
        )
        self.handlers = self.game.timer_handlers()
        self.stream = ShoeStream()
        self.zones: dict[str, list[str]] = {}
        self.shuffle_started = self.confirmed = self.loaded = False

    def advance_to(self, t_us: int) -> None:
        # a timer due at t fires before the inputs at t (PROCEDURE.md §7.4)
        while self.port.timers:
            name, due = min(self.port.timers.items(), key=lambda kv: kv[1])
            if due > t_us:
                break
            del self.port.timers[name]
            self.port.now_us = due
            self.handlers[name]()
            self._follow()
        self.port.now_us = t_us

    def line(self, obj: dict[str, Any]) -> None:
        t_us = round(obj["t"] * 1e6)
        self.advance_to(t_us)
        g = self.game
        if "wallet" in obj:
            w = obj["wallet"]
            self.port.purse.balances[w["account"]] = w["balance"]
            g.wallet_changed(w["account"])
        elif "player" in obj:
            p = dict(obj["player"])
            g.player(p.pop("account"), p.pop("action"), p, paused=False)
        elif "dealer" in obj:
            if obj["dealer"] == "open_betting":
                reason = g.open_betting_refusal(paused=False) or g.open_betting()
                if reason:
                    self.port.emit(
                        "action_refused", action="open_betting", user=None, reason=reason
                    )
            elif obj["dealer"] == "new_shoe" and not g.deal_in_progress():
                self.shuffle_started, self.confirmed, self.loaded = True, False, False
        elif "supervisor" in obj and obj["supervisor"] == "confirm_shuffle":
            self.confirmed = self.shuffle_started
        elif "shoe" in obj:
            for ev in self.stream.feed(obj["shoe"].encode("latin-1"), obj["t"]).events:
                if isinstance(ev, Load):
                    self.loaded = self.shuffle_started
                elif isinstance(ev, CardRead):
                    g.read(parse_card(ev.card), paused=False)
        elif "camera" in obj:
            self.zones.update(obj["camera"])
            if g.awaiting_showdown() and self._shown():
                g.showdown_confirmed()
        self._follow()

    def _shown(self) -> bool:
        for seat, reads in self.game.shown_down().items():
            seen = self.zones.get(seat, [])
            if len(seen) != 4 or "??" in seen or "XX" in seen:
                return False
            if {parse_card(c) for c in seen} != set(reads):
                return False
        return True

    def _follow(self) -> None:
        g = self.game
        if g.deal_due() and self.shuffle_started and self.confirmed and self.loaded:
            self.shuffle_started = self.confirmed = self.loaded = False
            g.open_deal()


def run_trace(path: Path) -> tuple[list[dict[str, Any]], dict[str, int]]:
    lines = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    driver = FlowDriver(lines[0])
    for obj in lines[1:]:
        if obj.get("end"):
            driver.advance_to(round(obj["t"] * 1e6))
            break
        driver.line(obj)
    return driver.port.records, dict(driver.port.purse.balances)
