"""`station demo`: what a simulated Pok Deng table brings to station/sim/studio.py — an
8-deck shoe with the cut card 300 to 360 cards in, the scripted dealer of station/sim/
dealer.py, bettors on the five players and their pairs, the station's default camera layout
and the synthetic camera's default perturbations."""

from __future__ import annotations

import random
from typing import Any

from firmware_bridge.shoe.simulator import FaultPlan, ShoeSimulator
from station.games.pokdeng.rules import PLAYERS
from station.sim.dealer import ScriptedDealer
from station.sim.studio import DemoTable


def demo_table(options: Any, rng: random.Random, faults: FaultPlan) -> DemoTable:
    """The table of `options` (station.sim.studio.StudioOptions: its seed, its cut card when
    given); the cut card's place is drawn from `rng` when it is not."""
    shoe = ShoeSimulator(cut_at=options.cut_at or rng.randint(300, 360), seed=options.seed,
                         faults=faults)
    return DemoTable(shoe=shoe, dealer_class=ScriptedDealer,
                     spots=[*PLAYERS, *(f"{p}PAIR" for p in PLAYERS)])
