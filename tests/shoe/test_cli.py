"""`station sim-shoe` in one process, `station shoe listen` on the port it prints in another:
a dealt round shows up card for card, and the listener stops cleanly on SIGINT / SIGTERM."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from firmware_bridge.shoe.trace import read_trace_shoe_bytes
from station.games import DEFAULT_GAME
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(180)

REPO = Path(__file__).resolve().parents[2]
EVENTS = {"hello", "load", "card", "unread", "cut", "empty", "fault", "clear", "link_lost",
          "link_restored"}


class Proc:
    """A station subprocess whose output lines are read as they come."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.p = subprocess.Popen([sys.executable, "-m", "station", *args], cwd=REPO, env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out: queue.Queue[str] = queue.Queue()
        self.err: list[str] = []
        self.lines: list[str] = []
        self.pumps = [threading.Thread(target=self._pump, args=(self.p.stdout, self.out.put),
                                       daemon=True),
                      threading.Thread(target=self._pump, args=(self.p.stderr, self.err.append),
                                       daemon=True)]
        for pump in self.pumps:
            pump.start()

    @staticmethod
    def _pump(stream, sink) -> None:
        for line in stream:
            sink(line.rstrip("\n"))

    def next_line(self, timeout: float = 60) -> str:
        line = self.out.get(timeout=timeout)
        self.lines.append(line)
        return line

    def read_until(self, predicate, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while not predicate(self.lines):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out; last lines {self.lines[-5:]}; "
                                     f"stderr {self.err[-5:]}")
            try:
                self.next_line(timeout=left)
            except queue.Empty:
                pass

    def stop(self, sig: int = signal.SIGINT, timeout: float = 30) -> int:
        if self.p.poll() is None:
            self.p.send_signal(sig)
        rc = self.p.wait(timeout=timeout)
        # the pumps end at the end of the process's output: then every line is taken
        wait_for(lambda: not any(pump.is_alive() for pump in self.pumps), 10,
                 "the process's last output lines")
        while not self.out.empty():
            self.lines.append(self.out.get_nowait())
        return rc

    def kill(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(timeout=10)


def stop_both(sim: Proc, listen: Proc | None) -> None:
    """The listener killed if it still runs, the simulator stopped as a service is."""
    if listen is not None:
        listen.kill()
    sim.stop(signal.SIGTERM)
    sim.kill()


def dealt_rounds(err: list[str]) -> list[list[str]]:
    return [line.split("dealt: ")[1].split(" (")[0].split() for line in err if " dealt: " in line]


def test_sim_shoe_and_shoe_listen_show_a_dealt_round(tmp_path: Path) -> None:
    sim = Proc("sim-shoe", "--pty", "--seed", "9", "--deal-every", "0.02", "--round-pause",
               "0.1", "--rounds", "2", "--start-after", "0.2", "--wait-for-station")
    listen = None
    try:
        url = sim.next_line()
        assert url.startswith("/") and Path(url).exists()
        trace = tmp_path / "listen.jsonl"
        listen = Proc("shoe", "listen", url, "--record", str(trace))
        wait_for(lambda: len(dealt_rounds(sim.err)) >= 2, 90,
                 lambda: f"the simulator to deal two rounds: {sim.err[-5:]}", poll_s=0.05)
        rounds = dealt_rounds(sim.err)
        listen.read_until(lambda lines: sum('"card"' in x for x in lines) >= 1 + 26 + 1)
        assert listen.stop(signal.SIGINT) == 0
    finally:
        stop_both(sim, listen)
    events = [json.loads(x) for x in listen.lines]
    assert all(e["event"] in EVENTS and isinstance(e["t"], float | int) for e in events)
    assert events[0]["event"] == "hello" and events[1]["event"] == "load"
    assert [e["seq"] for e in events] == list(range(len(events)))
    cards = [e["card"] for e in events if e["event"] == "card"]
    # The listener printed the dealer's rounds card for card (each after its burn card).
    flat = " ".join(cards)
    for r in rounds:
        assert " ".join(r) in flat
    counters = json.loads([x for x in listen.err if x.startswith('{"counters"')][-1])["counters"]
    assert counters["events_delivered"] == len(events)
    assert counters["bad_crc"] == 0 and counters["acks_sent"] > 0
    shoe_lines = read_trace_shoe_bytes(trace)
    # the shoe knows no game: the trace's header names the station's default one (--game)
    assert json.loads(trace.read_text(encoding="utf-8").splitlines()[0])["game"] == DEFAULT_GAME
    assert any(k == "shoe" for _, k, _ in shoe_lines)
    assert any(k == "to_shoe" for _, k, _ in shoe_lines)


def test_listen_over_a_noisy_tcp_link_stops_on_sigterm() -> None:
    sim = Proc("sim-shoe", "--tcp", "0", "--seed", "4", "--deal-every", "0.02",
               "--round-pause", "0.1", "--rounds", "1", "--start-after", "0.2",
               "--wait-for-station", "--loss", "0.05", "--dup", "0.05", "--split", "0.3",
               "--junk", "0.05")
    listen = None
    try:
        url = sim.next_line()
        assert url.startswith("socket://127.0.0.1:")
        listen = Proc("shoe", "listen", url, "--status")
        listen.read_until(lambda lines: sum('"card"' in x for x in lines) >= 1 + 13)
        assert listen.stop(signal.SIGTERM) == 0
    finally:
        if listen is not None:
            listen.kill()
        sim.stop(signal.SIGTERM)
        sim.kill()
    events = [json.loads(x) for x in listen.lines]
    table = [e for e in events if e["event"] != "status"]
    assert [e["seq"] for e in table] == sorted({e["seq"] for e in table})  # once, in order
    status = [e for e in events if e["event"] == "status"]
    assert status and status[0]["kind"] == "STATUS"


def test_listen_on_a_port_that_is_not_there_fails_clearly() -> None:
    r = subprocess.run([sys.executable, "-m", "station", "shoe", "listen", "/dev/no-such-shoe"],
                       cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "cannot open the shoe at /dev/no-such-shoe" in r.stderr


def test_sim_shoe_deals_the_games_own_shoe_from_its_package() -> None:
    """`--game paigow`: the shoe and the dealer are the game's tools (its package's
    shoe_dealer.py): the 32-card deck, shuffles of two rounds of 8 cards."""
    from station.games.paigow.tiles import DECK_COUNTS

    sim = Proc("sim-shoe", "--game", "paigow", "--pty", "--no-gate", "--seed", "3",
               "--deal-every", "0.02", "--round-pause", "0.1", "--rounds", "2",
               "--start-after", "0.2", "--wait-for-station")
    listen = None
    try:
        url = sim.next_line()
        listen = Proc("shoe", "listen", url)
        listen.read_until(lambda lines: sum('"card"' in x for x in lines) >= 16)
        wait_for(lambda: any("round 2 dealt" in x for x in sim.err), 60,
                 lambda: f"the simulator to say it dealt two rounds: {sim.err[-5:]}")
        assert listen.stop(signal.SIGINT) == 0
    finally:
        stop_both(sim, listen)
    cards = [json.loads(x)["card"] for x in listen.lines if '"card"' in x]
    assert len(cards) == 16 and len(set(cards)) == 16  # one shuffle of distinct cards
    assert all(any(str(c) == card for c in DECK_COUNTS) for card in cards)
    assert not any("cut" in x for x in listen.lines)
