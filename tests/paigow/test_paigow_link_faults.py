"""Staged Pai Gow traces for the fault kinds of PROCEDURE.md §6.4 that come from the devices
(the shoe's link, its hardware, its reboot, its end; the camera) and for the supervisor's
decisions on them: what resume and cancel do, and what they refuse while a condition holds."""

from __future__ import annotations

from tests.paigow.paigow_script import ROUND, ROUND2, faults, of, run, staged


def refused(records: list[dict], action: str) -> list[dict]:
    return [r for r in of(records, "action_refused") if r["action"] == action]


def dealing(**kw):
    """A shuffle, round 1 open with a bet, closed, the dice 4+4 known (plan from DAO)."""
    s = staged(**kw).open_round().bet("u1", "SHUN_WIN", 1000).wait(0.1)
    return s.until_closed().throw((4, 4))


def test_link_lost_mid_deal_resume_refused_until_the_link_is_back(tmp_path) -> None:
    s = dealing().deal8(ROUND[:3], (4, 4))
    s.link_silent = True
    s.wait(3.5).supervisor("resume").wait(0.5)  # link still down: refused
    s.link_silent = False
    s.shoe("HB", "1").wait(0.5).supervisor("resume").wait(0.5)
    s.deal8(ROUND[3:], (4, 4), start=3).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["link_lost"]
    assert of(rec, "fault")[0]["round_id"] == "WZ-01-S1-R1"
    assert "link" in refused(rec, "resume")[0]["reason"]
    assert [r["round_id"] for r in of(rec, "resumed")] == ["WZ-01-S1-R1"]
    [h] = of(rec, "hand")
    assert h["validated_by"] == ["shoe", "camera"]


def test_link_lost_at_exactly_3_s_is_no_fault_but_more_is(tmp_path) -> None:
    # a timeout fires once more than its time has passed (§3): the HB at 3.0 s keeps the link
    s = dealing()
    s.link_silent = True
    s.wait(2.999)
    s.link_silent = False
    s.shoe("HB", "1").wait(1).end()
    assert faults(run(s, tmp_path)) == []


def test_reads_that_arrive_after_the_link_is_back_still_count(tmp_path) -> None:
    # the dealer deals while the link is down; the shoe's frames come when it is back
    s = dealing()
    s.link_silent = True
    s.wait(3.5)
    held = []
    for c in ROUND[:2]:
        held.append(c)
    s.link_silent = False
    for c in held:
        s.card(c)
    s.wait(0.2).supervisor("resume").wait(0.3)
    s.camera({"DAO": [ROUND[0]], "BANKER": [ROUND[1]]}).wait(0.5)
    s.deal8(ROUND[2:], (4, 4), start=2).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["link_lost"]
    assert len(of(rec, "hand")) == 1


def test_cancel_with_the_link_still_down_keeps_the_table_paused(tmp_path) -> None:
    s = dealing().deal8(ROUND[:2], (4, 4))
    s.link_silent = True
    s.wait(3.5).supervisor("cancel_round").wait(0.5)
    s.clear().dealer("open_betting").wait(0.5)  # refused: still paused on the link
    s.link_silent = False
    s.shoe("HB", "1").wait(0.5).supervisor("resume").wait(0.5)
    s.dealer("open_betting").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["link_lost"]
    [c] = of(rec, "round_cancelled")
    assert c["reason"] == "link_lost" and c["refunds"][0]["returned"] == 1000
    assert refused(rec, "open_betting")
    assert [r["round_id"] for r in of(rec, "round_open")] == ["WZ-01-S1-R1", "WZ-01-S1-R2"]


def test_device_fault_resumes_only_when_cleared(tmp_path) -> None:
    s = dealing().deal8(ROUND[:4], (4, 4))
    s.shoe("FAULT", "JAM").wait(1).supervisor("resume").wait(1)
    s.shoe("CLEAR", "JAM").wait(0.5).supervisor("resume").wait(0.5)
    s.deal8(ROUND[4:], (4, 4), start=4).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["device_fault"]
    assert "JAM" in refused(rec, "resume")[0]["reason"]
    assert len(of(rec, "hand")) == 1 and len(of(rec, "settlement")) == 1


def test_device_fault_cancelled_refunds_in_full(tmp_path) -> None:
    s = dealing().deal8(ROUND[:4], (4, 4))
    s.shoe("FAULT", "LID_OPEN").wait(0.5).shoe("CLEAR", "LID_OPEN").wait(0.5)
    s.supervisor("cancel_round").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["device_fault"]
    [c] = of(rec, "round_cancelled")
    assert c["reason"] == "device_fault" and c["refunds"][0]["returned"] == 1000
    assert of(rec, "balances")[-1]["accounts"]["u1"] == 100_000


def test_shoe_rebooted_between_the_two_rounds_keeps_the_shuffle(tmp_path) -> None:
    """§6.3: after resume the next round opens without a new LOAD or confirm_shuffle, and
    reads before the reboot still count for second reads."""
    s = staged().round(ROUND, bets=[("u1", "CHU_WIN", 500)])
    s.hello("5EED0002").wait(1)
    s.dealer("open_betting").wait(0.5)  # refused: paused
    s.supervisor("resume").wait(1)
    s.round(ROUND2, dice=(2, 1))
    s.dealer("open_betting").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["shoe_rebooted"]
    assert of(rec, "fault")[0]["round_id"] is None
    assert [r["round_id"] for r in of(rec, "resumed")] == [None]
    assert [h["round_id"] for h in of(rec, "hand")] == ["WZ-01-S1-R1", "WZ-01-S1-R2"]
    assert [(e["shoe"], e["rounds"], e["cards_out"]) for e in of(rec, "shoe_end")] == [(1, 2, 16)]
    assert of(rec, "shoe_start") == [of(rec, "shoe_start")[0]]


def test_after_a_reboot_between_rounds_a_card_read_before_it_is_a_second_read(tmp_path) -> None:
    s = staged().round(ROUND).hello("5EED0002").wait(1).supervisor("resume").wait(1)
    s.open_round().until_closed().throw((4, 4))
    s.card(ROUND[0]).wait(1).end()  # QH again: it left the shoe in round 1
    rec = run(s, tmp_path)
    assert faults(rec) == ["shoe_rebooted", "foreign_card"]


def test_shoe_rebooted_inside_a_round_is_cancel_only(tmp_path) -> None:
    s = dealing().deal8(ROUND[:3], (4, 4)).hello("5EED0002").wait(1)
    s.supervisor("resume").wait(1).supervisor("cancel_round").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["shoe_rebooted"]
    assert of(rec, "fault")[0]["round_id"] == "WZ-01-S1-R1"
    assert refused(rec, "resume")
    [c] = of(rec, "round_cancelled")
    assert c["reason"] == "shoe_rebooted" and c["refunds"][0]["returned"] == 1000


def test_a_repeated_hello_with_the_same_boot_id_is_no_reboot(tmp_path) -> None:
    s = staged()
    s.shoe_bytes(s.lines[0]["shoe"].encode("latin-1")).wait(1)
    s.round(ROUND).end()
    rec = run(s, tmp_path)
    assert faults(rec) == [] and len(of(rec, "hand")) == 1


def test_camera_lost_while_a_round_is_open(tmp_path) -> None:
    s = dealing().deal8(ROUND[:2], (4, 4))
    s.camera_alive = False
    s.wait(3.5).supervisor("resume").wait(0.2)  # refused: no frames yet
    s.camera_alive = True
    s.camera({}).supervisor("resume").wait(0.2)
    s.deal8(ROUND[2:], (4, 4), start=2).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["camera_lost"]
    assert "camera" in refused(rec, "resume")[0]["reason"]
    assert len(of(rec, "resumed")) == 1 and len(of(rec, "hand")) == 1


def test_camera_lost_in_betting_too_but_not_between_rounds(tmp_path) -> None:
    s = staged().open_round()
    s.camera_alive = False
    s.wait(3.5)
    s.camera_alive = True
    s.camera({}).wait(0.5).supervisor("cancel_round").wait(0.5)
    s.camera_alive = False
    s.wait(5)  # no round open: no fault
    s.camera_alive = True
    s.camera({}).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["camera_lost"]
    assert [c["reason"] for c in of(rec, "round_cancelled")] == ["camera_lost"]


def test_camera_lost_is_off_in_degraded_mode(tmp_path) -> None:
    s = staged(camera=False).open_round().until_closed().throw((4, 4))
    s.wait(5).deal8(ROUND, (4, 4)).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == [] and len(of(rec, "hand")) == 1


def test_shoe_exhausted_is_cancel_only_and_ends_the_shuffle(tmp_path) -> None:
    s = dealing().deal8(ROUND[:5], (4, 4)).shoe("EMPTY").wait(1)
    s.supervisor("resume").wait(1).supervisor("cancel_round").wait(1)
    s.clear().dealer("open_betting").wait(0.5).dealer("new_shoe").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["shoe_exhausted"]
    assert "can only be cancelled" in refused(rec, "resume")[0]["reason"]
    [c] = of(rec, "round_cancelled")
    assert c["reason"] == "shoe_exhausted" and c["refunds"][0]["returned"] == 1000
    assert [(e["shoe"], e["rounds"], e["cards_out"]) for e in of(rec, "shoe_end")] == [(1, 1, 5)]
    assert refused(rec, "open_betting")  # the shuffle ended with its round
    assert [r["shoe"] for r in of(rec, "shoe_start")] == [1, 2]


def test_empty_when_no_card_is_due_is_no_fault(tmp_path) -> None:
    s = staged().round(ROUND).shoe("EMPTY").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == []


def test_early_card_between_rounds_resumed_is_set_aside_and_counted(tmp_path) -> None:
    s = staged().round(ROUND).card("9H").wait(0.5).supervisor("resume").wait(0.5)
    s.round(ROUND2, dice=(2, 1)).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["early_card"] and of(rec, "fault")[0]["round_id"] is None
    assert len(of(rec, "hand")) == 2
    assert [(e["rounds"], e["cards_out"]) for e in of(rec, "shoe_end")] == [(2, 17)]


def test_early_card_after_the_shoe_ended_and_before_the_shuffle_check(tmp_path) -> None:
    s = staged().round(ROUND).round(ROUND2, dice=(2, 1))
    s.card("9H").wait(0.5).supervisor("resume").wait(0.5)  # after the shoe ended
    s.dealer("new_shoe").wait(0.5).card("9D").wait(0.5).end()  # before confirm_shuffle
    rec = run(s, tmp_path)
    assert faults(rec) == ["early_card", "early_card"]


def test_unread_card_resumed_is_taken_from_the_camera_single_source(tmp_path) -> None:
    s = dealing().deal8(ROUND[:1], (4, 4))
    s.card("??").wait(0.4).camera({"BANKER": [ROUND[1]]}).wait(0.5)
    s.supervisor("resume").wait(0.5)
    s.deal8(ROUND[2:], (4, 4), start=2).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["unread_card"]
    [h] = of(rec, "hand")
    assert h["cards"]["BANKER"] == [ROUND[1], ROUND[5]]
    assert len(of(rec, "settlement")) == 1


def test_unread_card_in_degraded_mode_may_only_be_cancelled(tmp_path) -> None:
    s = dealing(camera=False).card("??").wait(0.5).supervisor("resume").wait(0.5)
    s.supervisor("cancel_round").wait(0.5).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["unread_card"]
    assert refused(rec, "resume")
    assert [c["reason"] for c in of(rec, "round_cancelled")] == ["unread_card"]


def test_order_resumed_after_the_card_is_moved(tmp_path) -> None:
    s = dealing().deal8(ROUND[:1], (4, 4), place={0: "SHUN"})
    s.supervisor("resume").wait(0.5)  # refused: still on the wrong door
    s.camera({"SHUN": [], "DAO": [ROUND[0]]}).wait(0.5).supervisor("resume").wait(0.5)
    s.deal8(ROUND[1:], (4, 4), start=1).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["order"]
    assert refused(rec, "resume") and len(of(rec, "hand")) == 1


def test_card_mismatch_resumed_once_the_camera_sees_it_right(tmp_path) -> None:
    s = dealing().deal8(ROUND, (4, 4), shown={4: "9D"}).wait(0.5)
    s.supervisor("resume").wait(0.5)  # refused: the camera still disagrees
    s.camera({"DAO": [ROUND[0], ROUND[4]]}).wait(0.5).supervisor("resume").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["card_mismatch"]
    assert refused(rec, "resume") and len(of(rec, "hand")) == 1


def test_extra_and_foreign_cards_are_cancel_only(tmp_path) -> None:
    s = dealing().card("KS").wait(0.5).supervisor("resume").wait(0.5)
    s.supervisor("cancel_round").wait(0.5).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["foreign_card"]
    assert "can only be cancelled" in refused(rec, "resume")[0]["reason"]
    assert [c["reason"] for c in of(rec, "round_cancelled")] == ["foreign_card"]


def test_close_table_between_rounds_ends_the_shuffle(tmp_path) -> None:
    s = staged().round(ROUND).supervisor("close_table").wait(0.5)
    s.dealer("open_betting").wait(0.5).dealer("new_shoe").wait(0.5).end()
    rec = run(s, tmp_path)
    assert [(e["rounds"], e["cards_out"]) for e in of(rec, "shoe_end")] == [(1, 8)]
    assert refused(rec, "open_betting")
    assert [r["shoe"] for r in of(rec, "shoe_start")] == [1, 2]


def test_end_shoe_between_rounds_then_a_new_shuffle(tmp_path) -> None:
    s = staged().round(ROUND).supervisor("end_shoe").wait(0.5)
    s.start_shuffle().round(ROUND, dice=(2, 1)).end()  # the same cards: a new shuffle
    rec = run(s, tmp_path)
    assert faults(rec) == []
    assert [h["round_id"] for h in of(rec, "hand")] == ["WZ-01-S1-R1", "WZ-01-S2-R1"]
    assert [(e["shoe"], e["rounds"], e["cards_out"]) for e in of(rec, "shoe_end")] == [(1, 1, 8)]


def test_empty_between_the_rounds_ends_the_shuffle(tmp_path) -> None:
    s = staged().round(ROUND).shoe("EMPTY").wait(1).dealer("open_betting").wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == []
    assert [(e["rounds"], e["cards_out"]) for e in of(rec, "shoe_end")] == [(1, 8)]
    assert refused(rec, "open_betting")


def test_empty_in_betting_is_shoe_exhausted(tmp_path) -> None:
    s = staged().open_round().shoe("EMPTY").wait(1).end()
    assert faults(run(s, tmp_path)) == ["shoe_exhausted"]


def test_reveal_timeout_resumed_restarts_its_clock_and_the_door_confirmed_then_validates(tmp_path) -> None:
    s = dealing().deal8(ROUND, (4, 4), shown={7: "XX"}).wait(61)  # CHU's 2nd card unreadable
    s.supervisor("resume").wait(30)  # taken while the door is still unconfirmed; clock restarts
    s.camera({"CHU": [ROUND[3], ROUND[7]]}).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["reveal_timeout"]
    assert [r["round_id"] for r in of(rec, "resumed")] == ["WZ-01-S1-R1"]
    assert len(of(rec, "hand")) == 1


def test_placement_timeout_resumed_then_the_card_shows(tmp_path) -> None:
    s = dealing()
    s.camera_on = False
    s.deal8(ROUND[:1], (4, 4))
    s.camera_on = True
    s.wait(6).supervisor("resume").wait(2)  # resumed while the difference persists
    s.camera({"DAO": [ROUND[0]]}).wait(0.5)
    s.deal8(ROUND[1:], (4, 4), start=1).wait(1).end()
    rec = run(s, tmp_path)
    assert faults(rec) == ["placement_timeout"]
    assert len(of(rec, "resumed")) == 1 and len(of(rec, "hand")) == 1
