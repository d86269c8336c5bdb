"""The station at a Wenzhou Pai Gow table, from its table config (config/table_paigow.toml):
`station run --check` takes it; `station run` starts on it against a simulated shoe serving a
pty and stops cleanly; and the same whole-table assembly (`start_runtime` with the config's
camera) deals a round: the 32-card shoe over the pty, the synthetic camera filming the doors
and the dice tray through the recogniser, bets through the bet API, settlement in the ledger."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
from functools import partial
from pathlib import Path

import httpx
import pytest

from firmware_bridge.camera.scene import TableScene
from firmware_bridge.shoe.simulator import ShoeRefused, ShoeSimulator
from station.games.paigow import DECK_COUNTS
from station.games.paigow.rules import PaiGow, deal_plan_for
from station.live.camera_feed import camera_factory_for
from station.live.config import load_config
from station.live.journal_key import make_key_file
from station.sim.demo_clock import ClockedFrames, VirtualClock
from tests.live.clocked_view import wait_view
from tests.live.table_config import table_config_for_test
from tests.waiting import retry_until, wait_for

ROOT = Path(__file__).parents[2]
CONFIG = ROOT / "config" / "table_paigow.toml"
KEY = "test-platform-key"


def test_run_check_takes_the_pai_gow_table() -> None:
    p = subprocess.run([sys.executable, "-m", "station", "run", "--config", str(CONFIG), "--check"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "table WZ-SIM (paigow)" in p.stdout and "camera on" in p.stdout


@pytest.mark.slow
def test_station_run_starts_on_the_pai_gow_config_and_stops_cleanly(tmp_path) -> None:
    with ShoeSimulator(deck=DECK_COUNTS, cut_at=None, seed=3) as shoe:
        cfg = table_config_for_test(CONFIG, tmp_path, shoe.serve_pty())
        env = {**os.environ, "STATION_JOURNAL_KEY": "wz-sim-journal-key-0123456789abcdef"}
        proc = subprocess.Popen([sys.executable, "-m", "station", "run", "--config", str(cfg),
                                 "--log-level", "WARNING"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, cwd=ROOT, env=env)
        try:
            assert proc.stdout is not None
            seen: list[str] = []
            while not any("table WZ-SIM running" in line for line in seen):
                line = proc.stdout.readline()
                assert line, "".join(seen)  # the station ended before it ran
                seen.append(line)
            wait_for(lambda: not shoe.unacked, 20, "the station to acknowledge the shoe's HELLO")
            proc.send_signal(signal.SIGTERM)
            out, _ = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 0 and "stopped cleanly" in out, out


@pytest.mark.slow
def test_the_pai_gow_table_deals_a_round_from_its_config(tmp_path) -> None:
    from station.runtime import start_runtime
    from station.settlement.core import SettlementCore

    # The table runs on a virtual clock (station/sim/demo_clock.py) that stands while a camera
    # frame is being recognised, while the station has inputs to apply and while this test
    # (the dealer and the bettors) is mid-step: a loaded machine makes the round slower, not
    # a placement timeout or a betting window closed under the bets.
    clock = VirtualClock().start()
    clock.join()
    with ShoeSimulator(deck=DECK_COUNTS, cut_at=None, seed=5) as shoe:
        cfg = load_config(table_config_for_test(CONFIG, tmp_path, shoe.serve_pty()))
        cfg.table = dataclasses.replace(cfg.table, betting_seconds=4)
        cfg.signing_key_file = make_key_file(tmp_path / "keys" / "WZ-SIM.key")
        scene = TableScene(PaiGow.zones, seed=2, zone_kinds=PaiGow.zone_kinds)
        factory = camera_factory_for(cfg, scene, paced=lambda source: ClockedFrames(source, clock, 10))
        rt = start_runtime(cfg, camera_factory=factory, api_keys={KEY: "platform"}, clock=clock.now)
        clock.hold_while(lambda: rt.station.fatal is None and rt.station.inputs_in_flight() > 0)
        _wait = partial(wait_view, clock=clock)
        try:
            st = rt.station
            http = httpx.Client(base_url=rt.bet_api_url, timeout=10,
                                headers={"Authorization": f"Bearer {KEY}"})
            for a in ("u1", "u2"):
                assert http.post("/v1/wallets", json={"account": a, "balance": 10_000}).status_code == 200
            st.submit("dealer", "new_shoe")
            st.submit("supervisor", "confirm_shuffle", "sup1")
            shoe.load()
            _wait(st, lambda v: v.get("phase") == "between_rounds", "the shuffle to be loaded")
            st.submit("dealer", "open_betting")
            bets = [("u1", "SHUN_WIN", 1000), ("u1", "CHU_WIN", 500), ("u2", "DAO_LOSE", 700),
                    ("u2", "SHUN_LOSE", 100)]  # u2's second LOSE door: conflict
            answers = [http.post("/v1/bets", json={"account": a, "spot": s, "amount": n})
                       for a, s, n in bets]
            assert [r.status_code for r in answers] == [200, 200, 200, 409]
            _wait(st, lambda v: v["round"] and not v["round"]["betting_open"], "betting to close")
            scene.throw_dice([2, 5])
            _wait(st, lambda v: sorted(v["round"]["dice_tray"] or []) == [2, 5],
                  "the camera to film the dice in the tray")
            recs = st.submit("dealer", "dice", extra={"dice": [5, 2]})
            assert not [r for r in recs if r["type"] == "action_refused"], recs
            v = _wait(st, lambda v: v["round"]["dice"] is not None, "the dice to be known")
            assert v["round"]["first_door"] == "CHU"
            for door in deal_plan_for([5, 2]):
                with clock.waiting():  # the gate opens once the dice are known
                    card = retry_until(shoe.draw, ShoeRefused, 60, "the shoe's gate to open",
                                       poll_s=0.1)
                scene.deal(door, card, face_up=True)
                clock.sleep(0.4)  # the dealer's hand between two cards
            v = _wait(st, lambda v: v["round"]["finished"], "the hand to be validated", 120)
            assert not v.get("paused"), v.get("faults")
            hand = st.journal.records_of_type("hand")[-1]
        finally:
            clock.leave()
            rt.stop()
            clock.stop()
        assert hand["validated_by"] == ["shoe", "camera"] and hand["dice"] == [5, 2]
        core = SettlementCore(cfg.ledger_path)
        try:
            assert core.check().ok
        finally:
            core.close()
