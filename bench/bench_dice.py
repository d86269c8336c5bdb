"""Dice figures: the dice reader's cost per frame of a dice tray zone (1080p camera, 0.30 mm
per pixel: a 480 x 240 px zone) on one core, and its accuracy per perturbation, beside a naive
baseline measured in the same run: Otsu's threshold on the grey picture and one pip per hole
in each white blob (what a first attempt at counting pips does; it has no notion of side
strips, focus, touching dice or pip colours).

* empty tray: most frames between rounds. Goal: median <= 2 ms.
* two dice: the frames after a throw. Goal: median <= 10 ms.
* accuracy: trays of every perturbation preset; `wrong` must be 0 for the reader.
* live: for every game of the station with a dice tray (a zone of kind "dice", found in the
  registry), a whole frame of its reference table (its `camera_table` tool) through the
  recogniser as the live camera builds it, the tray on the dice reader: a steady frame (nothing
  moved), a frame after the dice landed (the tray read), a frame after a card landed on one
  of its card zones (that zone read).

Frames are rendered before timing; only reading is timed.
    ./run.sh bench dice [--reps=N] [--trays=N]
"""

from __future__ import annotations

import random
import statistics
import time
import zlib
from collections import Counter

import cv2
import numpy as np

from firmware_bridge.camera.dice import DiceReader
from firmware_bridge.camera.dice_accuracy import score_tray
from firmware_bridge.camera.dice_render import DICE_PRESETS, render_tray
from station.games import GAMES, get_game
from station.games.tools import game_tool


def naive_read(image: np.ndarray, mm_per_px: float = 0.30) -> list[int]:
    """The baseline: white blobs of a die's size by Otsu's threshold; face = holes in it."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    _, white = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, hierarchy = cv2.findContours(white, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    die_area = (16.0 / mm_per_px) ** 2
    faces = []
    if hierarchy is None:
        return faces
    for i, c in enumerate(contours):
        if hierarchy[0][i][3] != -1:
            continue  # a hole, not an outer blob
        if not 0.5 * die_area <= cv2.contourArea(c) <= 1.6 * die_area:
            continue
        holes, child = 0, hierarchy[0][i][2]
        while child != -1:
            if cv2.contourArea(contours[child]) > 0.005 * die_area:
                holes += 1
            child = hierarchy[0][child][0]
        faces.append(holes if 1 <= holes <= 6 else 0)
    return faces


def _q(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def _time(fn, *a) -> float:
    t0 = time.perf_counter()
    fn(*a)
    return (time.perf_counter() - t0) * 1000.0


def dice_games() -> list[str]:
    """The games of the station whose table has a dice tray (a zone of kind "dice")."""
    return [name for name in GAMES if "dice" in get_game(name).zone_kinds.values()]


def live_figures(cam, card_zones: list[str], reps: int) -> dict[str, list[float]]:
    """Per-frame recogniser cost at a table of camera config `cam` whose cards lie in
    `card_zones`, frames rendered before timing."""
    from firmware_bridge.camera.build import build_recogniser
    from firmware_bridge.camera.scene import TableScene
    from firmware_bridge.camera.synthetic import SyntheticCamera

    lay = cam.layout
    rng = random.Random(5)
    cards = ["QH", "2H", "8H", "4H", "TC", "6C", "4C", "JH"]
    out: dict[str, list[float]] = {"steady": [], "dice landed": [], "card landed": []}
    for i in range(reps):
        scene = TableScene(lay.zone_names, seed=i)
        camera = SyntheticCamera(scene, lay, perturbations="noise", seed=i)
        rec = build_recogniser(cam, stable_frames=1)
        first = camera.read()[1]
        rec.process(0.0, first)
        scene.throw_dice([rng.randint(1, 6), rng.randint(1, 6)])
        dice = camera.read()[1]
        scene.deal(rng.choice(card_zones), rng.choice(cards), face_up=True)
        card = camera.read()[1]
        rec.process(0.1, dice)  # the tray still moving: not read
        out["dice landed"].append(_time(rec.process, 0.2, dice))
        out["steady"].append(_time(rec.process, 0.3, dice))
        rec.process(0.4, card)
        out["card landed"].append(_time(rec.process, 0.5, card))
    return out


def main(argv: list[str]) -> int:
    reps, trays = 60, 60
    for a in argv:
        if a.startswith("--reps="):
            reps = int(a.split("=", 1)[1])
        if a.startswith("--trays="):
            trays = int(a.split("=", 1)[1])
    cv2.setNumThreads(1)
    empty = [render_tray(random.Random(i), 0, "rotation").image for i in range(reps)]
    two = [render_tray(random.Random(1000 + i), 2, "rotation").image for i in range(reps)]
    reader = DiceReader(0.30)
    print(f"dice reading, tray zone {two[0].shape[1]}x{two[0].shape[0]} px at 0.30 mm/px, one core, {reps} frames each (ms)")
    print(f"  {'what':36} {'empty':>7} {'p95':>7} {'2 dice':>7} {'p95':>7}")
    rows = {}
    for name, fn in (("baseline: Otsu + holes", naive_read), ("dice reader", reader.read)):
        fn(two[0])  # warm up
        e = [_time(fn, f) for f in empty]
        t = [_time(fn, f) for f in two]
        rows[name] = (e, t)
        print(f"  {name:36} {statistics.median(e):7.2f} {_q(e, 0.95):7.2f} {statistics.median(t):7.2f} {_q(t, 0.95):7.2f}")
    e, t = rows["dice reader"]
    ok = statistics.median(e) <= 2.0 and statistics.median(t) <= 10.0
    print(f"  goals (empty <= 2, two dice <= 10, medians) {'met' if ok else 'NOT met'}")

    for name in dice_games():
        game = get_game(name)
        camera_table = game_tool(name, "camera_table")
        if camera_table is None:
            print(f"\n{game.title or name}: no reference camera declared, no live figures")
            continue
        cam = camera_table()
        card_zones = [z for z in game.zones if z in cam.layout.zones and cam.layout.kind_of(z) == "cards"]
        live = live_figures(cam, card_zones, max(5, reps // 4))
        print(f"\nlive recogniser at a {game.title or name} table, whole {cam.layout.width}x{cam.layout.height} "
              f"frame, one core, {len(live['steady'])} frames each (ms)")
        for what, xs in live.items():
            print(f"  {what:36} {statistics.median(xs):7.2f} {_q(xs, 0.95):7.2f}")

    print(f"\naccuracy, {trays} trays per preset (0-2 dice; a tray is correct when every die is named right)")
    print(f"  {'preset':12} {'reader %':>9} {'zero':>5} {'miss':>5} {'WRONG':>6}   {'baseline %':>10} {'WRONG':>6}")
    total_wrong = Counter()
    for preset in DICE_PRESETS:
        mine, base = Counter(), Counter()
        for i in range(trays):
            rng = random.Random(i * 31 + zlib.crc32(preset.encode()))
            n = rng.choice((0, 1, 2, 2, 2, 2, 2))
            pic = render_tray(rng, n, preset)
            mine[score_tray(pic.faces, DiceReader(pic.mm_per_px).read(pic.image))] += 1
            base[score_tray(pic.faces, naive_read(pic.image, pic.mm_per_px))] += 1
        total_wrong["reader"] += mine["wrong_face"]
        total_wrong["baseline"] += base["wrong_face"]
        print(f"  {preset:12} {100 * mine['correct'] / trays:9.1f} {mine['zero']:5d} {mine['miscount']:5d}"
              f" {mine['wrong_face']:6d}   {100 * base['correct'] / trays:10.1f} {base['wrong_face']:6d}")
    print(f"  wrong faces: reader {total_wrong['reader']}, baseline {total_wrong['baseline']}"
          f" ({'bar met' if total_wrong['reader'] == 0 else 'BAR NOT MET'}: zero wrong faces)")
    return 0 if total_wrong["reader"] == 0 else 1


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
