"""A whole High card table (tests/core/toy_game.py, installed through its entry point), run
the way a table runs, with nothing of the station written for it: the station started from
the game's table config (tests/core/toy_table.toml, as `station run` starts one) with its own
setting; the simulated shoe over a real pty dealing the game's 52 cards; the camera rendering
the game's own layout (tests/core/toy_camera_1080p.toml) and the recogniser reading it;
bettors on the bet API; the dealer's own action (`extend_betting`) and the supervisor's
decisions at the console, the latter in Chromium, which shows the game's panel and road;
settlement through the outbox into the ledger; then the journal exported and replayed to the
very bytes the table recorded."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from firmware_bridge.camera.scene import TableScene
from firmware_bridge.shoe.simulator import ShoeRefused, ShoeSimulator
from station.cards import ALL_CARDS, parse_card
from station.cli import main as station_main
from station.console import UserStore
from station.games import get_game
from station.live.camera_feed import camera_factory_for
from station.live.config import load_config
from station.live.journal_key import make_key_file
from station.sim.demo_clock import ClockedFrames, VirtualClock
from tests.browser import chromium, new_page, screenshot
from tests.console.conftest import PASSWORDS
from tests.console.console_page import as_shown, login
from tests.core.toy_install import toy_game_installed
from tests.live.clocked_view import wait_view
from tests.live.table_config import table_config_for_test
from tests.waiting import retry_until, wait_for

ROOT = Path(__file__).parents[2]
TOY = ROOT / "tests" / "core"
KEY = "toy-platform-key"
TABLE = "HC-SIM"
WALLET = 1000

pytestmark = [pytest.mark.slow, pytest.mark.browser]


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[None]:
    with toy_game_installed(tmp_path / "site"):
        yield


def _console_client(url: str, user: str) -> httpx.Client:
    c = httpx.Client(base_url=url, timeout=15)
    r = c.post("/api/login", json={"user": user, "password": PASSWORDS[user]})
    assert r.status_code == 200, r.text
    c.headers["X-CSRF-Token"] = r.json()["csrf"]
    return c


def _allowed(view: dict[str, Any], action: str) -> bool:
    return any(d["action"] == action and d["allowed"] for d in view["decisions"])


def _closures(ledger: Path) -> list[tuple[str, str, str, int, str | None, int | None]]:
    """Every bet the ledger holds with its closure (None: not closed), read beside the
    running settlement."""
    db = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT b.round_id, a.name, b.spot, b.amount, c.outcome, c.returned FROM bets b "
            "JOIN accounts a ON a.id = b.account_id LEFT JOIN bet_closures c ON c.bet_id = b.id "
            "ORDER BY b.id").fetchall()
    finally:
        db.close()
    # the ledger keys a round under its table and journal: `<table>/<journal>/<round>`
    return [(rid.rpartition("/")[2], *rest) for rid, *rest in rows]


def test_a_whole_toy_table_deals_settles_and_replays(tmp_path: Path, installed: None) -> None:
    from station.runtime import start_runtime
    from station.settlement.core import SettlementCore

    game = get_game("highcard")
    users = UserStore(None)
    users.add("sup1", "supervisor", PASSWORDS["sup1"])
    users.add("dealer1", "dealer", PASSWORDS["dealer1"])
    # the table's time is a virtual clock that stands while a frame is recognised, while the
    # station has inputs to apply and while this test (dealer, bettors, supervisor) is
    # mid-step: a loaded machine makes the table slower, it never closes betting under a bet
    clock = VirtualClock().start()
    clock.join()
    with ShoeSimulator(deck=[str(c) for c in ALL_CARDS], cut_at=None, seed=7) as shoe, \
            chromium() as browser:
        cfg = load_config(table_config_for_test(TOY / "toy_table.toml", tmp_path, shoe.serve_pty()))
        assert cfg.table.game == "highcard" and cfg.table.own.extend_max_seconds == 20
        cfg.table = dataclasses.replace(cfg.table, betting_seconds=5)
        cfg.signing_key_file = make_key_file(tmp_path / "keys" / f"{TABLE}.key")
        scene = TableScene(game.zones, seed=3)
        factory = camera_factory_for(cfg, scene, paced=lambda source: ClockedFrames(source, clock, 10))
        rt = start_runtime(cfg, camera_factory=factory, api_keys={KEY: "platform"}, users=users,
                           console_secret="toy-console-secret-" + "x" * 20, clock=clock.now)
        clock.hold_while(lambda: rt.station.fatal is None and rt.station.inputs_in_flight() > 0)
        st = rt.station
        _wait = partial(wait_view, st, clock=clock)
        dealt: dict[str, dict[str, str]] = {}
        try:
            bets_api = httpx.Client(base_url=rt.bet_api_url, timeout=15,
                                    headers={"Authorization": f"Bearer {KEY}"})
            dealer = _console_client(rt.console_url, "dealer1")

            def act(body: dict[str, Any]) -> list[str]:
                r = dealer.post(f"/api/tables/{TABLE}/actions", json=body)
                assert r.status_code == 200, r.text
                return r.json()["records"]

            def bet(account: str, spot: str, amount: int) -> httpx.Response:
                return bets_api.post("/v1/bets", json={"account": account, "spot": spot,
                                                       "amount": amount})

            def deal_round(misdealt: str | None = None) -> dict[str, str]:
                """The dealer draws each position's card from the shoe once its gate opens
                and lays it face up where the camera films it (at `misdealt`, another card
                than the one drawn lies in the zone)."""
                cards = {}
                for position in game.deal_plan:
                    with clock.waiting():
                        card = retry_until(shoe.draw, ShoeRefused, 60, "the shoe's gate to open",
                                           poll_s=0.1)
                    cards[position] = card
                    laid = card if position != misdealt else next(
                        str(c) for c in ALL_CARDS if str(c) != card)
                    scene.deal(position, laid, face_up=True)
                    clock.sleep(0.4)  # the dealer's hand between two cards
                return cards

            for account in ("u1", "u2", "u3"):
                r = bets_api.post("/v1/wallets", json={"account": account, "balance": WALLET})
                assert r.status_code == 200, r.text

            with new_page(browser, 1400, 1100, "the toy table's console") as page:
                from playwright.sync_api import expect

                page.on("dialog", lambda d: d.accept())
                login(page, rt.console_url, "sup1", PASSWORDS["sup1"])
                expect(page.locator("#hc-panel")).to_be_visible()
                for other in ("pokdeng", "paigow", "sizhidao"):
                    assert page.locator(f'[data-panel="{other}"]').count() == 0

                # a new shoe: the dealer asks, the supervisor confirms the shuffle in the
                # browser, the shoe is loaded
                assert act({"action": "new_shoe"}) == ["shoe_start"]
                confirm = page.locator('#action-buttons button[data-action="confirm_shuffle"]')
                expect(confirm).to_be_enabled()
                confirm.click()
                expect(page.locator("#action-message")).to_have_text(
                    f"{TABLE} · Confirm shuffle: done")
                _wait(lambda v: v.get("phase") == "shuffling" and not _allowed(v, "confirm_shuffle"),
                      "the supervisor's shuffle confirmation from the browser")
                shoe.load()
                _wait(lambda v: v.get("phase") == "between_rounds", "the shoe to be loaded")

                # round 1: bets through the bet API, the game's own dealer action, the deal
                act({"action": "open_betting"})
                v = _wait(lambda v: v["round"] and v["round"]["betting_open"], "betting to open")
                r1 = v["round"]["round_id"]
                stakes = [("u1", "LEFT", 300), ("u2", "RIGHT", 200), ("u3", "LEFT", 100)]
                assert [bet(*b).status_code for b in stakes] == [200, 200, 200]
                refused = bet("u3", "MIDDLE", 50)
                assert refused.status_code == 409 and refused.json()["reason"] == "bad_spot"
                closes = v["round"]["closes_at"]
                assert act({"action": "extend_betting", "seconds": 3}) == ["betting_extended"]
                r = dealer.post(f"/api/tables/{TABLE}/actions",
                                json={"action": "extend_betting", "seconds": 21})
                assert "1 to 20" in r.text, r.text  # the table config's [game] setting
                _wait(lambda v: round(v["round"]["closes_at"] - closes, 3) == 3, "the longer countdown")
                _wait(lambda v: not v["round"]["betting_open"], "betting to close")
                dealt[r1] = deal_round()
                v = _wait(lambda v: v["round"]["finished"], "the hand to be validated", 120)
                assert not v.get("paused"), v.get("faults")
                hand = st.journal.records_of_type("hand")[-1]
                assert hand["validated_by"] == ["shoe", "camera"]
                assert hand["cards"] == {p: [c] for p, c in dealt[r1].items()}
                # the console in the browser: the game's panel and its road
                expect(page.locator("#hc-round-id")).to_have_text(r1)
                outcomes = game.evaluate({p: [parse_card(c)] for p, c in dealt[r1].items()})
                for position, card in dealt[r1].items():
                    cell = page.locator(f'[data-hc-position="{position}"]')
                    expect(cell.locator(".card")).to_have_text(as_shown(card))
                    expect(cell.locator(".outcome")).to_have_attribute(
                        "data-outcome", outcomes[position]["outcome"])
                    road = page.locator(f'#hc-roads .road[data-position="{position}"]')
                    expect(road.locator(f'.bead[data-round="{r1}"]')).to_have_attribute(
                        "data-outcome", outcomes[position]["outcome"])
                expect(page.locator("#hc-road-count")).to_have_text("1 rounds")
                # the dealer calls the high card aloud, the game's own action at the console
                high = next((p for p, o in outcomes.items() if o["outcome"] == "win"), "LEFT")
                assert act({"action": "call", "position": high}) == ["called"]
                screenshot(page, "toy-table", "01-round-settled")
                for position in game.zones:
                    scene.clear(position)

                # round 2: the camera films another card than the shoe gave RIGHT: the table
                # stops, and the supervisor cancels the round in the browser (refunds)
                def reopened() -> bool:
                    """The dealer opens betting, refused until the camera sees the
                    positions clear."""
                    r = dealer.post(f"/api/tables/{TABLE}/actions", json={"action": "open_betting"})
                    return r.status_code == 200 and "round_open" in r.json()["records"]

                with clock.waiting():
                    wait_for(reopened, 30, "betting to open once the camera sees the positions "
                             "clear", poll_s=0.5)
                v = _wait(lambda v: v["round"] and v["round"]["round_id"] != r1
                          and v["round"]["betting_open"], "the second round's betting")
                r2 = v["round"]["round_id"]
                assert [bet("u1", "RIGHT", 150).status_code, bet("u2", "LEFT", 50).status_code] \
                    == [200, 200]
                _wait(lambda v: not v["round"]["betting_open"], "betting to close")
                dealt[r2] = deal_round(misdealt="RIGHT")
                alert = page.locator('#alerts .alert[data-kind="card_mismatch"]')
                with clock.waiting():
                    expect(alert).to_be_visible()
                screenshot(page, "toy-table", "02-mismatch")
                alert.locator('button[data-action="cancel_round"]').click()
                expect(page.locator("#alerts .alert")).to_have_count(0)
                v = _wait(lambda v: v["round"]["finished"] and not v.get("paused"),
                          "the cancelled round to free the table")
                li = page.locator(f'#rounds li[data-round="{r2}"]')
                expect(li).to_contain_text("cancelled (card_mismatch)")
                screenshot(page, "toy-table", "03-cancelled")
            cancelled = st.journal.records_of_type("round_cancelled")
            assert [(c["round_id"], c["user"]) for c in cancelled] == [(r2, "sup1")]

            # settlement: every bet closed exactly once in the ledger, through the outbox
            with clock.waiting():
                wait_for(lambda: len(_closures(cfg.ledger_path)) == 5 and all(
                    c[4] is not None for c in _closures(cfg.ledger_path)), 30,
                    lambda: f"every bet closed in the ledger: {_closures(cfg.ledger_path)}")
        finally:
            clock.leave()
            rt.stop()
            clock.stop()

    hands = {p: [parse_card(c)] for p, c in dealt[r1].items()}
    returned = {(a, s): game.returned(s, n, hands) for a, s, n in stakes}
    assert _closures(cfg.ledger_path) == [
        *[(r1, a, s, n, "settled", returned[(a, s)]) for a, s, n in stakes],
        (r2, "u1", "RIGHT", 150, "refunded", 150), (r2, "u2", "LEFT", 50, "refunded", 50)]
    expected = {a: WALLET - sum(n for b, _, n in stakes if b == a)
                + sum(v for (b, _), v in returned.items() if b == a) for a in ("u1", "u2", "u3")}
    with SettlementCore(cfg.ledger_path) as core:
        assert core.check(require_closed=True).ok
        assert core.balances() == expected

    # the journal, exported and replayed, gives back the very bytes the table recorded
    trace, out = tmp_path / "toy.trace.jsonl", tmp_path / "toy.replayed.jsonl"
    assert station_main(["journal", "export", str(cfg.journal_path), str(trace)]) == 0
    assert station_main(["replay", str(trace), "--out", str(out)]) == 0
    db = sqlite3.connect(f"file:{cfg.journal_path}?mode=ro", uri=True)
    try:
        stored = [r for (r,) in db.execute("SELECT record FROM records ORDER BY seq")]
    finally:
        db.close()
    replayed = out.read_text("utf-8").splitlines()
    # the replay ends with the wallets' balances (TRACES.md §3), which a journal does not store
    balances = json.loads(replayed[-1])
    assert (balances["type"], balances["accounts"]) == ("balances", expected)
    kinds = [json.loads(r)["type"] for r in stored]
    for kind in ("shoe_start", "bet_accepted", "bet_rejected", "betting_extended", "hand",
                 "settlement", "called", "fault", "round_cancelled"):
        assert kind in kinds, (kind, kinds)
    assert [f["kind"] for f in map(json.loads, stored) if f["type"] == "fault"] == ["card_mismatch"]
    assert replayed[:-1] == stored
    header = json.loads(trace.read_text("utf-8").splitlines()[0])
    # the game's own setting is recorded in the trace header, beside the kernel's
    assert (header["game"], header["settings"]["extend_max_seconds"]) == ("highcard", 20)
