"""A fourth game presents itself with nothing of the station edited: the toy game
(tests/core/toy_game.py), installed through the `dealer_station.games` entry point, brings
its own console panel and road (tests/core/toy_panel/), and the console of a running toy
table shows them in the real browser; a game that declares no presentation gets no panel
and an empty road, never another game's."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from station.core.inputs import US, read_trace
from station.core.replay import settings_from_header
from station.games import GAMES
from station.games.presentation import Presentation, Records, Road
from station.live.table_station import TableStation
from station.sim.script import TraceScript
from tests.console.conftest import PASSWORDS
from tests.console.console_page import as_shown, login, shot
from tests.core.toy_game import HighCard
from tests.core.toy_install import toy_game_installed
from tests.waiting import wait_for


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[None]:
    assert "highcard" not in GAMES
    with toy_game_installed(tmp_path / "site"):
        assert "highcard" in GAMES  # found through its entry point alone
        yield
    assert "highcard" not in GAMES


def _script(game: str = "highcard", table: str = "HC-01") -> TraceScript:
    s = TraceScript(game, table=table)
    s.wallet("u1", 1000).wallet("u2", 1000)
    s.dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(0.5).shoe("LOAD").wait(1)
    # round 1: LEFT's ace beats RIGHT's three
    s.open_round().bet("u1", "LEFT", 100).bet("u2", "RIGHT", 50).until_closed()
    s.card("AS").wait(0.4).camera({"LEFT": ["AS"]}).wait(0.3)
    s.card("3C").wait(0.4).camera({"RIGHT": ["3C"]}).wait(1)
    s.camera({"LEFT": [], "RIGHT": []}).wait(1)
    # round 2: two sevens push
    s.open_round().bet("u1", "RIGHT", 200).until_closed()
    s.card("7D").wait(0.4).camera({"LEFT": ["7D"]}).wait(0.3)
    s.card("7H").wait(0.4).camera({"RIGHT": ["7H"]}).wait(1)
    return s


class _Table:
    """A live toy table fed its script on a clock the test moves."""

    def __init__(self, tmp: Path, game: str = "highcard", table: str = "HC-01") -> None:
        header, self.inputs = read_trace(_script(game, table).write(tmp / f"{table}.jsonl"))
        self.now = [1000.0]
        self.station = TableStation(settings_from_header(header), tmp / f"{table}.sqlite",
                                    clock=lambda: self.now[0])
        self.station.start()

    def run(self) -> None:
        for inp in self.inputs:
            if inp.kind == "end":
                break
            self.now[0] = 1000.0 + inp.t_us / US
            self.station.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)
        wait_for(lambda: self.station.core.rounds_settled == 2, 10,
                 lambda: f"both toy rounds settled ({self.station.core.rounds_settled})")


@pytest.fixture
def toy_table(tmp_path: Path, installed: None) -> Iterator[_Table]:
    t = _Table(tmp_path)
    yield t
    t.station.stop()


def test_the_toy_games_road_and_panel_files_are_its_own(toy_table: _Table, serve: Any) -> None:
    toy_table.run()
    con = serve(toy_table)
    c = con.client("sup1")
    body = c.get("/api/tables/HC-01/roads").json()
    assert body["panel"] == "highcard" and body["rounds"] == 2
    left = body["roads"]["LEFT"]["beads"]
    assert [(b["round_id"], b["outcome"], b["ring"], b["card"]) for b in left] == [
        ("HC-01-S1-R1", "win", True, "AS"), ("HC-01-S1-R2", "tie", False, "7D")]
    assert [b["outcome"] for b in body["roads"]["RIGHT"]["beads"]] == ["lose", "tie"]
    assert 'data-position="LEFT"' in body["roads"]["LEFT"]["svg"]
    page = c.get("/")
    assert page.status_code == 200
    for url in ("/games/highcard/panel.js", "/games/highcard/panel.css"):
        assert url in page.text
    js = c.get("/games/highcard/panel.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    assert "stationPanels" in js.text
    assert 'id="hc-panel"' in page.text and 'id="hc-roads"' in page.text
    # only this console's games are on its page; a file no game declares is not served
    assert "/games/pokdeng/" not in page.text and 'data-panel="pokdeng"' not in page.text
    assert c.get("/games/highcard/__init__.py").status_code == 404
    assert c.get("/games/nosuchgame/panel.js").status_code == 404
    recall = c.get("/api/tables/HC-01/rounds/HC-01-S1-R1").json()
    assert recall["cards"] == {"LEFT": ["AS"], "RIGHT": ["3C"]} and "dice" not in recall


@pytest.mark.browser
def test_the_console_of_a_running_toy_table_shows_its_panel_and_road(
        toy_table: _Table, serve: Any, page: Any) -> None:
    from playwright.sync_api import expect

    con = serve(toy_table)
    login(page, con.url, "sup1", PASSWORDS["sup1"])
    panel = page.locator("#hc-panel")
    expect(panel).to_be_visible()
    for other in ("pokdeng", "paigow", "sizhidao"):
        assert page.locator(f'[data-panel="{other}"]').count() == 0
    toy_table.run()
    expect(page.locator("#hc-round-id")).to_have_text("HC-01-S1-R2")
    left = page.locator('[data-hc-position="LEFT"]')
    expect(left.locator(".card")).to_have_text(as_shown("7D"))
    expect(left.locator(".outcome")).to_have_attribute("data-outcome", "tie")
    road = page.locator('#hc-roads .road[data-position="LEFT"]')
    expect(road.locator(".bead")).to_have_count(2)
    expect(road.locator('.bead[data-round="HC-01-S1-R1"]')).to_have_attribute("data-ring", "1")
    expect(road.locator('.bead[data-round="HC-01-S1-R1"]')).to_have_attribute("data-outcome", "win")
    expect(road.locator('.bead[data-round="HC-01-S1-R2"]')).to_have_attribute("data-outcome", "tie")
    expect(page.locator("#hc-road-count")).to_have_text("2 rounds")
    shot(page, "toy-game-console")


class PlainCard(HighCard):
    """The toy game's rules without any presentation."""

    name = "plaincard"
    presentation = None


def test_a_game_that_declares_no_presentation_gets_no_panel_and_an_empty_road(
        tmp_path: Path, serve: Any) -> None:
    GAMES["plaincard"] = PlainCard
    t = _Table(tmp_path, "plaincard", "PC-01")
    try:
        t.run()
        con = serve(t)
        c = con.client("sup1")
        body = c.get("/api/tables/PC-01/roads")
        assert body.status_code == 200, body.text
        assert body.json() == {"table": "PC-01", "panel": None, "shoe": None, "rounds": 0,
                               "roads": {}}
        assert c.get("/api/tables/PC-01").json()["panel"] is None
        page = c.get("/").text
        assert "data-panel=" not in page and "/games/" not in page
        # its rounds are still recalled, as any dealt round is
        recall = c.get("/api/tables/PC-01/rounds/PC-01-S1-R1").json()
        assert recall["status"] == "settled" and recall["cards"]["LEFT"] == ["AS"]
    finally:
        t.station.stop()
        del GAMES["plaincard"]


def test_a_panel_file_is_served_only_by_its_name_and_only_for_this_consoles_games(
        toy_table: _Table, serve: Any) -> None:
    con = serve(toy_table)
    # no login, no panel file: they are parts of the console's page
    assert con.client().get("/games/highcard/panel.js").status_code == 401
    c = con.client("sup1")
    assert c.get("/games/highcard/panel.js").status_code == 200
    for path in ("/games/highcard/..%2f__init__.py", "/games/highcard/..%2F..%2Ftoy_game.py",
                 "/games/highcard/%2e%2e/panel.js", "/games/highcard/panel.js%00",
                 "/games/highcard/panel.js%00.css", "/games/highcard/%2e%2e%2ftoy_panel%2fpanel.js",
                 # a fragment is part of the page, not a page by itself
                 "/games/highcard/panel.html", "/games/highcard/road.html",
                 # another game's files: registered, but no table of it on this console
                 "/games/pokdeng/panel.js", "/games/paigow/panel.css", "/games/sizhidao/panel.js"):
        r = c.get(path)
        assert r.status_code == 404, (path, r.status_code, r.text[:200])
        assert "stationPanels" not in r.text and "import" not in r.text


def test_a_games_action_is_its_own_tables_and_a_dealer_line(
        toy_table: _Table, serve: Any, make_table: Any) -> None:
    toy_table.run()
    pd = make_table("clean_shoe")
    con = serve(toy_table, pd)
    dealer, sup = con.client("dealer1"), con.client("sup1")

    def act(c: Any, table: str, body: dict[str, Any]) -> Any:
        return c.post(f"/api/tables/{table}/actions", json=body, headers={"X-CSRF-Token": c.csrf})

    # the toy game's call is not an action of the Pok Deng table beside it
    r = act(dealer, "PD-01", {"action": "call"})
    assert r.status_code == 400 and "unknown action 'call'" in r.json()["error"], r.text
    # at its own table it is the dealer's: the supervisor is refused, a bad body is a 400
    r = act(sup, "HC-01", {"action": "call", "position": "LEFT"})
    assert r.status_code == 403 and r.json()["error"] == \
        "call is for the dealer; you are logged in as supervisor", r.text
    r = act(dealer, "HC-01", {"action": "call", "position": "MIDDLE"})
    assert r.status_code == 400 and r.json()["reason"] == "bad_call", r.text
    r = act(dealer, "HC-01", {"action": "call", "position": "LEFT"})
    # sent to the table as the dealer's line (the kernel's list decides, never the game's),
    # and the toy table's procedure takes it
    assert r.status_code == 200 and r.json()["records"] == ["called"], r.text
    entry = sup.get("/api/audit?table=HC-01").json()["entries"][0]
    assert (entry["action"], entry["user"], entry["role"]) == ("call", "dealer1", "dealer")
    # the kernel's supervisor decisions stay the supervisor's at every table
    r = act(dealer, "PD-01", {"action": "close_table"})
    assert r.status_code == 403 and "close_table is for the supervisor" in r.json()["error"]


class PeekRoad(Road):
    """A road that asks the journal for private records (a seat's cards mid-deal)."""

    def read(self, records: Records, positions: list[str], shoe: int | None,
             current_shoe: int | None) -> dict[str, Any]:
        return {"shoe": None, "rounds": len(records(("private", "hand"))), "roads": {},
                "private": records(("private",))}


class PeekPanel(Presentation):
    road_class = PeekRoad

    def recall(self, records: Records, table: str, round_id: str) -> dict[str, Any] | None:
        return {"table": table, "round_id": round_id, "private": records(("private",)),
                "records": [r for r in records(("private", "round_open")) if r.get("round_id") == round_id]}


class PeekCard(HighCard):
    name = "peekcard"
    presentation = PeekPanel


def test_a_games_road_and_recall_never_read_a_private_record(tmp_path: Path, serve: Any) -> None:
    GAMES["peekcard"] = PeekCard
    t = _Table(tmp_path, "peekcard", "HC-01")
    try:
        t.run()
        # a seat's cards, as the journal holds them for their own account alone
        db = sqlite3.connect(t.station.journal.path)
        with db:
            db.execute("INSERT INTO records(input_seq, type, record) VALUES (1, 'private', ?)",
                       (json.dumps({"type": "private", "account": "u1", "round_id": "HC-01-S1-R1",
                                    "cards": ["KS", "KH"]}),))
        db.close()
        c = serve(t).client("sup1")
        body = c.get("/api/tables/HC-01/roads").json()
        assert body["private"] == [] and body["rounds"] == 2, body
        recall = c.get("/api/tables/HC-01/rounds/HC-01-S1-R1").json()
        assert recall["private"] == [] and "KS" not in json.dumps(recall), recall
    finally:
        t.station.stop()
        del GAMES["peekcard"]


def test_a_players_empty_own_part_is_the_games(toy_table: _Table) -> None:
    from station.live.player_api import account_view

    class Seated(Presentation):
        view_key = "round"

        def no_own_part(self, account: str) -> dict[str, Any]:
            return {"account": account, "seat": None, "stack": 0}

    game = HighCard()
    assert account_view(toy_table.station, "u9", Presentation(game))["you"] == {
        "account": "u9", "seat": None}
    assert account_view(toy_table.station, "u9", Seated(game))["you"] == {
        "account": "u9", "seat": None, "stack": 0}


class WinnerPanel(Presentation):
    """A presentation that names each finished round's winner in the console's list."""

    def finished_item(self, record: Any) -> dict[str, Any]:
        item = super().finished_item(record)
        wins = [p for p, o in item.get("results", {}).items() if o == "win"]
        return {**item, "winner": wins[0] if wins else None}


class WinnerCard(HighCard):
    name = "winnercard"
    presentation = WinnerPanel


def test_the_list_of_rounds_says_what_the_game_shows_of_each(tmp_path: Path, serve: Any) -> None:
    GAMES["winnercard"] = WinnerCard
    t = _Table(tmp_path, "winnercard", "HC-01")
    try:
        t.run()
        rounds = serve(t).client("sup1").get("/api/tables/HC-01/rounds").json()["rounds"]
        assert [(r["round_id"], r["status"], r["winner"], r["results"]) for r in rounds] == [
            ("HC-01-S1-R2", "settled", None, {"LEFT": "tie", "RIGHT": "tie"}),
            ("HC-01-S1-R1", "settled", "LEFT", {"LEFT": "win", "RIGHT": "lose"})]
    finally:
        t.station.stop()
        del GAMES["winnercard"]
