"""Figures of the dice reader on the synthetic camera's own trays (firmware_bridge/camera/
dice_render.py): every dice set under the studio's conditions, and the `hidden` stress preset
(dice partly under a tray's rim, tests/camera/test_dice_rim_hidden.py) by how much of the top
face the rim hides and how light the rim is against the die.

    .venv/bin/python -m tests.camera.rim_dice_figures [--trays 40] [--throws 300]

prints one JSON line per dice set, one for the hidden class, and exits 1 if any face was
wrong. The hidden class is read by one calibrated table's reader (as at a real table).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter

import numpy as np

from firmware_bridge.camera.dice_accuracy import STUDIO_PRESETS, run
from firmware_bridge.camera.dice_render import DICE_SETS, DICE_STRESS_PRESETS, render_tray

#: hidden area bands, mm² of the top face under the wall
BANDS = ((1.0, 5.0), (5.0, 20.0), (20.0, 60.0), (60.0, 1e9))


def studio(trays: int, seed: int = 1) -> list[dict]:
    out = []
    for name in [*DICE_SETS, None]:
        results = run(list(STUDIO_PRESETS), trays=trays, seed=seed, dice_set=name)
        dice = sum(r.dice for r in results)
        out.append({"dice_set": name or "varied", "trays": sum(r.trays for r in results), "dice": dice,
                    "named": sum(r.dice_read for r in results),
                    "named_pct": round(100.0 * sum(r.dice_read for r in results) / max(1, dice), 2),
                    "wrong": sum(r.counts["wrong_face"] for r in results),
                    "miscount": sum(r.counts["miscount"] for r in results)})
    return out


def hidden(throws: int) -> dict:
    from tests.camera.test_dice_hidden import _calibrated_reader

    reader = _calibrated_reader(0)
    rows: dict[str, Counter] = {}
    wrong = whole = whole_named = 0
    for seed in range(throws):
        pic = render_tray(random.Random(seed), 1, DICE_STRESS_PRESETS["hidden"])
        (die,), (covered,) = pic.dice, pic.hidden_mm2
        seen = reader.read(pic.image)
        wrong += sum(1 for f in seen if f and f != die.face)
        if covered < 1.0:
            whole += covered == 0.0
            whole_named += covered == 0.0 and seen == [die.face]
            continue
        rim = "dark" if float(np.mean(pic.tray.rim_bgr) / np.mean(pic.look.face_bgr)) <= 0.5 else "pale"
        band = next(f"{lo:g}-{hi:g}" for lo, hi in BANDS if lo <= covered < hi)
        c = rows.setdefault(f"{rim} {band}", Counter())
        c["dice"] += 1
        c["zero" if seen == [0] else "named" if seen == [die.face] else "not counted"] += 1
    return {"hidden": {k: dict(v) for k, v in sorted(rows.items())}, "whole": whole,
            "whole_named": whole_named, "wrong": wrong, "throws": throws}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trays", type=int, default=40, help="trays per dice set and studio condition")
    ap.add_argument("--throws", type=int, default=300, help="throws of the hidden class")
    args = ap.parse_args(argv)
    wrong = 0
    for row in studio(args.trays):
        wrong += row["wrong"]
        print(json.dumps(row), flush=True)
    h = hidden(args.throws)
    wrong += h["wrong"]
    print(json.dumps(h))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
