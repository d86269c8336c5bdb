"""Pok Deng's round in `./run.sh bench settlement`: the cards of the round the big round's
bets are settled on (every kind of result: a win, a loss, a tie, pairs, a pok), the spots
those bets are spread on (every spot: each player's and its pair bet), and the spots of the
HTTP bet load (a player bet and a pair bet)."""

from __future__ import annotations

from typing import Any

from station.games.pokdeng.rules import BANKER, PLAYERS


def bench_round() -> dict[str, Any]:
    p1, _, p3, *_ = PLAYERS
    hands = (["7H", "2H"], ["AS", "2C"], ["KS", "QS"], ["5D", "5C"], ["3H", "4D"], ["6S", "TC"])
    return {"cards": dict(zip((*PLAYERS, BANKER), hands, strict=True)),
            "spots": [*PLAYERS, *(p + "PAIR" for p in PLAYERS)],
            "intake_spots": (p1, p3 + "PAIR")}
