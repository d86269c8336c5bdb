"""Staged Pai Gow traces through the kernel: a clean shuffle, the dice's refusals and
mismatch, the bet limits, and the fault kinds of PROCEDURE.md §6.4."""

from __future__ import annotations

from tests.paigow.paigow_script import ROUND, ROUND2, faults, of, run, staged


def test_a_clean_shuffle_two_rounds_then_the_shoe_ends(tmp_path) -> None:
    s = staged().round(ROUND, bets=[("u1", "SHUN_WIN", 1000)]).round(ROUND2, dice=(2, 1))
    s.dealer("open_betting").end()
    rec = run(s, tmp_path)
    assert faults(rec) == []
    hands = of(rec, "hand")
    assert [h["round_id"] for h in hands] == ["WZ-01-S1-R1", "WZ-01-S1-R2"]
    assert [h["last_round"] for h in hands] == [False, True]
    assert hands[0]["first_door"] == "DAO" and hands[1]["first_door"] == "CHU"
    # dealt from DAO: DAO BANKER SHUN CHU twice
    assert hands[0]["cards"] == {"DAO": ["QH", "TC"], "BANKER": ["2H", "6C"], "SHUN": ["8H", "4C"],
                                 "CHU": ["4H", "JH"]}
    assert of(rec, "shoe_end") == [{**of(rec, "shoe_end")[0], "shoe": 1, "rounds": 2, "cards_out": 16}]
    assert [r["reason"] for r in of(rec, "action_refused") if r["action"] == "open_betting"]
    assert of(rec, "balances")[-1]["accounts"]["u1"] in (99_000, 100_990)


def test_dice_refusals(tmp_path) -> None:
    s = staged()
    s.dice([3, 4]).wait(0.5)  # no round
    s.open_round().dice([3, 4]).wait(0.5)  # betting open
    s.until_closed().dice([0, 7]).wait(0.2).dice([3]).wait(0.2).dice(["3", 4]).wait(0.2)
    s.tray([3, 4]).wait(0.5).dice([4, 3]).wait(0.5)  # known (as a multiset)
    s.dice([3, 4]).wait(0.5)  # dice known
    s.end()
    rec = run(s, tmp_path)
    reasons = [r["reason"] for r in of(rec, "action_refused") if r["action"] == "dice"]
    assert reasons == ["no_round", "betting_open", "bad_dice", "bad_dice", "bad_dice", "dice_known"]
    assert [(d["dice"], d["first_door"]) for d in of(rec, "dice")] == [([4, 3], "CHU")]
    assert faults(rec) == []


def test_faces_seen_before_the_close_do_not_count_and_a_mismatch_pauses_at_5_s(tmp_path) -> None:
    s = staged().open_round()
    s.tray([2, 2]).until_closed()  # seen while betting was open: does not count
    s.wait(1).dice([2, 2]).wait(4.9)
    s.wait(0.3)  # 5 s after the entry, the tray still shows nothing counted
    s.tray([2, 5]).wait(1).dice([2, 5]).wait(1)
    s.supervisor("resume").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["dice_mismatch"]
    assert [d["dice"] for d in of(rec, "dice")] == [[2, 5]]
    assert [r["round_id"] for r in of(rec, "resumed")] == ["WZ-01-S1-R1"]


def test_bets_conflict_before_limit_and_no_round_after_the_shoe(tmp_path) -> None:
    s = staged(settings={"betting_seconds": 15, "max_bet": 500}).open_round()
    s.bet("u1", "SHUN_LOSE", 100).bet("u1", "CHU_LOSE", 100000).bet("u1", "SHUN_WIN", 5)
    s.bet("u1", "CHU_WIN", 600).bet("u1", "DAO_WIN", 10).bet("u1", "BANKER_WIN", 10).bet("u1", "DAO_WIN", 0)
    s.end()
    rec = run(s, tmp_path)
    got = [(r["spot"], r["reason"]) for r in of(rec, "bet_rejected")]
    assert got == [("CHU_LOSE", "conflict"), ("SHUN_WIN", "conflict"), ("CHU_WIN", "limit"),
                   ("BANKER_WIN", "bad_spot"), ("DAO_WIN", "bad_amount")]
    assert [b["spot"] for b in of(rec, "bet_accepted")] == ["SHUN_LOSE", "DAO_WIN"]


def test_a_card_before_the_dice_are_known_is_early(tmp_path) -> None:
    s = staged().open_round().until_closed().card("QH").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["early_card"]


def test_a_ninth_card_is_extra(tmp_path) -> None:
    s = staged().open_round().until_closed().throw((4, 4))
    s.deal8([*ROUND, "9H"], (4, 4), shown={7: "XX"}).end()  # the last door not yet confirmed
    assert "extra_card" in faults(run(s, tmp_path))


def test_a_cut_card_or_a_card_twice_or_outside_the_deck_is_foreign(tmp_path) -> None:
    for cards in (["CUT"], ["QH", "QH"], ["KS"]):
        s = staged().open_round().until_closed().throw((4, 4))
        for c in cards:
            s.card(c).wait(0.7)
        s.end()
        assert faults(run(s, tmp_path)).count("foreign_card") == 1, cards


def test_an_unread_card_is_unread_card(tmp_path) -> None:
    s = staged().open_round().until_closed().throw((4, 4)).card("??").wait(1).end()
    assert faults(run(s, tmp_path)) == ["unread_card"]


def test_a_card_on_the_wrong_door_is_order_and_a_wrong_identity_is_card_mismatch(tmp_path) -> None:
    s = staged().open_round().until_closed().throw((4, 4))
    s.deal8(ROUND[:1], (4, 4), place={0: "SHUN"}).end()
    assert faults(run(s, tmp_path)) == ["order"]
    s = staged().open_round().until_closed().throw((4, 4))
    s.deal8(ROUND, (4, 4), shown={4: "9D"}).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["card_mismatch"] and of(rec, "hand") == []


def test_placement_and_reveal_timeouts(tmp_path) -> None:
    s = staged().open_round().until_closed().throw((4, 4))
    s.camera_on = False  # the camera goes on reporting nothing new
    s.deal8(ROUND[:1], (4, 4))
    s.camera_on = True
    s.wait(6).end()
    assert faults(run(s, tmp_path)) == ["placement_timeout"]
    s = staged().open_round().until_closed().throw((4, 4))
    s.deal8(ROUND, (4, 4), shown={7: "XX"}).wait(61).end()
    assert faults(run(s, tmp_path)) == ["reveal_timeout"]


def test_cancel_refunds_in_full_and_round_2_cancelled_ends_the_shoe(tmp_path) -> None:
    s = staged().round(ROUND).open_round().bet("u1", "DAO_WIN", 700).until_closed()
    s.card("QD").wait(1).supervisor("cancel_round").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["early_card"]
    [c] = of(rec, "round_cancelled")
    assert c["round_id"] == "WZ-01-S1-R2" and c["refunds"][0]["returned"] == 700
    assert [(e["rounds"], e["cards_out"]) for e in of(rec, "shoe_end")] == [(2, 9)]
    assert of(rec, "balances")[-1]["accounts"]["u1"] == 100_000


def test_degraded_the_entry_alone_makes_the_dice_known(tmp_path) -> None:
    s = staged(camera=False).open_round().until_closed().throw((6, 6)).deal8(ROUND, (6, 6)).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == []
    [h] = of(rec, "hand")
    assert h["validated_by"] == ["shoe"] and h["first_door"] == "DAO"


def test_the_same_faces_thrown_again_after_the_close_count(tmp_path) -> None:
    s = staged().open_round().tray([3, 3]).until_closed()
    s.tray([]).wait(1).tray([3, 3]).wait(0.5).dice([3, 3]).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == [] and [d["dice"] for d in of(rec, "dice")] == [[3, 3]]


def test_the_same_faces_reported_again_after_the_close_count(tmp_path) -> None:
    # the tray showed [4, 4] while betting was open; the throw after the close lands on the
    # same faces and the camera reports DICE again: that observation counts (§6.2.4)
    s = staged().open_round()
    s.tray([4, 4]).until_closed().wait(0.5).tray([4, 4]).wait(0.5).dice([4, 4]).wait(6).end()
    rec = run(s, tmp_path)
    assert faults(rec) == []
    assert [(d["dice"], d["first_door"]) for d in of(rec, "dice")] == [([4, 4], "DAO")]


def test_a_mismatch_names_what_the_tray_showed(tmp_path) -> None:
    s = staged().open_round()
    s.tray([4, 4]).until_closed().wait(0.5).dice([4, 4]).wait(5.5).end()  # heartbeats only
    s2 = staged().open_round().until_closed().wait(0.5).tray([2, 3]).dice([4, 4]).wait(5.5).end()
    for i in (0, 1):
        (tmp_path / str(i)).mkdir()
    details = [of(run(x, tmp_path / str(i)), "fault") for i, x in enumerate((s, s2))]
    assert [[f["kind"] for f in d] for d in details] == [["dice_mismatch"], ["dice_mismatch"]]
    assert "no DICE since the close" in details[0][0]["detail"]
    assert details[1][0]["detail"].endswith("the tray shows [2, 3]")


def test_dice_mismatch_is_at_5_s_not_after(tmp_path) -> None:
    # an agreeing observation exactly 5 s after the entry comes too late; 4.9 s is in time
    def staged_at(seconds: float):
        s = staged().open_round().until_closed().wait(0.5).dice([3, 5]).wait(seconds)
        return s.tray([3, 5]).wait(1).end()
    for x in (5.0, 4.9):
        (tmp_path / str(x)).mkdir()
    late, in_time = (run(staged_at(x), tmp_path / str(x)) for x in (5.0, 4.9))
    assert faults(late) == ["dice_mismatch"]
    assert faults(in_time) == []
    fault = of(late, "fault")[0]
    entry = [r for r in late if r["type"] == "dice"]
    assert entry and entry[0]["t"] == fault["t"]  # known at the same instant, after the fault
