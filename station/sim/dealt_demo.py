"""The demo of a house-banked game's table (`station demo`, the `demo` tool of a game dealt
by a scripted dealer): the game's `scripted_dealer` deals a simulated studio table
(station/sim/studio.py) — the shoe simulator on a real pty, the synthetic camera through the
real recogniser, bettors through the bet API, settlement into the ledger, the console — until
it is stopped or has dealt the rounds asked."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import time
from pathlib import Path

from station.games.tools import game_tool


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
