"""Per dice set figures of the dice reader on a renderer written from the card-face sheet
alone (tests/camera/independent): each table (seed) is calibrated first, as at a real table,
with `calibrate_dice` (what `station camera calibrate --dice` runs) on the calibration still of
the tray with two dice, and its throws are then read under each studio condition.

    .venv/bin/python -m tests.camera.dice_figures --tables 10        # docs/camera.md's figures

prints one JSON line per dice set and one for all, then exits 1 if any face was wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

import numpy as np

from firmware_bridge.camera.dice import DiceReader
from firmware_bridge.camera.dice_calibration import calibrate_dice
from tests.camera.independent import DICE_SETS, perturb, render_dice_tray, tray_calibration_stills

STUDIO = ("sharp", "blur", "noise", "dim", "warm", "jpeg")
SIZE = (640, 480)  # the tray's part of a 0.33 mm/px picture, the camera over the tray
NOMINAL_MM_PER_PX = 0.30  # the engineer's rough scale: the calibration measures the dice
ARRANGEMENTS = ("free", "touching", "rim")


def zone_box(truth: dict) -> tuple[int, int, int, int]:
    z = np.array(truth["zones"]["DICE"])
    x0, y0 = np.clip(z.min(0), 0, None).astype(int)
    x1, y1 = np.minimum(z.max(0), SIZE).astype(int)
    return int(x0), int(y0), int(x1), int(y1)


def score(want: list[int], seen: list[int]) -> tuple[int, int]:
    """(dice named right, faces named wrong) of one tray."""
    have = Counter(want)
    wrong = sum(max(0, n - have[f]) for f, n in Counter(f for f in seen if f).items())
    named = sum(1 for f in seen if f) if len(seen) == len(want) and not wrong else 0
    return named, wrong


def run_set(dice_set: str, tables: int, first_seed: int = 0) -> dict:
    """Tables `first_seed`.. of one dice set: each calibrated, then one throw read under each
    studio condition."""
    dice = named = wrong = 0
    per_condition: dict[str, list[int]] = {c: [0, 0, 0] for c in STUDIO}
    misses: list[str] = []
    for seed in range(first_seed, first_seed + tables):
        still, st_truth = tray_calibration_stills(dice_set=dice_set, seed=seed, image_size=SIZE, ss=2)["dice"]
        x0, y0, x1, y1 = zone_box(st_truth)
        cal = calibrate_dice([still[y0:y1, x0:x1]], 16.0 / NOMINAL_MM_PER_PX)
        reader = DiceReader(die_px=cal.die_px)
        rng = np.random.default_rng([seed, 7])
        arrangement = ARRANGEMENTS[seed % len(ARRANGEMENTS)]
        faces = tuple(int(v) for v in rng.integers(1, 7, 2))
        img, truth = render_dice_tray(dice_set, faces, seed=seed, arrangement=arrangement, image_size=SIZE, ss=2)
        want = truth["reading"]
        for condition in STUDIO:
            seen = reader.read(perturb(img, condition, seed=seed)[y0:y1, x0:x1])
            n, w = score(want, seen)
            dice, named, wrong = dice + len(want), named + n, wrong + w
            pc = per_condition[condition]
            pc[0], pc[1], pc[2] = pc[0] + len(want), pc[1] + n, pc[2] + w
            if n < len(want) or w:
                misses.append(f"table {seed} {arrangement} {condition}: truth {want} read {seen}")
    return {"dice_set": dice_set, "tables": tables, "dice": dice, "named": named, "wrong": wrong,
            "named_pct": round(100.0 * named / max(1, dice), 2),
            "per_condition": {c: {"dice": v[0], "named": v[1], "wrong": v[2]} for c, v in per_condition.items()},
            "misses": misses}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=10, help="tables (seeds) per dice set (default %(default)s)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--sets", default=",".join(sorted(DICE_SETS)))
    args = ap.parse_args(argv)
    total = Counter()
    for name in args.sets.split(","):
        r = run_set(name, args.tables, args.first_seed)
        total.update({"dice": r["dice"], "named": r["named"], "wrong": r["wrong"]})
        print(json.dumps(r), flush=True)
    print(json.dumps({"dice_set": "all", **total, "named_pct": round(100.0 * total["named"] / max(1, total["dice"]), 2)}))
    return 1 if total["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
