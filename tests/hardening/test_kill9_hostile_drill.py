"""The kill -9 drill with a hostile betting platform and a careless console client.

`station run` (shoe simulator on a real pty, bet API, console, embedded settlement) is
SIGKILLed at random moments while a dealer deals rounds and, every round, the platform and a
stranger send every input issue 12 found: 200-character and empty refs, a ref reused for
another bet, amounts and balances of 2^62+1 and 2^63, NaN, 100,000-deep JSON, an action
that is a list, a 100,000-character user name, a 32 MiB login form. Every refusal is a 4xx,
every accepted input is journaled; the station restarts every time (nothing it took can
stop its journal from replaying), and at the end the books are clean and every bet is
settled exactly once.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import httpx
import pytest

from firmware_bridge.shoe.simulator import ShoeSimulator
from station.console import UserStore
from station.core.journal import Journal
from station.core.kernel import TableKernel as TableCore
from station.core.replay import settings_from_header
from station.money import MAX_AMOUNT, MAX_REF_CHARS
from station.settlement.core import SettlementCore
from tests.core.test_crash_drill import API_KEY, PASSWORD, Dealer, StationProcess, free_port

ROUNDS = 4
AUTH = {"Authorization": f"Bearer {API_KEY}"}


class HostileDealer(Dealer):
    refused = 0

    def _expect_4xx(self, send) -> None:
        def go():
            r = send()
            if r.status_code >= 500:  # the station is still starting: ask again
                raise httpx.HTTPError(f"{r.status_code}: {r.text[:200]}")
            return r
        r = self._retry(go)
        assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
        self.refused += 1

    def hostile(self, n: int) -> None:
        bets, console = self.bets, self.console
        post = self.http.post
        bet = {"account": "u1", "spot": "P1", "amount": 10}
        for body in ({**bet, "ref": "r" * 200}, {**bet, "ref": ""}, {**bet, "amount": 2**63},
                     {**bet, "amount": 2**62 + 1}, {**bet, "ref": "r" * (MAX_REF_CHARS + 1)}):
            self._expect_4xx(lambda body=body: post(bets + "/v1/bets", json=body, headers=AUTH))
        for balance in (2**63, 2**62 + 1, MAX_AMOUNT + 1, -1):
            self._expect_4xx(lambda b=balance: post(bets + "/v1/wallets", headers=AUTH,
                                                    json={"account": "u9", "balance": b}))
        deep = b"[" * 100_000 + b"]" * 100_000
        for path in ("/v1/bets", "/v1/bets/batch", "/v1/wallets"):
            self._expect_4xx(lambda p=path: post(bets + p, content=deep, headers={
                **AUTH, "Content-Type": "application/json"}))
        self._expect_4xx(lambda: post(bets + "/v1/bets", headers={**AUTH, "Content-Type": "application/json"},
                                      content=b'{"account": "u1", "spot": "P1", "amount": NaN}'))
        # a ref used once is a retry when the same, refused when not
        ref = f"hostile-{n}"
        first = self._retry(lambda: post(bets + "/v1/bets", headers=AUTH,
                                         json={"account": "u2", "spot": "P2", "amount": 10, "ref": ref}))
        if first.status_code == 200:
            again = self._retry(lambda: post(bets + "/v1/bets", headers=AUTH,
                                             json={"account": "u2", "spot": "P2", "amount": 10, "ref": ref}))
            # the station may have been killed between the two: the retry gets the first answer
            assert again.status_code == 200 and again.json()["deducted"] == first.json()["deducted"]
            reused = self._retry(lambda: post(bets + "/v1/bets", headers=AUTH,
                                              json={"account": "u2", "spot": "P3", "amount": 50, "ref": ref}))
            assert reused.status_code == 409 and reused.json()["error"] == "ref_reused"
        # the console: a stranger and a careless client
        stranger = httpx.Client(timeout=10)
        try:
            self._expect_4xx(lambda: stranger.post(console + "/api/login", content=deep,
                                                   headers={"Content-Type": "application/json"}))
            self._expect_4xx(lambda: stranger.post(console + "/api/login",
                                                   json={"user": "u" * 100_000, "password": "x"}))
            self._expect_4xx(lambda: stranger.post(
                console + "/login", content=b"user=sup&password=" + b"x" * (32 * 2**20),
                headers={"Content-Type": "application/x-www-form-urlencoded"}))
        finally:
            stranger.close()
        sup = self.sessions["supervisor"]
        self._expect_4xx(lambda: sup.post(console + "/api/tables/PD-01/actions", json={"action": ["resume"]},
                                          headers={"x-csrf-token": self.csrf["supervisor"]}))

    def session(self) -> None:
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
        for n in range(1, ROUNDS + 1):
            self.wait(lambda v: v["phase"] == "between_rounds", "between rounds")
            self.act("open_betting")
            self.wait(lambda v, n=n: v["round"] and v["round"]["number"] == n, f"round {n}")
            for _ in range(3):
                self.bet()
            self.hostile(n)
            for _ in range(13):
                self.draw()
                time.sleep(0.05)
            self.wait(lambda v, n=n: v["round"]["number"] == n and v["round"]["finished"],
                      f"round {n} validated", timeout=90)


@pytest.mark.slow
def test_hostile_inputs_through_kill9_restarts_end_with_clean_books(tmp_path: Path) -> None:
    shoe = ShoeSimulator(seed=17, cut_at=None)
    url = shoe.serve_pty()
    console_port, bet_port = free_port(), free_port()
    users = UserStore(tmp_path / "users.sqlite")
    users.add("dealer", "dealer", PASSWORD)
    users.add("supervisor", "supervisor", PASSWORD)
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[table]
name = "PD-01"
game = "pokdeng"
procedure = {{ betting_seconds = 6.0 }}
[storage]
dir = "{tmp_path / 'data'}"
[shoe]
url = "{url}"
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
    dealer = HostileDealer(f"http://127.0.0.1:{console_port}", f"http://127.0.0.1:{bet_port}", shoe)
    stop_killing = threading.Event()
    rng = random.Random(8)

    def killer() -> None:
        while not stop_killing.wait(rng.uniform(2.0, 4.0)):
            station.kill()
            time.sleep(rng.uniform(0.0, 0.5))
            station.start()

    k = threading.Thread(target=killer, daemon=True)
    try:
        dealer._retry(dealer._login, 60)
        k.start()
        dealer.session()
    finally:
        stop_killing.set()
        k.join(30)
        dealer.wait(lambda v: True, "the station", 60)
        assert station.terminate() == 0, (tmp_path / "station.log").read_text()[-3000:]
        shoe.close()
    assert station.kills >= 3, "the drill did not kill the station often enough"
    assert dealer.refused >= ROUNDS * 10
    log = (tmp_path / "station.log").read_text()
    # every restart re-applied its journal: nothing it took was refused on replay
    assert "JournalError" not in log and "TraceError" not in log, log[-3000:]

    journal = Journal(tmp_path / "data" / "journal.sqlite")
    stored = journal.stored_records()
    core = TableCore(settings_from_header(journal.header))
    for _, inp in journal.inputs():
        if inp.kind == "bet":
            assert 1 <= len(inp.value.get("ref", "x")) <= MAX_REF_CHARS
            assert abs(inp.value["amount"]) <= MAX_AMOUNT
        if inp.kind == "wallet":
            assert 0 <= inp.value["balance"] <= MAX_AMOUNT
        core.apply(inp)
        core.take_outputs()
    hands = [r for r in stored if r["type"] == "hand"]
    assert [h["round"] for h in hands] == list(range(1, ROUNDS + 1))
    ledger = SettlementCore(tmp_path / "data" / "ledger.sqlite")
    report = ledger.check()
    assert report.ok, report.problems
    assert ledger.balances() == dict(core.balances) or not core.balances
    accepted = [r for r in stored if r["type"] == "bet_accepted"]
    settled = [b for r in stored if r["type"] == "settlement" for b in r["bets"]]
    assert len(settled) == len(accepted)
    refs = [r["ref"] for r in accepted]
    assert len(refs) == len(set(refs)), "a bet sent again was placed twice"
    ledger.close()
    journal.close()
