"""How many showdown cards' codes decode on a soft picture, per way of looking (docs/camera.md,
"Soft pictures"): the renderer's sharp seat frames (table 0, seeds 0 and 1, every deck style),
blurred here as a lens out of focus or a shaken camera would, each shown seat's zone box
decoded by zxing-cpp plainly, enlarged and sharpened (the recogniser's first harder view), and
with the blur undone along deblur.WIENER_LADDER. A card counts when one of its codes decodes;
a decoded card not in the seat counts as wrong.

    .venv/bin/python -m tests.camera.deblur_figures [--renderer blind|heldout] [--blurs g2.0,d3,...]

Blurs in tests/camera/softening.py's notation (`g2.0` a Gaussian of 2 px, `d3` a disc of
3 px, `m7` a line of 7 px, `n6` noise, `j60` JPEG; `+` chains them).
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from firmware_bridge.camera.build import build_recogniser
from firmware_bridge.camera.deblur import WIENER_LADDER, Restorer
from firmware_bridge.camera.faces import parse_face_text
from firmware_bridge.camera.recogniser import SHRINK, Recogniser
from tests.camera.heldout_seats import SEATS, _zones, calibrated
from tests.camera.softening import soften

BLURS = "g1.5,g2.0,g2.0+n3,g2.0+n6+j60,g2.5+j70,g3.0,d3,d4,m7"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--renderer", choices=("blind", "heldout"), default="blind")
    ap.add_argument("--blurs", default=BLURS)
    args = ap.parse_args(argv)
    if args.renderer == "blind":
        from tests.camera import blind as renderer
    else:
        from tests.camera import heldout as renderer
    tables = []
    for style in sorted(renderer.DECK_STYLES):
        cam = calibrated(Path(tempfile.mkdtemp()), style, 0, renderer)
        if cam is not None:
            tables.append((style, build_recogniser(cam)))
    print(f"{'blur':22} {'plain':>8} {'sharpened':>10} {'ladder':>8}  (cards named of cards shown; wrong)")
    for blur in args.blurs.split(","):
        rng = np.random.default_rng(1)
        got: Counter[str] = Counter()
        shown = 0
        for style, rec in tables:
            for seed in range(2):
                img, truth = renderer.render_seats_frame(style, seed, perturbation="sharp", table=0)
                gray = cv2.cvtColor(soften(img, blur, rng), cv2.COLOR_BGR2GRAY)
                for seat in SEATS:
                    want = _zones(truth)[seat]["expected"]
                    if not want or "??" in want:
                        continue
                    x0, y0, x1, y1 = (v * SHRINK for v in rec._geo[seat].box)
                    box = gray[y0:y1, x0:x1]
                    restorer = Restorer(box)  # (the box's spectrum taken once for every rung)
                    views = {"plain": [box], "sharpened": [next(Recogniser._harder_views(box))()[0]],
                             "ladder": [box] + [restorer.view(s, n) for s, n in WIENER_LADDER]}
                    shown += len(want)
                    for way, pictures in views.items():
                        names = {f.card for p in pictures for r in rec.decoder.decode(p)
                                 if (f := parse_face_text(r.text)) is not None}
                        got[way] += len(names & set(want))
                        got[way + " wrong"] += len(names - set(want))
        print(f"{blur:22} " + " ".join(f"{got[w]:>{n}}/{shown}" for w, n in (("plain", 4), ("sharpened", 6), ("ladder", 4)))
              + f"  wrong {got['plain wrong'] + got['sharpened wrong'] + got['ladder wrong']}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
