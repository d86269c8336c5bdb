"""End to end: the synthetic camera films a round being dealt and revealed; the recogniser's
observations and the shoe's bytes (built with the shoe codec) go into one trace in
TRACES.md format, and replaying it through the table core gives a validated hand."""

from __future__ import annotations

import json

import pytest

import station.core.replay as core_replay
from firmware_bridge.camera import Recogniser, TableScene
from tests.camera.filmed import FilmedTrace

DEAL_ORDER = ("P1", "P2", "P3", "P4", "P5", "B")
HANDS = {"P1": ("KD", "9H"), "P2": ("3S", "3C"), "P3": ("AH", "5D"), "P4": ("JC", "8S"), "P5": ("2H", "QS"), "B": ("7D", "TS")}


class FilmedTable(FilmedTrace):
    """A Pok Deng round filmed: what reached the station, on a virtual clock."""

    def __init__(self, layout, perturbations) -> None:
        super().__init__(
            TableScene(layout.zone_names, seed=21), layout, Recogniser(layout, stable_frames=2),
            {"trace": 1, "table": "PD-01", "game": "pokdeng", "camera": True,
             # a filmed table: the recogniser reports zones as they settle, behind the shoe
             "settings": {"betting_seconds": 8, "camera_lag_tolerant": True},
             "note": "filmed by the synthetic camera"},
            perturbations=perturbations, camera_seed=5)


@pytest.mark.slow
@pytest.mark.parametrize("perturbations", ["noise", {"preset": "combined", "drop_rate": 0.05}])
def test_filmed_round_replays_to_a_validated_hand(tmp_path, layout, perturbations):
    tb = FilmedTable(layout, perturbations)
    tb.open_shoe()
    # first card face up in BURN: a 3, so three more are burnt face down
    tb.shoe("CARD", "3D")
    tb.scene.deal("BURN", "3D", face_up=True)
    tb.advance(1.5)
    for c in ("6C", "KH", "4S"):
        tb.shoe("CARD", c)
        tb.advance(0.5)
    tb.scene.clear("BURN")
    tb.advance(1.5)
    tb.line(dealer="open_betting")
    tb.advance(0.5)
    tb.line(bet={"account": "u1", "spot": "P2", "amount": 100})
    tb.shoe("CARD", "8D")  # the round's burn card, discarded face down
    tb.advance(0.5)
    for k in range(2):
        for zone in DEAL_ORDER:
            card = HANDS[zone][k]
            tb.shoe("CARD", card)
            tb.scene.deal(zone, card)
            tb.advance(0.5)
    tb.advance(2.0)  # betting closes (8 s after opening)
    for zone in DEAL_ORDER:
        tb.scene.hand_over(zone)
        tb.advance(0.5)
        tb.scene.reveal(zone)
        tb.advance(0.25)
        tb.scene.hand_over(None)
        tb.advance(1.25)
    tb.advance(2.0)
    tb.scene.clear_all()
    tb.advance(2.0)
    tb.line(end=True)

    # the camera saw every hand revealed with the right cards, and no card it could not read
    seen: dict[str, list[str]] = {}
    for obs in tb.observations:
        seen.update(obs)
    revealed = [o for o in tb.observations if any(v and "??" not in v for z, v in o.items() if z != "BURN")]
    assert {z: sorted(v) for o in revealed for z, v in o.items() if v} == {z: sorted(v) for z, v in HANDS.items()}
    assert not any("XX" in v for o in tb.observations for v in o.values())

    path = tmp_path / "filmed_round.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in tb.lines), encoding="utf-8")
    records = core_replay.replay_records(path)
    faults = [r for r in records if r["type"] == "fault"]
    assert faults == []
    hands = [r for r in records if r["type"] == "hand"]
    assert len(hands) == 1, [r["type"] for r in records]
    hand = hands[0]
    assert {z: sorted(v) for z, v in hand["cards"].items()} == {z: sorted(v) for z, v in HANDS.items()}
    assert "camera" in hand["validated_by"] and "shoe" in hand["validated_by"]
    assert hand["results"]["P2"]["pair"] is True  # 3S 3C
    assert any(r["type"] == "settlement" for r in records)
