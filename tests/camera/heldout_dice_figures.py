"""The dice reader on the held-out renderer (tests/camera/heldout, written from the card-face
sheet alone by somebody who never saw the reader; looked at while the reader was tuned since
its first run, docs/camera.md "Dice sets", so no longer held out). Each table
is calibrated as at a real table: its camera config carries only a rough scale (0.30 mm per
pixel; the renderer's tables are 0.24-0.33 at the tray) and `calibrate_dice` (what `station
camera calibrate --dice` runs) measures the die on two sharp throws of that table. Then throws
are read under each perturbation of the renderer.

    .venv/bin/python -m tests.camera.heldout_dice_figures --throws 4 [--sets a,b] [--tables 1] [--renderer heldout|blind|fourth_dice] [--summary]

`--renderer blind` holds it to tests/camera/blind instead, a second renderer from the same sheet
(its dice looked at since 5 Dec 2026); `--renderer blind_dice` to tests/camera/blind_dice, a third,
dice only, that nobody tuning the reader has looked at; `--renderer fourth_dice` to
tests/camera/fourth_dice, a fourth (6 Dec 2026, looked at since).
`--summary` leaves out each missed tray's truth, so that whoever works on the reader can take
the blind figures without seeing what the blind dice were.

prints one JSON line per dice set and one for all; exit 1 if any face was wrong.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from collections import Counter

import numpy as np

import tests.camera.heldout as heldout
from firmware_bridge.camera.calibration import CalibrationError
from firmware_bridge.camera.dice import DiceReader
from firmware_bridge.camera.dice_calibration import calibrate_dice

# the renderers the reader can be held to, each written from the card-face sheet alone; a
# renderer's module is imported only when asked for
RENDERERS = {"heldout": "tests.camera.heldout", "blind": "tests.camera.blind",
             "blind_dice": "tests.camera.blind_dice", "fourth_dice": "tests.camera.fourth_dice"}
NOMINAL_MM_PER_PX = 0.30
CALIBRATION_SEEDS = (900, 901)


def _box(truth: dict, image: np.ndarray) -> tuple[int, int, int, int]:
    z = np.array(truth["zones"]["DICE"]["corners_px"])
    h, w = image.shape[:2]
    x0, y0 = np.clip(np.floor(z.min(0)), 0, None).astype(int)
    x1, y1 = int(min(np.ceil(z[:, 0].max()), w)), int(min(np.ceil(z[:, 1].max()), h))
    return int(x0), int(y0), x1, y1


def score(expected: list[int], seen: list[int]) -> tuple[int, int, int]:
    """(dice in full view, of them named with their face, faces named wrongly) of one tray:
    the reading compared with the truth as a multiset."""
    want = Counter(f for f in expected if f)
    got = Counter(f for f in seen if f)
    named = sum(min(n, want[f]) for f, n in got.items())
    wrong = sum(max(0, n - want[f]) for f, n in got.items())
    return sum(want.values()), named, wrong


def _kind(why: str) -> str:
    """A reason with its figures taken out, so that alike reasons are counted together."""
    return re.sub(r"[0-9.]+", "#", why)


def wrong_faces(expected: list[int], seen: list[int]) -> list[str]:
    """The faces read that the tray does not hold, each beside the faces it holds that went
    unnamed: "read 2 where unnamed [3]"."""
    want = Counter(f for f in expected if f)
    got = Counter(f for f in seen if f)
    extra = sorted((got - want).elements())
    unnamed = sorted((want - got).elements())
    return [f"read {f} where unnamed {unnamed}" for f in extra]


def run_set(dice_set: str, throws: int, tables: int = 1, renderer=heldout, view: bool = True) -> dict:
    total = Counter()
    why_zero: Counter = Counter()
    wrong_as: Counter = Counter()
    per_table: list[Counter] = [Counter() for _ in range(tables)]
    passed_over: Counter = Counter()
    per: dict[str, Counter] = {p: Counter() for p in renderer.PERTURBATIONS}
    misses: list[str] = []
    cals = []
    for table in range(tables):
        stills = [renderer.render_dice_scene(dice_set, s, "sharp", table=table) for s in CALIBRATION_SEEDS]
        crops = []
        for img, truth in stills:
            x0, y0, x1, y1 = _box(truth, img)
            crops.append(img[y0:y1, x0:x1])
        camera = None
        try:
            cal = calibrate_dice(crops, 16.0 / NOMINAL_MM_PER_PX)
            die_px, camera = cal.die_px, cal.view if view else None
            cals.append(round(die_px, 1))
        except CalibrationError as exc:
            # the command refuses this table: it is read at the rough scale, and said so
            die_px = 16.0 / NOMINAL_MM_PER_PX
            cals.append(f"calibration refused ({exc}); read at the rough scale, {die_px:.1f} px")
        reader = DiceReader(die_px=die_px, view=camera)
        for seed in range(throws):
            for p in renderer.PERTURBATIONS:
                img, truth = renderer.render_dice_scene(dice_set, seed, p, table=table)
                expected = truth["zones"]["DICE"]["expected"]
                if expected is None:
                    continue  # the dealer's hand covers the tray
                x0, y0, x1, y1 = _box(truth, img)
                detailed = reader.read_detailed(img[y0:y1, x0:x1])
                seen = detailed.faces
                why_zero.update(_kind(d.reason) for d in detailed.dice if not d.face)
                full, named, wrong = score(expected, seen)
                per_table[table].update(full=full, named=named, unfound=max(0, len(expected) - len(seen)))
                if len(seen) < len(expected):
                    passed_over.update(_kind(why) for _, why in detailed.passed_over)
                    passed_over["trays with dice not found"] += 1
                if wrong:
                    wrong_as.update(f"table {table}: {w}" for w in wrong_faces(expected, seen))
                c = Counter(full=full, named=named, wrong=wrong, trays=1)
                total.update(c)
                per[p].update(c)
                if named < full or wrong or len(seen) != len(expected):
                    misses.append(f"table {table} seed {seed} {p}: truth {expected} read {seen}")
    return {"dice_set": dice_set, "tables": tables, "die_px": cals, **total,
            "named_pct": round(100.0 * total["named"] / max(1, total["full"]), 2),
            "per_perturbation": {p: dict(c) for p, c in per.items()}, "misses": misses,
            "why_zero": dict(why_zero.most_common()), "wrong_as": dict(wrong_as.most_common()),
            "passed_over_where_dice_not_found": dict(passed_over.most_common()),
            "per_table": [f"{c['named']}/{c['full']} named, {c['unfound']} not found" for c in per_table]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--throws", type=int, default=4, help="throws per table, each under every perturbation")
    ap.add_argument("--tables", type=int, default=1)
    ap.add_argument("--sets", default=None, help="comma-separated; default: all of the renderer's")
    ap.add_argument("--renderer", choices=sorted(RENDERERS), default="heldout")
    ap.add_argument("--summary", action="store_true", help="counts only: no missed tray's truth")
    ap.add_argument("--reasons", action="store_true",
                    help="with --summary: also the reader's own reasons for its 0s, counted, and each "
                         "wrong face beside the faces left unnamed in its tray")
    ap.add_argument("--no-view", action="store_true",
                    help="read without the camera's view the calibration fits (its die size only, as before)")
    args = ap.parse_args(argv)
    renderer = importlib.import_module(RENDERERS[args.renderer])
    total = Counter()
    for name in args.sets.split(",") if args.sets else list(renderer.DICE_SETS):
        r = run_set(name, args.throws, args.tables, renderer, view=not args.no_view)
        total.update({k: r[k] for k in ("full", "named", "wrong", "trays")})
        if args.summary:
            r["misses"] = len(r["misses"])
            if not args.reasons:
                del r["why_zero"], r["wrong_as"], r["per_table"], r["passed_over_where_dice_not_found"]
        print(json.dumps(r), flush=True)
    print(json.dumps({"dice_set": "all", **total, "named_pct": round(100.0 * total["named"] / max(1, total["full"]), 2)}))
    return 1 if total["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
