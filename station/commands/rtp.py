"""`station rtp GAME`: the exact return to player of each bet, and on which base.

`RUNNERS` names what answers for each game (Wenzhou Pai Gow: station/games/paigow/rtp.py).
What follows is Pok Deng.

The Player bet deducts 2A (stake A plus a reserve A) but only ever risks up to 2A and wins up
to 2A, so its return depends on what it is divided by. We print both:

- `rtp_stake`: expected (returned − reserve) per unit staked, i.e. per A;
- `rtp_deducted`: expected returned per unit deducted, i.e. per 2A.

The house keeps the same money either way; per-deducted halves the visible edge. The Pair bet
deducts exactly its stake, so its two figures are equal.
"""

from __future__ import annotations

import argparse
import json
import sys
from fractions import Fraction

from station.games.paigow import rtp as paigow_rtp
from station.games.pokdeng.rtp import OUTCOMES, PokDengRTP, pokdeng_rtp


def as_json(r: PokDengRTP) -> dict[str, object]:
    """The `--json` document. `player` and `pair` are floats of the exact fractions; `detail`
    splits wins and losses by multiplier; `exact` repeats every figure as a fraction."""
    player = {
        "rtp_stake": r.player_rtp_stake,
        "rtp_deducted": r.player_rtp_deducted,
        "win": r.prob("win"),
        "lose": r.prob("lose"),
        "tie": r.prob("tie"),
    }
    pair = {"rtp_stake": r.pair_rtp, "rtp_deducted": r.pair_rtp}
    detail = {f"{o}_x{m}": r.player[(o, m)] for o, m in OUTCOMES if m}
    detail["pair_probability"] = r.pair
    return {
        "player": {k: float(v) for k, v in player.items()},
        "pair": {k: float(v) for k, v in pair.items()},
        "detail": {k: float(v) for k, v in detail.items()},
        "decks": r.decks,
        "exact": {
            "player": {k: str(v) for k, v in player.items()},
            "pair": {k: str(v) for k, v in pair.items()},
            "detail": {k: str(v) for k, v in detail.items()},
        },
    }


def _pct(x: Fraction) -> str:
    return f"{float(x) * 100:9.4f} %"


def as_table(r: PokDengRTP) -> str:
    lines = [
        f"Pok Deng, {r.decks}-deck shoe: exact return to player (exhaustive enumeration)",
        "",
        "Player bet (閒N), amount A; deducts 2A",
        f"  {'outcome':<12} {'returned':>9} {'probability':>12}  exact",
    ]
    returned = {"win": lambda m: f"{2 + m}A", "lose": lambda m: f"{2 - m}A", "tie": lambda m: "2A"}
    for o, m in OUTCOMES:
        label = f"{o} x{m}" if m else o
        p = r.player[(o, m)]
        lines.append(f"  {label:<12} {returned[o](m):>9} {_pct(p):>12}  {p}")
    lines += [
        f"  {'total':<12} {'':>9} {_pct(r.total):>12}  {r.total}",
        f"  return per unit staked   (A)  {_pct(r.player_rtp_stake)}   house edge {_pct(1 - r.player_rtp_stake)}",
        f"  return per unit deducted (2A) {_pct(r.player_rtp_deducted)}   house edge {_pct(1 - r.player_rtp_deducted)}",
        "",
        "Pair bet (閒N對), amount A; deducts A; returns 12A on a pair",
        f"  P(pair) {_pct(r.pair)}  exact {r.pair}",
        f"  return per unit staked = per unit deducted {_pct(r.pair_rtp)}   house edge {_pct(1 - r.pair_rtp)}",
    ]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=GAMES, help="the game")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--decks",
        type=int,
        default=None,
        help="Pok Deng: decks in the shoe (default 8, the table's shoe); other values for comparison",
    )


def run_pokdeng(args: argparse.Namespace) -> int:
    decks = 8 if args.decks is None else args.decks
    if decks < 1:
        print(f"station rtp: --decks must be at least 1, got {decks}", file=sys.stderr)
        return 2
    r = pokdeng_rtp(decks=decks)
    if args.json:
        print(json.dumps(as_json(r)))
    else:
        print(as_table(r))
    return 0


#: game -> what prints its figures
RUNNERS = {"pokdeng": run_pokdeng, "paigow": paigow_rtp.run}
GAMES = tuple(RUNNERS)


def run(args: argparse.Namespace) -> int:
    return RUNNERS[args.game](args)
