"""`station studio`: local PostgreSQL and nats-server, six simulated tables, bettors, the
settlement consumer and the studio console, run to a clean studio ledger."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest

from station.games import BUILT_IN, GAMES
from station.settlement.bus import StatePublisher
from tests.settlement.helpers import REPO, env_with_secret
from tests.waiting import wait_for


@pytest.mark.slow
@pytest.mark.postgres  # `station studio` starts its own PostgreSQL and nats-server
def test_station_studio_runs_every_game_to_a_clean_ledger_and_shows_every_table():
    # every game the station is built with (a test may have installed one for its own process)
    games = ",".join(sorted(BUILT_IN))
    proc = subprocess.Popen(
        [sys.executable, "-m", "station", "studio", "--tables", "6", "--rounds", "4",
         "--pace", "0.4", "--port", "0", "--games", games, "--seed", "3", "--hold"],
        cwd=REPO, env=env_with_secret(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = {}
        while len(lines) < 4:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()[-3000:]
            name, _, value = line.partition(": ")
            lines[name] = value.strip()
        assert lines["studio"].startswith("6 tables")
        console, bus = lines["studio console"], lines["studio bus"]
        assert lines["studio ledger"].startswith("postgresql://")
        seen: list[dict] = []

        def six_tables() -> bool:
            seen[:] = [httpx.get(console + "api/tables", timeout=5).json()]
            return len(seen[0]["tables"]) == 6

        wait_for(six_tables, 60, lambda: f"the six tables on the studio console: {seen}", poll_s=0.2)
        data = seen[0]
        assert {t["game"] for t in data["tables"]} == set(games.split(","))
        # each table is named by its game's prefix (a Pai Gow table is WZ-, not PG-)
        assert all(t["table"].startswith(GAMES[t["game"]].table_prefix) for t in data["tables"])
        for state in data["tables"]:
            assert {"table", "game", "state", "round", "faults", "devices", "last_results"} <= set(state)
        # how far the ledger is with each table, from the ledger itself, and the consumer's lag
        def ledger_progress() -> bool:
            seen[:] = [httpx.get(console + "api/tables", timeout=5).json()]
            return (seen[0]["settlement"]["consumers"] == 1 and seen[0]["settlement"]["error"] is None
                    and all(t.get("ledger_applied_up_to", 0) > 0 for t in seen[0]["tables"]))

        wait_for(ledger_progress, 60, lambda: f"the ledger's progress on the console: {seen}",
                 poll_s=0.2)
        page = httpx.get(console, timeout=5)
        assert page.status_code == 200 and "Studio" in page.text and "api/tables" in page.text
        first = data["tables"][0]["table"]
        assert first in httpx.get(console + f"tables/{first}", timeout=5).text
        # a table that pauses raises the studio's alarm
        other = StatePublisher(bus, "PD-99")
        other.publish({"game": "pokdeng", "state": "paused", "round": "PD-99-S1-R3",
                       "faults": ["card_mismatch"], "devices": {"shoe": "ok", "camera": "ok"},
                       "last_results": None, "t": time.time()})
        wait_for(lambda: "PD-99" in httpx.get(console + "api/tables", timeout=5).json()["paused"],
                 20, "the studio console to list PD-99 as paused", poll_s=0.2)
        other.close()
        # the studio keeps its console up once the rounds are played (--hold): the checks above
        # never race its end; Ctrl-C then stops it, and it settles and checks the books
        rest: list[str] = []
        errs: list[str] = []
        readers = [threading.Thread(target=lambda: rest.extend(iter(proc.stdout.readline, "")),
                                    daemon=True),
                   threading.Thread(target=lambda: errs.append(proc.stderr.read()), daemon=True)]
        for reader in readers:
            reader.start()
        wait_for(lambda: any("every table has played its rounds" in line for line in rest), 180,
                 lambda: f"the studio to finish its rounds (printed: {rest[-5:]})", poll_s=0.2)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=180)
        except subprocess.TimeoutExpired:
            raise AssertionError("the studio did not end within 180 s of Ctrl-C; it printed "
                                 f"{rest[-8:]}") from None
        for reader in readers:
            reader.join(10)
        out, err = "".join(rest), "".join(errs)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == 0, err[-3000:]
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["ok"] and summary["ledger_clean"] and summary["ledger_equals_tables"]
    assert summary["tables"] == 6 and summary["rounds"] == 24
    assert summary["applied"] == summary["messages"] and summary["refused"] == 0
    # the tables are stations: their kernels journaled what the shoe, camera, dealer,
    # supervisor, bettors and players sent them (far more inputs than settlement messages)
    assert summary["inputs"] > 5 * summary["messages"] and not summary["tables_failed"]
    assert summary["figures"]["bets_open"] == 0 and summary["figures"]["in_play"] == 0
