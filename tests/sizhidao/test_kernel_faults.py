"""Si Zhi Dao faults and decisions on the table kernel (PROCEDURE.md §7.8, §7.9), each staged
as a trace and replayed: premature reveal, order, card mismatch at the showdown, early,
extra and foreign cards, unread cards, placement and reveal timeouts, camera and link loss,
the pause stopping the clocks, and cancel refunding the whole game, buy-ins included."""

from __future__ import annotations

from station.core.replay import replay_records
from station.games.sizhidao.script import SzTraceScript
from tests.sizhidao.staged_games import BEATEN, FOUR, TIE1, TIE2, TIE3, betting

HANDS = {"S1": TIE1, "S2": "KS KH KD KC".split(), "S3": TIE3, "S4": BEATEN}
START = 10_000


def run(s: SzTraceScript, tmp_path):
    return replay_records(s.write(tmp_path / "trace.jsonl"))


def of(records, type_):
    return [r for r in records if r["type"] == type_]


def kinds(records):
    return [r["kind"] for r in of(records, "fault")]


def balances(records):
    return of(records, "balances")[-1]["accounts"]


def opened(**settings) -> SzTraceScript:
    s = SzTraceScript(settings=settings)
    s.sit(FOUR, balance=START)
    return s.wait(1).dealer("open_betting").wait(1).shuffle()


def calls(s: SzTraceScript, total: int = 300) -> SzTraceScript:
    return betting(s, [("a", "bet", total), ("b", "call"), ("c", "call"), ("d", "call")])


def settle_clean(s: SzTraceScript, hands=HANDS) -> SzTraceScript:
    s.wait(10.5)
    return s.reveal(hands).clear()


def test_a_clean_game_has_no_fault_and_the_four_kings_win(tmp_path) -> None:
    s = opened()
    s.deal(HANDS, leader="S1")
    calls(s)
    settle_clean(s).end()
    r = run(s, tmp_path)
    assert kinds(r) == []
    assert of(r, "game_settled")[0]["payouts"] == {"b": 1200}
    assert balances(r) == {"a": 9700, "b": 10_900, "c": 9700, "d": 9700}
    assert [x["type"] for x in r if x["type"] in ("shoe_start", "shoe_end")] == [
        "shoe_start",
        "shoe_end",
    ]


def test_premature_reveal_is_cancel_only_and_cancel_refunds_the_game(tmp_path) -> None:
    s = opened()
    s.deal(HANDS, leader="S1")
    s.wait(1).player("a", "bet", amount=500)
    s.wait(1).camera({"S3": ["8C", "??", "??", "??"]})  # a card turned up during betting
    s.wait(2).supervisor("resume").wait(1).supervisor("cancel_round")
    s.wait(1).player("b", "call").clear().end()
    r = run(s, tmp_path)
    assert kinds(r) == ["premature_reveal"]
    assert [x["reason"] for x in of(r, "action_refused")] == [
        "premature_reveal can only be cancelled",
        "not_in_game",
    ]
    (c,) = of(r, "round_cancelled")
    assert c["round_id"] == "SZ-01-G1" and c["reason"] == "premature_reveal"
    assert c["refunds"] == [
        {"account": "a", "amount": 500},
        {"account": "b", "amount": 100},
        {"account": "c", "amount": 100},
        {"account": "d", "amount": 100},
    ]
    assert balances(r) == {a: START for a in "abcd"}
    # the fault's record names no card of the seat
    assert "8C" not in of(r, "fault")[0]["detail"]


def test_a_card_in_the_wrong_zone_is_an_order_fault_resumed_after_correcting(tmp_path) -> None:
    s = opened()
    s.deal(HANDS, leader="S1", place={0: "S3"}, stop_after=1)  # S2's first card lands in S3
    s.wait(1).camera({"S3": [], "S2": ["??"]})  # the dealer moves it
    s.wait(1).supervisor("resume").wait(1)
    # the rest of the deal: cards 2..16, as planned
    s2 = HANDS
    plan = ["S2", "S3", "S4", "S1"] * 4
    taken = {"S1": 0, "S2": 1, "S3": 0, "S4": 0}
    for seat in plan[1:]:
        s.shoe("CARD", s2[seat][taken[seat]])
        taken[seat] += 1
        s.wait(0.4).camera({seat: [*s.zones[seat], "??"]}).wait(0.3)
    calls(s)
    settle_clean(s).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["order"]
    assert len(of(r, "resumed")) == 1
    assert of(r, "game_settled")[0]["payouts"] == {"b": 1200}


def test_a_showdown_the_camera_reads_otherwise_is_a_mismatch_until_corrected(tmp_path) -> None:
    s = opened()
    s.deal(HANDS, leader="S1")
    calls(s)
    s.wait(10.5)
    s.wait(1).camera({"S1": ["9H", "QS", "3D", "3S"]})  # not the card the shoe read
    s.wait(1).supervisor("resume")  # refused: the camera still disagrees
    s.reveal({k: HANDS[k] for k in ("S1", "S2", "S3", "S4")})
    s.wait(1).supervisor("resume").clear().end()
    r = run(s, tmp_path)
    assert kinds(r) == ["card_mismatch"]
    assert "still disagrees" in of(r, "action_refused")[0]["reason"]
    (show,) = of(r, "showdown")
    assert show["t"] > of(r, "resumed")[0]["t"] - 1e-9  # nothing settled while paused
    assert of(r, "game_settled")[0]["payouts"] == {"b": 1200}


def test_early_extra_and_foreign_cards(tmp_path) -> None:
    # early: a card before the deal's deck is checked and loaded; resumed, set aside
    s = SzTraceScript()
    s.sit(FOUR)
    s.wait(1).dealer("open_betting").wait(1).card("5H").wait(1).supervisor("resume").wait(1)
    s.shuffle().deal(HANDS, leader="S1")
    # extra: a seventeenth card
    s.wait(0.5).card("5D").wait(1).supervisor("cancel_round").clear().end()
    r = run(s, tmp_path)
    assert kinds(r) == ["early_card", "extra_card"]
    assert of(r, "round_cancelled")[0]["reason"] == "extra_card"
    assert not any("5H" in str(x) or "5D" in str(x) for x in r if x["type"] != "private")
    # early and extra reads go to nobody
    assert not any(x for x in of(r, "private") if "5H" in x["cards"] or "5D" in x["cards"])

    s = opened()
    twice = {**HANDS, "S4": ["4C", "7H", "8D", "9H"]}  # 9H again: S1 holds it
    s.deal(twice, leader="S1").wait(1).supervisor("cancel_round").clear().end()
    r = run(s, tmp_path)
    assert kinds(r) == ["foreign_card"]
    assert "9H" not in of(r, "fault")[0]["detail"]
    # the read that raised it still went to its owner alone
    assert [x["cards"] for x in of(r, "private") if x["seat"] == "S4"][-1] == [
        "4C",
        "7H",
        "8D",
        "9H",
    ]
    assert balances(r) == {a: START for a in "abcd"}


def test_an_unread_card_is_named_by_the_camera_at_the_showdown(tmp_path) -> None:
    s = opened()
    dealt = {**HANDS, "S3": ["8C", "AC", "??", "7S"]}
    s.deal(dealt, leader="S1")
    s.wait(1).supervisor("resume")
    calls(s)
    settle_clean(s).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["unread_card"]
    assert [x["cards"] for x in of(r, "private") if x["seat"] == "S3"][-1] == [
        "8C",
        "AC",
        "??",
        "7S",
    ]
    (show,) = of(r, "showdown")
    assert show["seats"]["S3"]["back"] == ["7D", "7S"] and show["seats"]["S3"]["auto"] is True
    assert of(r, "game_settled")[0]["payouts"] == {"b": 1200}


def test_placement_timeout_when_a_card_never_shows(tmp_path) -> None:
    s = opened()
    s.deal(HANDS, leader="S1", unseen=[15])  # the last card never shows
    s.wait(6).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["placement_timeout"]


def test_reveal_timeout_60_s_after_the_showdown_starts(tmp_path) -> None:
    s = opened()
    s.deal(HANDS, leader="S1")
    calls(s)
    s.wait(10.5 + 61)
    s.supervisor("resume").reveal(HANDS).clear().end()
    r = run(s, tmp_path)
    assert kinds(r) == ["reveal_timeout"]
    fault = of(r, "fault")[0]
    arranged_at = of(r, "player_action")[-1]["t"] + 10
    assert abs(fault["t"] - (arranged_at + 60)) < 1e-6
    assert of(r, "game_settled")[0]["payouts"] == {"b": 1200}


def test_camera_lost_during_a_deal_and_the_pause_stops_the_decision_clock(tmp_path) -> None:
    s = opened()
    s.deal(HANDS, leader="S1")
    s.camera_silent = True
    s.wait(4)
    s.camera_silent = False
    s.wait(30).supervisor("resume")
    s.wait(14).player("a", "bet", amount=300)  # 14 s after the resume: still in time
    betting(s, [("b", "call"), ("c", "call"), ("d", "call")])
    settle_clean(s).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["camera_lost"]
    acts = [x for x in of(r, "player_action") if x["action"] in ("bet", "call", "fold")]
    assert [(x["seat"], x["action"], x["auto"]) for x in acts][0] == ("S1", "bet", False)
    assert of(r, "game_settled")[0]["payouts"] == {"b": 1200}


def test_actions_while_paused_are_refused_and_a_link_loss_pauses(tmp_path) -> None:
    s = opened()
    s.deal(HANDS, leader="S1")
    s.link_silent = True
    s.wait(3.5).player("a", "bet", amount=300)
    s.link_silent = False
    s.wait(1).supervisor("resume").wait(1)
    calls(s)
    settle_clean(s).end()
    r = run(s, tmp_path)
    assert kinds(r) == ["link_lost"]
    assert [(x["account"], x["action"], x["reason"]) for x in of(r, "action_refused")] == [
        ("a", "bet", "paused")
    ]
    assert of(r, "game_settled")[0]["payouts"] == {"b": 1200}


def test_cancel_in_a_tie_round_refunds_the_buy_ins_too(tmp_path) -> None:
    s = opened()
    d1 = {"S1": TIE1, "S2": TIE2, "S3": TIE3, "S4": BEATEN}
    s.deal(d1, leader="S1")
    calls(s, 500)
    settle_clean(s, d1)
    s.wait(1).player("d", "buy_in").wait(1).shuffle()
    d2 = {
        "S1": "2C 3C 4H 5H".split(),
        "S2": "6C 7S 8S 9S".split(),
        "S3": "AS AD AC AH".split(),
        "S4": "KS KH KD KC".split(),
    }
    s.deal(d2, leader="S1", stop_after=5)
    s.wait(1).supervisor("cancel_round").clear()
    s.wait(1).dealer("open_betting").end()
    r = run(s, tmp_path)
    (c,) = of(r, "round_cancelled")
    assert c["reason"] == "supervisor"
    assert c["refunds"] == [
        {"account": "a", "amount": 500},
        {"account": "b", "amount": 500},
        {"account": "c", "amount": 500},
        {"account": "d", "amount": 1500},
    ]
    # the leader stays: the next game is led by S1 again, with fresh antes
    assert [g["leader"] for g in of(r, "game_open")] == ["S1", "S1"]
    assert balances(r) == {a: START - 100 for a in "abcd"}


def test_cancel_while_the_next_deck_is_shuffled_refunds_the_game_through_its_pot(tmp_path) -> None:
    """A game open and waiting for its deck (the table `shuffling`: new_shoe given, the check
    or the LOAD still to come) is voided like any other: every ante, bet and buy-in back."""
    for steps in ("open only", "new_shoe", "new_shoe+confirm", "tie round, new_shoe"):
        s = SzTraceScript()
        s.sit(FOUR, balance=START)
        s.wait(1).dealer("open_betting").wait(1)
        paid = {a: 100 for a in "abcd"}
        if steps.startswith("tie round"):
            s.shuffle()
            d1 = {"S1": TIE1, "S2": TIE2, "S3": TIE3, "S4": BEATEN}
            s.deal(d1, leader="S1")
            calls(s, 500)
            settle_clean(s, d1)
            s.wait(1).player("d", "buy_in").wait(1)
            paid = {"a": 500, "b": 500, "c": 500, "d": 1500}
        if "new_shoe" in steps:
            s.dealer("new_shoe").wait(2)
        if "confirm" in steps:
            s.supervisor("confirm_shuffle").wait(1)
        s.supervisor("cancel_round").wait(1).dealer("open_betting").end()
        r = run(s, tmp_path)
        assert of(r, "action_refused") == [], steps
        (c,) = of(r, "round_cancelled")
        assert c["reason"] == "supervisor"
        assert c["refunds"] == [{"account": a, "amount": n} for a, n in paid.items()], steps
        # the cancelled game's deck is gone; the next game opens with fresh antes
        assert [g["leader"] for g in of(r, "game_open")] == ["S1", "S1"], steps
        assert balances(r) == {a: START - 100 for a in "abcd"}, steps
