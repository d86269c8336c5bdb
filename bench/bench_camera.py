"""Overhead camera figures: the recogniser's cost per frame on one core, for every game of the
station on its own table, beside a naive baseline measured in the same run on the same frames
(pyzbar over the whole frame, every frame, all symbologies; and zxing-cpp likewise).

The games are found in the registry (station.games.GAMES); each game that declares a camera
benchmark (its `camera_bench` tool, station/games/tools.py) renders frames of its own layout
and scene (a dealt round, cards turned, dice thrown, seats shown down), times its recogniser
with the bench's timer and prints its rows beside the bench's baselines (`Kit`), and says
whether its goals were met. A game that declares none is named as such.

Frames are rendered before timing; only the recogniser (or the baseline) is timed.
    ./run.sh bench camera [--reps=N]
"""

from __future__ import annotations

import statistics
import time

import cv2

from station.games import GAMES, get_game
from station.games.tools import game_tool


def _time(fn, *a) -> float:
    t0 = time.perf_counter()
    fn(*a)
    return (time.perf_counter() - t0) * 1000.0


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


def _baselines(steady: list, changed: list) -> None:
    """The naive baseline on the same frames: each decoder over the whole frame, every frame."""
    for name, fn in (("pyzbar", _naive_zbar), ("zxing-cpp", _naive_zxing)):
        _row(f"baseline: {name} on the whole frame", [_time(fn, f) for f in steady],
             [_time(fn, f) for f in changed], "every frame, all symbologies")


class Kit:
    """What a game's camera benchmark is handed: the bench's timer (`ms(fn, *args)`: the
    milliseconds of one call), its row of figures (`row(name, steady_ms, changed_ms, note)`:
    medians and 95th percentiles) and its whole-frame baselines on the game's frames
    (`baselines(steady_frames, changed_frames)`: one row per decoder)."""

    ms = staticmethod(_time)
    row = staticmethod(_row)
    baselines = staticmethod(_baselines)


def main(argv: list[str]) -> int:
    reps = 30
    for a in argv:
        if a.startswith("--reps="):
            reps = int(a.split("=", 1)[1])
    cv2.setNumThreads(1)  # one core, as the goal says
    met = []
    for name in GAMES:
        section = game_tool(name, "camera_bench")
        if section is None:
            print(f"{get_game(name).title or name}: no camera benchmark declared\n")
            continue
        met.append(section(reps, Kit()))
        print()
    print(f"goals {'met' if all(met) else 'NOT met'} (medians)")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
