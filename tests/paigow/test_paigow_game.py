"""Pai Gow as a game of the kernel's contract (station/games/paigow/rules.py): the deck, the
bet check with what the account already holds, the evaluation of a hand record, returns;
checked against the shared traces' expected outcomes, and settled through the real
settlement core on a ledger file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from station.games import get_game
from station.games.base import BetError
from station.games.paigow.rules import PaiGow, deal_plan_for, first_door
from station.settlement.core import SettlementCore

TRACES = Path(__file__).parents[1] / "data" / "traces-paigow"
DOCS = {p.parent.name: json.loads(p.read_text("utf-8")) for p in sorted(TRACES.glob("*/expected.json"))}


def test_registered_with_its_deck_zones_and_spots() -> None:
    g = get_game("paigow")
    assert isinstance(g, PaiGow) and g.table_prefix == "WZ-"
    assert sum(g.deck.values()) == 32 and set(g.deck.values()) == {1}
    assert g.zones == ("BANKER", "SHUN", "CHU", "DAO", "DICE")
    assert g.positions == ("BANKER", "SHUN", "CHU", "DAO")
    assert g.spots == {"SHUN_WIN", "SHUN_LOSE", "CHU_WIN", "CHU_LOSE", "DAO_WIN", "DAO_LOSE"}
    assert g.cards_per_round == 8 and g.deal_plan == ()


def test_bet_check_reasons_in_order() -> None:
    g = PaiGow()
    assert g.check_bet("SHUN_WIN", 100) == 100
    for spot, amount, reason in [("BANKER_WIN", 0, "bad_spot"), ("SHUN_WIN", 0, "bad_amount"),
                                 ("SHUN_WIN", True, "bad_amount")]:
        with pytest.raises(BetError) as e:
            g.check_bet(spot, amount)
        assert e.value.reason == reason
    with pytest.raises(BetError) as e:
        g.check_bet("CHU_LOSE", 100, held=[("SHUN_LOSE", 50)])
    assert e.value.reason == "conflict"
    with pytest.raises(BetError) as e:
        g.check_bet("SHUN_LOSE", 0, held=[("SHUN_WIN", 50)])
    assert e.value.reason == "bad_amount"  # bad_amount before conflict
    assert g.check_bet("SHUN_LOSE", 70, held=[("SHUN_LOSE", 50), ("CHU_WIN", 5), ("DAO_WIN", 5)]) == 70


@pytest.mark.parametrize("dice, door", [((4, 5), "BANKER"), ((4, 4), "DAO"), ((5, 3), "DAO"), ((2, 1), "CHU"),
                                        ((1, 1), "SHUN"), ((6, 6), "DAO"), ((6, 5), "CHU")])
def test_the_dice_name_the_first_door(dice: tuple[int, int], door: str) -> None:
    assert first_door(dice) == door
    plan = deal_plan_for(dice)
    assert plan[0] == plan[4] == door and len(plan) == 8 and Counter(plan) == Counter(
        {"BANKER": 2, "SHUN": 2, "CHU": 2, "DAO": 2})


@pytest.mark.parametrize("dice", [(0, 3), (7, 1), (1,), (1, 2, 3), (True, 2), (1.0, 2)])
def test_bad_dice(dice: tuple) -> None:
    with pytest.raises(ValueError):
        first_door(dice)


@pytest.mark.parametrize("name", sorted(DOCS))
def test_the_shared_traces_first_doors_results_and_returns(name: str) -> None:
    doc, g = DOCS[name], PaiGow()
    for d in doc["dice"]:
        assert first_door(d["dice"]) == d["first_door"]
    settlements = {s["round_id"]: s["bets"] for s in doc["settlements"]}
    assert doc["hands"]
    for h in doc["hands"]:
        assert first_door(h["dice"]) == h["first_door"]
        assert g.evaluate(h["cards"]) == h["results"], h["round_id"]
        for b in settlements[h["round_id"]]:
            assert g.check_bet(b["spot"], b["amount"]) == b["deducted"]
            assert g.returned(b["spot"], b["amount"], h["cards"]) == b["returned"]


def test_the_shared_traces_rounds_settle_through_the_settlement_core(tmp_path: Path) -> None:
    core = SettlementCore(tmp_path / "ledger.db")
    start = 10**9
    want: Counter[str] = Counter()
    n = 0
    for name, doc in DOCS.items():
        hands = {h["round_id"]: h for h in doc["hands"]}
        for s in doc["settlements"]:
            round_id = f"{name}/{s['round_id']}"
            for b in s["bets"]:
                if b["account"] not in want:
                    n += 1
                    core.apply({"key": f"wallet:{n}", "kind": "wallet", "t": 0.0, "account": b["account"], "balance": start})
                    want[b["account"]] = start
                n += 1
                core.apply({"key": f"bet:{n}", "kind": "bet", "t": 1.0, "round_id": round_id, "game": "paigow",
                            "account": b["account"], "spot": b["spot"], "amount": b["amount"], "deducted": b["deducted"]})
                want[b["account"]] += b["returned"] - b["deducted"]
            result = core.apply({"key": f"hand:{round_id}", "kind": "hand", "t": 20.0, "round_id": round_id,
                                 "game": "paigow", "cards": hands[s["round_id"]]["cards"],
                                 "validated_by": ["shoe", "camera"], "settlement": s["bets"]})
            assert result["status"] == "settled", result
    assert core.balances() == dict(want)
    report = core.check(require_closed=True)
    core.close()
    assert report.ok, report.problems
