"""python -m tests.camera.fourth_seats --out DIR [--seeds N] [--table T] [--style S] [--perturbation P]

Writes sample frames (PNG) with their truth (JSON) beside each, plus the calibration stills."""

import argparse
import json
import os
import time

import cv2

from . import DECK_STYLES, PERTURBATIONS, render_seats_calibration, render_seats_frame


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tests.camera.fourth_seats")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--table", type=int, default=None, help="one table (default: cycle 0..3)")
    ap.add_argument("--style", default=None, help="one deck style (default: cycle through all)")
    ap.add_argument("--perturbation", default=None, help="one perturbation (default: cycle)")
    ap.add_argument("--no-calibration", action="store_true")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    styles = [a.style] if a.style else list(DECK_STYLES)
    perts = [a.perturbation] if a.perturbation else list(PERTURBATIONS)

    def write(name, img, truth):
        cv2.imwrite(os.path.join(a.out, name + ".png"), img)
        with open(os.path.join(a.out, name + ".json"), "w") as f:
            json.dump(truth, f, indent=1)

    for seed in range(a.seeds):
        style = styles[seed % len(styles)]
        pert = perts[seed % len(perts)]
        table = a.table if a.table is not None else seed % 4
        t0 = time.perf_counter()
        img, truth = render_seats_frame(style, seed, pert, table=table)
        dt = time.perf_counter() - t0
        name = f"seats_t{table}_{style}_{pert}_s{seed}"
        write(name, img, truth)
        print(f"{name}: {dt:.2f} s, " + ", ".join(f"{k}={v['expected']}" for k, v in truth["zones"].items()))
    if not a.no_calibration:
        for table in sorted({a.table if a.table is not None else s % 4 for s in range(max(a.seeds, 1))}):
            style = styles[table % len(styles)]
            for key, (img, truth) in render_seats_calibration(style, table).items():
                write(f"calib_t{table}_{style}_{key}", img, truth)
                print(f"calib_t{table}_{style}_{key}")


if __name__ == "__main__":
    main()
