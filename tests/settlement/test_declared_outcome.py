"""The outcome a round settles on is the game's to declare (`Game.outcome`): settlement
reads it through the game and knows no game's fields. A dice game written only against
the contract, whose rounds settle on three dice and no card, settles on a real ledger."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from station.games import GAMES
from station.games.base import Game, OutcomeError
from station.settlement.core import SettlementCore, SettlementRefused
from tests.core.toy_game import HighCard


class BigSmall(Game):
    """Three dice: 11 to 17 is big, 4 to 10 small (a triple loses both); even money."""

    name = "bigsmall"
    table_prefix = "BS-"
    positions = ("BIG", "SMALL")
    zones = ("TRAY",)
    zone_kinds = {"TRAY": "dice"}
    spots = frozenset(positions)

    check_bet = HighCard.check_bet  # a spot of its own, a positive whole amount

    def outcome(self, message: Mapping[str, Any]) -> tuple[int, int, int]:
        dice = message.get("dice")
        if not (isinstance(dice, list) and len(dice) == 3 and all(
                type(d) is int and 1 <= d <= 6 for d in dice)):
            raise OutcomeError("bad_dice", f"three faces 1-6 are the outcome, got {dice!r}")
        return tuple(dice)  # type: ignore[return-value]

    def evaluate(self, outcome: tuple[int, int, int]) -> dict[str, dict[str, Any]]:
        total, triple = sum(outcome), len(set(outcome)) == 1
        big = not triple and total >= 11
        small = not triple and total <= 10
        return {"BIG": {"outcome": "win" if big else "lose"},
                "SMALL": {"outcome": "win" if small else "lose"}}

    def returned(self, spot: str, amount: int, outcome: tuple[int, int, int]) -> int:
        return 2 * amount if self.evaluate(outcome)[spot]["outcome"] == "win" else 0


@pytest.fixture
def core(tmp_path):
    GAMES["bigsmall"] = BigSmall
    c = SettlementCore(tmp_path / "ledger.sqlite")
    try:
        yield c
        report = c.check(require_closed=True)
        assert report.ok, report.problems
    finally:
        c.close()
        del GAMES["bigsmall"]


def _bet(n: int, account: str, spot: str, amount: int) -> dict:
    return {"key": f"bet:R1:{n}", "kind": "bet", "t": 1.0, "round_id": "R1", "game": "bigsmall",
            "account": account, "spot": spot, "amount": amount, "deducted": amount}


def _hand(dice: Any, settlement: list[dict], results: dict | None = None) -> dict:
    m = {"key": "hand:R1", "kind": "hand", "t": 9.0, "round_id": "R1", "game": "bigsmall",
         "dice": dice, "validated_by": ["camera"], "settlement": settlement}
    if results is not None:
        m["results"] = results
    return m


def _line(account: str, spot: str, amount: int, returned: int) -> dict:
    return {"account": account, "spot": spot, "amount": amount, "deducted": amount,
            "returned": returned}


def test_a_dice_round_settles_on_the_dice_the_game_reads(core):
    core.apply({"key": "wallet:1", "kind": "wallet", "t": 0.0, "account": "u1", "balance": 1000})
    core.apply({"key": "wallet:2", "kind": "wallet", "t": 0.0, "account": "u2", "balance": 1000})
    core.apply(_bet(1, "u1", "BIG", 100))
    core.apply(_bet(2, "u2", "SMALL", 300))
    lines = [_line("u1", "BIG", 100, 200), _line("u2", "SMALL", 300, 0)]
    # the game reads the dice: faces out of range, or cards in their place, are refused
    for bad in ([4, 5, 7], None, [4, 5]):
        with pytest.raises(SettlementRefused) as err:
            core.apply(_hand(bad, lines))
        assert err.value.reason == "bad_dice"
    # results the dice do not give are refused: settlement evaluated the game's outcome
    with pytest.raises(SettlementRefused) as err:
        core.apply(_hand([4, 5, 6], lines, results={"BIG": {"outcome": "lose"},
                                                     "SMALL": {"outcome": "win"}}))
    assert err.value.reason == "results_mismatch"
    result = core.apply(_hand([4, 5, 6], lines, results={"BIG": {"outcome": "win"},
                                                          "SMALL": {"outcome": "lose"}}))
    assert result["status"] == "settled" and result["returned"] == 200
    assert core.balances() == {"u1": 1100, "u2": 700}


def test_returns_that_do_not_follow_from_the_dice_are_refused(core):
    core.apply({"key": "wallet:1", "kind": "wallet", "t": 0.0, "account": "u1", "balance": 1000})
    core.apply(_bet(1, "u1", "SMALL", 100))
    # a triple loses both: a table that paid SMALL on 2-2-2 is refused, nothing moves
    with pytest.raises(SettlementRefused) as err:
        core.apply(_hand([2, 2, 2], [_line("u1", "SMALL", 100, 200)]))
    assert err.value.reason == "returned_mismatch"
    assert core.balances() == {"u1": 900}
    core.apply(_hand([2, 2, 2], [_line("u1", "SMALL", 100, 0)]))
    assert core.balances() == {"u1": 900}
