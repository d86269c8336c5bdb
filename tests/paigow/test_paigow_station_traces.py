"""The station's own full-shuffle Pai Gow traces (tests/data/traces-paigow-station: clean,
noisy link, degraded without a camera) replay through the kernel to their expected outcomes,
which the generator worked out from the staged session, not from the station."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_bridge.shoe.codec import FrameDecoder
from station.core.replay import replay_records
from station.games.paigow.tools.session import KINDS, write_all
from tests.paigow.test_paigow_shared_traces import outcomes

TRACES = Path(__file__).parents[1] / "data" / "traces-paigow-station"


def lines(name: str) -> list[dict]:
    return [json.loads(x) for x in (TRACES / name / "trace.jsonl").read_text("utf-8").splitlines()]


@pytest.mark.parametrize("name", KINDS)
def test_trace_replays_to_expected(name: str) -> None:
    expected = json.loads((TRACES / name / "expected.json").read_text("utf-8"))
    records = replay_records(TRACES / name / "trace.jsonl")
    got = outcomes(records)
    for key, want in expected.items():
        if key == "shoe_ends":
            want = [{k: v for k, v in e.items() if k != "cards_out_strict"} for e in want]
        assert got[key] == want, f"{name}: {key} differs"
    assert len(expected["hands"]) == 6 and expected["clean"]
    reasons = {b["reason"] for b in expected["bet_rejected"]}
    assert {"conflict", "insufficient_funds", "betting_closed"} <= reasons
    for h in (r for r in records if r["type"] == "hand"):
        assert h["last_round"] == (h["round"] == 2)
    # every bet settled exactly once
    accepted = [(r["round_id"], r["account"], r["spot"], r["amount"]) for r in records
                if r["type"] == "bet_accepted"]
    settled = [(s["round_id"], b["account"], b["spot"], b["amount"]) for s in records
               if s["type"] == "settlement" for b in s["bets"]]
    assert sorted(accepted) == sorted(settled)


def test_the_degraded_trace_has_no_camera() -> None:
    ls = lines("degraded_no_camera")
    assert ls[0]["camera"] is False and not any("camera" in x for x in ls[1:])
    expected = json.loads((TRACES / "degraded_no_camera" / "expected.json").read_text("utf-8"))
    assert {tuple(h["validated_by"]) for h in expected["hands"]} == {("shoe",)}


def test_the_noisy_trace_carries_every_kind_of_link_noise() -> None:
    ls = lines("noisy_link")
    chunks = [x["shoe"].encode("latin-1") for x in ls if "shoe" in x]
    dec = FrameDecoder("shoe")
    frames = [f for c in chunks for f in dec.feed(c)]
    assert dec.counters["bad_crc"] + dec.counters["malformed"] + dec.counters["truncated"] >= 3
    assert dec.counters["noise_bytes"] > 0
    seqs = [f.seq for f in frames]
    assert len(seqs) > len(set(seqs)) + 5  # duplicates and resends
    assert any(b > a + 1 for a, b in zip(seqs, seqs[1:], strict=False) if a)  # a gap: ahead of it
    assert sum(not c.endswith(b"\n") for c in chunks) >= 5  # frames split over writes
    assert sum("RESEND" in x.get("to_shoe", "") for x in ls) >= 2


def test_the_generator_still_writes_exactly_these_files(tmp_path: Path) -> None:
    write_all(tmp_path)
    for name in KINDS:
        for f in ("trace.jsonl", "expected.json"):
            assert (tmp_path / name / f).read_bytes() == (TRACES / name / f).read_bytes(), (name, f)
