"""A table configured for the studio bus (`[settlement] mode = "bus"`): its outbox goes over
NATS JetStream to the studio ledger, its public state to the studio console."""

from __future__ import annotations

import threading

import pytest

from station.live.config import ConfigError, parse_config
from station.live.journal_key import make_key_file
from station.runtime import start_runtime
from station.settlement.bus import BusConsumer
from station.settlement.core import SettlementCore
from station.studio.console import StudioView
from tests.waiting import wait_for


@pytest.mark.parametrize(
    ("settlement", "words"),
    [
        ({"mode": "bus"}, "settlement.url: the studio bus's nats://host:port is needed"),
        ({"mode": "bus", "url": "http://127.0.0.1:4222"}, "a nats:// or tls:// URL"),
        ({"mode": "bus", "url": "nats://h:4222", "ledger": "x.sqlite"}, "keeps no ledger"),
        ({"mode": "bus", "url": "nats://h:4222", "reserve_timeout_s": 0}, "reserve_timeout_s"),
        ({"mode": "bus", "url": "nats://h:4222", "reserve": "yes"}, "settlement.reserve: expected bool"),
        ({"mode": "embedded", "reserve": True}, "only with settlement.mode = 'bus'"),
        ({"mode": "bus", "url": "nats://h:4222", "subject": "x"}, "unknown key(s) subject"),
        ({"mode": "pigeon"}, "'embedded', 'remote' or 'bus'"),
    ],
)
def test_bus_settlement_mistakes_name_the_key(settlement, words):
    with pytest.raises(ConfigError) as e:
        parse_config({"settlement": settlement})
    assert words in str(e.value)


def test_a_table_on_the_bus_needs_a_name_that_is_a_subject_token():
    with pytest.raises(ConfigError, match="table.name: on the studio bus"):
        parse_config({"table": {"name": "PD 01"},
                      "settlement": {"mode": "bus", "url": "nats://127.0.0.1:4222"}})
    cfg = parse_config({"table": {"name": "PD-01"},
                        "settlement": {"mode": "bus", "url": "nats://127.0.0.1:4222",
                                       "reserve": True, "reserve_timeout_s": 0.5}})
    assert cfg.settlement.mode == "bus" and cfg.settlement.reserve
    assert cfg.settlement.reserve_timeout_s == 0.5 and cfg.settlement.publish_state


def test_a_pot_game_table_is_refused_reservations_it_could_not_keep(tmp_path):
    # Si Zhi Dao's money comes from player actions into a pot, not through the bet intake:
    # reserving would cover none of it (docs/studio.md, "Pot games in the studio")
    bus = {"mode": "bus", "url": "nats://127.0.0.1:4222"}
    with pytest.raises(ConfigError, match="sizhidao table's money comes from player actions"):
        parse_config({"table": {"name": "SZ-01", "game": "sizhidao"},
                      "settlement": {**bus, "reserve": True}})
    cfg = parse_config({"table": {"name": "SZ-01", "game": "sizhidao"}, "settlement": bus})
    assert not cfg.settlement.reserve
    # a configuration built in code is refused before the table opens anything
    cfg.settlement.reserve = True
    cfg.data_dir = tmp_path / "SZ-01"
    from station.runtime import start_runtime

    with pytest.raises(ConfigError, match="player actions"):
        start_runtime(cfg, with_console=False, with_bet_api=False)
    assert not cfg.data_dir.exists()
    for game in ("pokdeng", "paigow"):
        assert parse_config({"table": {"name": "T-01", "game": game},
                             "settlement": {**bus, "reserve": True}}).settlement.reserve


def test_a_table_configured_for_the_bus_settles_in_the_studio_ledger_and_shows_on_the_console(
        tmp_path, local_nats, studio_ledger):
    cfg = parse_config({"table": {"name": "PD-31", "game": "pokdeng"},
                        "storage": {"dir": str(tmp_path / "PD-31"), "sync": "normal"},
                        "settlement": {"mode": "bus", "url": local_nats.url},
                        "recording": {"traces": False},
                        "journal": {"signing_key_file": str(make_key_file(tmp_path / "PD-31.key"))}})
    core = SettlementCore(studio_ledger)
    consumer = BusConsumer(core, local_nats.url)
    thread = threading.Thread(target=consumer.run, daemon=True)
    thread.start()
    view = StudioView(local_nats.url)
    rt = start_runtime(cfg, with_console=False, with_bet_api=False)
    try:
        rt.station.submit("wallet", {"account": "PD-31.u1", "balance": 4_200})
        rt.station.submit("wallet", {"account": "PD-31.u2", "balance": 900})
        assert rt.worker.drain(20)
        wait_for(lambda: consumer.applied >= 2 and "PD-31" in view.tables, 20,
                 lambda: f"the two wallets settled and PD-31 on the studio view "
                         f"(applied {consumer.applied}, tables {view.tables})", poll_s=0.05)
        assert core.balances() == {"PD-31.u1": 4_200, "PD-31.u2": 900}
        state = view.tables["PD-31"]
        assert state["game"] == "pokdeng" and state["state"] == rt.station.view["state"]
        assert {"round", "faults", "devices", "last_results"} <= set(state)
    finally:
        rt.stop()
        consumer.stop()
        thread.join(20)
        view.close()
    assert core.check().ok
    core.close()
