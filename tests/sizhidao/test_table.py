"""Seating, the leader rule, the deal plan, and tie-round rights with the buy-in window
(PROCEDURE.md §7.1, §7.2, §7.3, §7.7), as pure state."""

from __future__ import annotations

import pytest

from station.cards import parse_cards
from station.games.sizhidao.arrange import auto_arrange
from station.games.sizhidao.betting import Refused
from station.games.sizhidao.table import (
    Rights,
    Seating,
    deal_plan,
    game_leader,
    leader_after_showdown,
    open_window,
)


def reason(fn, *args, **kwargs) -> str:
    with pytest.raises(Refused) as e:
        fn(*args, **kwargs)
    return e.value.reason


def test_sit_refusals_in_order() -> None:
    t = Seating()
    t.sit("u1", "S1", game_in_progress=False)
    assert reason(t.sit, "u2", "S8", game_in_progress=True) == "bad_seat"
    assert reason(t.sit, "u2", 3, game_in_progress=False) == "bad_seat"
    assert reason(t.sit, "u1", "S1", game_in_progress=True) == "already_seated"
    assert reason(t.sit, "u1", "S2", game_in_progress=False) == "already_seated"
    assert reason(t.sit, "u2", "S1", game_in_progress=True) == "seat_taken"
    assert reason(t.sit, "u2", "S2", game_in_progress=True) == "game_in_progress"
    assert t.seats == {"S1": "u1"}


def test_leave_refusals_in_order() -> None:
    t = Seating()
    t.sit("u1", "S1", game_in_progress=False)
    assert reason(t.leave, "u2", game_in_progress=True) == "not_seated"
    assert reason(t.leave, "u1", game_in_progress=True) == "game_in_progress"
    assert t.leave("u1", game_in_progress=False) == "S1"
    assert t.seats == {}


def test_the_first_to_sit_leads_and_a_leaving_leader_passes_the_lead_counter_clockwise() -> None:
    # clean_session: S3's player leads, leaves, and the newcomer in S3 does not lead
    t = Seating()
    for acc, seat in [("p01", "S1"), ("p02", "S3"), ("p03", "S4"), ("p04", "S6")]:
        t.sit(acc, seat, game_in_progress=False)
    assert t.leader == "S1"
    t.leader = "S3"  # p02's back was the strongest at the last showdown
    t.leave("p02", game_in_progress=False)
    assert t.leader == "S4"
    t.sit("p05", "S3", game_in_progress=False)
    assert t.leader == "S4"


def test_the_lead_wraps_and_an_empty_table_gives_it_to_the_next_to_sit() -> None:
    t = Seating()
    t.sit("a", "S6", game_in_progress=False)
    t.sit("b", "S2", game_in_progress=False)
    t.leave("a", game_in_progress=False)
    assert t.leader == "S2"
    t.leave("b", game_in_progress=False)
    assert t.leader is None
    t.sit("c", "S5", game_in_progress=False)
    assert t.leader == "S5"


def test_a_leader_who_sits_a_game_out_leads_none_of_it() -> None:
    assert game_leader("S3", ["S1", "S3", "S5"]) == "S3"
    assert game_leader("S3", ["S1", "S5", "S6"]) == "S5"
    assert game_leader("S7", ["S1", "S5", "S6"]) == "S1"


def test_the_strongest_back_leads_and_equal_backs_go_counter_clockwise_from_the_leader() -> None:
    def back(cards: str):
        return auto_arrange(parse_cards(cards.split())).back_strength

    backs = {"S1": back("2S 4C 9H TC"), "S3": back("9S QH 3D 6H"), "S6": back("3H JD 6S TH")}
    assert leader_after_showdown(backs, "S6") == "S3"
    equal = {"S2": back("9S TD 2C 3D"), "S4": back("9H TC 2D 3S"), "S6": back("9C TS 2H 3C")}
    assert leader_after_showdown(equal, "S4") == "S4"
    assert leader_after_showdown(equal, "S5") == "S6"
    assert leader_after_showdown(equal, "S7") == "S2"


def test_the_deal_plan_starts_after_the_leader_and_goes_round_four_times() -> None:
    assert deal_plan(["S1", "S3", "S5", "S6"], "S1") == ["S3", "S5", "S6", "S1"] * 4
    # tie round: the leader declined and is not dealt in
    assert deal_plan(["S4", "S6", "S7"], "S2") == ["S4", "S6", "S7"] * 4
    assert deal_plan(["S2", "S4", "S7"], "S7") == ["S2", "S4", "S7"] * 4


def test_the_buy_in_window() -> None:
    # tie_once: S4 and S6 tie; S7 buys in, the leader S2 declines
    rights = Rights(["S2", "S4", "S6", "S7"])
    w = open_window(rights, {"S4", "S6"}, 600)
    assert w is not None and w.eligible == ["S2", "S7"]
    assert reason(w.answer, "S5", "buy_in", 10**6) == "not_in_game"
    assert reason(w.answer, "S4", "buy_in", 10**6) == "no_right"  # a contestant
    assert reason(w.answer, "S7", "buy_in", 599) == "insufficient_funds"
    assert reason(w.answer, "S7", "double", 10**6) == "bad_action"
    a = w.answer("S7", "buy_in", 600)
    assert a.as_dict() == {"seat": "S7", "amount": 600, "auto": False}
    assert reason(w.answer, "S7", "decline", 10**6) == "no_right"  # already answered
    assert not w.everyone_answered
    w.answer("S2", "decline", 0)  # declining needs no money
    assert w.everyone_answered
    assert w.close() == []
    assert reason(w.answer, "S2", "buy_in", 10**6) == "not_now"
    assert w.buyers() == {"S7": 600}
    assert rights.lost == {"S2"}


def test_silence_declines_and_loses_the_right_while_buyers_and_contestants_keep_it() -> None:
    rights = Rights(["S1", "S2", "S3", "S4", "S5"])
    w = open_window(rights, {"S1", "S2"}, 500)
    w.answer("S3", "buy_in", 10**6)
    silent = w.close()
    assert [a.as_dict() for a in silent] == [
        {"seat": "S4", "declined": True, "auto": True},
        {"seat": "S5", "declined": True, "auto": True},
    ]
    assert rights.lost == {"S4", "S5"}
    # next tie round: S1 is beaten, S2 and S3 tie; S1 and S3... S1 may buy in, S4 S5 never
    w2 = open_window(rights, {"S2", "S3"}, 900)
    assert w2.eligible == ["S1"]
    w2.close()
    assert open_window(rights, {"S2", "S3"}, 900) is None  # nobody left with the right
