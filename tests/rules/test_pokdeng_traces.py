"""The five recorded traces' expected hands and settlements, re-derived from the rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from station.cards import parse_cards
from station.games.pokdeng import PokDeng

TRACES = Path(__file__).parents[1] / "data" / "traces"
NAMES = ("clean_shoe", "noisy_shoe", "order_fault", "mismatch_cancel", "degraded_no_camera")


def load(name: str) -> dict:
    return json.loads((TRACES / name / "expected.json").read_text("utf-8"))


@pytest.mark.parametrize("name", NAMES)
def test_every_expected_hand_result_follows_from_its_cards(name: str) -> None:
    game = PokDeng()
    hands = load(name)["hands"]
    assert hands, f"{name} has no hands to check"
    for h in hands:
        cards = {p: parse_cards(c) for p, c in h["cards"].items()}
        assert game.evaluate(cards) == h["results"], h["round_id"]


@pytest.mark.parametrize("name", NAMES)
def test_every_expected_settlement_follows_from_its_hand(name: str) -> None:
    game = PokDeng()
    expected = load(name)
    by_round = {h["round_id"]: {p: parse_cards(c) for p, c in h["cards"].items()} for h in expected["hands"]}
    checked = 0
    for s in expected["settlements"]:
        cards = by_round[s["round_id"]]
        for bet in s["bets"]:
            assert game.check_bet(bet["spot"], bet["amount"]) == bet["deducted"], bet
            assert game.returned(bet["spot"], bet["amount"], cards) == bet["returned"], bet
            checked += 1
    if name != "mismatch_cancel":
        assert checked > 0


@pytest.mark.parametrize("name", NAMES)
def test_cancelled_rounds_refund_what_was_deducted(name: str) -> None:
    game = PokDeng()
    cancelled = load(name)["cancelled"]
    if name == "mismatch_cancel":
        assert cancelled
    for c in cancelled:
        for bet in c["refunds"]:
            assert game.check_bet(bet["spot"], bet["amount"]) == bet["deducted"]
            assert bet["returned"] == bet["deducted"]
