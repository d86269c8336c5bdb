"""Acceptance of the Si Zhi Dao table through the live station (issue #15): the staged games —
two tie rounds in a row with an all-in layer, a player left alone, a disconnected all-in
player — played with every player action through the HTTP player API of a real
`TableStation`, its outbox delivered to a real settlement core: each ends with its expected
layers, buy-ins, payouts and wallets, the ledger check is clean and every pot account is at
zero; a game cancelled in its tie round is refunded in full through its pot."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from station.core.inputs import parse_input
from station.games.sizhidao.tools.demo import pot_accounts
from station.settlement.core import SettlementCore
from station.settlement.outbox import DeliveryWorker
from station.settlement.transport import InProcessTransport
from tests.sizhidao.live_table import KEY, LiveTable
from tests.sizhidao.staged_games import SCENARIOS
from tests.sizhidao.test_kernel_faults import HANDS, calls, opened


def play_live(script, tmp_path: Path) -> tuple[LiveTable, SettlementCore]:
    """Every line of the script into a live table (players over HTTP), its outbox settled."""
    live = LiveTable(tmp_path / "journal.sqlite", table=script.header["table"],
                     journal_sync="normal").start()
    ledger = SettlementCore(tmp_path / "ledger.sqlite")
    worker = DeliveryWorker(tmp_path / "journal.sqlite", InProcessTransport(ledger))
    live.station.on_outbox = worker.wake
    worker.start()
    try:
        with httpx.Client(base_url=live.url, timeout=10,
                          headers={"authorization": f"Bearer {KEY}"}) as http:
            for i, line in enumerate(script.lines):
                inp = parse_input(line, i + 2)
                live.clock.t = max(live.clock.t, inp.t_us / 1e6)
                if inp.kind == "end":
                    break
                if inp.kind == "player":
                    r = http.post("/v1/players/actions", json=inp.value)
                    assert r.status_code in (200, 409), r.text
                else:
                    live.station.submit(inp.kind, inp.value, inp.user)
            # time runs to the trace's end: the clocks due by then fire
            live.clock.t = script.t + 1
            live.station.submit("tick", True)
            live.balances = dict(live.station.core.balances)
    finally:
        live.stop()
        worker.drain(30)
        worker.stop()
    return live, ledger


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_staged_games_through_the_live_station_settle_as_expected(name: str, tmp_path: Path) -> None:
    script, want = SCENARIOS[name]()
    live, ledger = play_live(script, tmp_path)
    records = live.records
    layers = {r["deal_id"]: r["layers"] for r in records if r["type"] == "layers"}
    assert layers == want["layers"]
    buy_ins = [(r["account"], r.get("amount"), bool(r.get("declined")))
               for r in records if r["type"] == "buy_in"]
    assert buy_ins == want["buy_ins"]
    (settled,) = [r for r in records if r["type"] == "game_settled"]
    assert settled["payouts"] == want["payouts"] and settled["pot"] == want["pot"]
    balances = live.balances
    assert {a: balances[a] for a in want["balances"]} == want["balances"]
    check = ledger.check(require_closed=True)
    assert check.ok, check.problems
    books = ledger.balances()
    assert {a: books[a] for a in want["balances"]} == want["balances"]
    ledger.close()
    pots = pot_accounts(tmp_path / "ledger.sqlite")
    assert list(pots.values()) == [0] and len(pots) == 1


def test_a_game_cancelled_in_its_tie_round_is_refunded_through_its_pot(tmp_path: Path) -> None:
    s = opened()
    tied = {"S1": HANDS["S1"], "S2": "JH KD 2S 2H".split(), "S3": HANDS["S3"], "S4": HANDS["S4"]}
    s.deal(tied, leader="S1")
    calls(s)
    s.wait(10.5).reveal(tied).clear()  # S1 S2 S3 tie: a tie round is due
    s.wait(1).player("d", "buy_in").wait(1)
    s.wait(1).supervisor("cancel_round").end()
    live, ledger = play_live(s, tmp_path)
    (cancelled,) = [r for r in live.records if r["type"] == "round_cancelled"]
    assert cancelled["round_id"] == "SZ-01-G1"
    assert sorted((x["account"], x["amount"]) for x in cancelled["refunds"]) == [
        ("a", 300), ("b", 300), ("c", 300), ("d", 900)]
    assert all(live.balances[a] == 10_000 for a in "abcd")
    assert ledger.check(require_closed=True).ok
    ledger.close()
    assert list(pot_accounts(tmp_path / "ledger.sqlite").values()) == [0]
