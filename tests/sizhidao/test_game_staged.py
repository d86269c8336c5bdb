"""Staged Si Zhi Dao games on the pure game (PROCEDURE.md §7): tie rounds once and twice in a
row with buy-ins and rights, layers from all-ins, a player left alone, disconnections, the
pause stopping the clocks, cancel refunding the whole game, the leader rule, and refusals."""

from __future__ import annotations

import pytest

from tests.sizhidao.scripted import Scripted

FOUR = (("a", "S1"), ("b", "S3"), ("c", "S5"), ("d", "S6"))
START = 10_000


def table(*pairs, balance=START, **kw) -> Scripted:
    t = Scripted(**kw)
    t.sit(*(pairs or FOUR), balance=balance)
    return t


def pot_is_paid_out(t: Scripted) -> None:
    """Money in equals money out: every account's balance moved by payouts minus entries."""
    total_start = START * len(t.balances())
    assert sum(t.balances().values()) == total_start


# Z-2's three tying hands plus a beaten fourth
TIE = {"S1": "9H QS 3D 3C", "S3": "JH KD 2S 2H", "S5": "8C AC 7D 7S", "S6": "TS 4D 6H 2C"}


def test_a_tie_round_with_a_buyer_and_a_decline() -> None:
    t = table()
    t.at(10).open()
    assert t.last("game_open")["leader"] == "S1"
    t.at(20).deal(TIE)
    t.at(21).act("a", "bet", amount=500)
    for acc in "bcd":
        t.act(acc, "call")
    assert t.of("player_action")[-1]["total"] == 500
    t.at(31)  # arranging ends: everyone arranged automatically
    t.show()
    layers = t.last("layers")["layers"]
    assert layers == [
        {
            "amount": 2000,
            "contestants": ["S1", "S3", "S5", "S6"],
            "winner": None,
            "tied": ["S1", "S3", "S5"],
        }
    ]
    # the window: only the beaten S6 is eligible, price 1000
    assert t.refusals() == []
    t.at(33).act("a", "buy_in")
    assert t.refusals()[-1] == ("a", "buy_in", "no_right")  # a contestant
    t.act("d", "buy_in")
    assert t.last("buy_in") == {
        "t": 33.0,
        "type": "buy_in",
        "deal_id": "SZ-09-G1-D2",
        "account": "d",
        "seat": "S6",
        "amount": 1000,
        "auto": False,
    }
    assert t.game.deal_due()
    t.at(40).deal(
        {"S1": "2S 3H 4C 5D", "S3": "6S 7H 8C 9D", "S5": "TH JC QD KS", "S6": "AH AD KH KD"}
    )
    d2 = t.last("deal_open")
    assert d2["contestants"] == ["S1", "S3", "S5", "S6"]
    # a tie round has no ante: the leader opens from 0, calls of 0 are fine
    recs = t.act("a", "bet", amount=100)
    assert (recs[0]["amount"], recs[0]["total"]) == (100, 100)
    for acc in "bcd":
        t.act(acc, "call")
    t.at(50)
    t.show()
    assert t.last("layers")["layers"] == [
        {"amount": 3000, "contestants": ["S1", "S3", "S5", "S6"], "winner": "S6", "tied": []},
        {"amount": 400, "contestants": ["S1", "S3", "S5", "S6"], "winner": "S6", "tied": []},
    ]
    settled = t.last("game_settled")
    assert settled["payouts"] == {"d": 3400} and settled["pot"] == 3400
    assert [b["kind"] for b in settled["bets"]] == ["ante"] * 4 + ["bet"] * 4 + ["buy_in"] + [
        "bet"
    ] * 4
    pot_is_paid_out(t)
    assert t.balances()["d"] == START - 500 - 1000 - 100 + 3400


def test_two_tie_rounds_in_a_row_and_the_rights() -> None:
    five = (("a", "S1"), ("b", "S2"), ("c", "S3"), ("d", "S4"), ("e", "S5"))
    t = table(*five)
    t.at(1).open()
    # D1: S1 S2 S3 tie (Z-2's hands), S4 and S5 beaten by each of them
    t.at(2).deal(
        {
            "S1": "9H QS 3D 3C",
            "S2": "JH KD 2S 2H",
            "S3": "8C AC 7D 7S",
            "S4": "TS 4D 6H 2C",
            "S5": "4C 7H 8D TC",
        }
    )
    t.act("a", "bet", amount=200)
    for acc in "bcde":
        t.act(acc, "call")
    t.at(13)
    t.show()
    assert t.last("layers")["layers"] == [
        {
            "amount": 1000,
            "contestants": ["S1", "S2", "S3", "S4", "S5"],
            "winner": None,
            "tied": ["S1", "S2", "S3"],
        }
    ]
    # window 1, price 500: S4 buys in, S5 stays silent and loses the right
    t.at(14).act("d", "buy_in")
    assert not t.game.deal_due()
    t.at(24)  # the window closes at its time (opened at 13)
    auto = t.last("buy_in")
    assert (auto["account"], auto.get("declined"), auto["auto"], auto["t"]) == (
        "e",
        True,
        True,
        23.0,
    )
    # D2: the tied players and the buyer; S1 and S4 tie, S2 and S3 are beaten
    t.at(30).deal(
        {"S1": "9H QS 3D 3C", "S2": "TC 4C 6D 2D", "S3": "4S 7C 8H TD", "S4": "JH KD 2S 2H"}
    )
    assert t.last("deal_open")["contestants"] == ["S1", "S2", "S3", "S4"]
    t.act("a", "call")
    assert t.refusals()[-1] == ("a", "call", "bad_action")  # the opening decision
    t.act("a", "bet", amount=100)
    for acc in "bcd":
        t.act(acc, "call")
    t.at(41)
    t.show()
    assert t.last("layers")["layers"] == [
        {
            "amount": 1500,
            "contestants": ["S1", "S2", "S3", "S4"],
            "winner": None,
            "tied": ["S1", "S4"],
        },
        {
            "amount": 400,
            "contestants": ["S1", "S2", "S3", "S4"],
            "winner": None,
            "tied": ["S1", "S4"],
        },
    ]
    # window 2, price (1500 + 400) / 2 = 950: the beaten S2 and S3 keep the right, S5 lost it
    t.at(42).act("e", "buy_in")
    t.act("d", "buy_in")
    t.act("b", "buy_in")
    assert t.refusals()[-2:] == [("e", "buy_in", "no_right"), ("d", "buy_in", "no_right")]
    assert t.last("buy_in")["amount"] == 950
    t.act("c", "decline")
    assert t.game.deal_due()  # everyone eligible answered
    # D3: S2 wins both carried layers and the betting layer
    t.at(50).deal({"S1": "2C 3C 4H 5H", "S2": "AS AD AC AH", "S4": "6C 7S 8S 9S"})
    t.act("a", "bet", amount=100)
    t.act("b", "call")
    t.act("d", "call")
    t.at(61)
    t.show()
    assert t.last("layers")["layers"] == [
        {"amount": 2450, "contestants": ["S1", "S2", "S4"], "winner": "S2", "tied": []},
        {"amount": 400, "contestants": ["S1", "S2", "S4"], "winner": "S2", "tied": []},
        {"amount": 300, "contestants": ["S1", "S2", "S4"], "winner": "S2", "tied": []},
    ]
    settled = t.last("game_settled")
    assert settled["payouts"] == {"b": 3150} and settled["pot"] == 3150
    pot_is_paid_out(t)
    # the strongest back of the last showdown leads the next game
    assert t.game.seating.leader == "S2"
    t.at(70).open()
    assert t.last("game_open")["leader"] == "S2"


def test_a_player_left_alone_takes_the_pot_unseen_and_the_lead_stays() -> None:
    t = table()
    t.at(1).open()
    t.at(2).deal(TIE)
    t.act("a", "bet", amount=400)
    for acc in "bcd":
        t.act(acc, "fold")
    assert t.of("showdown") == []
    assert t.last("layers")["layers"] == [
        {"amount": 700, "contestants": ["S1"], "winner": "S1", "tied": []}
    ]
    assert t.last("game_settled")["payouts"] == {"a": 700}
    assert t.game.seating.leader == "S1"
    pot_is_paid_out(t)


def test_all_in_layers_and_a_tied_side_layer_goes_to_a_tie_round_alone() -> None:
    t = table()
    t.wallet("b", 400)  # S3 short: all-in at 400 with the ante
    t.at(1).open()
    # S3 wins the main layer; S1 and S5 tie on the side layer (Z-2 hands), S6 folds
    t.at(2).deal(
        {"S1": "9H QS 3D 3C", "S3": "KS KH KD KC", "S5": "JH QC 2S 2H", "S6": "TS 4D 6H 2C"}
    )
    t.act("a", "bet", amount=1000)
    t.act("b", "all_in")
    t.act("c", "call")
    t.act("d", "fold")
    t.at(12)
    t.show()
    layers = t.last("layers")["layers"]
    assert layers == [
        {"amount": 1300, "contestants": ["S1", "S3", "S5"], "winner": "S3", "tied": []},
        {"amount": 1200, "contestants": ["S1", "S5"], "winner": None, "tied": ["S1", "S5"]},
    ]
    # the tie round is for the side layer: S3 (who won the main one) and S6 may buy in, for 600
    t.at(13).act("b", "buy_in")
    assert t.refusals()[-1] == ("b", "buy_in", "insufficient_funds")
    t.act("d", "decline")
    t.act("b", "decline")
    t.at(20).deal({"S1": "AS AD 9S 9D", "S5": "2C 3C 4H 5H"})
    t.act("a", "bet", amount=100)
    t.act("c", "fold")
    assert t.last("layers")["layers"] == [
        {"amount": 1200, "contestants": ["S1"], "winner": "S1", "tied": []},
        {"amount": 100, "contestants": ["S1"], "winner": "S1", "tied": []},
    ]
    assert t.last("game_settled")["payouts"] == {"b": 1300, "a": 1300}
    # the tie round had no showdown: the lead follows the first deal's, S3's four kings
    assert t.game.seating.leader == "S3"
    pot_is_paid_out_with_short(t)


def pot_is_paid_out_with_short(t: Scripted) -> None:
    assert sum(t.balances().values()) == 3 * START + 400


def test_a_disconnected_all_in_player_stays_and_is_arranged_automatically() -> None:
    t = table()
    t.wallet("b", 200)
    t.at(1).open()
    t.at(2).deal(TIE)
    t.act("a", "bet", amount=300)
    t.act("b", "all_in")
    t.act("b", "disconnect")
    t.act("c", "call")
    t.act("d", "call")
    # arranging: S1 S5 S6 arrange; S3 is disconnected, so arranging ends with the last of them
    t.at(3).act("a", "arrange", front=["9H", "QS"], back=["3D", "3C"])
    t.act("c", "arrange", front=["8C", "AC"], back=["7D", "7S"])
    assert not t.game.awaiting_showdown()
    t.act("d", "arrange", front=["TS", "4D"], back=["6H", "2C"])
    assert t.game.awaiting_showdown()
    t.show()
    seats = t.last("showdown")["seats"]
    assert seats["S3"]["auto"] is True and seats["S1"]["auto"] is False
    assert seats["S3"]["front"] == ["JH", "KD"]


def test_a_disconnected_player_is_folded_at_its_turn_and_during_it() -> None:
    t = table()
    t.act("c", "disconnect")
    t.at(1).open()
    t.at(2).deal(TIE)
    t.act("a", "bet", amount=300)
    recs = t.act("b", "call")
    assert [
        (r["seat"], r["action"], r.get("auto")) for r in recs if r["type"] == "player_action"
    ] == [
        ("S3", "call", False),
        ("S5", "fold", True),
    ]
    recs = t.act("d", "disconnect")
    assert [(r["action"], r.get("auto")) for r in recs] == [("disconnect", None), ("fold", True)]
    assert t.game.deal().phase == "arranging"


def test_silence_folds_after_the_decision_time_and_the_pause_stops_the_clock() -> None:
    t = table(decision=15)
    t.at(1).open()
    t.at(2).deal(TIE)  # betting starts at 2
    t.at(10).pause()
    t.at(100).resume()  # the clock starts again in full: 15 s from 100
    t.at(114.9)
    assert t.of("player_action") == []
    t.act("a", "fold")
    assert t.refusals() == []
    t.at(129.8)
    assert len(t.of("player_action")) == 1
    t.at(130)
    fold = t.last("player_action")
    assert (fold["seat"], fold["action"], fold["auto"], fold["t"]) == ("S3", "fold", True, 129.9)


def test_player_actions_while_paused_are_refused_paused() -> None:
    t = table()
    t.at(1).open()
    t.at(2).deal(TIE)
    t.pause()
    t.act("a", "bet", amount=300)
    t.act("e", "bet", amount=300)
    t.act("a", "disconnect")  # always taken
    assert t.refusals() == [("a", "bet", "paused"), ("e", "bet", "not_in_game")]


def test_the_last_read_while_paused_starts_betting_at_the_resume() -> None:
    t = table()
    t.at(1).open()
    t.paused = True
    t.at(2).deal(TIE)
    t.game.pause()
    assert t.game.deal().phase == "dealing"
    t.at(50).resume()
    assert t.game.deal().phase == "betting"
    t.at(65)
    assert t.last("player_action")["t"] == 65.0  # S1 silent for 15 s from the resume


def test_cancel_refunds_every_ante_bet_and_buy_in_and_the_leader_stays() -> None:
    t = table()
    t.at(1).open()
    t.at(2).deal(TIE)
    t.act("a", "bet", amount=500)
    for acc in "bcd":
        t.act(acc, "call")
    t.at(13)
    t.show()
    t.act("d", "buy_in")
    t.game.cancel("card_mismatch")
    c = t.last("round_cancelled")
    assert c["round_id"] == "SZ-09-G1" and c["reason"] == "card_mismatch"
    assert c["refunds"] == [
        {"account": "a", "amount": 500},
        {"account": "b", "amount": 500},
        {"account": "c", "amount": 500},
        {"account": "d", "amount": 1500},
    ]
    assert all(b == START for b in t.balances().values())
    assert t.game.seating.leader == "S1" and not t.game.game_in_progress


def test_open_betting_refusals_and_a_player_who_cannot_pay_the_ante_sits_out() -> None:
    t = table(("a", "S1"), ("b", "S2"))
    assert t.open() == "not_enough_players"
    t.sit(("c", "S4"))
    t.wallet("a", 50)
    assert t.open() == "not_enough_players"
    assert [(r["account"], r["spot"], r["reason"]) for r in t.of("bet_rejected")] == [
        ("a", "ANTE", "insufficient_funds")
    ]
    assert t.balances() == {"a": 50, "b": START, "c": START}  # nothing deducted
    t.sit(("d", "S6"))
    assert t.open() is None
    g = t.last("game_open")
    # the leader S1 sits the game out: the next player of the game leads it
    assert g["players"] == {"S2": "b", "S4": "c", "S6": "d"} and g["leader"] == "S2"
    assert t.open() == "game_in_progress"
    t.game.deal_due()
    t.act("e", "sit", seat="S7")
    t.act("b", "leave")
    assert t.refusals()[-2:] == [
        ("e", "sit", "game_in_progress"),
        ("b", "leave", "game_in_progress"),
    ]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"front": ["9H", "QS"], "back": ["3D"]}, "bad_cards"),
        ({"front": ["9H", "QS"], "back": ["3D", "AS"]}, "bad_cards"),
        ({"front": ["9H", "QS"], "back": ["3D", "bogus"]}, "bad_cards"),
        ({"front": "9H QS", "back": ["3D", "3C"]}, "bad_cards"),
        ({"front": ["3D", "3C"], "back": ["9H", "QS"]}, "front_above_back"),
    ],
)
def test_arrange_refusals_name_no_cards(fields, reason) -> None:
    t = table()
    t.at(1).open()
    t.at(2).deal(TIE)
    t.act("a", "arrange", front=["9H", "QS"], back=["3D", "3C"])
    assert t.refusals()[-1] == ("a", "arrange", "not_now")
    t.act("a", "bet", amount=200)
    for acc in "bcd":
        t.act(acc, "call")
    t.act("a", "arrange", **fields)
    refused = t.of("action_refused")[-1]
    assert refused["reason"] == reason
    assert set(refused) == {"t", "type", "account", "action", "reason"}
    t.act("a", "arrange", front=["9H", "QS"], back=["3D", "3C"])
    t.act("a", "arrange", front=["9H", "QS"], back=["3D", "3C"])
    assert t.refusals()[-1] == ("a", "arrange", "already_arranged")
    arranged = [r for r in t.of("player_action") if r["action"] == "arrange"]
    assert len(arranged) == 1 and "front" not in arranged[0]


def test_an_unknown_action_is_bad_action_and_seat_actions_name_their_reasons() -> None:
    t = table()
    t.act("a", "double")
    t.act("zz", "leave")
    t.act("zz", "disconnect")
    t.act("a", "sit", seat="S9")
    t.act("b", "sit", seat="S2")
    t.act("e", "sit", seat="S1")
    assert t.refusals() == [
        ("a", "double", "bad_action"),
        ("zz", "leave", "not_seated"),
        ("zz", "disconnect", "not_seated"),
        ("a", "sit", "bad_seat"),
        ("b", "sit", "already_seated"),
        ("e", "sit", "seat_taken"),
    ]


def test_buy_in_refusals() -> None:
    t = table()
    t.at(1).open()
    t.act("a", "buy_in")
    t.act("zz", "buy_in")
    t.at(2).deal({**TIE, "S5": "4C 7H 8D TC"})  # S1 and S3 tie
    t.act("a", "bet", amount=500)
    for acc in "bcd":
        t.act(acc, "call")
    t.at(13)
    t.pause()
    t.act("d", "buy_in")
    t.resume()
    t.show()
    t.act("d", "decline")
    t.act("d", "buy_in")
    assert t.refusals() == [
        ("a", "buy_in", "not_now"),
        ("zz", "buy_in", "not_in_game"),
        ("d", "buy_in", "paused"),
        ("d", "buy_in", "no_right"),
    ]
