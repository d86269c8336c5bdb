"""Si Zhi Dao clocks across a pause and a disconnect, and what opens a deal, each staged as a
trace and replayed: the decision clock stops while paused and nothing is settled then
(PROCEDURE.md §3, §7.8); another player's disconnect leaves the clock running (§7.4); a deal
needs a new_shoe and then its shuffle check and LOAD, and nothing else (§7.3); a CUT and an
EMPTY in a one-deck shoe (§7.9, §3)."""

from __future__ import annotations

from station.core.replay import replay_records
from station.games.sizhidao.script import SzTraceScript
from tests.sizhidao.staged_games import TIE1, TIE2, TIE3

THREE = [("u1", "S1"), ("u2", "S2"), ("u3", "S3")]
# RULES.md Z-1: S1 beats both
CLEAR = {"S1": "AS AD KH QC".split(), "S2": "9S QD 5H 5C".split(), "S3": "TS 4D 6H 2C".split()}
TIED = {"S1": TIE1, "S2": TIE2, "S3": TIE3}


def run(s: SzTraceScript, tmp_path):
    return replay_records(s.write(tmp_path / "trace.jsonl"))


def of(records, type_):
    return [r for r in records if r["type"] == type_]


def kinds(records):
    return [r["kind"] for r in of(records, "fault")]


def betting_actions(records):
    return [
        (x["t"], x["seat"], x["action"], x.get("auto"))
        for x in of(records, "player_action")
        if x["action"] not in ("disconnect", "reconnect", "arrange")
    ]


def dealt(hands=CLEAR) -> SzTraceScript:
    """Three players, a game open, D1 dealt: betting has started, S1 (the leader) to act."""
    s = SzTraceScript()
    s.sit(THREE)
    s.shuffle().dealer("open_betting").wait(1)
    return s.deal(hands, "S1")


def link_lost(s: SzTraceScript) -> SzTraceScript:
    """The shoe falls silent: link_lost pauses the table 3 s later."""
    s.link_silent = True
    return s.wait(4)


def link_back_and_resume(s: SzTraceScript) -> SzTraceScript:
    s.link_silent = False
    return s.wait(1).supervisor("resume")


def test_a_disconnect_while_paused_folds_but_the_next_clock_starts_at_the_resume(
    tmp_path,
) -> None:
    s = dealt()
    link_lost(s)
    s.player("u1", "disconnect")  # S1's turn: folded at the disconnect
    s.wait(30)  # twice the decision time, paused
    link_back_and_resume(s)
    resumed_at = s.t
    s.wait(20).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["link_lost"]
    (fault,) = of(r, "fault")
    acts = betting_actions(r)
    assert acts[0][1:] == ("S1", "fold", True) and acts[0][0] > fault["t"]
    # S2's clock stopped with the table and starts in full at the resume
    assert acts[1] == (round(resumed_at + 15, 3), "S2", "fold", True)
    assert of(r, "layers")[0]["t"] == acts[1][0]


def test_a_fold_at_a_disconnect_while_paused_leaving_one_player_settles_at_the_resume(
    tmp_path,
) -> None:
    s = dealt()
    s.wait(1).player("u1", "fold").wait(1)
    link_lost(s)
    s.player("u2", "disconnect")  # S2's turn: folded, S3 is left alone while paused
    s.wait(10)
    link_back_and_resume(s)
    resumed_at = s.t
    s.wait(2).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["link_lost"]
    assert [a[1:] for a in betting_actions(r)] == [("S1", "fold", False), ("S2", "fold", True)]
    (layers,) = of(r, "layers")
    (settled,) = of(r, "game_settled")
    # nothing is settled while paused: the lone player takes the pot at the resume
    assert layers["t"] == settled["t"] == round(resumed_at, 3)
    assert settled["payouts"] == {"u3": 300}
    assert of(r, "resumed")[0]["t"] <= layers["t"]


def test_betting_ended_by_a_disconnect_while_paused_starts_the_arrange_clock_at_the_resume(
    tmp_path,
) -> None:
    s = dealt()
    s.wait(1).player("u1", "bet", amount=200).wait(1).player("u2", "call").wait(1)
    link_lost(s)
    s.player("u3", "disconnect")  # S3's turn: folded, betting ends with S1 and S2 in
    s.wait(25)  # more than the arrange time, paused
    link_back_and_resume(s)
    resumed_at = s.t
    s.wait(5).player("u1", "arrange", front=["KH", "QC"], back=["AS", "AD"])
    s.wait(6).reveal({"S1": CLEAR["S1"], "S2": CLEAR["S2"]}).clear().end()
    r = run(s, tmp_path)
    assert kinds(r) == ["link_lost"]
    assert of(r, "action_refused") == []
    (arranged,) = [x for x in of(r, "player_action") if x["action"] == "arrange"]
    assert arranged["seat"] == "S1" and arranged["auto"] is False
    assert arranged["t"] == round(resumed_at + 5, 3)
    (shown,) = of(r, "showdown")
    assert sorted(shown["seats"]) == ["S1", "S2"]
    assert shown["seats"]["S1"]["auto"] is False and shown["seats"]["S2"]["auto"] is True
    assert of(r, "game_settled")[0]["payouts"] == {"u1": 500}


def test_another_players_disconnect_leaves_the_decision_clock_running(tmp_path) -> None:
    s = dealt()
    betting_from = s.dealt_at
    s.wait(10).player("u3", "disconnect")  # S3 is not to act: S1's clock runs on
    s.wait(20).end()
    r = run(s, tmp_path)
    acts = betting_actions(r)
    assert acts[0] == (round(betting_from + 15, 3), "S1", "fold", True)
    assert acts[1] == (round(betting_from + 30, 3), "S2", "fold", True)


def tie_then_next_deck(s: SzTraceScript) -> SzTraceScript:
    """D1 ends in a three-way tie with no buy-in window (every player contests the layer)."""
    s.wait(0.5).player("u1", "bet", amount=200)
    s.wait(0.5).player("u2", "call").wait(0.5).player("u3", "call")
    return s.wait(11).reveal(TIED)


def test_a_load_before_new_shoe_counts_for_nothing(tmp_path) -> None:
    s = dealt(TIED)
    tie_then_next_deck(s).clear()
    # the dealer fills the shoe before starting the new deck: that LOAD is not the deal's
    s.shoe("LOAD").wait(1).dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(2)
    loaded_at = s.t
    s.shoe("LOAD").wait(2)  # the LOAD after new_shoe opens the tie round
    s.deal(CLEAR, "S1").wait(1).end()
    r = run(s, tmp_path)
    assert kinds(r) == []
    d2 = [x for x in of(r, "deal_open") if x["deal_id"] == "SZ-01-G1-D2"]
    assert len(d2) == 1 and d2[0]["t"] == round(loaded_at, 3)
    assert of(r, "shoe_start")[-1]["t"] < loaded_at


def test_cards_after_a_load_before_new_shoe_are_early(tmp_path) -> None:
    s = dealt(TIED)
    tie_then_next_deck(s).clear()
    s.shoe("LOAD").wait(1).dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(1)
    s.card("AS").wait(1).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["early_card"]
    assert [x["deal_id"] for x in of(r, "deal_open")] == ["SZ-01-G1-D1"]


def test_a_deal_opens_while_the_zones_still_show_the_previous_deals_cards(tmp_path) -> None:
    s = dealt(TIED)
    tie_then_next_deck(s)
    # the camera still reports the shown-down hands: the zones were not seen cleared
    s.wait(3).shuffle()
    loaded_at = s.t - 2
    s.deal(CLEAR, "S1")
    s.wait(0.5).player("u1", "bet", amount=200)
    s.wait(0.5).player("u2", "call").wait(0.5).player("u3", "call")
    s.wait(11).reveal(CLEAR).clear().end()
    r = run(s, tmp_path)
    assert kinds(r) == []
    d2 = of(r, "deal_open")[1]
    assert d2["deal_id"] == "SZ-01-G1-D2" and d2["t"] == round(loaded_at, 3)
    assert of(r, "layers")[-1]["layers"][0]["winner"] == "S1"
    assert of(r, "game_settled")[0]["payouts"] == {"u1": 1200}


def test_a_zone_beside_the_previous_deals_cards_is_still_checked(tmp_path) -> None:
    s = dealt(TIED)
    tie_then_next_deck(s)
    s.wait(3).shuffle()
    s.deal(CLEAR, "S1", stop_after=1)  # S2's first card, face down beside the old hand
    s.wait(1).camera({"S2": [*TIE2, "9S"]})  # and then turned face up during the deal
    s.wait(1).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["premature_reveal"]


def test_a_cut_card_outside_a_deal_is_foreign(tmp_path) -> None:
    s = SzTraceScript()
    s.sit(THREE)
    s.dealer("open_betting").wait(1).dealer("new_shoe").wait(1)
    s.shoe("CUT").wait(1)  # the game waits for its deck: no deal is open
    s.supervisor("cancel_round").end()
    r = run(s, tmp_path)
    assert kinds(r) == ["foreign_card"]
    assert of(r, "deal_open") == []
    (c,) = of(r, "round_cancelled")
    assert c["reason"] == "foreign_card"
    assert c["refunds"] == [{"account": a, "amount": 100} for a in ("u1", "u2", "u3")]


def test_empty_while_the_deal_needs_cards_is_shoe_exhausted_cancel_only(tmp_path) -> None:
    s = SzTraceScript()
    s.sit(THREE)
    s.shuffle().dealer("open_betting").wait(1)
    s.deal(CLEAR, "S1", stop_after=7)
    s.shoe("EMPTY").wait(1).supervisor("resume").wait(1).supervisor("cancel_round").end()
    r = run(s, tmp_path)
    assert kinds(r) == ["shoe_exhausted"]
    assert of(r, "fault")[0]["round_id"] == "SZ-01-G1"
    assert [x["reason"] for x in of(r, "action_refused")] == [
        "shoe_exhausted can only be cancelled"
    ]
    (c,) = of(r, "round_cancelled")
    assert c["reason"] == "shoe_exhausted"


def test_empty_after_the_last_card_of_the_deal_is_no_fault(tmp_path) -> None:
    s = dealt()
    s.shoe("EMPTY").wait(1).end()
    r = run(s, tmp_path)
    assert kinds(r) == []


def test_a_pause_between_games_ended_by_a_cancel_leaves_the_next_games_clocks_working(
    tmp_path,
) -> None:
    s = SzTraceScript()
    s.sit(THREE)
    s.wait(1).card("5H").wait(1).supervisor("cancel_round").wait(1)  # early_card, no game
    s.shuffle().dealer("open_betting").wait(1).deal(CLEAR, "S1")
    betting_from = s.dealt_at
    s.wait(16)  # S1 silent: folded after 15 s
    link_lost(s)
    s.wait(30)  # paused in S2's turn: its clock stops
    link_back_and_resume(s)
    resumed_at = s.t
    s.wait(16).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["early_card", "link_lost"]
    acts = betting_actions(r)
    assert acts[0] == (round(betting_from + 15, 3), "S1", "fold", True)
    assert acts[1] == (round(resumed_at + 15, 3), "S2", "fold", True)
