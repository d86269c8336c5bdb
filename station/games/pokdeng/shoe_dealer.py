"""`station sim-shoe --game pokdeng`: an 8-deck shoe with a cut card, and a dealer drawing
from it: LOAD, the first card and its burn, then rounds of 13 cards (a burn and 12 dealt)
until the cut card has come out and that round is dealt."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable

from firmware_bridge.shoe.simulator import FaultPlan, ShoeRefused, ShoeSimulator
from station.cards import parse_card
from station.games.pokdeng.rules import PokDeng


def simulator(args: argparse.Namespace, faults: FaultPlan) -> ShoeSimulator:
    """The shoe of the table, shuffled (or in the order `--cards` gives), the cut card
    `--cut-at` cards in."""
    cards = [c.strip() for c in args.cards.split(",")] if args.cards else None
    return ShoeSimulator(cards=cards, cut_at=args.cut_at, seed=args.seed, faults=faults,
                         has_gate=not args.no_gate, codes=args.codes)


def deal(sim: ShoeSimulator, stop: threading.Event, *, every: float, pause: float,
         start_after: float, rounds: int | None, say: Callable[[str], None]) -> None:
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
