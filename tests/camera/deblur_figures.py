"""How many showdown cards' codes decode on a soft picture, per way of looking (docs/camera.md,
"Soft pictures"): the renderer's sharp seat frames (table 0, seeds 0 and 1, every deck style),
blurred here as a lens out of focus or a shaken camera would, each shown seat's zone box
decoded by zxing-cpp plainly, enlarged and sharpened (the recogniser's first harder view), and
with the blur undone along deblur.WIENER_LADDER. A card counts when one of its codes decodes;
a decoded card not in the seat counts as wrong.

    .venv/bin/python -m tests.camera.deblur_figures [--renderer blind|heldout] [--blurs g2.0,d3,...]

Blurs: `gS` Gaussian of S px, `dR` a disc of radius R px, `mL` a line of L px at 30°, `nS`
noise of S grey levels, `jQ` JPEG at quality Q; `+` chains them (`g2.0+n6+j60`).
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from firmware_bridge.camera.build import build_recogniser
from firmware_bridge.camera.deblur import WIENER_LADDER, wiener
from firmware_bridge.camera.faces import parse_face_text
from firmware_bridge.camera.recogniser import SHRINK
from tests.camera.heldout_seats import SEATS, _zones, calibrated

BLURS = "g1.5,g2.0,g2.0+n3,g2.0+n6+j60,g2.5+j70,g3.0,d3,d4,m7"


def _disc(img: np.ndarray, r: int) -> np.ndarray:
    k = np.zeros((2 * r + 1, 2 * r + 1), np.float32)
    cv2.circle(k, (r, r), r, 1.0, -1)
    return cv2.filter2D(img, -1, k / k.sum())


def _motion(img: np.ndarray, length: int, turn_deg: float = 30.0) -> np.ndarray:
    k = np.zeros((length, length), np.float32)
    k[length // 2, :] = 1.0
    m = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), turn_deg, 1.0)
    k = cv2.warpAffine(k, m, (length, length))
    return cv2.filter2D(img, -1, k / k.sum())


def soften(img: np.ndarray, blur: str, rng: np.random.Generator) -> np.ndarray:
    out = img
    for part in blur.split("+"):
        kind, value = part[0], float(part[1:])
        if kind == "g":
            out = cv2.GaussianBlur(out, (0, 0), value)
        elif kind == "d":
            out = _disc(out, int(value))
        elif kind == "m":
            out = _motion(out, int(value))
        elif kind == "n":
            out = np.clip(out.astype(np.float32) + rng.normal(0, value, out.shape), 0, 255).astype(np.uint8)
        elif kind == "j":
            out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(value)])[1], cv2.IMREAD_COLOR)
        else:
            raise ValueError(f"unknown blur {part!r}")
    return out


def _sharpened(gray: np.ndarray) -> np.ndarray:
    big = cv2.resize(gray, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC)
    return cv2.addWeighted(big, 2.0, cv2.GaussianBlur(big, (0, 0), 2.0), -1.0, 0)


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
                    views = {"plain": [box], "sharpened": [_sharpened(box)],
                             "ladder": [box] + [wiener(box, s, n) for s, n in WIENER_LADDER]}
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
