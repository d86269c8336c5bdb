"""`station sim-shoe`: a simulated DS card shoe with a simulated dealer drawing from it.

Serves the shoe on a pty (a real serial device path) and/or a TCP port (`socket://`), prints
what to connect to — one URL per line on standard output, first thing — and then deals Pok
Deng: LOAD, the first card and its burn, then rounds of 13 cards (a burn and 12 dealt) a card
every `--deal-every` seconds, until the cut card has come out and that round is dealt.
When the station locks the gate, the dealer waits. Faults on the wire are options.

    station sim-shoe --tcp 0            # then: station shoe listen socket://127.0.0.1:PORT
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from firmware_bridge.shoe.simulator import FaultPlan, ShoeRefused, ShoeSimulator
from station.cards import parse_card
from station.games.pokdeng import PokDeng


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pty", action="store_true",
                        help="serve on a pty (the default when --tcp is not given)")
    parser.add_argument("--tcp", type=int, metavar="PORT", default=None,
                        help="serve on 127.0.0.1:PORT (0: any free port)")
    parser.add_argument("--seed", type=int, default=None, help="shuffle and fault seed")
    parser.add_argument("--game", choices=("pokdeng", "paigow"), default="pokdeng",
                        help="pokdeng: 8 decks and a cut card; paigow: the 32-card deck, no cut "
                             "card, shuffles of two rounds of 8 cards (drawn when the gate opens)")
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
        cards = [c.strip() for c in args.cards.split(",")] if args.cards else None
        if args.game == "paigow":
            from station.games.paigow import DECK_COUNTS

            sim = ShoeSimulator(deck=DECK_COUNTS, cut_at=None, seed=args.seed, faults=faults,
                                has_gate=not args.no_gate, codes=args.codes)
        else:
            sim = ShoeSimulator(cards=cards, cut_at=args.cut_at, seed=args.seed, faults=faults,
                                has_gate=not args.no_gate, codes=args.codes)
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
            dealer = deal_paigow if args.game == "paigow" else deal
            dealer(sim, stop, every=args.deal_every, pause=args.round_pause,
                   start_after=args.start_after, rounds=args.rounds)
        stop.wait()
    finally:
        sim.close()
    return 0


def deal_paigow(sim: ShoeSimulator, stop: threading.Event, *, every: float, pause: float,
                start_after: float, rounds: int | None) -> None:
    """A dealer at a Wenzhou Pai Gow table: each shuffle the 32 cards are loaded and two rounds
    of 8 cards drawn, each card when the station's gate lets it out (after the dice are known);
    then the next shuffle. Without a gate the cards come at once: for wiring checks only."""
    played = 0
    if stop.wait(start_after):
        return
    while not stop.is_set() and (rounds is None or played < rounds):
        sim.load()
        say("shoe loaded with the 32 cards")
        for _ in range(2):
            if rounds is not None and played >= rounds:
                return
            played += 1
            for _ in range(8):
                while not stop.is_set():
                    try:
                        sim.draw()
                        break
                    except ShoeRefused:
                        stop.wait(0.2)
                if stop.wait(every):
                    return
            say(f"round {played} dealt")
            if stop.wait(pause):
                return


def deal(sim: ShoeSimulator, stop: threading.Event, *, every: float, pause: float,
         start_after: float, rounds: int | None) -> None:
    """A dealer at a Pok Deng table, drawing from `sim` until the shoe is done or `stop`."""

    def draw() -> str | None:
        # The dealer's hand waits at a locked or jammed gate; it never loses a card.
        while not stop.is_set():
            try:
                return sim.draw()
            except ShoeRefused as e:
                if "empty" in str(e):
                    return None
                stop.wait(0.2)
        return None

    if stop.wait(start_after):
        return
    sim.load()
    say("shoe loaded")
    first = draw()
    if first is None:
        return
    if first in ("??", "CUT"):
        burn = 10
    else:
        burn = PokDeng.burn_count(parse_card(first))
    say(f"first card {first}: burning {burn}")
    for _ in range(burn):
        if stop.wait(every) or draw() is None:
            return
    played = 0
    last_round = False
    while not stop.is_set() and not last_round and (rounds is None or played < rounds):
        if stop.wait(pause):
            return
        played += 1
        dealt = 0
        drawn: list[str] = []
        while dealt < PokDeng().cards_per_round:  # the round's burn card, then P1..P5 B twice
            if stop.wait(every):
                return
            item = draw()
            if item is None:
                say("shoe empty")
                return
            if item == "CUT":
                last_round = True  # the cut card is not dealt; the deal goes on
                continue
            dealt += 1
            drawn.append(item)
        say(f"round {played} dealt: {' '.join(drawn[1:])}" + (" (last round)" if last_round else ""))
    say("dealer done")


def say(text: str) -> None:
    print(f"sim-shoe: {text}", file=sys.stderr, flush=True)
