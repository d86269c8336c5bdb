"""`station rtp pokdeng`: the exact return to player of each Pok Deng bet, and on which base.

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


def run(args: argparse.Namespace) -> int:
    """`station rtp pokdeng [--json] [--decks N]`."""
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
