"""The scripted dealer's dice throw: its trace lines, timing and mistakes."""

from __future__ import annotations

import random
from collections import Counter

from station.games.paigow.dice_throw import DICE_MISMATCH_S, DiceMistakes, throw


def test_a_clean_throw_is_one_entry_and_one_tray_observation_after_the_close() -> None:
    faces = Counter()
    for seed in range(300):
        t = throw(random.Random(seed), 30.0)
        lines = t.inputs()
        assert len(lines) == 2 and all(line["t"] > 30.0 for line in lines)
        entry = next(line for line in lines if "dealer" in line)
        tray = next(line for line in lines if "camera" in line)
        assert entry == {"t": entry["t"], "dealer": "dice", "dice": list(t.faces)}
        assert tray["camera"] == {"DICE": list(t.faces)}
        assert t.known_at == max(entry["t"], tray["t"]) and not t.mismatch
        faces.update(t.faces)
    assert set(faces) == {1, 2, 3, 4, 5, 6}  # every face comes up


def test_a_mistyped_die_is_corrected_after_the_mismatch_delay() -> None:
    t = throw(random.Random(3), 30.0, DiceMistakes(mistype_rate=1.0))
    entries = [line for line in t.inputs() if "dealer" in line]
    assert len(entries) == 2
    first, fixed = entries
    assert first["dice"] != list(t.faces) and sorted(first["dice"]) != sorted(t.faces)
    assert fixed["dice"] == list(t.faces) and fixed["t"] - first["t"] >= DICE_MISMATCH_S
    assert t.mismatch and t.known_at == fixed["t"]


def test_an_unreadable_die_is_zero_until_the_camera_reads_it() -> None:
    t = throw(random.Random(4), 30.0, DiceMistakes(unreadable_rate=1.0))
    trays = [line["camera"]["DICE"] for line in t.inputs() if "camera" in line]
    assert len(trays) == 2 and 0 in trays[0] and trays[1] == list(t.faces)
    assert t.mismatch
