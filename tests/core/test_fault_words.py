"""What a fault means to the floor is said in the game's words with the table's own numbers:
Pai Gow's rounds have 8 cards (not Pok Deng's 13), and a table that waits 2 s for its shoe
link says 2 s, not the spec's default 3 s."""

from __future__ import annotations

import pytest

from station.core.inputs import Input
from station.core.kernel import TableKernel
from station.core.settings import TableSettings
from station.core.view import public_view


def test_pai_gow_words_its_extra_card_and_its_dice_clock_with_its_settings() -> None:
    k = TableKernel(TableSettings(table="WZ-01", game="paigow", placement_timeout_seconds=7.0,
                                  link_lost_seconds=2.0).with_overrides(
        {"dice_mismatch_seconds": 4.0}))
    assert "9th card" in k.fault_kinds["extra_card"][0]
    # a 32-card deck has no ninth copy: its foreign card is one not of the 32, a second read
    # within a shuffle, or the cut card (PROCEDURE.md, Pai Gow's faults)
    assert "ninth copy" not in k.fault_kinds["foreign_card"][0]
    assert "not one of the 32" in k.fault_kinds["foreign_card"][0]
    assert "7 s" in k.fault_kinds["placement_timeout"][0]
    assert "disagree for 4 s" in k.fault_kinds["dice_mismatch"][0]
    # a live fault: a new shoe whose link says nothing for 2 s, shown on the public view
    k.apply(Input(1_000_000, "dealer", "new_shoe"))
    k.apply(Input(3_500_000, "tick", None))
    shown = public_view(k)["faults"]
    assert [f["kind"] for f in shown] == ["link_lost"]
    assert shown[0]["meaning"] == "No valid frame from the shoe for 2 s."


@pytest.mark.parametrize("game, table, extra", [("pokdeng", "PD-01", "14th card"),
                                               ("paigow", "WZ-01", "9th card")])
def test_each_game_counts_its_own_cards(game: str, table: str, extra: str) -> None:
    k = TableKernel(TableSettings(table=table, game=game, reveal_timeout_seconds=45.0))
    assert extra in k.fault_kinds["extra_card"][0]
    assert "within 45 s" in k.fault_kinds["reveal_timeout"][0]
    assert not any("{" in w for words in k.fault_kinds.values() for w in words)
