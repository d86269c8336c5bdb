"""Pok Deng's table in `./run.sh bench camera`: the recogniser's cost per frame at 1920×1080
with the seven zones (tools/camera_table.py), on one core, for both QR decoders (zxing-cpp,
the default, and pyzbar), beside the bench's whole-frame baselines on the same frames.

* steady frames: a dealt round lies on the table, nothing moves (sensor noise only).
  Goal: median ≤ 10 ms.
* newly turned card: a zone's two cards have just been turned face up; the figure is the
  frame on which the recogniser reads and decodes that zone. Goal: median ≤ 33 ms.

The studio deck is read with the layout's own calibration; one more row reads a patterned
red deck (`bordeaux`: white lattice, codes 4 mm in, skewed, cards either way round)
calibrated from its own stills, so another deck costs no more.

Frames are rendered before timing; only the recogniser is timed.
"""

from __future__ import annotations

import statistics
from typing import Any

from station.games.base import BURN
from station.games.pokdeng.rules import POSITIONS

#: the round on the table: two cards in each hand
DEAL = dict(zip(POSITIONS, (("TC", "TS"), ("TH", "4C"), ("4D", "4H"), ("5C", "QD"), ("7S", "6S"),
                            ("9C", "7C")), strict=True))


def _frames(reps: int, style: str = "studio"):
    from firmware_bridge.camera import SyntheticCamera, TableScene
    from station.games.pokdeng.tools.camera_table import camera_table

    layout = camera_table().layout
    scene = TableScene(layout.zone_names, seed=3)
    for z in POSITIONS:
        scene.deal(z, DEAL[z][0])
    for z in POSITIONS:
        scene.deal(z, DEAL[z][1])
    scene.deal(BURN, "2D", face_up=True)
    cam = SyntheticCamera(scene, layout, perturbations="clean", seed=1, style=style)
    cam.perturbations = type(cam.perturbations)(noise_sigma=3.0)
    steady = [cam.read()[1] for _ in range(reps)]
    # turn sequences: for each zone, frames before, the moving frame, and the settled frame
    turns = []
    for i in range(reps):
        z = POSITIONS[i % len(POSITIONS)]
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


def _recogniser_figures(kit: Any, layout, steady, turns, decoder: str,
                        calibration=None) -> tuple[list[float], list[float]]:
    from firmware_bridge.camera import Recogniser

    rec = Recogniser(layout, stable_frames=3, decoder=decoder, calibration=calibration)
    for f in steady[:3]:
        rec.process(0.0, f)
    steady_ms = [kit.ms(rec.process, 0.0, f) for f in steady]
    turn_ms = []
    for before, moving, settled in turns:
        # settle on "before" (which differs from the previous turn's last frame)
        for _ in range(2):
            rec.process(0.0, before)
        rec.process(0.0, before)
        m = kit.ms(rec.process, 0.0, moving)
        s = kit.ms(rec.process, 0.0, settled)
        turn_ms.append(max(m, s))
    return steady_ms, turn_ms


def camera_bench(reps: int, kit: Any) -> bool:
    from firmware_bridge.camera.accuracy import calibration_stills
    from firmware_bridge.camera.calibration import calibrate

    layout, steady, turns = _frames(reps)
    print(f"Pok Deng: recogniser at {layout.width}x{layout.height}, {len(layout.zones)} zones, one core, "
          f"{reps} frames each (ms)")
    print(f"  {'what':44} {'steady':>8} {'p95':>8} {'turned':>8} {'p95':>8}")
    kit.baselines(steady, [s for _, _, s in turns])
    figures = {}
    for decoder in ("zbar", "zxing"):
        s, t = _recogniser_figures(kit, layout, steady, turns, decoder)
        figures[decoder] = (s, t)
        kit.row(f"recogniser, decoder {decoder}", s, t, "goal: steady <= 10, turned <= 33")
    _, red_steady, red_turns = _frames(reps, style="bordeaux")
    felt, backs = calibration_stills(layout, "bordeaux")
    s, t = _recogniser_figures(kit, layout, red_steady, red_turns, "zxing",
                               calibrate(felt, backs, layout.mm_per_px))
    figures["bordeaux"] = (s, t)
    kit.row("recogniser, zxing, bordeaux deck", s, t, "patterned red back, codes 4 mm in")
    return all(statistics.median(s) <= 10 and statistics.median(t) <= 33 for s, t in figures.values())
