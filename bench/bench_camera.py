"""Overhead camera figures: recogniser cost per frame at 1920×1080 with the seven Pok Deng
zones, on one core, beside a naive baseline measured in the same run (pyzbar over the whole
frame, every frame, all symbologies; and zxing-cpp likewise), for both QR decoders
(zxing-cpp, the default, and pyzbar).

* steady frames: a dealt round lies on the table, nothing moves (sensor noise only).
  Goal: median ≤ 10 ms.
* newly turned card: a zone's two cards have just been turned face up; the figure is the
  frame on which the recogniser reads and decodes that zone. Goal: median ≤ 33 ms.

The studio deck is read with the layout's own calibration; one more row reads a patterned
red deck (`bordeaux`: white lattice, codes 4 mm in, skewed, cards either way round)
calibrated from its own stills, so another deck costs no more.

Frames are rendered before timing; only the recogniser (or the baseline) is timed.
    ./run.sh bench camera [--reps N]
"""

from __future__ import annotations

import statistics
import time

import cv2

from firmware_bridge.camera import Recogniser, SyntheticCamera, TableScene, default_layout

HANDS = ("P1", "P2", "P3", "P4", "P5", "B")
DEAL = {"P1": ("TC", "TS"), "P2": ("TH", "4C"), "P3": ("4D", "4H"), "P4": ("5C", "QD"), "P5": ("7S", "6S"), "B": ("9C", "7C")}


def _frames(reps: int, style: str = "studio"):
    layout = default_layout()
    scene = TableScene(seed=3)
    for z in HANDS:
        scene.deal(z, DEAL[z][0])
    for z in HANDS:
        scene.deal(z, DEAL[z][1])
    scene.deal("BURN", "2D", face_up=True)
    cam = SyntheticCamera(scene, layout, perturbations="clean", seed=1, style=style)
    cam.perturbations = type(cam.perturbations)(noise_sigma=3.0)
    steady = [cam.read()[1] for _ in range(reps)]
    # turn sequences: for each zone, frames before, the moving frame, and the settled frame
    turns = []
    for i in range(reps):
        z = HANDS[i % len(HANDS)]
        before = cam.read()[1]
        scene.reveal(z)
        moving = cam.read()[1]
        settled = cam.read()[1]
        # turn them back so the next round of the loop can reveal again
        scene.clear(z)
        scene.deal(z, DEAL[z][0])
        scene.deal(z, DEAL[z][1])
        turns.append((before, moving, settled))
    return layout, steady, turns


def _time(fn, *a) -> float:
    t0 = time.perf_counter()
    fn(*a)
    return (time.perf_counter() - t0) * 1000.0


def _recogniser_figures(layout, steady, turns, decoder: str, calibration=None) -> tuple[list[float], list[float]]:
    rec = Recogniser(layout, stable_frames=3, decoder=decoder, calibration=calibration)
    for f in steady[:3]:
        rec.process(0.0, f)
    steady_ms = [_time(rec.process, 0.0, f) for f in steady]
    turn_ms = []
    for before, moving, settled in turns:
        # settle on "before" (which differs from the previous turn's last frame)
        for _ in range(2):
            rec.process(0.0, before)
        rec.process(0.0, before)
        m = _time(rec.process, 0.0, moving)
        s = _time(rec.process, 0.0, settled)
        turn_ms.append(max(m, s))
    return steady_ms, turn_ms


def _naive_zbar(frame) -> None:
    from pyzbar import pyzbar

    pyzbar.decode(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))


def _naive_zxing(frame) -> None:
    import zxingcpp

    zxingcpp.read_barcodes(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))


def _row(name: str, steady: list[float], turn: list[float], note: str = "") -> None:
    def q(xs, p):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(p * len(xs)))]

    print(f"  {name:44} {statistics.median(steady):8.1f} {q(steady, 0.95):8.1f}"
          f" {statistics.median(turn):8.1f} {q(turn, 0.95):8.1f}  {note}")


def main(argv: list[str]) -> int:
    reps = 30
    for a in argv:
        if a.startswith("--reps="):
            reps = int(a.split("=", 1)[1])
    cv2.setNumThreads(1)  # one core, as the goal says
    layout, steady, turns = _frames(reps)
    print(f"recogniser at {layout.width}x{layout.height}, {len(layout.zones)} zones, one core, {reps} frames each (ms)")
    print(f"  {'what':44} {'steady':>8} {'p95':>8} {'turned':>8} {'p95':>8}")
    base_steady = [_time(_naive_zbar, f) for f in steady]
    base_turn = [_time(_naive_zbar, s) for _, _, s in turns]
    _row("baseline: pyzbar on the whole frame", base_steady, base_turn, "every frame, all symbologies")
    zx_steady = [_time(_naive_zxing, f) for f in steady]
    zx_turn = [_time(_naive_zxing, s) for _, _, s in turns]
    _row("baseline: zxing-cpp on the whole frame", zx_steady, zx_turn, "every frame, all symbologies")
    figures = {}
    for decoder in ("zbar", "zxing"):
        s, t = _recogniser_figures(layout, steady, turns, decoder)
        figures[decoder] = (s, t)
        _row(f"recogniser, decoder {decoder}", s, t, "goal: steady <= 10, turned <= 33")
    from firmware_bridge.camera.accuracy import calibration_stills
    from firmware_bridge.camera.calibration import calibrate

    _, red_steady, red_turns = _frames(reps, style="bordeaux")
    felt, backs = calibration_stills(layout, "bordeaux")
    s, t = _recogniser_figures(layout, red_steady, red_turns, "zxing", calibrate(felt, backs, layout.mm_per_px))
    figures["bordeaux"] = (s, t)
    _row("recogniser, zxing, bordeaux deck", s, t, "patterned red back, codes 4 mm in")
    ok = all(statistics.median(s) <= 10 and statistics.median(t) <= 33 for s, t in figures.values())
    print(f"  goals {'met' if ok else 'NOT met'} (medians)")
    from bench.camera_seats import report

    report(max(5, reps // 3), _row)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
