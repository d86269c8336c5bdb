"""The spec's letter where a reader could take it otherwise: staged traces, each naming the
PROCEDURE.md sentence it holds the table core to (written in a review against the spec;
each of these once failed and was fixed in the core)."""

from __future__ import annotations

from station.games.pokdeng.tools.script import PLAN, PokDengScript, hands_of
from tests.core.staging import R1, faults, of, run, started


# ---------------------------------------------------------------- order: the prefix rule
def test_order_when_a_zone_is_skipped(tmp_path):
    """§3 `order`: "the cards lying in the position zones are not what any prefix of the deal
    plan would leave there". P3's card never shows, P4's does: zones P1 P2 _ P4 is no prefix.
    Confidence: high (before the fix, the core: tolerates it as 'camera behind the shoe' and raises
    placement_timeout 5 s later instead)."""
    s = started()
    s.open_round().deal(R1[:3])
    s.card(R1[3]).wait(0.7)  # P3's card: the camera never sees it
    s.deal(R1[4:5], start=4).wait(1)  # P4's card seen in P4
    recs = run(s.end(), tmp_path)
    assert faults(recs)[:1] == ["order"]


def test_order_when_camera_reports_a_later_zone_first(tmp_path):
    """Same sentence: a frame with P1 P2 _ P4 is not a prefix, even if P3 shows 0.3 s later.
    Confidence: medium (docs/core.md and test_camera_behind_the_shoe_is_not_an_order_fault
    choose the opposite on purpose; the spec has no delay for `order`)."""
    s = started()
    s.open_round().deal(R1[:3])
    s.card(R1[3]).wait(0.1).card(R1[4]).wait(0.3)
    s.camera({"P4": ["??"]}).wait(0.3).camera({"P3": ["??"]}).wait(0.5)
    recs = run(s.end(), tmp_path)
    assert faults(recs)[:1] == ["order"]


# ---------------------------------------------------------------- placement_timeout
def test_placement_timeout_when_counts_differ_continuously(tmp_path):
    """§3 `placement_timeout`: "for more than 5 s the camera sees a different number of dealt
    cards in the position zones than the shoe has reported for them". Cards every 0.5 s, the
    camera 1.2 s behind each: the counts differ without a break for ~6.7 s.
    Confidence: medium-high (before the fix, the core: restarts the clock at each card the camera catches up
    on, so this never faults)."""
    s = started()
    s.open_round()
    pending: list[tuple[float, str]] = []
    first_read = None
    for k, c in enumerate(R1):
        s.card(c)
        if PLAN[k] != "BURN":
            first_read = first_read if first_read is not None else s.t
            pending.append((round(s.t + 1.2, 3), PLAN[k]))
        s.wait(0.5)
        while pending and pending[0][0] <= s.t + 1e-9:
            _, pos = pending.pop(0)
            s.camera({pos: [*s.zones[pos], "??"]})
    for due, pos in pending:
        s.wait(max(0.0, due - s.t)).camera({pos: [*s.zones[pos], "??"]})
    recs = run(s.end(), tmp_path)
    assert faults(recs) == ["placement_timeout"]
    assert of(recs, "fault")[0]["t"] >= first_read + 5.0  # stamped when its 5 s ran out


def test_short_difference_long_after_the_read_is_no_placement_timeout(tmp_path):
    """Same sentence: the dealer's hand hides B's second card for 1 s, 6 s after it was read.
    The numbers differ for 1 s, not more than 5 s: no fault.
    Confidence: high (before the fix, the core: measures from the read of the first unseen card, which is
    already 6 s old, and faults at once)."""
    s = started()
    s.open_round().deal(R1)
    s.wait(6.0).camera({"B": ["??"]}).wait(1.0).camera({"B": ["??", "??"]})
    s.until_closed().reveal(hands_of(R1)).clear_zones()
    recs = run(s.end(), tmp_path)
    assert faults(recs) == []
    assert len(of(recs, "hand")) == 1


def test_placement_exactly_five_seconds_is_no_fault(tmp_path):
    """"more than 5 s": a card seen exactly 5 s after its read is in time. (Passes today.)"""
    s = started()
    s.open_round().deal(R1[:3])
    s.card(R1[3]).wait(5.0).camera({"P3": ["??"]}).wait(0.3)
    s.deal(R1[4:], start=4).until_closed().reveal(hands_of(R1)).clear_zones()
    recs = run(s.end(), tmp_path)
    assert faults(recs) == [] and len(of(recs, "hand")) == 1


def test_reveal_confirmed_exactly_at_60_s_is_in_time(tmp_path):
    """"not confirmed by the camera within 60 s": confirmed at exactly +60 s is within.
    (Passes today.)"""
    s = started()
    s.open_round().deal(R1)
    s.until_closed()
    hands = hands_of(R1)
    close = s.opened_at + 15
    s.reveal({p: hands[p] for p in ("P1", "P2", "P3", "P4", "P5")})
    s.wait(close + 60 - s.t).camera({"B": hands["B"]}).wait(1)
    recs = run(s.clear_zones().end(), tmp_path)
    assert faults(recs) == [] and len(of(recs, "hand")) == 1


# ---------------------------------------------------------------- further faults while paused
def test_second_unread_card_while_paused_is_recorded(tmp_path):
    """§3: "While paused ... further faults are recorded." Two position cards unread one after
    the other (no resume between): two `unread_card` faults.
    Confidence: medium-low (before the fix, the core: drops a fault of a kind already active in the round;
    an independent core may do the same for level faults, less likely for per-card events)."""
    s = started()
    s.open_round().deal(R1[:3])
    s.card("??").wait(0.4).camera({"P3": ["??"]}).wait(0.3)
    s.card("??").wait(0.4).camera({"P4": ["??"]}).wait(0.3)
    recs = run(s.end(), tmp_path)
    assert faults(recs) == ["unread_card", "unread_card"]


def test_second_early_card_between_rounds_is_recorded(tmp_path):
    """Same sentence, for `early_card`: two cards drawn before open_betting. Confidence:
    medium-low (same dedup as above)."""
    s = started()
    s.card("9C").wait(1).card("9D").wait(1)
    recs = run(s.end(), tmp_path)
    assert faults(recs) == ["early_card", "early_card"]


# ---------------------------------------------------------------- camera_lost
def test_camera_lost_counts_from_the_last_observation(tmp_path):
    """§3 `camera_lost`: "no camera observation for 3 s while a round is open". The camera is
    silent from 2.5 s before open_betting until 2 s after: 4.5 s without an observation, the
    round open for the last 2. Confidence: low (ambiguous; before the fix, the core: starts the 3 s at
    open_betting)."""
    s = started()
    s.camera({}).wait(0.01)
    s.camera_alive = False
    s.wait(2.5).dealer("open_betting").wait(2.0)
    s.camera_alive = True
    s.camera({}).wait(0.5)
    recs = run(s.end(), tmp_path)
    assert faults(recs) == ["camera_lost"]


# ---------------------------------------------------------------- first card unread
def test_unread_first_card_burns_count_from_the_first_card(tmp_path):
    """§2.2: "The dealer then burns exactly N more cards face down." The first card is
    unreadable; the camera shows it (3D, N = 3) only after the first burn has left the shoe.
    After the 3 burns the table is between rounds and open_betting is accepted.
    Confidence: low-medium (the spec does not say how an unread first card is valued; our
    core counts burns drawn before the camera's read as negative and then asks for N more)."""
    s = PokDengScript()
    s.dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(1).shoe("LOAD").wait(1)
    s.card("??").wait(0.7)
    s.card("KC").wait(0.3).camera({"BURN": ["3D"]}).wait(0.4)
    s.card("KD").wait(0.7).card("KH").wait(0.7).camera({"BURN": []}).wait(1)
    s.full_round(R1)
    recs = run(s.end(), tmp_path)
    assert of(recs, "burn")[0]["count"] == 3
    assert of(recs, "action_refused") == []
    assert faults(recs) == [] and len(of(recs, "hand")) == 1


# ---------------------------------------------------------------- a reveal seen before the last read
def test_reveal_seen_before_the_last_read_is_confirmed_when_the_read_arrives(tmp_path):
    """§3: "a reveal may be seen before the last read. Compare a position only when both
    sources have spoken for it". B is revealed face up before the shoe's read of B's second
    card arrives (a delayed frame); the read comes 0.5 s later, the camera then only sends
    `{}`. B must be confirmed when the read arrives and the hand validated.
    Confidence: high (before the fix, the core: re-checks reveals only on a camera change, at betting close
    and on resume — table.py `_on_card` never calls `_check_reveals` — so B waits for the
    reveal_timeout 60 s later)."""
    s = started()
    s.open_round().deal(R1[:12])
    hands = hands_of(R1)
    s.wait(s.opened_at + 14.5 - s.t).camera({"B": ["??", "??"]})  # B's 2nd card, not yet read
    s.wait(s.opened_at + 15.1 - s.t)  # betting closed
    for p in ("P1", "P2", "P3", "P4", "P5", "B"):
        s.camera({p: hands[p]}).wait(0.5)  # B revealed at close + 2.6 s
    s.card(R1[12]).wait(2.0)  # the delayed read of B's second card, 3.6 s after the camera
    recs = run(s.end(), tmp_path)
    assert faults(recs) == []
    (hand,) = of(recs, "hand")
    assert hand["cards"] == hands


# ---------------------------------------------------------------- cancel for faults outside a round
def test_cancel_round_resolves_an_early_card_between_rounds(tmp_path):
    """§3 `early_card`: "supervisor may: resume (card set aside), cancel". After an early card
    between rounds, `cancel_round` is one of the two allowed decisions: the pause ends and
    the next round plays. Confidence: medium (what `cancel` records with no round open is not
    said; before the fix, the core: refuses it with 'no round in progress' and the table stays paused, so the
    rest of the trace diverges)."""
    s = started()
    s.card("9C").wait(1)  # before open_betting
    s.supervisor("cancel_round").wait(1)
    s.full_round(R1)
    recs = run(s.end(), tmp_path)
    assert faults(recs) == ["early_card"]
    assert len(of(recs, "hand")) == 1
