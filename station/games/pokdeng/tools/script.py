"""A Pok Deng table staged on paper (station/sim/script.py's TraceScript on this game): the
deal plan of a burn and two cards to each of P1–P5 and B, turned P1–P5 then B."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from station.games.pokdeng import PokDeng
from station.sim.script import TraceScript, hands_by_plan

GAME = PokDeng()  # the game staged: its plan, positions and zones
PLAN = GAME.deal_plan
POSITIONS = GAME.positions
CARDS_PER_ROUND = GAME.cards_per_round


class PokDengScript(TraceScript):
    """A trace of a Pok Deng table (by default PD-01)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(GAME, **kw)


def hands_of(cards13: Sequence[str]) -> dict[str, list[str]]:
    """Which two cards each position holds after a round dealt by the plan."""
    return hands_by_plan(PLAN, POSITIONS, cards13)
