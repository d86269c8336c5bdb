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

from pathlib import Path

import httpx
import pytest

from firmware_bridge.shoe.simulator import ShoeSimulator
from station.core.journal import Journal
from station.core.kernel import TableKernel as TableCore
from station.core.replay import settings_from_header
from station.money import MAX_AMOUNT, MAX_REF_CHARS
from tests.core.kill_drill import API_KEY, Dealer, check_books, kill_drill

ROUNDS = 4
AUTH = {"Authorization": f"Bearer {API_KEY}"}


class HostileDealer(Dealer):
    refused = 0
    round_timeout_s = 90.0

    def _expect_4xx(self, send) -> None:
        def go():
            r = send()
            if r.status_code >= 500:  # the station is still starting: ask again
                raise httpx.HTTPError(f"{r.status_code}: {r.text[:200]}")
            return r
        r = self._retry(go)
        assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
        self.refused += 1

    def during_betting(self, n: int) -> None:
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


@pytest.mark.slow
def test_hostile_inputs_through_kill9_restarts_end_with_clean_books(tmp_path: Path) -> None:
    shoe = ShoeSimulator(seed=17, cut_at=None)
    _, dealer = kill_drill(tmp_path, shoe, HostileDealer, rounds=ROUNDS, betting_seconds=6.0,
                           kill_gap_s=(2.0, 4.0), seed=8)
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
    check_books(tmp_path / "data" / "ledger.sqlite", stored, core.balances)
    journal.close()
