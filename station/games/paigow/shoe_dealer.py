"""`station sim-shoe --game paigow`: the 32-card shoe, with no cut card, and a dealer
drawing shuffles of two rounds of 8 cards from it."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable

from firmware_bridge.shoe.simulator import FaultPlan, ShoeRefused, ShoeSimulator
from station.games.paigow.tiles import DECK_COUNTS


def simulator(args: argparse.Namespace, faults: FaultPlan) -> ShoeSimulator:
    """The shoe of the table: the 32 cards (RULES.md §2.1), shuffled for each load."""
    return ShoeSimulator(deck=DECK_COUNTS, cut_at=None, seed=args.seed, faults=faults,
                         has_gate=not args.no_gate, codes=args.codes)


def deal(sim: ShoeSimulator, stop: threading.Event, *, every: float, pause: float,
         start_after: float, rounds: int | None, say: Callable[[str], None]) -> None:
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
