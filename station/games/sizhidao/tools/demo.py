"""`station demo --game sizhidao`: a whole simulated Si Zhi Dao table on this machine.

The one-deck shoe simulator serves a real pty (the station opens it like `/dev/ttyUSB0`) and
is filled with a freshly shuffled deck for every deal; a scripted dealer opens each game,
asks for the shuffle check, deals face down by the deal plan the station announces, turns the
shown-down hands face up and clears the seats; a simulated overhead camera reports what lies
in each seat zone (TRACES.md camera observations, at least once a second) as the dealer's
hands leave it; simulated players (station/games/sizhidao/tools/bots.py) play through the table's real
player API over HTTP; the settlement core keeps the ledger with a pot account per game; the
console shows it all. A person can take a seat: the seat page's link is printed.

The summary (JSON, last) says how the games went and whether the books are right; the demo
exits 0 only when the ledger check is clean and every pot account is at zero.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import secrets
import signal
import sqlite3
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from station.cards import ALL_CARDS
from station.games.sizhidao.seats import SEATS
from station.sim.demo_clock import ClockedFrames, VirtualClock, WallClock, make_clock

log = logging.getLogger("station.sizhidao.demo")

TABLE = "SZ-01"
GUEST = "guest"
DEAL_GAP_S = 0.7  # the dealer's pace: a card about every 0.7 s
CAMERA_LAG_S = 0.3  # the camera reports a zone this long after the dealer's hand left it
CAMERA_HEARTBEAT_S = 0.8  # the camera reports at least this often ("seen, nothing changed")
#: the rendered camera: the 4K seat layout, calibrated like a table's, at a pace this machine keeps
SEAT_CAMERA = Path(__file__).resolve().parents[4] / "config" / "camera_sizhidao_4k.toml"
CAMERA_FPS = 4.0


class Stopped(Exception):
    pass


class SimulatedCamera:
    """The overhead camera over the seat zones, speaking the station's camera observations:
    the zones whose contents changed (after a short lag), and `{}` at least once a second."""

    def __init__(self, station: Any, speed: float, clock: WallClock | VirtualClock | None = None) -> None:
        self.station = station
        self.clock = clock or WallClock()
        self.lag_s = CAMERA_LAG_S / max(speed, 1.0)
        self._lock = threading.Lock()
        self._zones: dict[str, list[str]] = {s: [] for s in SEATS}
        self._pending: dict[str, float] = {}  # zone -> when it changed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sim-camera", daemon=True)
        self.reports = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(3)

    def put(self, zone: str, cards: list[str]) -> None:
        with self._lock:
            self._zones[zone] = list(cards)
            self._pending.setdefault(zone, self.clock.now())

    def seen(self) -> bool:
        """Everything on the table has been reported."""
        with self._lock:
            return not self._pending

    # what the dealer does in a seat, as this camera reports it
    def dealt(self, zone: str, card: str, count: int) -> None:
        self.put(zone, ["??"] * count)

    def shown(self, zone: str, front: list[str], back: list[str]) -> None:
        self.put(zone, [*front, *back])

    def cleared(self, zone: str) -> None:
        self.put(zone, [])

    def _run(self) -> None:
        self.clock.join()
        try:
            self._report()
        finally:
            self.clock.leave()

    def _report(self) -> None:
        last = 0.0
        while not self.clock.sleep(0.05, self._stop):
            now = self.clock.now()
            with self._lock:
                due = {z for z, since in self._pending.items() if now - since >= self.lag_s}
                report = {z: list(self._zones[z]) for z in sorted(due)}
                for z in due:
                    del self._pending[z]
            if report or now - last >= CAMERA_HEARTBEAT_S:
                try:
                    self.station.submit("camera", report, wait=False)
                except Exception:  # noqa: BLE001 - the table core has stopped: nothing to see
                    return
                last = now
                self.reports += 1


class RenderedSeats:
    """The seats as the synthetic overhead camera renders them for the real recogniser (the
    station's camera feed): the dealer's hand over a seat while a card lands, the cards face
    down in a row or fan, turned and laid as the player's two pairs at the showdown."""

    def __init__(self, scene: Any, feed: Any = None) -> None:
        self.scene = scene
        self.feed = feed  # the runtime's CameraFeed, set once the station runs

    def start(self) -> None:
        pass  # the station's camera feed reads the scene

    def stop(self) -> None:
        pass

    def dealt(self, zone: str, card: str, count: int) -> None:
        self.scene.hand_over(zone)
        self.scene.deal(zone, card)
        self.scene.hand_over(None)

    def shown(self, zone: str, front: list[str], back: list[str]) -> None:
        self.scene.show_down(zone, front, back)

    def cleared(self, zone: str) -> None:
        self.scene.clear(zone)

    def seen(self) -> bool:
        """The camera reports what lies in every seat."""
        if self.feed is None:
            return False
        truth = self.scene.snapshot()
        seen = dict(self.feed.readings)  # a zone is there once the camera has reported it
        return all(z in seen and sorted(seen[z]) == sorted(truth[z]) for z in SEATS)


class SiZhiDaoDealer:
    """The dealer (and, when the table pauses, a floor supervisor who decides after a while)."""

    def __init__(self, station: Any, shoe: Any, camera: SimulatedCamera | RenderedSeats, *, speed: float,
                 games: int | None, decide_after_s: float,
                 clock: WallClock | VirtualClock | None = None) -> None:
        self.station, self.shoe, self.camera = station, shoe, camera
        self.clock = clock or WallClock()
        self.speed = speed
        self.games = games
        self.decide_after_s = decide_after_s
        self._stop = threading.Event()
        self.finish = threading.Event()  # finish the game in progress, then stop
        self.done = threading.Event()
        self.error: str | None = None
        self.games_opened = 0
        self.decisions: list[tuple[str, str]] = []
        self._plans: dict[str, list[str]] = {}
        self._plans_cond = threading.Condition()
        station.add_listener(self._on_records)
        self._thread = threading.Thread(target=self._guarded, name="sim-dealer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.finish.set()
        self._stop.set()
        self._thread.join(15)

    def _on_records(self, records: list[dict[str, Any]]) -> None:
        for r in records:
            if r["type"] == "deal_open":
                with self._plans_cond:
                    self._plans[r["deal_id"]] = list(r["deal_plan"])
                    self._plans_cond.notify_all()

    # ---- time and the table
    def _sleep(self, seconds: float) -> None:
        if self.clock.sleep(seconds / self.speed, self._stop):
            raise Stopped

    def _wait_view(self, version: int) -> dict[str, Any]:
        """The table's view once newer than `version` (or a moment later); the clock goes on."""
        with self.clock.waiting():
            return self.station.wait_view(version, 0.2)

    def _sz(self, v: dict[str, Any] | None = None) -> dict[str, Any]:
        return (v or self.station.view).get("sizhidao") or {}

    def _act(self, kind: str, action: str, user: str | None = None) -> list[dict[str, Any]]:
        return self.station.submit(kind, action, user)

    def _wait(self, cond, what: str, timeout_s: float = 600) -> dict[str, Any]:
        deadline = self.clock.now() + timeout_s
        version = -1
        while True:
            if self._stop.is_set():
                raise Stopped
            v = self._wait_view(version)
            version = v.get("version", version)
            if v.get("paused"):
                self._supervise(v)
                continue
            if cond(v):
                return v
            if self.clock.now() > deadline:
                raise TimeoutError(f"the dealer waited too long for {what}")

    def _supervise(self, v: dict[str, Any]) -> None:
        """Paused: a person at the console has `decide_after_s` to decide, then the floor
        supervisor resumes (or, when resuming is refused, cancels the game: all refunded)."""
        since = self.clock.now()
        version = v.get("version", 0)
        while self.clock.now() - since < self.decide_after_s:
            v = self._wait_view(version)
            version = v.get("version", version)
            if not v.get("paused") or self._stop.is_set():
                return
        kinds = ",".join(f["kind"] for f in v.get("faults", []))
        decision = "resume"
        if any(f.get("cancel_only") for f in v.get("faults", [])):
            decision = "cancel_round"
        recs = self._act("supervisor", decision, "auto-supervisor")
        if decision == "resume" and any(r["type"] == "action_refused" for r in recs):
            decision = "cancel_round"
            self._act("supervisor", decision, "auto-supervisor")
        self.decisions.append((kinds, decision))
        if decision == "cancel_round":
            self._clear_table()

    def _clear_table(self) -> None:
        for s in SEATS:
            self.camera.cleared(s)

    # ---- the dealer's work
    def _guarded(self) -> None:
        self.clock.join()
        try:
            self._run()
        except Stopped:
            pass
        except Exception as e:  # noqa: BLE001 - reported in the demo's summary and exit code
            self.error = f"{type(e).__name__}: {e}"
            log.exception("the dealer stopped")
        finally:
            self.clock.leave()
            self.done.set()

    def _run(self) -> None:
        while not self.finish.is_set():
            if self.games is not None and self.games_opened >= self.games:
                return
            # ... and a camera that sees the seats (a 4K camera takes a while to start)
            self._wait(lambda v: len(self._sz(v).get("seats", {})) >= 3
                       and self._sz(v).get("game") is None and self.camera.seen(), "three players", 3600)
            # between games the players sit down, leave, come back: a pause they can see.
            # Told to finish during it (Ctrl-C), the dealer opens no new game.
            if self.clock.sleep(max(1.2, 5.0 / self.speed), self.finish):
                return
            recs = self._act("dealer", "open_betting")
            if not any(r["type"] == "game_open" for r in recs):
                self._sleep(2.0)  # refused (not enough players could pay): try again later
                continue
            self.games_opened += 1
            game_id = next(r["game_id"] for r in recs if r["type"] == "game_open")
            self._game(game_id)

    def _game_on(self, v: dict[str, Any], game_id: str) -> bool:
        g = self._sz(v).get("game")
        return g is not None and g.get("game_id") == game_id

    def _game(self, game_id: str) -> None:
        while True:
            # a deal is due once the game is open or its buy-in window has closed
            v = self._wait(lambda v: not self._game_on(v, game_id) or v["state"] == "game_open",
                           "the next deal to be due")
            if not self._game_on(v, game_id):
                return
            self._deal(game_id)

    def _deal(self, game_id: str) -> None:
        self._act("dealer", "new_shoe")
        self._sleep(1.0)
        self._act("supervisor", "confirm_shuffle", "auto-supervisor")
        self.shoe.load()  # a freshly shuffled full deck, for every deal
        v = self._wait(lambda v: not self._game_on(v, game_id) or v["state"] == "dealing"
                       or (self._sz(v)["game"].get("deal") or {}).get("phase") not in (None, "done"),
                       "the deal to open", 60)
        if not self._game_on(v, game_id):
            return
        deal_id = self._sz(v)["game"]["deal"]["deal_id"]
        with self.clock.waiting(), self._plans_cond:
            self._plans_cond.wait_for(lambda: deal_id in self._plans, 10)
            plan = self._plans.pop(deal_id)
        hands: dict[str, list[str]] = {s: [] for s in plan}
        for seat in plan:
            card = self._draw(game_id)
            if card is None:
                return  # the game was cancelled under the dealer's hands
            hands[seat].append(card)
            self.camera.dealt(seat, card, len(hands[seat]))
            self._sleep(DEAL_GAP_S)
        # betting and arranging are the players'; then the hands are turned up
        v = self._wait(lambda v: not self._game_on(v, game_id)
                       or (self._sz(v)["game"].get("deal") or {}).get("phase") in ("showdown", "done"),
                       "betting and arranging to end", 900)
        deal = (self._sz(v).get("game") or {}).get("deal") or {}
        if self._game_on(v, game_id) and deal.get("phase") == "showdown":
            self._sleep(1.0)
            for seat, shown in (deal.get("showdown") or {}).items():
                # the player's two pairs: front nearer the dealer, back behind
                self.camera.shown(seat, list(shown["front"]), list(shown["back"]))
                self._sleep(0.8)
            self._wait(lambda v: not self._game_on(v, game_id)
                       or ((self._sz(v)["game"].get("deal") or {}).get("deal_id") == deal_id
                           and self._sz(v)["game"]["deal"]["phase"] == "done"),
                       "the camera to confirm the showdown", 120)
        self._sleep(2.5)  # the players look at the hands, then the seats are cleared
        self._clear_table()
        self._wait(lambda v: self.camera.seen(), "the camera to see the cleared seats", 30)
        self._sleep(0.5)

    def _draw(self, game_id: str) -> str | None:
        from firmware_bridge.shoe.simulator import ShoeRefused

        for _ in range(2400):
            try:
                return self.shoe.draw()
            except ShoeRefused:  # the gate is locked: paused, or not yet unlocked
                v = self.station.view
                if v.get("paused"):
                    self._supervise(v)
                    v = self.station.view
                if not self._game_on(v, game_id):
                    return None
                self._sleep(0.1)
        raise TimeoutError("the shoe would not give a card")


class Tally:
    """What the table made, counted from its records (for the summary)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.actions: Counter[str] = Counter()
        self.auto: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.settled: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, records: list[dict[str, Any]]) -> None:
        with self.lock:
            for r in records:
                kind = r["type"]
                self.counts[kind] += 1
                if kind == "player_action":
                    self.actions[r["action"]] += 1
                    if r.get("auto"):
                        self.auto[r["action"]] += 1
                elif kind == "action_refused":
                    self.refused[r["reason"]] += 1
                elif kind == "game_settled":
                    self.settled.append({"game_id": r["game_id"], "pot": r["pot"],
                                         "payouts": r["payouts"]})


def pot_accounts(ledger: Path) -> dict[str, int]:
    """Every pot account of the ledger and its balance."""
    db = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT name, balance FROM accounts WHERE kind = 'system' "
                          "AND substr(name, 1, 4) = 'pot:'").fetchall()
    finally:
        db.close()
    return dict(rows)


def refused_options(args: argparse.Namespace) -> str | None:
    """Options of `station demo` that a Si Zhi Dao table does not take, said plainly (it
    has no timed betting window, no shoes to count, and its dealer makes no mistakes on
    purpose yet): None when all given options apply."""
    why = []
    if getattr(args, "faults", ""):
        why.append("--faults (the Si Zhi Dao dealer makes no mistakes on purpose)")
    if getattr(args, "betting_seconds", None) is not None:
        why.append("--betting-seconds (players bet in turns, each with decision_seconds)")
    if getattr(args, "shoes", None) is not None:
        why.append("--shoes (every deal is a fresh deck: count games with --rounds)")
    if not why:
        return None
    return "--game sizhidao does not take " + "; ".join(why)


def platform_key() -> tuple[str, str]:
    """(key, platform): the demo's player-API key, the first of STATION_BET_API_KEYS
    (`key=platform`, as for `station run`) when it is set, else a new random one."""
    from station.runtime import parse_api_keys

    given = parse_api_keys(os.environ.get("STATION_BET_API_KEYS"))
    if given:
        key, platform = next(iter(given.items()))
        return key, platform
    return secrets.token_urlsafe(18), "demo-platform"


def run_demo(args: argparse.Namespace) -> int:
    from firmware_bridge.shoe.simulator import ShoeSimulator
    from station.console import UserStore
    from station.core.settings import TableSettings
    from station.games.sizhidao.tools.bots import PlatformClient, make_bots
    from station.live.config import CameraConfig, HttpConfig, ShoeConfig, StationConfig
    from station.live.journal_key import demo_key_file
    from station.runtime import start_runtime
    from station.settlement.core import SettlementCore

    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    clock = make_clock(getattr(args, "clock", None) or "wall")
    # --no-camera: the camera's observations are simulated, not rendered and read (the table
    # still runs with its camera: PROCEDURE.md §7 offers no degraded mode for this game)
    rendered = not getattr(args, "no_camera", False)
    speed = max(0.1, float(getattr(args, "speed", 1.0) or 1.0))
    seed = args.seed if getattr(args, "seed", None) is not None else int(time.time()) % 100000
    rng = random.Random(seed)
    data = Path(getattr(args, "data", None) or f"var/demo-sizhidao-{time.strftime('%Y%m%d-%H%M%S')}")
    data.mkdir(parents=True, exist_ok=True)
    port = int(getattr(args, "port", 8600))
    host = getattr(args, "host", "127.0.0.1")
    # the players' clocks keep the spec's proportions; a faster demo runs them faster
    decision_s, arrange_s, buy_in_s = 15.0 / speed, 10.0 / speed, 10.0 / speed
    settings = TableSettings(table=TABLE, game="sizhidao", camera=True, camera_lag_tolerant=True
                             ).with_overrides(dict(decision_seconds=decision_s, arrange_seconds=arrange_s,
                                                   buy_in_seconds=buy_in_s))
    shoe = ShoeSimulator(deck=[str(c) for c in ALL_CARDS], cut_at=None, seed=seed)
    url = shoe.serve_pty()
    cfg = StationConfig(table=settings, data_dir=data, shoe=ShoeConfig(url=url),
                        camera=CameraConfig(enabled=True, source="synthetic" if rendered else "simulated",
                                            layout=str(SEAT_CAMERA) if rendered else None),
                        console=HttpConfig(host, port),
                        bet_api=HttpConfig(host, port + 1 if port else 0),
                        signing_key_file=demo_key_file(data),
                        source="station demo --game sizhidao")
    users = UserStore(data / "users.sqlite")
    password = getattr(args, "password", None) or secrets.token_urlsafe(9)
    for name, role in (("supervisor", "supervisor"), ("dealer", "dealer")):
        if any(u.name == name for u in users.users()):
            users.remove(name)
        users.add(name, role, password)
    key, platform = platform_key()
    camera_factory = None
    if rendered:
        from firmware_bridge.camera.scene import TableScene
        from station.live.camera_feed import camera_factory_for

        scene = TableScene(SEATS, seed=seed, seat_zones=SEATS)
        camera_factory = camera_factory_for(
            cfg, scene, fps=CAMERA_FPS, perturbations={},
            paced=(lambda source: ClockedFrames(source, clock, CAMERA_FPS)) if clock.virtual else None)
    clock.start()
    try:
        rt = start_runtime(cfg, users=users, api_keys={key: platform}, camera_factory=camera_factory,
                           clock=clock.now)
    except OSError as e:
        print(f"station demo: {e} (is another demo using port {port}? try --port)", file=sys.stderr)
        shoe.close()
        clock.stop()
        return 2
    station = rt.station
    clock.hold_while(lambda: station.fatal is None and station.inputs_in_flight() > 0)
    tally = Tally()
    station.add_listener(tally)
    camera: SimulatedCamera | RenderedSeats
    camera = RenderedSeats(scene, rt.camera) if rendered else SimulatedCamera(station, speed, clock)
    camera.start()
    client = PlatformClient(rt.bet_api_url, key)
    n_bots = max(3, int(getattr(args, "bettors", 6) or 6))
    bots = make_bots(client, n_bots, seed, speed=speed, decision_s=decision_s,
                     arrange_s=arrange_s, buy_in_s=buy_in_s, seated=min(n_bots, 6), clock=clock)
    for bot in bots:
        # some short stacks, so that all-ins and side layers happen
        client.set_wallet(bot.account, rng.choice((400, 700, 2000, 5000, 20_000)))
    client.set_wallet(GUEST, 20_000)
    seat_link = rt.bet_api_url + client.seat_token(GUEST)["page"]
    games = getattr(args, "rounds", None)
    dealer = SiZhiDaoDealer(station, shoe, camera, speed=speed, games=games,
                            decide_after_s=float(getattr(args, "decide_after", 20.0)) / speed,
                            clock=clock)
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(f"Simulated Si Zhi Dao table {TABLE} is running ({n_bots} simulated players).", flush=True)
    print(f"  console:   {rt.console_url}   (log in as supervisor or dealer, password {password})",
          flush=True)
    print(f"  seat page: {seat_link}", flush=True)
    print(f"             (a seat for the account '{GUEST}': sit at a free seat and play)", flush=True)
    print(f"  player API: {rt.bet_api_url}/v1/players/actions   (Authorization: Bearer {key};"
          " set STATION_BET_API_KEYS=<key>=<platform> to choose it)", flush=True)
    print(f"  shoe:      one-deck simulator on the serial port {url}", flush=True)
    if rendered:
        print(f"  camera:    the synthetic 4K camera ({SEAT_CAMERA.name}) rendering seats S1-S7 for "
              "the real recogniser", flush=True)
    else:
        print("  camera:    simulated observations of the seat zones S1-S7 (--no-camera)", flush=True)
    print(f"  data:      {data} (journal, ledger, traces)", flush=True)
    print("Ctrl-C stops it (the game in progress is played out first).", flush=True)
    for bot in bots:
        bot.start()
    dealer.start()
    interrupted = False
    give_up_at = float("inf")
    while not dealer.done.wait(0.5):
        if station.fatal is not None:
            break
        if stop.is_set():
            if not interrupted:  # the game in progress is played out (for a while) first
                interrupted = True
                dealer.finish.set()
                give_up_at = time.monotonic() + 120 / speed
            if (station.view.get("sizhidao") or {}).get("game") is None \
                    or time.monotonic() > give_up_at:
                break
    # The dealer is stopped first (its thread joined), so no game can open after the check
    # below; a game still open then is cancelled: everything refunded.
    dealer.stop()
    if (station.view.get("sizhidao") or {}).get("game") is not None and station.fatal is None:
        station.submit("supervisor", "cancel_round", "auto-supervisor")
    for bot in bots:
        bot.stop()
    camera.stop()
    view = station.view
    rt.stop()
    shoe.close()
    clock.stop()
    core = SettlementCore(cfg.ledger_path)
    report = core.check(require_closed=True)
    core.close()
    pots = pot_accounts(cfg.ledger_path)
    problems: list[str] = []
    if dealer.error:
        problems.append(f"the dealer stopped: {dealer.error}")
    problems += [f"{b.account} stopped: {b.error}" for b in bots if b.error]
    if station.fatal is not None:
        problems.append(f"the table core stopped: {station.fatal}")
    odd = {s: n for s, n in client.statuses.items() if s not in (200, 409)}
    if odd:
        problems.append(f"the player API answered with {odd}")
    if games is not None and not interrupted and len(tally.settled) + tally.counts["round_cancelled"] < games:
        problems.append(f"{len(tally.settled) + tally.counts['round_cancelled']} of the "
                        f"{games} games asked were played")
    nonzero = {name: bal for name, bal in pots.items() if bal != 0}
    summary = {
        "table": TABLE,
        "games_settled": len(tally.settled),
        "games_cancelled": tally.counts["round_cancelled"],
        "deals": tally.counts["deal_open"],
        "tie_rounds": tally.counts["deal_open"] - tally.counts["game_open"],
        "player_actions": dict(sorted(tally.actions.items())),
        "automatic": dict(sorted(tally.auto.items())),
        "refused": dict(sorted(tally.refused.items())),
        "buy_ins": tally.counts["buy_in"],
        "faults": view.get("fault_counts"),
        "decisions": dealer.decisions,
        "pots": {"accounts": len(pots), "not_zero": nonzero},
        "ledger_check": "clean" if report.ok else report.problems,
        "problems": problems,
        "journal": str(cfg.journal_path),
        "clock": "virtual" if clock.virtual else "wall",
    }
    print(json.dumps(summary, indent=2), flush=True)
    return 0 if report.ok and not nonzero and not problems else 1


def demo_command(args: argparse.Namespace) -> int:
    """`station demo --game sizhidao`: the options a pot table does not take are refused."""
    refused = refused_options(args)
    if refused:
        print(f"station demo: {refused}", file=sys.stderr)
        return 2
    return run_demo(args)
