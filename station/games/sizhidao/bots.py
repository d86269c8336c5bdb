"""What a simulated Si Zhi Dao player decides, as pure functions of what that player may see
(its own cards, the public betting state) and a seeded random source. The demo and the soak
drive these through the table's real player API; nothing here talks to a table.

A bot has a temperament (`Profile`): how loose or aggressive it bets, whether it arranges
quickly, late (still inside the time) or never (left to the automatic arrangement), how
often it buys in to a tie round, and how often it drops its connection.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from station.cards import Card
from station.games.sizhidao.arrange import Arrangement, auto_arrange, legal_arrangements


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    looseness: float  # 0 folds anything weak … 1 calls anything
    aggression: float  # how often it raises a strong hand
    arranging: str  # "quick" | "late" | "never"
    buys_in: float  # probability of buying in when it may
    drops: float  # probability per game of a disconnect
    think_s: tuple[float, float] = (1.4, 6.0)  # how long it takes to act


PROFILES = (
    Profile("steady", 0.6, 0.25, "quick", 0.5, 0.0),
    Profile("loose", 0.9, 0.15, "late", 0.7, 0.0),
    Profile("shark", 0.5, 0.6, "quick", 0.3, 0.0),
    Profile("sleepy", 0.7, 0.1, "never", 0.4, 0.0, (2.0, 18.0)),  # sometimes too slow: folded
    Profile("flaky", 0.8, 0.2, "late", 0.5, 0.15),
)


@dataclass(frozen=True, slots=True)
class TableSight:
    """The public betting state a player sees, plus its own numbers."""

    level: int
    own_total: int
    wallet: int
    ante: int
    opening: bool  # nobody has decided yet in this deal's betting


@dataclass(frozen=True, slots=True)
class Move:
    delay_s: float
    action: str  # bet | call | raise | fold | all_in | arrange | buy_in | decline | (none)
    amount: int | None = None  # the new total for bet / raise
    front: tuple[str, str] | None = None
    back: tuple[str, str] | None = None


def hand_score(cards: Sequence[Card]) -> float:
    """0 … 1: how good the hand is, from its automatic arrangement (back counts most)."""
    a = auto_arrange(cards)
    back = a.back_strength.class_rank * 20 + min(a.back_strength.value, 19)
    front = a.front_strength.class_rank * 20 + min(a.front_strength.value, 19)
    return min(1.0, (2 * back + front) / (3 * 79))


def decide_bet(
    rng: random.Random, profile: Profile, cards: Sequence[Card], sight: TableSight
) -> Move:
    """The bot's betting decision when it is its turn."""
    delay = rng.uniform(*profile.think_s)
    score = hand_score(cards)
    to_call = sight.level - sight.own_total
    if sight.wallet <= 0:
        return Move(delay, "fold")
    keen = score + profile.looseness * 0.5 + rng.uniform(-0.15, 0.15)
    if keen < 0.55 and (to_call > 0 or sight.opening):
        return Move(delay, "fold")
    want_raise = rng.random() < profile.aggression * (0.5 + score)
    min_total = sight.level + sight.ante
    reachable = sight.own_total + sight.wallet
    if want_raise or sight.opening:
        if reachable < min_total:
            return Move(delay, "all_in")
        steps = 1 + int(rng.random() * 3 * score)
        target = min(reachable, min_total + (steps - 1) * sight.ante)
        if target == reachable and rng.random() < 0.5:
            return Move(delay, "all_in")
        return Move(delay, "bet" if sight.opening else "raise", amount=target)
    if to_call > sight.wallet:
        return Move(delay, "all_in" if keen > 0.8 else "fold")
    return Move(delay, "call")


def decide_arrangement(
    rng: random.Random, profile: Profile, cards: Sequence[Card], arrange_s: float
) -> Move | None:
    """The bot's arrangement, or None when it leaves it to the automatic arrangement."""
    if profile.arranging == "never":
        return None
    delay = (
        rng.uniform(0.5, 2.5)
        if profile.arranging == "quick"
        else rng.uniform(0.6, 0.95) * arrange_s
    )
    legal = legal_arrangements(cards)
    best = auto_arrange(cards)
    # mostly the best split; now and then another legal one (a human's choice)
    chosen: Arrangement = best if rng.random() < 0.8 or not legal else rng.choice(legal)
    return Move(
        delay,
        "arrange",
        front=(str(chosen.front[0]), str(chosen.front[1])),
        back=(str(chosen.back[0]), str(chosen.back[1])),
    )


def decide_buy_in(
    rng: random.Random, profile: Profile, price: int, wallet: int, buy_in_s: float
) -> Move | None:
    """Buy in, decline, or stay silent (None: the window's close declines for it)."""
    if wallet < price:
        return Move(rng.uniform(0.5, 3.0), "decline")
    roll = rng.random()
    if roll < profile.buys_in:
        return Move(rng.uniform(0.5, 0.6 * buy_in_s), "buy_in")
    if roll < profile.buys_in + (1 - profile.buys_in) * 0.7:
        return Move(rng.uniform(0.5, 0.6 * buy_in_s), "decline")
    return None


def drops_connection(rng: random.Random, profile: Profile) -> bool:
    """Whether this bot loses its connection during the coming game."""
    return rng.random() < profile.drops
