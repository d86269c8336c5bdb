"""Pok Deng through the game-generic kernel makes exactly the records the core made before
the split (tests/data/golden/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from station.core.replay import replay_records

GOLDEN = Path(__file__).parents[1] / "data" / "golden" / "pokdeng"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir())


def test_there_are_golden_cases():
    assert len(CASES) >= 50


@pytest.mark.parametrize("case", CASES)
def test_records_are_byte_identical_to_before_the_split(case):
    folder = GOLDEN / case
    trace = next(folder.glob("trace.jsonl*"))
    got = [json.dumps(r, sort_keys=True) for r in replay_records(trace)]
    want = (folder / "records.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want, strict=True)):
        assert a == b, f"record {i} differs"
