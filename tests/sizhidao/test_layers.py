"""The pot in layers (RULES.md §3.6, PROCEDURE.md §7.6): carried layers first, all-in layers,
uncalled excess, money no contestant can win, tie-round buy-ins; and that layers always add
up to exactly what was put in."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.cards import parse_cards
from station.games.sizhidao.arrange import auto_arrange
from station.games.sizhidao.layers import (
    CarriedLayer,
    build_layers,
    buy_in_price,
    carried_on,
    decide_layers,
    left_alone,
    payouts,
)


def shape(layers):
    return [(la.amount, la.contestants) for la in layers]


def test_a_folded_players_money_goes_into_the_layers_it_reaches_but_it_contests_none() -> None:
    # allin_layers G1: S3 all-in at 400, S6 folded at 300
    totals = {"S1": 1000, "S3": 400, "S5": 1000, "S6": 300}
    assert shape(build_layers(totals, {"S6"})) == [
        (1500, ["S1", "S3", "S5"]),
        (1200, ["S1", "S5"]),
    ]


def test_an_uncalled_excess_is_a_layer_of_its_own_won_by_its_player() -> None:
    # allin_layers G3: S5 bet to 900, S6 all-in 455, S1 and S3 folded at the ante
    totals = {"S1": 100, "S3": 100, "S5": 900, "S6": 455}
    layers = build_layers(totals, {"S1", "S3"})
    assert shape(layers) == [(1110, ["S5", "S6"]), (445, ["S5"])]
    decided = decide_layers(
        layers,
        {
            "S5": auto_arrange(parse_cards("7S 3D KH 9D".split())),
            "S6": auto_arrange(parse_cards("4D 9S AS KD".split())),
        },
    )
    assert payouts(decided) == {"S6": 1110, "S5": 445}


def test_carried_layers_come_first_and_buy_ins_join_the_first() -> None:
    # tie_once G1-D2: 1200 carried by S4 and S6, S7 bought in for 600, all called 100
    carried = [CarriedLayer(1200, ("S4", "S6"))]
    layers = build_layers({"S4": 100, "S6": 100, "S7": 100}, (), carried, {"S7": 600})
    assert shape(layers) == [(1800, ["S4", "S6", "S7"]), (300, ["S4", "S6", "S7"])]


def test_buyers_contest_every_carried_layer_but_their_money_joins_only_the_first() -> None:
    carried = [CarriedLayer(1500, ("S1", "S3", "S5")), CarriedLayer(1200, ("S1", "S5"))]
    layers = build_layers({"S1": 0, "S3": 0, "S5": 0, "S6": 0}, (), carried, {"S6": 1350})
    assert shape(layers) == [(2850, ["S1", "S3", "S5", "S6"]), (1200, ["S1", "S5", "S6"])]


def test_a_player_who_folds_in_the_tie_round_leaves_the_carried_layers() -> None:
    carried = [CarriedLayer(1200, ("S4", "S6"))]
    layers = build_layers({"S4": 300, "S6": 100, "S7": 300}, {"S6"}, carried, {"S7": 600})
    assert shape(layers) == [(1800, ["S4", "S7"]), (700, ["S4", "S7"])]


def test_a_carried_layer_left_without_a_contestant_joins_the_next_layer_that_has_one() -> None:
    carried = [CarriedLayer(1000, ("S1", "S2", "S3")), CarriedLayer(400, ("S1",))]
    # S1, alone on the second layer, folds the tie round; S2 and S3 bet 200 each
    layers = build_layers({"S1": 0, "S2": 200, "S3": 200}, {"S1"}, carried)
    assert shape(layers) == [(1000, ["S2", "S3"]), (800, ["S2", "S3"])]


def test_buyers_contest_a_carried_layer_its_tied_players_folded() -> None:
    carried = [CarriedLayer(1000, ("S1", "S2")), CarriedLayer(400, ("S1",))]
    layers = build_layers({"S1": 0, "S2": 200, "S3": 200}, {"S1"}, carried, {"S3": 700})
    assert shape(layers) == [(1700, ["S2", "S3"]), (400, ["S3"]), (400, ["S2", "S3"])]


def test_money_no_contestant_can_win_at_the_end_joins_the_one_before() -> None:
    carried = [CarriedLayer(1000, ("S1", "S2"))]
    # S2 folds after putting in 300: the only still-in player S1 put in nothing
    layers = build_layers({"S1": 0, "S2": 300}, {"S2"}, carried)
    assert shape(layers) == [(1300, ["S1"])]


def test_a_player_left_alone_takes_every_layer_they_contest() -> None:
    totals = {"S1": 500, "S2": 100, "S4": 300}
    folded = {"S2", "S4"}
    assert left_alone(totals, folded) == "S1"
    decided = decide_layers(build_layers(totals, folded), {})
    assert payouts(decided) == {"S1": 900}
    assert left_alone(totals, {"S2"}) is None


def test_carried_on_and_the_buy_in_price_round_down() -> None:
    arr = {
        "S1": auto_arrange(parse_cards("9H QS 3D 3C".split())),
        "S2": auto_arrange(parse_cards("JH KD 2S 2H".split())),
        "S4": auto_arrange(parse_cards("8C AC 7D 7S".split())),
    }
    decided = decide_layers(build_layers({"S1": 501, "S2": 501, "S4": 501}, ()), arr)
    carried = carried_on(decided)
    assert carried == [CarriedLayer(1503, ("S1", "S2", "S4"))]
    assert buy_in_price(carried) == 751
    assert buy_in_price([CarriedLayer(2400, ("S1", "S2"))]) == 1200


def test_buy_ins_without_a_tie_round_and_negative_totals_are_errors() -> None:
    with pytest.raises(ValueError):
        build_layers({"S1": 100, "S2": 100}, (), (), {"S3": 50})
    with pytest.raises(ValueError):
        build_layers({"S1": -1, "S2": 100}, ())


seats = [f"S{n}" for n in range(1, 8)]


@st.composite
def pots(draw):
    players = draw(st.lists(st.sampled_from(seats), min_size=2, max_size=7, unique=True))
    totals = {s: draw(st.integers(0, 5000)) for s in players}
    folded = set(draw(st.lists(st.sampled_from(players), max_size=len(players) - 1, unique=True)))
    n_carried = draw(st.integers(0, 3))
    carried = [
        CarriedLayer(
            draw(st.integers(1, 9000)),
            tuple(draw(st.lists(st.sampled_from(players), min_size=1, unique=True))),
        )
        for _ in range(n_carried)
    ]
    buy_ins = {}
    if carried:
        for s in draw(st.lists(st.sampled_from(players), unique=True)):
            buy_ins[s] = draw(st.integers(1, 5000))
    return totals, folded, carried, buy_ins


@settings(max_examples=500)
@given(pots())
def test_layers_add_up_to_exactly_what_was_put_in(pot) -> None:
    totals, folded, carried, buy_ins = pot
    put_in = sum(totals.values()) + sum(la.amount for la in carried) + sum(buy_ins.values())
    contestable = any(
        s not in folded and (totals[s] > 0 or any(s in la.tied or s in buy_ins for la in carried))
        for s in totals
    )
    if not contestable and put_in:
        with pytest.raises(ValueError):
            build_layers(totals, folded, carried, buy_ins)
        return
    layers = build_layers(totals, folded, carried, buy_ins)
    assert sum(la.amount for la in layers) == put_in
    for la in layers:
        assert la.amount > 0
        assert la.contestants
        assert not set(la.contestants) & folded
        assert la.contestants == sorted(la.contestants, key=lambda s: int(s[1:]))
    # a player still in contests the betting layers its total reaches, nobody's more
    betting = layers[len(carried) :] if len(layers) >= len(carried) else []
    for la in betting:
        assert all(s in totals for s in la.contestants)
