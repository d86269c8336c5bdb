"""What an accuracy suite is asked and what it answers, whatever the game: `station camera
accuracy --game NAME` runs the game's suite (the game names it, `Game.camera_accuracy`) with
`AccuracyOptions` and prints the `AccuracyTable`s it returns, one per kind of zone it scored.
The helpers turn the card suite's and the dice suite's scores into tables with their bars:

* cards: zero wrong identities, and >= 99.5 % of zone states right, on every deck style;
* dice: zero wrong faces on every preset, and >= 99 % of the dice in full view named with
  their face on the studio's conditions (dice_accuracy.STUDIO_PRESETS), on every dice set.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CARD_BAR_PCT = 99.5
DICE_BAR_PCT = 99.0


@dataclass
class AccuracyOptions:
    frames: int = 250  # frames (dice: trays) per perturbation preset
    presets: list[str] | None = None  # card perturbation presets (None: all)
    styles: list[str] | None = None  # deck styles (None: the studio deck, the layout's calibration)
    dice_sets: list[str] | None = None  # dice sets (None: every set)
    dice_presets: list[str] | None = None  # dice perturbation presets (None: all)
    decoder: str = "auto"
    seed: int = 1


@dataclass
class AccuracyTable:
    """One kind of zone scored: its rows (one per set or style and preset, then their totals)
    and whether the bar was met."""

    title: str
    columns: tuple[str, ...]
    rows: list[dict[str, object]] = field(default_factory=list)
    passed: bool = True
    verdict: str = ""
    examples: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"title": self.title, "rows": self.rows, "pass": self.passed, "verdict": self.verdict}


CARD_COLUMNS = ("style", "preset", "frames", "zone_states", "correct", "xx", "wrong_identity", "miscount",
                "held", "cut_flag_wrong", "correct_pct", "ms_per_frame")
DICE_COLUMNS = ("dice_set", "preset", "trays", "correct", "zero", "wrong_face", "miscount", "dice",
                "dice_read_pct", "correct_pct", "ms_per_tray")


def card_table(title: str, results: list) -> AccuracyTable:
    """The card suite's PresetScores (firmware_bridge/camera/accuracy.py) as a table."""
    from firmware_bridge.camera import accuracy

    rows = [r.as_dict() for r in results]
    per_style = accuracy.by_style(results)
    for style, t in per_style.items():
        rows.append({**t, "style": style, "preset": "ALL"})
    total = accuracy.totals(results)
    rows.append({**total, "style": "TOTAL", "preset": ""})
    ok = all(t["wrong_identity"] == 0 and float(t["correct_pct"]) >= CARD_BAR_PCT for t in per_style.values())  # type: ignore[arg-type]
    verdict = (f"{'PASS' if ok else 'FAIL'}: wrong identities {total['wrong_identity']} (must be 0), correct "
               f"{total['correct_pct']}% of zone states (must be >= {CARD_BAR_PCT}% on every style)")
    examples = [f"{r.style} {r.preset} {e}" for r in results for e in r.examples]
    return AccuracyTable(title, CARD_COLUMNS, rows, ok, verdict, examples)


def dice_table(title: str, results: list) -> AccuracyTable:
    """The dice suite's DiceScores (firmware_bridge/camera/dice_accuracy.py) as a table."""
    from firmware_bridge.camera import dice_accuracy

    rows = [r.as_dict() for r in results]
    sets: dict[str, list] = {}
    for r in results:
        sets.setdefault(r.dice_set, []).append(r)
    ok = True
    short: list[str] = []
    for name, rs in sets.items():
        studio = [r for r in rs if r.preset in dice_accuracy.STUDIO_PRESETS]
        every = dice_accuracy.totals(rs)
        rows.append({**every, "dice_set": name, "preset": "ALL"})
        if studio:
            st = dice_accuracy.totals(studio)
            rows.append({**st, "dice_set": name, "preset": "STUDIO"})
            if float(st["dice_read_pct"]) < DICE_BAR_PCT:  # type: ignore[arg-type]
                ok = False
                short.append(f"{name} {st['dice_read_pct']}%")
        if every["wrong_face"]:
            ok = False
    total = dice_accuracy.totals(results)
    rows.append({**total, "dice_set": "TOTAL", "preset": ""})
    verdict = (f"{'PASS' if ok else 'FAIL'}: wrong faces {total['wrong_face']} (must be 0), dice named "
               f"{total['dice_read_pct']}% overall; on the studio's conditions >= {DICE_BAR_PCT}% on every set"
               + (f" (short: {', '.join(short)})" if short else ""))
    examples = [f"{r.dice_set} {r.preset} {e}" for r in results for e in r.examples]
    return AccuracyTable(title, DICE_COLUMNS, rows, ok, verdict, examples)
