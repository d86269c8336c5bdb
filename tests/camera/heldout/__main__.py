"""Write a sample of rendered frames (PNG) and their truth (JSON) for a person to look at:

    python -m tests.camera.heldout --out DIR [--seeds N]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from . import (
    DECK_STYLES,
    DICE_SETS,
    PERTURBATIONS,
    render_dice_calibration,
    render_dice_scene,
    render_seats_calibration,
    render_seats_frame,
)


def _write(out: Path, name: str, img, truth) -> None:
    cv2.imwrite(str(out / f"{name}.png"), img)
    (out / f"{name}.json").write_text(json.dumps(truth, indent=1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.camera.heldout", description=__doc__)
    ap.add_argument("--out", required=True, type=Path, help="folder for the PNGs and JSONs")
    ap.add_argument("--seeds", type=int, default=2, help="scenes per dice set and deck style")
    ap.add_argument("--no-seats", action="store_true", help="dice only (4K seat frames are slow)")
    args = ap.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    perts = sorted(set(PERTURBATIONS) - {"sharp"})
    n = 0
    for set_name in DICE_SETS:
        _write(out, f"dice_{set_name}_calibration", *render_dice_calibration(set_name))
        for seed in range(args.seeds):
            pert = perts[(seed + n) % len(perts)] if seed else "sharp"
            _write(out, f"dice_{set_name}_{seed}_{pert}", *render_dice_scene(set_name, seed, pert))
            n += 1
    if not args.no_seats:
        for style in DECK_STYLES:
            for still, (img, truth) in render_seats_calibration(style).items():
                _write(out, f"seats_{style}_calibration_{still}", img, truth)
            for seed in range(args.seeds):
                pert = perts[(seed + n) % len(perts)] if seed else "sharp"
                _write(out, f"seats_{style}_{seed}_{pert}", *render_seats_frame(style, seed, pert))
                n += 1
    print(f"wrote {len(list(out.glob('*.png')))} pictures and their truth to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
