"""`station demo`: what a simulated Wenzhou Pai Gow table brings to station/sim/studio.py —
one 32-card deck and no cut card (PROCEDURE.md §6), the scripted dealer of station/sim/
paigow_dealer.py, bettors on each door's win and lose, the studio's layout with the dice
tray (config/camera_paigow_1080p.toml) and a synthetic camera without perturbations."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from firmware_bridge.shoe.simulator import FaultPlan, ShoeSimulator
from station.games.paigow.bets import SPOTS
from station.games.paigow.tiles import DECK_COUNTS
from station.games.paigow.tools.dealer import PaiGowDealer
from station.sim.studio import DemoTable

#: the camera layout of the studio's table: the doors and the dice tray
LAYOUT = Path(__file__).resolve().parents[4] / "config" / "camera_paigow_1080p.toml"


def demo_table(options: Any, rng: random.Random, faults: FaultPlan) -> DemoTable:
    """The table of `options` (station.sim.studio.StudioOptions: its seed); `rng` is not
    drawn from (the deck is shuffled by the shoe, for each load)."""
    shoe = ShoeSimulator(deck=DECK_COUNTS, cut_at=None, seed=options.seed, faults=faults)
    return DemoTable(shoe=shoe, dealer_class=PaiGowDealer, spots=list(SPOTS), layout=LAYOUT,
                     perturbations={})
