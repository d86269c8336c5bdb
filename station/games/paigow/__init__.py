"""Wenzhou Pai Gow (温州牌九): the 32 tiles and their stand-in cards, two-tile hands, door
against banker, the six spots with their per-account limits, and payouts (RULES.md §2).

    from station.games.paigow import evaluate, door_wins, returned
    door, banker = evaluate(["QH", "9H"]), evaluate(["8H", "8D"])
    door_wins(door, banker)           # False: any pair beats a special
    returned("SHUN_WIN", 1000, "win") # 1990
"""

from station.games.paigow.bets import (
    BANKER,
    DOORS,
    LOSE,
    POSITIONS,
    SPOTS,
    WIN,
    PaiGowBetError,
    conflict,
    returned,
    split_spot,
    winnings,
)
from station.games.paigow.hands import HAND_KEYS, Hand, door_wins, evaluate, outcome
from station.games.paigow.rules import PaiGow
from station.games.paigow.tiles import DECK, DECK_COUNTS, TILES, Tile, TileError, tile_of

__all__ = [
    "PaiGow",
    "BANKER",
    "DECK",
    "DECK_COUNTS",
    "DOORS",
    "HAND_KEYS",
    "LOSE",
    "POSITIONS",
    "SPOTS",
    "TILES",
    "WIN",
    "Hand",
    "PaiGowBetError",
    "Tile",
    "TileError",
    "conflict",
    "door_wins",
    "evaluate",
    "outcome",
    "returned",
    "split_spot",
    "tile_of",
    "winnings",
]
