"""`station demo`: a whole simulated studio table on this machine (the README's main command)."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import time
from pathlib import Path

from station.core.settings import DEFAULT_GAME
from station.games.tools import game_tool, games_with


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", choices=games_with("demo"), default=DEFAULT_GAME,
                   help="the table's game (default %(default)s; at a pot game --rounds counts "
                        "its games)")
    p.add_argument("--speed", type=float, default=1.0, help="dealer pace (2 = twice as fast)")
    p.add_argument("--rounds", type=int, help="stop after this many rounds settled (a cancelled "
                                              "round is dealt again; default: run on)")
    p.add_argument("--shoes", type=int, help="stop after this many shoes")
    p.add_argument("--no-camera", action="store_true", help="degraded mode: no camera")
    p.add_argument("--betting-seconds", type=float, default=None,
                   help="seconds the betting stays open (default 15; not for a pot game, "
                        "whose players bet in turns)")
    p.add_argument("--decide-after", type=float, default=20.0,
                   help="seconds a paused table waits for you at the console before the "
                        "simulated floor supervisor decides")
    p.add_argument("--faults", default="",
                   help="comma list of: noise, unplug and the dealer's mistakes at the "
                        "game's table: misplace, early_turn (cards dealt face down), misprint, "
                        "mistype_dice (dice entered by the dealer)")
    p.add_argument("--fault-rate", type=float, default=0.15,
                   help="chance per round of each dealer mistake named in --faults (noise: a "
                        "fifth of it is the share of spoiled frames; unplug: every 13/rate cards)")
    p.add_argument("--bettors", type=int, default=6)
    p.add_argument("--port", type=int, default=8600, help="console port (bet API: port + 1)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--data", default=None, help="where the journal, ledger and traces go "
                                                "(default: var/demo-<time>)")
    p.add_argument("--password", default=None, help="console password (default: random, printed)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--clock", choices=("wall", "virtual"), default="wall",
                   help="the table's time line (default wall: real time, for a person "
                        "watching). virtual: one clock for the station, the dealer, the players "
                        "and the simulated camera, which runs at most at real speed and stands "
                        "while work is in flight (a frame not yet recognised, an input not yet "
                        "applied, a dealer or player mid-step), so a loaded machine runs the demo "
                        "slower, never differently (the tests run it so)")


def run(args: argparse.Namespace) -> int:
    demo = game_tool(args.game, "demo")  # the game names its demo
    assert demo is not None  # the parser offers only the games that have one
    return demo(args)


def run_dealt_table(args: argparse.Namespace) -> int:
    """The demo of a house-banked game's table: the game's scripted dealer (its
    `scripted_dealer`, on station/sim/dealer.py) deals a simulated studio table."""
    if args.betting_seconds is None:
        args.betting_seconds = 15.0
    from station.sim.dealer import MISTAKES, DealerMistakes
    from station.sim.studio import TABLES, Studio, StudioOptions

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    faults = {f.strip() for f in args.faults.split(",") if f.strip()}
    dealer = game_tool(args.game, "scripted_dealer")
    made = dealer.mistakes_made if dealer is not None else ()
    known = {*made, "noise", "unplug"}
    if faults - known:
        print(f"station demo: unknown fault(s) {', '.join(sorted(faults - known))}; "
              f"known: {', '.join(sorted(known))}", file=sys.stderr)
        return 2
    rate = args.fault_rate
    if not 0 <= rate <= 1:
        print("station demo: --fault-rate is a chance, from 0 to 1", file=sys.stderr)
        return 2
    mistakes = DealerMistakes(**{m: rate if m in faults else 0.0 for m in MISTAKES})
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    data = Path(args.data or f"var/demo-{time.strftime('%Y%m%d-%H%M%S')}")
    opts = StudioOptions(data_dir=data, speed=args.speed, rounds=args.rounds, shoes=args.shoes,
                         camera=not args.no_camera, betting_seconds=args.betting_seconds,
                         decide_after=args.decide_after, bettors=args.bettors,
                         console_port=args.port, bet_port=args.port + 1 if args.port else 0,
                         host=args.host, seed=seed, mistakes=mistakes,
                         # the link's faults scale with the rate too: at the default 0.15, 3 %
                         # of frames are spoiled and the cable comes out every 87 cards
                         link_noise=rate / 5 if "noise" in faults else 0.0,
                         unplug_every=max(13, round(13 / rate)) if "unplug" in faults and rate > 0
                         else 0, password=args.password,
                         # the camera keeps up with a faster dealer, to 10 frames a second: a
                         # studio camera's rate, and more only starves a busy machine's table
                         # (camera_lost after 3 s without an observation)
                         camera_fps=min(10.0, max(4.0, 5.0 * args.speed)), game=args.game,
                         clock=args.clock)
    studio = Studio(opts)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        studio.start()
    except OSError as e:
        print(f"station demo: {e} (is another demo using port {args.port}? try --port)",
              file=sys.stderr)
        studio.stop()
        return 2
    rt = studio.runtime
    table, game_name = TABLES[args.game]
    print(f"Simulated studio table {table} ({game_name}) is running.", flush=True)
    print(f"  console:  {rt.console_url}   (log in as supervisor or dealer, password "
          f"{studio.credentials['supervisor']})", flush=True)
    if rt.bet_api_url:
        print(f"  bet API:  {rt.bet_api_url}/v1/bets", flush=True)
    print(f"  shoe:     simulator on the serial port {rt.config.shoe.url}", flush=True)
    print(f"  camera:   {'synthetic frames through the real recogniser' if opts.camera else 'none (degraded)'}",
          flush=True)
    print(f"  data:     {data} (journal, ledger, per-shoe traces)", flush=True)
    print("Ctrl-C stops it.", flush=True)
    studio.wait(stop)
    summary = studio.stop()
    for problem in summary.get("problems", []):
        print(f"station demo: {problem}", file=sys.stderr)
    print(json.dumps(summary, indent=2), flush=True)
    # a demo whose dealer or bettors died, or that ran fewer rounds than asked, failed
    return 0 if summary.get("ledger_check") == "clean" and not summary.get("problems") else 1
