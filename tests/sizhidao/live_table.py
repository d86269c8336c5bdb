"""A live Si Zhi Dao table for tests: a real `TableStation` on a journal file, its player API
served over real HTTP, and the devices (shoe bytes, camera observations, the dealer and the
supervisor) fed from a `SzTraceScript` through the station's input path. Station time is a
clock the test moves to each line's `t` (the timers then fire as they would live)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx

from station.core.inputs import parse_input
from station.core.settings import TableSettings
from station.games.sizhidao.script import SzTraceScript
from station.live.http import ServedApp, serve_app
from station.live.player_api import make_player_app, stop_player_app
from station.live.table_station import TableStation
from tests.waiting import wait_for

KEY = "k-platform-1"


class TestClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class LiveTable:
    def __init__(self, journal: Path, *, table: str = "SZ-07", journal_sync: str = "full",
                 **settings: Any) -> None:
        self.journal = journal
        self.journal_sync = journal_sync
        self.settings = TableSettings(table=table, game="sizhidao").with_overrides(settings)
        self.clock = TestClock()
        self.station: TableStation | None = None
        self.server: ServedApp | None = None
        self.records: list[dict[str, Any]] = []

    def start(self) -> LiveTable:
        self.station = TableStation(self.settings, self.journal, clock=self.clock, max_idle=0.05,
                                    journal_sync=self.journal_sync)
        self.station.add_listener(self.records.extend)
        self.station.start()
        self.app = make_player_app(self.station, {KEY: "platform-1"}, heartbeat_s=0.3)
        self.server = serve_app(self.app, "127.0.0.1", 0, name="players")
        return self

    def stop(self) -> None:
        if self.server is not None:
            stop_player_app(self.app, self.server)
        if self.station is not None:
            self.station.stop()
        self.server = self.station = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url

    def feed(self, script: SzTraceScript, start: int = 0) -> int:
        """The script's device, dealer, supervisor and wallet lines from `start` go into the
        station (its players act through HTTP); the clock follows the lines."""
        st = self.station
        assert st is not None
        for i, line in enumerate(script.lines[start:], start):
            inp = parse_input(line, i + 2)
            self.clock.t = max(self.clock.t, inp.t_us / 1e6)
            if inp.kind == "player":
                continue
            st.submit(inp.kind, inp.value, inp.user)
        return len(script.lines)

    def post(self, body: Any, key: str | None = KEY) -> httpx.Response:
        headers = {"authorization": f"Bearer {key}"} if key else {}
        return httpx.post(self.url + "/v1/players/actions", content=json.dumps(body),
                          headers=headers, timeout=10)

    def view(self, account: str, key: str = KEY) -> dict[str, Any]:
        r = httpx.get(f"{self.url}/v1/players/{account}/view",
                      headers={"authorization": f"Bearer {key}"}, timeout=10)
        assert r.status_code == 200, r.text
        return r.json()


class StreamReader:
    """One account's event stream, read on its own thread until told to stop (or `until`)."""

    def __init__(self, url: str, headers: dict[str, str], until: str | None = None) -> None:
        self.url, self.headers, self.until = url, headers, until
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.status: int | None = None
        self.error: Exception | None = None
        self.opened = threading.Event()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.opened.wait(10), "the stream did not open"

    def _run(self) -> None:
        try:
            with httpx.stream("GET", self.url, headers=self.headers, timeout=30) as r:
                self.status = r.status_code
                self.opened.set()
                if r.status_code != 200:
                    return
                event = None
                for line in r.iter_lines():
                    if self._stop.is_set():
                        return
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: ") and event:
                        data = json.loads(line[6:])
                        self.events.append((event, data))
                        if event == "record" and self.until and data.get("type") == self.until:
                            return
        except httpx.HTTPError as e:  # the server went away first
            self.error = e
        finally:
            self.opened.set()

    def wait_for(self, record_type: str, timeout: float = 15.0) -> bool:
        """Wait until a record of this type has come down the stream (True; fails saying which
        records came instead)."""
        wait_for(lambda: any(d.get("type") == record_type for e, d in list(self.events)
                             if e == "record"), timeout,
                 lambda: f"a {record_type!r} record down the stream; came: "
                         f"{[d.get('type') for e, d in list(self.events) if e == 'record'][-10:]}",
                 poll_s=0.05)
        return True

    def records(self) -> list[dict[str, Any]]:
        return [d for e, d in self.events if e == "record"]

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self.thread.join(timeout)
