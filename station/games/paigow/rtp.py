"""Exact return to player of the Pai Gow door bets (RULES.md §2.5), and `station rtp paigow`.

A bet on a door is decided by four cards: that door's two and the banker's two. The other
doors are dealt from the same 32 cards, but nobody sees them before settlement, so they do
not change the distribution of those four: a door hand and a banker hand drawn without
replacement from the full deck. We enumerate every such draw, C(32,2) · C(30,2) = 215 760
(door hand, banker hand) pairs, each equally likely, with the table's own evaluator and
comparison; all counts are integers turned into `fractions.Fraction` at the end.

Both bets deduct exactly their stake, so the return per unit staked and per unit deducted
are one figure. The payout floors the winnings to the minor unit; the exact figures below are
those of a stake whose winnings divide exactly (any multiple of 100 minor units). For any
other stake A the return is smaller by the floor's loss, which `returns_for_amount` gives
exactly.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from station.games.paigow.bets import LOSE, WIN, WINNINGS
from station.games.paigow.hands import door_wins, evaluate
from station.games.paigow.tiles import DECK

#: the return the operator's sheet (seed 004) quotes
SHEET_FIGURE = Fraction(9827, 10000)


@dataclass(frozen=True)
class PaiGowRTP:
    draws: int  # (door hand, banker hand) pairs enumerated
    door_wins: int  # of those, how many the door wins

    @property
    def win(self) -> Fraction:
        """Probability that a door beats the banker."""
        return Fraction(self.door_wins, self.draws)

    @property
    def lose(self) -> Fraction:
        """Probability that it does not (ties go to the banker)."""
        return 1 - self.win

    def rtp_stake(self, side: str) -> Fraction:
        """Expected return per unit staked of a `WIN` or `LOSE` bet, winnings unrounded."""
        num, den = WINNINGS[side]
        p = self.win if side == WIN else self.lose
        return p * (1 + Fraction(num, den))

    def returns_for_amount(self, side: str, amount: int) -> Fraction:
        """Expected return per unit staked of one bet of exactly `amount` minor units, with
        the winnings floored as the table pays them."""
        num, den = WINNINGS[side]
        p = self.win if side == WIN else self.lose
        return p * Fraction(amount + amount * num // den, amount)


def paigow_rtp() -> PaiGowRTP:
    hands = [(frozenset(pair), evaluate(pair)) for pair in combinations(DECK, 2)]
    draws = wins = 0
    for door_cards, door in hands:
        for banker_cards, banker in hands:
            if door_cards & banker_cards:
                continue
            draws += 1
            wins += door_wins(door, banker)
    return PaiGowRTP(draws, wins)


def as_json(r: PaiGowRTP) -> dict[str, object]:
    """The `--json` document: floats of the exact fractions, and `exact` with every figure
    as a fraction string."""
    door = {"win": r.win, "lose": r.lose}
    win_bet = {"rtp_stake": r.rtp_stake(WIN), "rtp_deducted": r.rtp_stake(WIN)}
    lose_bet = {"rtp_stake": r.rtp_stake(LOSE), "rtp_deducted": r.rtp_stake(LOSE)}

    def floats(d: dict[str, Fraction]) -> dict[str, float]:
        return {k: float(v) for k, v in d.items()}

    def exact(d: dict[str, Fraction]) -> dict[str, str]:
        return {k: str(v) for k, v in d.items()}

    return {
        "door": floats(door),
        "win_bet": floats(win_bet),
        "lose_bet": floats(lose_bet),
        "draws": r.draws,
        "sheet_figure": float(SHEET_FIGURE),
        "exact": {"door": exact(door), "win_bet": exact(win_bet), "lose_bet": exact(lose_bet)},
    }


def _pct(x: Fraction) -> str:
    return f"{float(x) * 100:8.4f} %"


def as_table(r: PaiGowRTP) -> str:
    return "\n".join(
        [
            "Wenzhou Pai Gow, 32-card deck: exact return to player (exhaustive enumeration",
            f"of {r.draws} door and banker hands drawn without replacement)",
            "",
            f"  door beats the banker      {_pct(r.win)}  exact {r.win}",
            f"  door loses (ties included) {_pct(r.lose)}  exact {r.lose}",
            "",
            "  bet    returns on a win     return per unit staked (= per unit deducted)",
            f"  WIN    A + floor(0.99 A)    {_pct(r.rtp_stake(WIN))}  exact {r.rtp_stake(WIN)}"
            f"   house edge {_pct(1 - r.rtp_stake(WIN))}",
            f"  LOSE   A + floor(0.93 A)    {_pct(r.rtp_stake(LOSE))}  exact {r.rtp_stake(LOSE)}"
            f"   house edge {_pct(1 - r.rtp_stake(LOSE))}",
            "",
            "  Figures for stakes whose winnings divide exactly (multiples of 100 minor units);",
            "  other stakes lose the floored fraction of a minor unit on a win.",
            f"  The rule sheet quotes about {float(SHEET_FIGURE) * 100:.2f} %; these exact figures differ",
            "  from it (neither bet nor their average gives it).",
        ]
    )


def run(args: argparse.Namespace) -> int:
    """`station rtp paigow [--json]`."""
    if getattr(args, "decks", None) is not None:
        print("station rtp paigow: --decks does not apply; the table deals one 32-card deck",
              file=sys.stderr)
        return 2
    r = paigow_rtp()
    print(json.dumps(as_json(r)) if args.json else as_table(r))
    return 0
