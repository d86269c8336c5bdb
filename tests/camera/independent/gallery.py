"""Write a battery to a folder, to look at or to feed a recogniser by hand:

    .venv/bin/python -m tests.camera.independent.gallery OUT_DIR [--dice N] [--seats N] [--seed S]

One PNG and one JSON (the truth) per case; two-camera cases write one pair per camera.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from .cases import dice_cases, seat_cases


def _write(out: Path, name: str, image, truth) -> None:
    if not cv2.imwrite(str(out / f"{name}.png"), image):
        raise OSError(f"could not write {out / name}.png")
    (out / f"{name}.json").write_text(json.dumps(truth, indent=1, default=float), encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--dice", type=int, default=14)
    ap.add_argument("--seats", type=int, default=3)
    ap.add_argument("--two-cameras", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for case in dice_cases(args.dice, args.seed):
        _write(args.out, case.name, *case.render())
    for case in seat_cases(args.seats, args.seed):
        _write(args.out, case.name, *case.render())
    for case in seat_cases(args.two_cameras, args.seed, two_cameras=True):
        for i, (image, truth) in enumerate(case.render()):
            _write(args.out, f"{case.name}-cam{i}", image, truth)
    print(f"wrote {args.dice} dice, {args.seats} seat and {args.two_cameras} two-camera cases to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
