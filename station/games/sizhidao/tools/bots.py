"""Simulated Si Zhi Dao players driven through the table's real player API over HTTP.

Each bot is one account on the betting platform: it reads its own view
(`GET /v1/players/{account}/view`, the platform's key) and acts
(`POST /v1/players/actions`) as `station.games.sizhidao.bots` decides — it sits, bets,
calls, raises, folds, goes all-in, arranges (quickly, late, or never: left to the automatic
arrangement), buys in or declines, drops its connection and comes back, leaves and sits
again. The platform tops up a wallet that runs low between games (`POST /v1/wallets`).
Nothing here reads the table's memory: a bot knows only what the API tells that account.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from typing import Any

from station.cards import parse_card
from station.games.sizhidao.bots import (
    PROFILES,
    Profile,
    TableSight,
    decide_arrangement,
    decide_bet,
    decide_buy_in,
    drops_connection,
)
from station.games.sizhidao.seats import SEATS
from station.sim.demo_clock import VirtualClock, WallClock

log = logging.getLogger("station.sizhidao.bots")


class PlatformClient:
    """The betting platform's side of the table's API (its key, one account per call)."""

    def __init__(self, url: str, key: str) -> None:
        self.url, self.key = url.rstrip("/"), key
        #: answers by HTTP status (200 taken, 409 refused; anything else is a problem)
        self.statuses: Counter[int] = Counter()
        self.refused: Counter[str] = Counter()

    def _call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.key}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                status, payload = resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as e:
            status, payload = e.code, json.loads(e.read() or b"null")
        self.statuses[status] += 1
        return status, payload

    def view(self, account: str) -> dict[str, Any]:
        status, payload = self._call("GET", f"/v1/players/{account}/view")
        if status != 200:
            raise RuntimeError(f"the view of {account} answered {status}: {payload}")
        return payload

    def act(self, account: str, action: str, **fields: Any) -> tuple[int, Any]:
        status, payload = self._call("POST", "/v1/players/actions",
                                     {"account": account, "action": action, **fields})
        if status == 409:
            self.refused[payload.get("reason", "?")] += 1
        return status, payload

    def set_wallet(self, account: str, balance: int) -> None:
        status, payload = self._call("POST", "/v1/wallets", {"account": account, "balance": balance})
        if status != 200:
            raise RuntimeError(f"the wallet of {account} answered {status}: {payload}")

    def seat_token(self, account: str) -> dict[str, Any]:
        status, payload = self._call("POST", f"/v1/players/{account}/seat-token")
        if status != 200:
            raise RuntimeError(f"a seat token for {account} answered {status}: {payload}")
        return payload


class Bot:
    def __init__(self, client: PlatformClient, account: str, profile: Profile, rng: random.Random,
                 *, speed: float, decision_s: float, arrange_s: float, buy_in_s: float,
                 stacks: tuple[int, ...], sits: bool,
                 clock: WallClock | VirtualClock | None = None) -> None:
        self.client, self.account, self.profile, self.rng = client, account, profile, rng
        #: the table's time line (station/sim/demo_clock.py): a bot thinks on it, and its
        #: request on the way holds it
        self.clock = clock or WallClock()
        self.speed = speed
        self.decision_s, self.arrange_s, self.buy_in_s = decision_s, arrange_s, buy_in_s
        self.stacks = stacks
        self.wants_seat = sits
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._guarded, name=f"bot-{account}", daemon=True)
        self.error: str | None = None
        self.actions: Counter[str] = Counter()
        self._game_seen: str | None = None
        self._between_done: int | None = None  # the history length last handled
        self._drops = False
        self._dropped_in: str | None = None
        self._handled: set[tuple[str, str]] = set()  # (deal or window id, what) done once

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(5)

    def _sleep(self, seconds: float) -> bool:
        return self.clock.sleep(seconds, self._stop)

    def _guarded(self) -> None:
        self.clock.join()
        try:
            self._run()
        except Exception as e:  # noqa: BLE001 - reported in the demo's summary and exit code
            self.error = f"{type(e).__name__}: {e}"
            log.exception("bot %s stopped", self.account)
        finally:
            self.clock.leave()

    def _act(self, action: str, **fields: Any) -> bool:
        status, _ = self.client.act(self.account, action, **fields)
        if status == 200:
            self.actions[action] += 1
        elif status != 409:
            raise RuntimeError(f"{action} by {self.account} answered {status}")
        return status == 200

    def _run(self) -> None:
        while not self._sleep(self.rng.uniform(0.15, 0.35)):
            v = self.client.view(self.account)
            if v.get("paused"):
                continue
            game = v.get("game")
            if game is None:
                self._between_games(v)
            else:
                self._in_game(v, game)

    # ---- between games: seats, connections, wallets
    def _between_games(self, v: dict[str, Any]) -> None:
        history = len(v.get("history") or [])
        if self._between_done == history:
            return
        self._between_done = history
        you = v["you"]
        seat = you["seat"]
        seats = v["seats"]
        if seat is not None and not seats[seat]["connected"]:
            self._act("reconnect")
        if seat is not None and self.rng.random() < 0.06 and len(seats) > 3:
            self._act("leave")
            return
        if seat is None and (self.wants_seat or self.rng.random() < 0.35):
            free = [s for s in SEATS if s not in seats]
            if free:
                self.wants_seat = False
                self._act("sit", seat=self.rng.choice(free))
            seat = None
        if seat is not None and seats[seat]["stack"] < 3 * v["ante"]:
            self.client.set_wallet(self.account, self.rng.choice(self.stacks))

    # ---- in a game: betting, arranging, buying in
    def _in_game(self, v: dict[str, Any], game: dict[str, Any]) -> None:
        you = v["you"]
        seat = you["seat"]
        if seat is None or game["players"].get(seat) != self.account:
            return
        if game["game_id"] != self._game_seen:
            self._game_seen = game["game_id"]
            self._drops = drops_connection(self.rng, self.profile)
            self._between_done = None
        window = game.get("buy_in")
        if window is not None:
            self._buy_in(window, seat)
            return
        deal = game.get("deal")
        if deal is None or seat not in deal["contestants"] or deal["phase"] == "done":
            return
        if self._drops and self._dropped_in != game["game_id"] and self.rng.random() < 0.1:
            self._dropped_in = game["game_id"]
            self._act("disconnect")
            return
        if not v["seats"][seat]["connected"]:
            return  # gone until the next game
        if deal["phase"] == "betting" and deal["turn"] == seat:
            self._bet(v, deal, seat)
        elif deal["phase"] == "arranging" and seat not in deal["folded"] \
                and seat not in deal["arranged"] and len(you["cards"]) == 4:
            self._arrange(deal, you["cards"])

    def _bet(self, v: dict[str, Any], deal: dict[str, Any], seat: str) -> None:
        key = (deal["deal_id"], f"bet{sum(deal['totals'].values())}:{len(deal['folded'])}")
        if key in self._handled:
            return
        self._handled.add(key)
        cards = [parse_card(c) for c in v["you"]["cards"] if c != "??"]
        if len(cards) != 4:
            self._act("call")
            return
        sight = TableSight(deal["level"], deal["totals"][seat], v["seats"][seat]["stack"],
                           v["ante"], not deal["opened"])
        move = decide_bet(self.rng, self.profile, cards, sight)
        delay = move.delay_s / self.speed
        if delay >= self.decision_s:
            return  # too slow: the table folds it at its time
        if self._sleep(delay):
            return
        fields = {"amount": move.amount} if move.amount is not None else {}
        if not self._act(move.action, **fields):
            # the table moved meanwhile (a raise reopened it, a wallet changed): the safe call
            self._act("call") or self._act("fold")

    def _arrange(self, deal: dict[str, Any], names: list[str]) -> None:
        key = (deal["deal_id"], "arrange")
        if key in self._handled:
            return
        self._handled.add(key)
        cards = [parse_card(c) for c in names]
        move = decide_arrangement(self.rng, self.profile, cards, self.arrange_s)
        if move is None:
            return  # never arranges: the automatic arrangement does it
        # a late arrangement is timed from the clock already; a quick one keeps the pace
        delay = move.delay_s if self.profile.arranging == "late" else move.delay_s / self.speed
        if self._sleep(min(delay, 0.95 * self.arrange_s)):
            return  # stopped
        self._act("arrange", front=list(move.front or ()), back=list(move.back or ()))

    def _buy_in(self, window: dict[str, Any], seat: str) -> None:
        key = (window["deal_id"], "buy_in")
        if key in self._handled or seat not in window["eligible"] or seat in window["answers"]:
            return
        self._handled.add(key)
        stack = self.client.view(self.account)["seats"].get(seat, {}).get("stack", 0)
        move = decide_buy_in(self.rng, self.profile, window["price"], stack, self.buy_in_s)
        if move is None or self._sleep(min(move.delay_s / self.speed, 0.8 * self.buy_in_s)):
            return  # silence: the window's close declines for it
        self._act(move.action)


def make_bots(client: PlatformClient, n: int, seed: int, *, speed: float, decision_s: float,
              arrange_s: float, buy_in_s: float, seated: int,
              clock: WallClock | VirtualClock | None = None) -> list[Bot]:
    rng = random.Random(seed)
    stacks = (400, 800, 2000, 5000, 20_000)
    bots = []
    for i in range(n):
        bots.append(Bot(client, f"bot{i + 1}", rng.choice(PROFILES), random.Random(rng.random()),
                        speed=speed, decision_s=decision_s, arrange_s=arrange_s,
                        buy_in_s=buy_in_s, stacks=stacks, sits=i < seated, clock=clock))
    return bots


def wait_until(cond, timeout: float, stop: threading.Event | None = None) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        if stop is not None and stop.wait(0.1):
            return False
        if stop is None:
            time.sleep(0.1)
    return False
