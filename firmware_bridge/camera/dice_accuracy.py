"""The dice accuracy suite: synthetic trays with known faces, per perturbation.

Each picture is a fresh tray (none, one or two dice; a new die set, felt, tray and rim unless
the preset keeps them) read as a still. Every picture is scored:

* `correct`: exactly the truth (as a multiset: the order of the dice means nothing);
* `zero`: the right number of dice, every face named is right, some die is `0` (not sure);
* `wrong_face`: a face named that is not there. Must be 0;
* `miscount`: a different number of dice than lie in the tray (none named wrongly).

The dice benchmark (`bench/bench_dice.py`), the dice reader's tests and each dice game's
accuracy suite (`station camera accuracy --game G`) run it.
"""

from __future__ import annotations

import random
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field

from firmware_bridge.camera.dice import DiceReader
from firmware_bridge.camera.dice_render import (
    DICE_PRESETS,
    DICE_SETS,
    DICE_STRESS_PRESETS,
    render_tray,
)

#: the studio's own conditions, on which the bar holds for dice in full view
STUDIO_PRESETS = ("clean", "blur", "noise", "dim", "warm", "jpeg")


def score_tray(truth: list[int], seen: list[int]) -> str:
    named = Counter(f for f in seen if f)
    have = Counter(truth)
    if any(n > have[f] for f, n in named.items()):
        return "wrong_face"
    if len(seen) != len(truth):
        return "miscount"
    return "correct" if sorted(seen) == sorted(truth) else "zero"


@dataclass
class DiceScore:
    preset: str
    dice_set: str = "varied"
    trays: int = 0
    counts: Counter = field(default_factory=Counter)
    dice: int = 0  # dice in the trays
    dice_read: int = 0  # dice named with their face (right)
    seconds: float = 0.0
    examples: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "dice_set": self.dice_set,
            "preset": self.preset,
            "trays": self.trays,
            "correct": self.counts["correct"],
            "zero": self.counts["zero"],
            "wrong_face": self.counts["wrong_face"],
            "miscount": self.counts["miscount"],
            "dice": self.dice,
            "dice_read_pct": round(100 * self.dice_read / self.dice, 2) if self.dice else 100.0,
            "correct_pct": round(100 * self.counts["correct"] / self.trays, 2) if self.trays else 100.0,
            "ms_per_tray": round(1000 * self.seconds / max(1, self.trays), 2),
        }


def run(presets: list[str] | None = None, trays: int = 200, seed: int = 1,
        dice_set: str | None = None) -> list[DiceScore]:
    """Score the reader per preset. `dice_set` (a name of DICE_SETS): every tray holds that
    set's dice; None: a new set for each tray where the preset varies them."""
    if dice_set is not None and dice_set not in DICE_SETS:
        raise ValueError(f"no dice set {dice_set!r}; sets: {', '.join(DICE_SETS)}")
    look = DICE_SETS[dice_set] if dice_set is not None else None
    results = []
    for preset in presets or list(DICE_PRESETS):
        known = {**DICE_PRESETS, **DICE_STRESS_PRESETS}
        if preset not in known:
            raise ValueError(f"no dice preset {preset!r}; presets: {', '.join(known)}")
        score = DiceScore(preset, dice_set or "varied")
        base = seed * 1_000_003 + zlib.crc32(preset.encode()) % 100_000
        readers: dict[float, DiceReader] = {}
        for i in range(trays):
            rng = random.Random(base + i)
            n = rng.choice((0, 1, 2, 2, 2, 2, 2))
            pic = render_tray(rng, n, preset, look=look)
            reader = readers.setdefault(pic.mm_per_px, DiceReader(pic.mm_per_px))
            t0 = time.perf_counter()
            seen = reader.read(pic.image)
            score.seconds += time.perf_counter() - t0
            verdict = score_tray(pic.faces, seen)
            score.trays += 1
            score.counts[verdict] += 1
            score.dice += len(pic.faces)
            if verdict in ("correct", "zero"):
                score.dice_read += sum(1 for f in seen if f)
            if verdict not in ("correct",) and len(score.examples) < 20:
                score.examples.append(f"tray {i}: truth {pic.faces} seen {seen} ({verdict})")
        results.append(score)
    return results


def totals(results: list[DiceScore]) -> dict[str, object]:
    c: Counter = Counter()
    for r in results:
        c.update(r.counts)
    trays = sum(r.trays for r in results)
    dice = sum(r.dice for r in results)
    return {
        "trays": trays,
        "correct": c["correct"],
        "zero": c["zero"],
        "wrong_face": c["wrong_face"],
        "miscount": c["miscount"],
        "dice": dice,
        "correct_pct": round(100 * c["correct"] / trays, 3) if trays else 100.0,
        "dice_read_pct": round(100 * sum(r.dice_read for r in results) / dice, 3) if dice else 100.0,
    }
