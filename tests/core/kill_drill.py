"""The kill -9 drill's parts: `station run` as a child process that can be SIGKILLed and
started again, a dealer at the console and a betting platform that both retry through the
restarts, the drill that kills the station at random moments while the dealer deals, and the
checks of the books afterwards."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from firmware_bridge.shoe.simulator import ShoeRefused, ShoeSimulator
from station.console import UserStore
from station.settlement.core import SettlementCore
from tests.ports import free_port
from tests.waiting import pace, wait_for

API_KEY = "drill-key"
PASSWORD = "drill-password"


class StationProcess:
    def __init__(self, config: Path, log: Path) -> None:
        self.config, self.log = config, log
        self.proc: subprocess.Popen | None = None
        self.kills = 0
        self._down_s = 0.0  # seconds from each kill until the restarted station served again
        self._down_since: float | None = None

    def down_s(self) -> float:
        """Seconds the station has not served so far (killed, or still starting)."""
        now = time.monotonic()
        return self._down_s + (now - self._down_since if self._down_since is not None else 0.0)

    def serving_again(self) -> None:
        if self._down_since is not None:
            self._down_s += time.monotonic() - self._down_since
            self._down_since = None

    def start(self) -> None:
        env = dict(os.environ, STATION_BET_API_KEYS=f"{API_KEY}=drill",
                   STATION_JOURNAL_KEY="drill-journal-key-0123456789abcdef")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "station", "run", "--config", str(self.config),
             "--log-level", "WARNING"],
            stdout=open(self.log, "a"), stderr=subprocess.STDOUT, env=env)

    def kill(self) -> None:
        assert self.proc is not None
        self._down_since = time.monotonic()
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.kills += 1

    def terminate(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(30)


class Dealer:
    """A dealer at the console and a betting platform, both retrying through restarts."""

    #: s a dealt round may take to be validated (a restart may come in between)
    round_timeout_s = 60.0

    def __init__(self, console: str, bets: str, shoe: ShoeSimulator) -> None:
        self.console, self.bets, self.shoe = console, bets, shoe
        self.http = httpx.Client(timeout=5)  # the betting platform
        self.sessions = {role: httpx.Client(timeout=5) for role in ("dealer", "supervisor")}
        self.csrf = {"dealer": "", "supervisor": ""}
        self.rng = random.Random(3)
        self.bet_no = 0

    def _login(self) -> None:
        for role, client in self.sessions.items():
            r = client.post(self.console + "/api/login", json={"user": role, "password": PASSWORD})
            r.raise_for_status()
            self.csrf[role] = r.json()["csrf"]

    def _retry(self, fn, deadline: float = 60):
        """`fn()` until the station answers it (it may be down, killed a moment ago): its
        result; logging in again after each refusal (a restarted station forgot the session)."""
        result: list = []
        last: list[BaseException] = []

        def attempt() -> bool:
            try:
                result.append(fn())
                return True
            except (httpx.HTTPError, OSError) as e:
                last[:] = [e]
                try:
                    self._login()
                except (httpx.HTTPError, OSError):
                    pass
                return False

        wait_for(attempt, deadline, lambda: f"the station to answer (last: {last[-1]!r})", poll_s=0.2)
        return result[0]

    @staticmethod
    def _lost_link_only(v: dict) -> bool:
        faults = v.get("faults") or []
        return bool(v.get("paused") and faults and v["link"]["up"]
                    and all(f["kind"] == "link_lost" for f in faults))

    def act(self, action: str) -> dict:
        role = "dealer" if action in ("new_shoe", "open_betting") else "supervisor"

        def go():
            r = self.sessions[role].post(self.console + "/api/tables/PD-01/actions",
                                         json={"action": action},
                                         headers={"x-csrf-token": self.csrf[role]})
            if r.status_code in (401, 403) or r.status_code >= 500:
                raise httpx.HTTPError(f"{r.status_code}: {r.text[:200]}")
            return r.json()
        return self._retry(go)

    def view(self) -> dict:
        def go():
            r = self.sessions["supervisor"].get(self.console + "/api/tables/PD-01")
            if r.status_code != 200:
                raise httpx.HTTPError(str(r.status_code))
            return r.json()
        return self._retry(go)

    #: seconds the station has been down so far (set by the drill; 0: never killed)
    down_s = staticmethod(lambda: 0.0)

    def wait(self, cond, what: str, timeout: float = 60) -> dict:
        """The view once `cond` holds, within `timeout` seconds of the station serving: the
        time it lies killed or restarting (long on a loaded machine) does not count."""
        seen: list[dict] = []
        began, down_before = time.monotonic(), self.down_s()

        def serving_s() -> float:
            return time.monotonic() - began - (self.down_s() - down_before)

        def shown() -> dict | None:
            seen[:] = [self.view()]
            if self._lost_link_only(seen[0]):
                # A station that was down longer than the link watch (3 s: a restart on a
                # loaded machine may take that long) pauses for link_lost when it is back:
                # the supervisor resumes once the link is up again, as on the floor.
                self.act("resume")
                return None
            if cond(seen[0]):
                return seen[0]
            if serving_s() > timeout:
                raise AssertionError(f"{what}: not within {timeout:g} s of the station serving "
                                     f"({self.down_s() - down_before:.0f} s down): {seen[0]}")
            return None

        # the outer deadline only ends a drill whose station never serves again
        return wait_for(shown, timeout + 600, lambda: f"{what}: {seen[-1] if seen else None}",
                        poll_s=0.1)

    def bet(self) -> None:
        self.bet_no += 1
        body = {"account": f"u{self.rng.randint(1, 4)}", "spot": self.rng.choice(["P1", "P2", "P3PAIR"]),
                "amount": self.rng.choice([10, 50, 100]), "ref": f"drill-{self.bet_no}"}

        def go():
            r = self.http.post(self.bets + "/v1/bets", json=body,
                               headers={"Authorization": f"Bearer {API_KEY}"})
            if r.status_code not in (200, 409):
                raise httpx.HTTPError(str(r.status_code))
        self._retry(go)

    def draw(self) -> str:
        """The next card, once the gate opens; a table paused for a link lost across a restart
        is resumed meanwhile (see `wait`), since its gate stays locked until then."""
        looked = [0.0]
        seen: list[dict] = []

        def drawn() -> str | None:
            try:
                return self.shoe.draw()
            except ShoeRefused:
                if time.monotonic() - looked[0] >= 1.0:  # the console, once a second
                    looked[0] = time.monotonic()
                    seen[:] = [self.view()]
                    if self._lost_link_only(seen[0]):
                        self.act("resume")
                return None

        return wait_for(drawn, 60, lambda: f"the shoe's gate to open: {seen[-1] if seen else None}",
                        poll_s=0.1)

    def wallets(self) -> None:
        for i in range(1, 5):
            def go(i=i):
                r = self.http.post(self.bets + "/v1/wallets",
                                   json={"account": f"u{i}", "balance": 5_000},
                                   headers={"Authorization": f"Bearer {API_KEY}"})
                if r.status_code != 200:
                    raise httpx.HTTPError(f"{r.status_code}: {r.text[:200]}")
            self._retry(go)

    def session(self, rounds: int) -> None:
        self._retry(self._login)
        self.wallets()
        self.act("new_shoe")
        self.act("confirm_shuffle")
        self.shoe.load()
        self.wait(lambda v: v["phase"] == "ready", "the shoe to be ready")
        self.draw()
        v = self.wait(lambda v: v["shoe"]["first_card"], "the first card")
        for _ in range(v["shoe"]["burn_count"]):
            self.draw()
        for n in range(1, rounds + 1):
            self.wait(lambda v: v["phase"] == "between_rounds", "between rounds")
            self.act("open_betting")
            self.wait(lambda v, n=n: v["round"] and v["round"]["number"] == n, f"round {n}")
            for _ in range(3):
                self.bet()
            self.during_betting(n)
            for _ in range(13):
                self.draw()
                pace(0.05)  # the dealer's hand between two cards
            self.wait(lambda v, n=n: v["round"]["number"] == n and v["round"]["finished"],
                      f"round {n} validated", timeout=self.round_timeout_s)

    def during_betting(self, n: int) -> None:
        """What else comes while round `n`'s betting is open (nothing, for an honest floor)."""


def kill_drill(tmp_path: Path, shoe: ShoeSimulator, dealer_type: type[Dealer], *, rounds: int,
               betting_seconds: float, kill_gap_s: tuple[float, float], seed: int) -> tuple[StationProcess, Any]:
    """Run `station run` on the shoe's pty with a bet API and a console, deal `rounds` rounds
    with `dealer_type` while a killer SIGKILLs the station every `kill_gap_s` (a random gap)
    and starts it again; then stop it cleanly. The station's data is in tmp_path/data."""
    console_port, bet_port = free_port(), free_port()
    users = UserStore(tmp_path / "users.sqlite")
    users.add("dealer", "dealer", PASSWORD)
    users.add("supervisor", "supervisor", PASSWORD)
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[table]
name = "PD-01"
game = "pokdeng"
procedure = {{ betting_seconds = {betting_seconds} }}
[storage]
dir = "{tmp_path / 'data'}"
[shoe]
url = "{shoe.serve_pty()}"
[camera]
enabled = false
[console]
port = {console_port}
users = "{tmp_path / 'users.sqlite'}"
[bet_api]
port = {bet_port}
""")
    station = StationProcess(cfg, tmp_path / "station.log")
    station.start()
    dealer = dealer_type(f"http://127.0.0.1:{console_port}", f"http://127.0.0.1:{bet_port}", shoe)
    dealer.down_s = station.down_s
    stop_killing = threading.Event()
    rng = random.Random(seed)

    killer_failed: list[BaseException] = []

    def serving() -> bool:
        try:
            return httpx.get(f"http://127.0.0.1:{console_port}/login", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def killer() -> None:
        try:
            while not stop_killing.wait(rng.uniform(*kill_gap_s)):
                station.kill()
                pace(rng.uniform(0.0, 0.5))  # the station stays down a moment
                station.start()
                # The next gap runs from when the station serves again: on a loaded machine a
                # start can take longer than a gap, and a station killed each time before it is
                # up would never deal again. The kills still land at random points of dealing.
                wait_for(lambda: stop_killing.is_set() or serving(), 120,
                         "the restarted station to serve its console", poll_s=0.1)
                station.serving_again()
        except BaseException as e:  # the drill fails with it, below
            killer_failed.append(e)

    k = threading.Thread(target=killer, daemon=True)
    try:
        dealer._retry(dealer._login, 60)
        k.start()
        dealer.session(rounds)
    finally:
        stop_killing.set()
        k.join(30)
        assert not killer_failed, killer_failed
        dealer.wait(lambda v: True, "the station", 60)
        assert station.terminate() == 0, (tmp_path / "station.log").read_text()[-3000:]
        shoe.close()
    assert station.kills >= 3, "the drill did not kill the station often enough"
    return station, dealer


def check_books(ledger_path: Path, stored: list[dict], balances: dict[str, int],
                min_bets: int = 0) -> None:
    """The ledger's books are clean and hold the table's wallets; every accepted bet was
    settled exactly once; no bet the platform sent again was placed twice."""
    ledger = SettlementCore(ledger_path)
    try:
        report = ledger.check()
        assert report.ok, report.problems
        assert ledger.balances() == dict(balances) or not balances
        accepted = [r for r in stored if r["type"] == "bet_accepted"]
        settled = [b for r in stored if r["type"] == "settlement" for b in r["bets"]]
        assert len(settled) == len(accepted) and len(accepted) >= min_bets
        refs = [r["ref"] for r in accepted]
        assert len(refs) == len(set(refs)), "a bet the platform sent again was placed twice"
    finally:
        ledger.close()
