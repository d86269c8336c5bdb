"""The betting round of PROCEDURE.md §7.4 as a pure state object: turns counter-clockwise,
the opening decision, raises and all-ins, reopening, the end conditions, automatic folds,
and every refusal of §7.1 in its order; plus the recorded traces' betting replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.games.sizhidao.betting import BettingRound, Refused

TRACES = Path(__file__).parents[1] / "data" / "traces-sizhidao"
BIG = 10**6


def rnd(totals, wallets=None, *, ante=100, leader="S1", disconnected=()):
    wallets = wallets or {s: BIG for s in totals}
    r = BettingRound(totals, wallets, ante=ante, leader=leader, disconnected=disconnected)
    return r, r.start()


def refused(r, seat, action, amount=None) -> str:
    with pytest.raises(Refused) as e:
        r.act(seat, action, amount)
    return e.value.reason


def summary(decisions):
    return [(d.seat, d.action, d.amount, d.total, d.auto) for d in decisions]


def test_the_leader_opens_and_the_turn_goes_counter_clockwise() -> None:
    r, auto = rnd({"S6": 100, "S1": 100, "S3": 100, "S4": 100}, leader="S3")
    assert auto == [] and r.to_act == "S3"
    assert summary(r.act("S3", "bet", 200)) == [("S3", "bet", 100, 200, False)]
    assert r.to_act == "S4"
    r.act("S4", "call")
    assert r.to_act == "S6"
    r.act("S6", "call")
    assert r.to_act == "S1"  # wraps from the highest seat to the lowest
    r.act("S1", "call")
    assert r.over and r.to_act is None
    assert r.totals() == {"S1": 200, "S3": 200, "S4": 200, "S6": 200}


def test_the_opening_decision_is_bet_fold_or_all_in_and_later_ones_are_not_bet() -> None:
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100})
    assert refused(r, "S1", "call") == "bad_action"
    assert refused(r, "S1", "raise", 300) == "bad_action"
    r.act("S1", "bet", 200)
    assert refused(r, "S2", "bet", 300) == "bad_action"
    r.act("S2", "raise", 300)
    assert r.level == 300


def test_after_an_opening_fold_the_others_call_the_level_for_nothing() -> None:
    # clean_session G5: the silent first actor is folded; the others call 0 at the ante level
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100, "S4": 100}, leader="S2")
    assert summary(r.timeout()) == [("S2", "fold", 0, 100, True)]
    assert summary(r.act("S3", "call")) == [("S3", "call", 0, 100, False)]
    r.act("S4", "call")
    assert not r.over
    r.act("S1", "call")
    assert r.over and r.folded() == {"S2"}


def test_a_bet_or_raise_must_be_one_ante_above_the_level() -> None:
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100}, ante=100)
    assert refused(r, "S1", "bet", 199) == "raise_too_small"
    assert refused(r, "S1", "bet", 100) == "raise_too_small"
    r.act("S1", "bet", 200)
    assert refused(r, "S2", "raise", 299) == "raise_too_small"
    assert summary(r.act("S2", "raise", 300)) == [("S2", "raise", 200, 300, False)]


@pytest.mark.parametrize("amount", [None, 0, -100, 2.5, "300", True, 10**16])
def test_a_bet_without_a_whole_positive_amount_is_bad_amount(amount) -> None:
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100})
    assert refused(r, "S1", "bet", amount) == "bad_amount"


def test_the_refusal_reasons_come_in_the_order_of_the_procedure() -> None:
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100}, {"S1": 150, "S2": BIG, "S3": BIG})
    assert refused(r, "S5", "bet", 300) == "not_in_game"
    # not your turn comes before the action itself is looked at
    assert refused(r, "S2", "call") == "not_your_turn"
    assert refused(r, "S2", "bet", "x") == "not_your_turn"
    # bad_action before bad_amount, bad_amount before raise_too_small before funds
    assert refused(r, "S1", "raise", "x") == "bad_action"
    assert refused(r, "S1", "bet", 0) == "bad_amount"
    assert refused(r, "S1", "bet", 150) == "raise_too_small"  # too small and beyond the wallet
    assert refused(r, "S1", "bet", 300) == "insufficient_funds"
    assert r.to_act == "S1" and r.totals() == {"S1": 100, "S2": 100, "S3": 100}
    r.act("S1", "fold")
    assert refused(r, "S1", "call") == "not_in_game"


def test_nothing_is_taken_before_betting_starts_or_after_it_ended() -> None:
    r = BettingRound(
        {"S1": 100, "S2": 100, "S3": 100},
        {s: BIG for s in ("S1", "S2", "S3")},
        ante=100,
        leader="S1",
    )
    with pytest.raises(Refused) as e:
        r.act("S1", "bet", 200)
    assert e.value.reason == "not_now"
    r.start()
    r.act("S1", "fold")
    r.act("S2", "fold")
    assert r.over
    assert refused(r, "S3", "call") == "not_now"


def test_a_call_that_empties_the_wallet_is_all_in_and_a_wallet_too_small_can_only_go_all_in_or_fold() -> (
    None
):
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100}, {"S1": BIG, "S2": 200, "S3": 150})
    r.act("S1", "bet", 300)
    d = r.act("S2", "call")
    assert summary(d) == [("S2", "call", 200, 300, False)] and d[0].all_in
    assert refused(r, "S3", "call") == "insufficient_funds"
    assert refused(r, "S3", "raise", 400) == "insufficient_funds"
    d = r.act("S3", "all_in")
    assert summary(d) == [("S3", "all_in", 150, 250, False)] and d[0].all_in
    assert r.over  # S1 alone can act and is at the level
    assert r.all_in() == ["S2", "S3"]


def test_a_raise_that_empties_the_wallet_is_all_in() -> None:
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100}, {"S1": 400, "S2": BIG, "S3": BIG})
    d = r.act("S1", "bet", 500)
    assert d[0].all_in and r.wallets()["S1"] == 0
    r.act("S2", "call")
    r.act("S3", "call")
    assert r.over


def test_an_all_in_above_the_level_by_less_than_an_ante_reopens_the_betting() -> None:
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100}, {"S1": BIG, "S2": BIG, "S3": 250})
    r.act("S1", "bet", 300)
    r.act("S2", "call")
    d = r.act("S3", "all_in")  # total 350: above the level by half an ante
    assert summary(d) == [("S3", "all_in", 250, 350, False)]
    assert r.level == 350 and not r.over
    assert r.to_act == "S1"
    assert refused(r, "S1", "raise", 400) == "raise_too_small"
    r.act("S1", "call")
    assert r.to_act == "S2"
    r.act("S2", "call")
    assert r.over and r.totals() == {"S1": 350, "S2": 350, "S3": 350}


def test_an_all_in_below_the_level_does_not_reopen() -> None:
    r, _ = rnd(
        {"S1": 100, "S2": 100, "S3": 100, "S4": 100}, {"S1": BIG, "S2": BIG, "S3": 50, "S4": BIG}
    )
    r.act("S1", "bet", 300)
    r.act("S2", "call")
    r.act("S3", "all_in")
    assert r.to_act == "S4"
    r.act("S4", "call")
    assert r.over  # S1 and S2 decided at this level already


def test_a_raise_gives_the_others_a_new_decision_and_ends_when_nobody_raises() -> None:
    # allin_layers G1
    r, _ = rnd(
        {"S1": 100, "S3": 100, "S5": 100, "S6": 100}, {"S1": BIG, "S3": 300, "S5": BIG, "S6": BIG}
    )
    r.act("S1", "bet", 200)
    r.act("S3", "call")
    r.act("S5", "call")
    r.act("S6", "raise", 300)
    assert r.to_act == "S1"
    r.act("S1", "raise", 1000)
    assert summary(r.act("S3", "all_in")) == [("S3", "all_in", 200, 400, False)]
    r.act("S5", "call")
    assert r.to_act == "S6"
    r.act("S6", "fold")
    assert r.over
    assert r.totals() == {"S1": 1000, "S3": 400, "S5": 1000, "S6": 300}


def test_betting_ends_when_at_most_one_player_is_still_in() -> None:
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100})
    r.act("S1", "bet", 500)
    r.act("S2", "fold")
    assert not r.over
    r.act("S3", "fold")
    assert r.over and r.still_in() == ["S1"]


def test_the_first_to_act_skips_a_leader_not_in_the_deal_or_who_cannot_act() -> None:
    r, _ = rnd({"S4": 0, "S6": 0, "S7": 0}, leader="S2")  # tie round, leader declined
    assert r.to_act == "S4"
    r, _ = rnd({"S2": 0, "S4": 0, "S6": 0}, {"S2": 0, "S4": BIG, "S6": BIG}, leader="S2")
    assert r.to_act == "S4" and r.all_in() == ["S2"]
    r, _ = rnd({"S2": 0, "S4": 0, "S6": 0}, leader="S7")
    assert r.to_act == "S2"


def test_betting_that_nobody_can_take_part_in_is_over_at_once() -> None:
    # everyone but one is all-in with the ante, and that one is at the level
    r, auto = rnd({"S1": 100, "S2": 100, "S3": 100}, {"S1": 0, "S2": 0, "S3": BIG})
    assert auto == [] and r.over
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100}, {"S1": 0, "S2": 0, "S3": 0})
    assert r.over


def test_a_disconnected_player_is_folded_when_the_turn_reaches_them() -> None:
    r, auto = rnd({"S1": 100, "S2": 100, "S3": 100, "S4": 100}, disconnected={"S1", "S3"})
    assert summary(auto) == [("S1", "fold", 0, 100, True)]
    assert r.to_act == "S2"
    assert refused(r, "S2", "bet", 300) == "bad_action"  # the automatic fold was the opening
    d = r.act("S2", "raise", 300)
    assert summary(d) == [("S2", "raise", 200, 300, False), ("S3", "fold", 0, 100, True)]
    assert r.to_act == "S4"
    r.reconnect("S3")  # too late: folded
    r.act("S4", "call")
    assert r.over and r.still_in() == ["S2", "S4"]


def test_a_disconnect_during_the_turn_folds_at_once_and_otherwise_waits_for_the_turn() -> None:
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100})
    assert r.disconnect("S3") == []
    assert summary(r.disconnect("S1")) == [("S1", "fold", 0, 100, True)]
    assert r.to_act == "S2"
    r.reconnect("S3")
    r.act("S2", "call")
    assert r.to_act == "S3"


def test_a_disconnected_all_in_player_stays_in() -> None:
    r, _ = rnd({"S1": 100, "S2": 100, "S3": 100}, {"S1": BIG, "S2": 100, "S3": BIG})
    r.act("S1", "bet", 300)
    r.act("S2", "all_in")
    r.disconnect("S2")
    r.act("S3", "call")
    assert r.over and r.still_in() == ["S1", "S2", "S3"]


def deals_of(name):
    expected = json.loads((TRACES / name / "expected.json").read_text("utf-8"))
    for game in expected["games"]:
        for i, deal in enumerate(game["deals"]):
            yield game, i, deal


@pytest.mark.parametrize("name", ["clean_session", "tie_once", "allin_layers"])
def test_the_recorded_betting_replays_decision_by_decision(name: str) -> None:
    for game, i, deal in deals_of(name):
        players = deal["contestants"]
        start = game["ante"] if i == 0 else 0
        put = {s: sum(a["amount"] for a in deal["actions"] if a["seat"] == s) for s in players}
        shoved = {a["seat"] for a in deal["actions"] if a["action"] == "all_in"}
        wallets = {s: (put[s] if s in shoved else BIG) for s in players}
        r = BettingRound(
            {s: start for s in players}, wallets, ante=game["ante"], leader=game["leader"]
        )
        got = r.start()
        for a in deal["actions"]:
            if a["auto"]:
                got += r.timeout() if r.to_act == a["seat"] else []
            else:
                amount = a["total"] if a["action"] in ("bet", "raise") else None
                got += r.act(a["seat"], a["action"], amount)
        want = [
            (a["seat"], a["action"], a["amount"], a["total"], a["auto"]) for a in deal["actions"]
        ]
        assert summary(got) == want, deal["deal_id"]
        assert r.over, deal["deal_id"]


@st.composite
def sessions(draw):
    n = draw(st.integers(2, 7))
    seats = [
        f"S{i}"
        for i in sorted(draw(st.lists(st.integers(1, 7), min_size=n, max_size=n, unique=True)))
    ]
    wallets = {s: draw(st.integers(0, 3000)) for s in seats}
    moves = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["bet", "call", "raise", "fold", "all_in", "timeout"]),
                st.integers(0, 4000),
            ),
            max_size=60,
        )
    )
    return seats, wallets, moves, draw(st.sampled_from(seats))


@settings(max_examples=300)
@given(sessions())
def test_any_sequence_of_decisions_keeps_money_and_turns_consistent(session) -> None:
    seats, wallets, moves, leader = session
    r, _ = rnd({s: 100 for s in seats}, wallets, leader=leader)
    money = sum(wallets.values()) + 100 * len(seats)
    for action, amount in moves:
        if r.over:
            break
        seat = r.to_act
        assert r.needs_to_act(seat)
        try:
            r.timeout() if action == "timeout" else r.act(seat, action, amount)
        except Refused:
            assert r.to_act == seat
        assert sum(r.totals().values()) + sum(r.wallets().values()) == money
        assert all(w >= 0 for w in r.wallets().values())
    if r.over:
        still_in = r.still_in()
        level = r.level
        assert len(still_in) <= 1 or all(
            r.totals()[s] == level or s in r.all_in() for s in still_in
        )
