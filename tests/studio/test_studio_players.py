"""The studio's Si Zhi Dao tables serve the player API as a lone table does, and their
session's players play through it over real HTTP; the games settle through the bus."""

from __future__ import annotations

import httpx

from station.core.journal import Journal
from station.settlement.core import SettlementCore
from station.studio.tables import StudioTable, balances_from_outbox
from tests.studio.test_bus import RunningConsumer
from tests.waiting import wait_for


def test_a_studio_si_zhi_dao_table_serves_its_players_and_they_play_through_it(
        tmp_path, local_nats, studio_ledger):
    core = SettlementCore(studio_ledger)
    consumer = RunningConsumer(core, local_nats.url)
    table = StudioTable("SZ-61", "sizhidao", seed=61, rounds=2, pace_s=0.5,
                        bus_url=local_nats.url, folder=tmp_path, player_key="k-studio")
    expected = sum(1 for line in table.session.lines if "player" in line)
    assert table.players_url is not None and expected > 0
    table.start()
    try:
        api = httpx.Client(base_url=table.players_url, timeout=10.0)
        # the platform's key is needed, as at a lone table
        assert api.post("/v1/players/actions", json={"account": "x", "action": "sit"}
                        ).status_code == 401
        auth = {"Authorization": "Bearer k-studio"}
        # a player's own view over the API once the table has seated someone
        account = next(line["player"]["account"] for line in table.session.lines
                       if "player" in line)
        wait_for(lambda: table.player_actions > 0, 30, "a player's first action over the API")
        view = api.get(f"/v1/players/{account}/view", headers=auth)
        assert view.status_code == 200 and view.json()["table"] == "SZ-61"
        assert table.state()["players_url"] == table.players_url
        assert table.finished.wait(120) and table.failed is None
        # every player line of the session went through the API
        assert table.player_actions == expected
        assert table.drain(60)
        messages = table.outbox()
        consumer.wait_caught_up()
        api.close()
    finally:
        consumer.stop()
        table.close()
    journal = Journal(table.journal_path)
    try:
        players = [inp for _, inp in journal.inputs() if inp.kind == "player"]
    finally:
        journal.close()
    assert len(players) == expected
    report = core.check(require_closed=True)
    assert report.ok, report.problems
    assert core.balances() == balances_from_outbox(messages)
    core.close()
