"""A whole simulated studio table on one machine: the README's main command.

The shoe simulator serves a real pty (the station opens it like `/dev/ttyUSB0`), the
synthetic camera renders the table for the real recogniser, a scripted dealer deals from the
simulated shoe into the rendered scene, simulated bettors bet through the real bet API, the
settlement core keeps the ledger, and the console shows it all to a person in a browser.

What is the game's own — its shoe, its scripted dealer, the spots its bettors bet on, its
camera layout and the synthetic camera's perturbations — the game's `demo_table` tool gives
(station/games/tools.py, a module of the game's own `tools/`); its table is named by the
prefix the game declares.
"""

from __future__ import annotations

import json
import logging
import random
import secrets
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.core.settings import TableSettings
from station.games import default_game, get_game
from station.games.tools import game_tool, games_with
from station.live.config import CameraConfig, HttpConfig, ShoeConfig, StationConfig
from station.sim.dealer import DealerMistakes, ScriptedDealer
from station.sim.demo_clock import ClockedFrames, VirtualClock, WallClock, make_clock

log = logging.getLogger("station.studio")


@dataclass
class DemoTable:
    """What a game brings to its simulated table: what its `demo_table` tool returns."""

    #: the table's shoe (a firmware_bridge.shoe.simulator.ShoeSimulator), not yet served
    shoe: Any
    #: the scripted dealer's class (station/sim/dealer.py's ScriptedDealer or one on it)
    dealer_class: type
    #: the spots the simulated bettors bet on, in the order they pick from
    spots: Sequence[str]
    #: the camera's layout file (None: the station's default layout)
    layout: Path | None = None
    #: the synthetic camera's perturbations (None: its defaults; {}: none)
    perturbations: Any = None


class _Tables(Mapping[str, tuple[str, str]]):
    """The games a simulated table can play here (those with a `demo_table` tool): game ->
    (its table's name, by the game's prefix; the game's title)."""

    def __getitem__(self, game: str) -> tuple[str, str]:
        if game not in games_with("demo_table"):
            raise KeyError(game)
        rules = get_game(game)
        return f"{rules.table_prefix}01", rules.title or rules.name

    def __iter__(self) -> Iterator[str]:
        return iter(games_with("demo_table"))

    def __len__(self) -> int:
        return len(games_with("demo_table"))


#: the games a simulated table can play here, with their table's name and title
TABLES: Mapping[str, tuple[str, str]] = _Tables()


@dataclass
class StudioOptions:
    data_dir: Path
    speed: float = 1.0
    rounds: int | None = None
    shoes: int | None = None
    camera: bool = True
    betting_seconds: float = 15.0
    decide_after: float = 15.0
    bettors: int = 6
    accounts: int = 20
    console_port: int = 8600
    bet_port: int = 8601
    host: str = "127.0.0.1"
    seed: int = 1
    cut_at: int | None = None
    mistakes: DealerMistakes = field(default_factory=DealerMistakes)
    link_noise: float = 0.0
    unplug_every: int = 0  # unplug the shoe for 2 s every N draws (0: never)
    camera_fps: float = 4.0
    password: str | None = None
    #: a game with a `demo_table` tool (TABLES)
    game: str = field(default_factory=default_game)
    #: the table's time line: "wall" (a person watching) or "virtual" (held while work is in
    #: flight, so a loaded machine runs the demo slower, never differently)
    clock: str = "wall"


class Bettors:
    """Simulated players betting through the bet API while betting is open."""

    def __init__(self, url: str, key: str, station: Any, accounts: list[str], n: int, seed: int,
                 spots: Sequence[str] = (), clock: WallClock | VirtualClock | None = None) -> None:
        self.url, self.key, self.station = url, key, station
        self.clock = clock or WallClock()
        #: the spots of the table's game (DemoTable.spots)
        self.spots = list(spots)
        self.accounts = accounts
        self.rng = random.Random(seed)
        self.n = n
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.placed = 0
        self.accepted = 0
        self.errors = 0
        #: answers the API should never give a well-formed bet (not 200, not 409), by status
        self.bad_answers: dict[int, int] = {}
        #: why a bettor's thread ended, if it ended before it was told to stop
        self.died: list[str] = []

    def start(self) -> None:
        if not self.spots:
            raise ValueError("simulated bettors need the spots of the table's game to bet on")
        for i in range(self.n):
            t = threading.Thread(target=self._guarded, args=(random.Random(self.rng.random()),),
                                 name=f"bettor-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(3)

    def _guarded(self, rng: random.Random) -> None:
        self.clock.join()  # a bet on its way holds the table's clock
        try:
            self._run(rng)
        except BaseException as e:  # noqa: BLE001 - reported in the demo's summary and exit code
            self.died.append(f"{threading.current_thread().name}: {type(e).__name__}: {e}")
            log.exception("a simulated bettor stopped")
        finally:
            self.clock.leave()

    def _run(self, rng: random.Random) -> None:
        while not self.clock.sleep(rng.uniform(0.3, 1.5), self._stop):
            r = self.station.view.get("round")
            if not r or not r.get("betting_open"):
                continue
            bet = {"account": rng.choice(self.accounts), "spot": rng.choice(self.spots),
                   "amount": rng.choice([10, 20, 50, 100, 200, 500])}
            req = urllib.request.Request(
                self.url + "/v1/bets", data=json.dumps(bet).encode(), method="POST",
                headers={"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=10) as resp:
                    resp.read()
                    self.accepted += 1
            except urllib.error.HTTPError as e:
                e.read()
                if e.code != 409:
                    self.errors += 1
                    self.bad_answers[e.code] = self.bad_answers.get(e.code, 0) + 1
            except OSError:
                self.errors += 1
            self.placed += 1


class Studio:
    def __init__(self, opts: StudioOptions) -> None:
        self.opts = opts
        self.runtime: Any = None
        self.shoe: Any = None
        self.dealer: ScriptedDealer | None = None
        self.bettors: Bettors | None = None
        self.scene: Any = None
        self.credentials: dict[str, str] = {}
        self.clock = make_clock(opts.clock)

    def start(self) -> None:
        from firmware_bridge.shoe.simulator import FaultPlan, ScheduledFault
        from station.console import UserStore
        from station.live.camera_feed import camera_factory_for
        from station.live.journal_key import demo_key_file
        from station.runtime import start_runtime

        o = self.opts
        if o.game not in TABLES:
            raise ValueError(f"no simulated {o.game!r} table (games: {', '.join(TABLES)})")
        table = TABLES[o.game][0]
        make_table = game_tool(o.game, "demo_table")
        assert make_table is not None  # TABLES holds only the games that have one
        o.data_dir.mkdir(parents=True, exist_ok=True)
        rng = random.Random(o.seed)
        scheduled = tuple(ScheduledFault(n, "unplug", 2.0)
                          for n in range(o.unplug_every, 20000, o.unplug_every)) if o.unplug_every else ()
        plan = FaultPlan(bit_error_rate=o.link_noise / 50, drop_rate=o.link_noise,
                         duplicate_rate=o.link_noise, junk_rate=o.link_noise,
                         split_rate=min(1.0, o.link_noise * 5), scheduled=scheduled, seed=o.seed)
        # the game's shoe, dealer, spots and camera (the tool may draw from `rng`, as the
        # wallets below do: the same seed deals the same table)
        own: DemoTable = make_table(o, rng, plan)
        self.shoe = own.shoe
        url = self.shoe.serve_pty()
        # the synthetic camera, like a real one, reports a zone late when the dealer's hand
        # covered it (docs/core.md)
        settings = TableSettings(table=table, game=o.game, camera=o.camera,
                                 betting_seconds=o.betting_seconds, camera_lag_tolerant=True)
        cfg = StationConfig(
            table=settings, data_dir=o.data_dir, shoe=ShoeConfig(url=url),
            camera=CameraConfig(enabled=o.camera, source="synthetic", fps=o.camera_fps,
                                layout=str(own.layout) if own.layout is not None else None),
            console=HttpConfig(o.host, o.console_port), bet_api=HttpConfig(o.host, o.bet_port),
            signing_key_file=demo_key_file(o.data_dir), source="station demo",
        )
        users = UserStore(o.data_dir / "users.sqlite")
        password = o.password or secrets.token_urlsafe(9)
        for name, role in (("supervisor", "supervisor"), ("dealer", "dealer")):
            if not any(u.name == name for u in users.users()):
                users.add(name, role, password)
            else:
                users.remove(name)
                users.add(name, role, password)
            self.credentials[name] = password
        key = secrets.token_urlsafe(18)
        camera_factory = None
        if o.camera:
            from firmware_bridge.camera.scene import TableScene

            self.scene = TableScene(get_game(o.game).zones, seed=o.seed)
            # the demo's camera runs at the demo's pace, whatever the layout file's [source] says
            paced = None
            if self.clock.virtual:
                def paced(source: Any) -> ClockedFrames:
                    return ClockedFrames(source, self.clock, o.camera_fps)
            camera_factory = camera_factory_for(cfg, self.scene, fps=o.camera_fps,
                                                perturbations=own.perturbations, paced=paced)
        self.clock.start()
        self.runtime = start_runtime(cfg, camera_factory=camera_factory, users=users,
                                     api_keys={key: "demo-bettors"}, clock=self.clock.now)
        st = self.runtime.station
        self.clock.hold_while(lambda: st.fatal is None and st.inputs_in_flight() > 0)
        accounts = [f"u{i:02d}" for i in range(1, o.accounts + 1)]
        if not st.view.get("shoe"):
            for a in accounts:
                st.submit("wallet", {"account": a, "balance": rng.choice([2000, 5000, 20000, 100000])})
        self.dealer = own.dealer_class(st, self.shoe, self.scene, speed=o.speed,
                                       decide_after=o.decide_after, mistakes=o.mistakes,
                                       seed=o.seed, max_rounds=o.rounds, max_shoes=o.shoes,
                                       on_decision=self._audit_decision, clock=self.clock)
        self.dealer.start()
        if self.runtime.bet_api and o.bettors:
            self.bettors = Bettors(self.runtime.bet_api.url, key, st, accounts, o.bettors, o.seed,
                                   spots=own.spots, clock=self.clock)
            self.bettors.start()

    def _audit_decision(self, kind: str, action: str, user: str, records: list[dict[str, Any]],
                        round_id: str | None) -> None:
        """The scripted dealer's and auto-supervisor's actions in the console's audit log,
        written as the console writes a person's (docs/console.md, "Audit log")."""
        served = self.runtime.console if self.runtime is not None else None
        console = getattr(getattr(served.server.config.app, "state", None), "console", None) if served else None
        if console is None:
            return
        refused = next((r for r in records if r["type"] == "action_refused"), None)
        console.audit.write(user=user, role="supervisor" if kind == "supervisor" else "dealer",
                            table=self.runtime.station.settings.table, action=action,
                            round_id=round_id, outcome="refused" if refused else "done",
                            reason=refused["reason"] if refused else None,
                            records=[r["type"] for r in records])

    def problems(self) -> list[str]:
        """Why this demo did not run as asked: a dead dealer or bettor, rounds short."""
        out = []
        if self.dealer is not None and self.dealer.error is not None:
            out.append(f"the scripted dealer stopped: {self.dealer.error}")
        if self.bettors is not None:
            out += [f"a bettor stopped: {d}" for d in self.bettors.died]
            if self.bettors.bad_answers:
                out.append(f"the bet API answered well-formed bets with {self.bettors.bad_answers}")
        if self.runtime is not None and self.runtime.station.fatal is not None:
            out.append(f"the table core stopped: {self.runtime.station.fatal}")
        o = self.opts
        if (o.rounds is not None and self.dealer is not None and not self.interrupted
                and self.dealer.rounds_settled < o.rounds
                and (o.shoes is None or self.dealer.shoes_started < o.shoes)):
            out.append(f"{self.dealer.rounds_settled} of the {o.rounds} rounds asked were settled")
        return out

    interrupted = False

    def wait(self, stop: threading.Event) -> None:
        while not stop.wait(0.5):
            if self.dealer is not None and self.dealer.done.is_set():
                return
            if self.runtime.station.fatal is not None:
                return
        self.interrupted = True  # stopped by the person running it (Ctrl-C, SIGTERM)

    def stop(self) -> dict[str, Any]:
        if self.bettors:
            self.bettors.stop()
        if self.dealer:
            self.dealer.stop()
        summary: dict[str, Any] = {}
        if self.runtime is not None:
            view = self.runtime.station.view
            self.runtime.stop()
            from station.settlement.core import SettlementCore

            core = SettlementCore(self.runtime.config.ledger_path)
            report = core.check()
            summary = {
                "rounds_settled": view.get("rounds_settled"),
                "rounds_cancelled": self.dealer.rounds_cancelled if self.dealer else 0,
                "link": dict((view.get("link") or {}).get("counters") or {}),
                "shoe_unplugs": getattr(getattr(self.shoe, "stats", None), "unplugs", 0),
                "faults": view.get("fault_counts"),
                "decisions": self.dealer.decisions if self.dealer else [],
                "ledger_check": "clean" if report.ok else report.problems,
                "bets": {"placed": self.bettors.placed, "accepted": self.bettors.accepted,
                         "errors": self.bettors.errors} if self.bettors else None,
                "problems": self.problems(),
                "journal": str(self.runtime.config.journal_path),
            }
            core.close()
        if self.shoe is not None:
            self.shoe.close()
        self.clock.stop()
        if summary:
            summary["clock"] = self.opts.clock
        return summary
