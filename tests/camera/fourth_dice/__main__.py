"""python -m tests.camera.fourth_dice --out DIR [--seeds N] [--tables T] [--perturbations]"""
import argparse
import json
import os
import time

import cv2

from . import DICE_SETS, PERTURBATIONS, render_dice_scene


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", type=int, default=8, help="scenes to write (seeds 0..N-1)")
    ap.add_argument("--tables", type=int, default=8, help="cycle through tables 0..T-1")
    ap.add_argument("--all-perturbations", action="store_true",
                    help="write every perturbation of each scene (default: cycle through them)")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    sets = sorted(DICE_SETS)
    for seed in range(a.seeds):
        name = sets[seed % len(sets)]
        table = seed % a.tables
        perts = PERTURBATIONS if a.all_perturbations else (PERTURBATIONS[seed % len(PERTURBATIONS)],)
        for pert in perts:
            t0 = time.perf_counter()
            img, truth = render_dice_scene(name, seed, pert, table)
            dt = time.perf_counter() - t0
            stem = os.path.join(a.out, f"dice_t{table}_{name}_s{seed}_{pert}")
            cv2.imwrite(stem + ".png", img)
            with open(stem + ".json", "w") as fh:
                json.dump(truth, fh, indent=1)
            print(f"{stem}.png {img.shape[1]}x{img.shape[0]} {dt:.2f}s "
                  f"expected={truth['zones']['DICE']['expected']}")


if __name__ == "__main__":
    main()
