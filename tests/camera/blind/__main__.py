"""Write sample pictures of the blind renderer with their truth beside each:

    .venv/bin/python -m tests.camera.blind --out DIR [--seeds N] [--no-seats]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2

from . import DECK_STYLES, DICE_SETS, render_dice_scene, render_seats_frame


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--no-seats", action="store_true")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for seed in range(args.seeds):
        for name in DICE_SETS:
            img, truth = render_dice_scene(name, seed)
            cv2.imwrite(str(out / f"dice-{name}-{seed}.png"), img)
            (out / f"dice-{name}-{seed}.json").write_text(json.dumps(truth, indent=1), "utf-8")
        if not args.no_seats:
            for style in DECK_STYLES:
                img, truth = render_seats_frame(style, seed)
                cv2.imwrite(str(out / f"seats-{style}-{seed}.png"), img)
                (out / f"seats-{style}-{seed}.json").write_text(json.dumps(truth, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
