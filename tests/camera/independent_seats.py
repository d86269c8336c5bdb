"""Holding the seat reader to somebody else's pictures: Si Zhi Dao seats drawn by the
independent renderer (tests/camera/independent), each table calibrated through
`station camera calibrate` from its own stills (the empty felt, face-down cards of the deck)
with zones read off the still, as a studio engineer does, then read by the recogniser the live
camera builds. Run as a script for the figures per deck style and perturbation:

    .venv/bin/python -m tests.camera.independent_seats --cases 24 [--styles …] [--show DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

import cv2

from firmware_bridge.camera.accuracy import score_zone
from firmware_bridge.camera.build import build_recogniser
from firmware_bridge.camera.config import load_camera_config
from station.cli import main as station_main
from station.games.camera_zones import game_zones
from tests.camera.independent import seat_calibration_stills
from tests.camera.independent.cases import SeatCase, seat_cases


def camera_config_text(zones: dict[str, list], width: int, height: int, mm_per_px: float = 0.30) -> str:
    """A Si Zhi Dao camera config as the engineer writes it from a snapshot: each seat zone's
    corners read off the still."""
    lines = ["[layout]", 'game = "sizhidao"', f"width = {width}", f"height = {height}",
             f"mm_per_px = {mm_per_px}", ""]
    for name, corners in zones.items():
        pts = [[round(min(max(x, 0.0), width - 1)), round(min(max(y, 0.0), height - 1))] for x, y in corners]
        lines += [f"[zones.{name}]", f"polygon = {json.dumps(pts)}", ""]
    return "\n".join(lines)


def calibrated_camera(folder: Path, deck_style: str, seed: int, **render):
    """Write the table's camera config and calibrate it through the CLI; the loaded config."""
    stills = seat_calibration_stills(deck_style=deck_style, seed=seed, **render)
    img, truth = stills["empty"]
    h, w = img.shape[:2]
    cfg = folder / f"camera-{deck_style}-{seed}.toml"
    cfg.write_text(camera_config_text(truth["zones"], w, h, render.get("mm_per_px", 0.30)), "utf-8")
    felt, backs = folder / f"felt-{seed}.png", folder / f"backs-{seed}.png"
    cv2.imwrite(str(felt), img)
    cv2.imwrite(str(backs), stills["backs"][0])
    rc = station_main(["camera", "calibrate", "--config", str(cfg), "--felt", str(felt), "--back", str(backs)])
    if rc != 0:
        raise RuntimeError(f"station camera calibrate refused the stills of {deck_style} (seed {seed})")
    return load_camera_config(cfg, game_zones)


def read_case(case: SeatCase, folder: Path, decoder: str | None = None):
    """(truth seats, seen seats, image) of one case on its own calibrated table."""
    cam = calibrated_camera(folder, case.deck_style, case.seed)
    image, truth = case.render()
    rec = build_recogniser(cam, decoder=decoder)
    seen, _ = rec.read_still(image)
    return truth["seats"], seen, image, rec


def score(cases: list[SeatCase], folder: Path, show: Path | None = None, log=print) -> dict:
    """Verdict counts per deck style and per perturbation; the failing seats."""
    per_style: dict[str, Counter] = defaultdict(Counter)
    per_pert: dict[str, Counter] = defaultdict(Counter)
    fails = []
    for case in cases:
        try:
            truth, seen, image, rec = read_case(case, folder)
        except RuntimeError as exc:
            per_style[case.deck_style]["not_calibrated"] += 7
            fails.append((case.name, "*", str(exc), None, "not_calibrated"))
            log(f"{case.name}: {exc}")
            continue
        for seat, want in truth.items():
            got = seen.get(seat)
            if want is None:
                verdict = "held" if got is None else "hand_not_seen"
            else:
                verdict = score_zone(want, got)
                if got is None:
                    verdict = "not_read"
            per_style[case.deck_style][verdict] += 1
            per_pert[case.perturbation][verdict] += 1
            if verdict not in ("correct", "held"):
                fails.append((case.name, seat, want, got, verdict))
                log(f"{case.name} {seat}: truth {want} seen {got} ({verdict})")
                if show is not None:
                    _crop(image, rec, seat, show / f"{case.name}-{seat}.png")
    return {"styles": per_style, "perturbations": per_pert, "fails": fails}


def _crop(image, rec, seat: str, path: Path) -> None:
    x0, y0, x1, y1 = rec.layout.zones[seat].bbox
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), image[max(0, y0):y1, max(0, x0):x1])


def scored(c: Counter) -> int:
    return sum(v for k, v in c.items() if k not in ("held",))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--styles", default="", help="comma-separated deck styles (default all)")
    ap.add_argument("--first", type=int, default=0, help="skip the first N cases")
    ap.add_argument("--show", type=Path, default=None, help="write failing seats' crops here")
    args = ap.parse_args(argv)
    cases = seat_cases(args.cases, args.seed)[args.first:]
    if args.styles:
        cases = [c for c in cases if c.deck_style in args.styles.split(",")]
    with tempfile.TemporaryDirectory() as d:
        out = score(cases, Path(d), args.show)
    for key in ("styles", "perturbations"):
        for name, c in sorted(out[key].items()):
            n = scored(c)
            print(f"{key[:-1]:<12} {name:<14} {c['correct']}/{n} right "
                  f"({100 * c['correct'] / max(1, n):.1f}%) {dict(c)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
