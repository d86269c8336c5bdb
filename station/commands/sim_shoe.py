"""`station sim-shoe`: a simulated DS card shoe with a simulated dealer drawing from it.

Serves the shoe on a pty (a real serial device path) and/or a TCP port (`socket://`), prints
what to connect to — one URL per line on standard output, first thing — and then deals as
the game's dealer does, a card every `--deal-every` seconds. The game's shoe and dealer are
its `shoe_simulator` and `shoe_dealer` tools (station/games/tools.py), in its package. When
the station locks the gate, the dealer waits. Faults on the wire are options.

    station sim-shoe --tcp 0            # then: station shoe listen socket://127.0.0.1:PORT
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from firmware_bridge.shoe.simulator import FaultPlan
from station.core.settings import DEFAULT_GAME
from station.games.tools import game_tool, games_with


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pty", action="store_true",
                        help="serve on a pty (the default when --tcp is not given)")
    parser.add_argument("--tcp", type=int, metavar="PORT", default=None,
                        help="serve on 127.0.0.1:PORT (0: any free port)")
    parser.add_argument("--seed", type=int, default=None, help="shuffle and fault seed")
    games = games_with("shoe_simulator")
    parser.add_argument("--game", choices=games, default=DEFAULT_GAME,
                        help="the game whose shoe and dealer are simulated (default: a bare "
                             "table's; station/games/<game>/shoe_dealer.py says how each deals)")
    parser.add_argument("--cut-at", type=int, default=350,
                        help="cards before the cut card (default 350)")
    parser.add_argument("--cards", metavar="LIST",
                        help="scripted order instead of a shuffle: comma-separated, ?? unread, CUT")
    parser.add_argument("--deal-every", type=float, default=0.7, metavar="SECONDS",
                        help="seconds between cards (default 0.7)")
    parser.add_argument("--round-pause", type=float, default=3.0, metavar="SECONDS",
                        help="seconds between rounds (default 3)")
    parser.add_argument("--start-after", type=float, default=1.0, metavar="SECONDS",
                        help="seconds before the shoe is loaded (default 1)")
    parser.add_argument("--wait-for-station", action="store_true",
                        help="load only once a station has acknowledged the shoe's HELLO")
    parser.add_argument("--rounds", type=int, default=None,
                        help="stop dealing after this many rounds (default: to the cut card)")
    parser.add_argument("--no-deal", action="store_true", help="serve the shoe, deal nothing")
    parser.add_argument("--no-gate", action="store_true", help="a shoe without a card gate")
    parser.add_argument("--codes", action="store_true", help="serialized decks: cards carry codes")
    parser.add_argument("--loss", type=float, default=0.0, help="frame loss rate (0..1)")
    parser.add_argument("--dup", type=float, default=0.0, help="duplicated frame rate")
    parser.add_argument("--ber", type=float, default=0.0, help="bit error rate per byte")
    parser.add_argument("--split", type=float, default=0.0, help="split write rate")
    parser.add_argument("--junk", type=float, default=0.0, help="junk bytes before a frame, rate")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds every write is held")
    parser.add_argument("--inbound-loss", type=float, default=0.0,
                        help="rate of station frames lost on the way to the shoe")


def run(args: argparse.Namespace) -> int:
    try:
        faults = FaultPlan(bit_error_rate=args.ber, drop_rate=args.loss,
                           duplicate_rate=args.dup, split_rate=args.split,
                           junk_rate=args.junk, delay=args.delay,
                           inbound_drop_rate=args.inbound_loss, seed=args.seed)
        make = game_tool(args.game, "shoe_simulator")
        assert make is not None  # the parser offers only the games that have it
        sim = make(args, faults)
    except ValueError as e:  # CardError is a ValueError
        print(f"station sim-shoe: {e}", file=sys.stderr)
        return 2
    stop = threading.Event()
    try:
        if args.tcp is not None:
            print(sim.serve_tcp(args.tcp), flush=True)
        if args.pty or args.tcp is None:
            print(sim.serve_pty(), flush=True)
    except OSError as e:
        print(f"station sim-shoe: cannot serve: {e}", file=sys.stderr)
        sim.close()
        return 1

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, on_signal)
    try:
        if not args.no_deal:
            if args.wait_for_station:
                say("waiting for a station to acknowledge HELLO")
                while sim.unacked and not stop.wait(0.05):
                    pass
            dealer = game_tool(args.game, "shoe_dealer")
            if dealer is None:
                say(f"no dealer of a {args.game} table: the shoe deals nothing")
            else:
                dealer(sim, stop, every=args.deal_every, pause=args.round_pause,
                       start_after=args.start_after, rounds=args.rounds, say=say)
        stop.wait()
    finally:
        sim.close()
    return 0


def say(text: str) -> None:
    print(f"sim-shoe: {text}", file=sys.stderr, flush=True)
