"""Defects found when the table core was reviewed against the spec, each staged as a trace.

Every test here failed on the core before the kernel split (it replays the same trace
through the kernel and reads the records, outbox messages and shoe commands it makes).
"""

from __future__ import annotations

from pathlib import Path

from station.core.inputs import read_trace
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.settlement.core import SettlementCore, SettlementRefused
from tests.core.staging import R1, faults, of, refused, run, started

ROUND = R1


def drive(path: Path, *, table: str | None = None, journal_id: str = "replay"):
    """Replay a trace through the kernel keeping everything it hands out: records, outbox
    messages, and the commands for the shoe (each with the time it was made)."""
    header, inputs = read_trace(path)
    settings = settings_from_header(header)
    if table is not None:
        settings = settings.with_overrides({"table": table})
    core = TableKernel(settings, journal_id=journal_id)
    records, messages, commands = [], [], []
    for inp in inputs:
        core.apply(inp)
        r, m, c = core.take_outputs()
        records += r
        messages += m
        commands += [(inp.t, cmd) for cmd in c]
    return core, records, messages, commands


def test_resend_is_asked_at_most_once_per_100_ms(tmp_path):
    """SHOE_PROTOCOL §4: frames ahead of a gap draw at most one RESEND per 100 ms (the core
    once passed microseconds where the sequencer counts seconds: every frame drew one)."""
    s = started()
    s.seq += 1  # frame seq+1 is lost on the wire: every frame after it is ahead of a gap
    for _ in range(30):  # 30 frames 10 ms apart: 0.3 s
        s.shoe("HB", "1")
        s.t = round(s.t + 0.01, 3)
    path = s.write(tmp_path / "trace.jsonl")
    _, _, _, commands = drive(path)
    resends = [t for t, c in commands if c[0] == "RESEND"]
    assert 1 <= len(resends) <= 4, resends
    assert all(b - a >= 0.1 - 1e-9 for a, b in zip(resends, resends[1:], strict=False))


def test_link_lost_for_a_shoe_silent_since_new_shoe(tmp_path):
    """PROCEDURE §3: the link timer runs from new_shoe even when the shoe never sent a frame."""
    s = started()
    s.lines.clear()  # not even the HELLO: the shoe is dead from the start
    s.t = 0.0
    s.link_silent = True
    s.wallet("u1", 1000).dealer("new_shoe").wait(5).end()
    recs = run(s, tmp_path)
    assert faults(recs) == ["link_lost"]
    assert of(recs, "fault")[0]["t"] == 3.0  # 3 s after new_shoe


def _round_with_link_down():
    s = started()
    s.open_round().bet("u1", "P1", 100)
    s.deal(ROUND[:4])
    s.link_silent = True
    s.wait(4)  # more than 3 s without a frame: link_lost
    return s


def test_cancel_with_the_link_still_down_keeps_the_table_paused(tmp_path):
    s = _round_with_link_down()
    s.supervisor("cancel_round").wait(1)
    s.dealer("open_betting").wait(1)  # refused: still paused on link_lost
    s.supervisor("resume").wait(1)  # refused: the link is still down
    s.link_silent = False
    s.shoe("HB", "1").wait(0.5)
    s.camera({p: [] for p in ("P1", "P2", "P3", "P4", "P5", "B")}).wait(0.5)
    s.supervisor("resume").wait(0.5)
    s.dealer("open_betting").wait(1).end()
    recs = run(s, tmp_path)
    assert faults(recs) == ["link_lost"]
    cancelled = of(recs, "round_cancelled")
    assert len(cancelled) == 1 and cancelled[0]["reason"] == "link_lost"
    assert [r["reason"] for r in refused(recs, "open_betting")] == ["paused"]
    assert "link_lost" in refused(recs, "resume")[0]["reason"]
    assert len(of(recs, "resumed")) == 1
    opens = of(recs, "round_open")
    assert len(opens) == 2 and opens[1]["t"] > of(recs, "resumed")[0]["t"]


def test_end_shoe_and_close_with_the_link_down_keep_the_table_paused(tmp_path):
    s = started()
    s.link_silent = True
    s.wait(4)  # between rounds: link_lost
    s.supervisor("end_shoe").wait(1)
    s.dealer("new_shoe").wait(1)  # refused: paused on link_lost
    s.supervisor("close_table").wait(1)
    s.supervisor("resume").wait(1)  # refused: the link is still down
    s.link_silent = False
    s.shoe("HB", "1").wait(0.5)
    s.supervisor("resume").wait(0.5)
    s.dealer("new_shoe").wait(1).end()
    recs = run(s, tmp_path)
    assert faults(recs) == ["link_lost"]
    assert len(of(recs, "shoe_end")) == 1
    assert [r["reason"] for r in refused(recs, "new_shoe")] == [
        "paused: the supervisor must decide first"]
    assert "link_lost" in refused(recs, "resume")[0]["reason"]
    assert [r["shoe"] for r in of(recs, "shoe_start")] == [1, 2]


def test_burns_beyond_the_count_while_the_first_card_waits_for_the_camera(tmp_path):
    """An unread first card waits for the camera to name the burn count; burns drawn beyond
    that count came out when no card was due: early_card, not silently absorbed."""
    s = started(camera=True)
    s.lines.clear()
    s.t = 0.0
    s.hello("5EED0001")
    s.wallet("u1", 1000)
    s.dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(1).shoe("LOAD").wait(1)
    s.card("??").wait(0.5)  # the first card: unread
    for c in ("KC", "KD", "KH", "KS"):  # 4 burns drawn; the first card will name 2
        s.card(c).wait(0.7)
    s.camera({"BURN": ["2D"]}).wait(1).end()
    recs = run(s, tmp_path)
    assert of(recs, "burn")[0]["count"] == 2
    assert faults(recs) == ["early_card", "early_card"]


def test_cancel_between_rounds_makes_the_checks_of_resume(tmp_path):
    """burn_count outside a round: cancel is refused while the card still lies in a position
    zone, as resume is; once the zone is clear, the pause ends."""
    s = started()
    s.lines.clear()
    s.t = 0.0
    s.hello("5EED0001")
    s.dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(1).shoe("LOAD").wait(1)
    s.card("3D").wait(0.4).camera({"BURN": ["3D"]}).wait(1)
    s.card("KC").wait(0.4).camera({"P1": ["??"]}).wait(1)  # a burn card dealt into P1
    s.supervisor("cancel_round").wait(1)  # refused: P1 still holds it
    s.camera({"P1": []}).wait(1)
    s.supervisor("cancel_round").wait(1).end()
    recs = run(s, tmp_path)
    assert faults(recs) == ["burn_count"]
    assert len(refused(recs, "cancel_round")) == 1
    assert "burn_count" in refused(recs, "cancel_round")[0]["reason"]
    assert len(of(recs, "resumed")) == 1


def test_cancel_of_a_foreign_card_in_the_burn_ends_the_shoe(tmp_path):
    """foreign_card (cancel only) between rounds: the shoe cannot go on; play does not."""
    s = started()
    s.lines.clear()
    s.t = 0.0
    s.hello("5EED0001")
    s.dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(1).shoe("LOAD").wait(1)
    s.card("3D", "1-0001").wait(0.4).camera({"BURN": ["3D"]}).wait(1)
    s.card("KC", "1-0001").wait(1)  # the same printed code again: a foreign card
    s.supervisor("cancel_round").wait(1)
    s.dealer("open_betting").wait(1).end()
    recs = run(s, tmp_path)
    assert faults(recs) == ["foreign_card"]
    assert len(of(recs, "shoe_end")) == 1
    assert not of(recs, "round_open")
    assert refused(recs, "open_betting")


def test_two_tables_and_a_new_journal_share_one_ledger(tmp_path):
    """Outbox keys carry the table and the journal: two tables, and the same table with a
    new journal, settle into one ledger without a key colliding."""
    s = started()
    s.full_round(ROUND, [("u1", "P1", 100)]).end()
    path = s.write(tmp_path / "trace.jsonl")
    ledger = SettlementCore(tmp_path / "ledger.sqlite")
    applied = 0
    try:
        for table, journal in (("PD-01", "j1"), ("PD-02", "j1"), ("PD-01", "j2")):
            _, _, messages, _ = drive(path, table=table, journal_id=journal)
            assert all(m["key"].startswith(f"{table}/{journal}/") for m in messages)
            for m in messages:
                try:
                    ledger.apply(m)
                except SettlementRefused as e:  # pragma: no cover - the defect
                    raise AssertionError(f"{m['key']}: {e}") from None
                applied += 1
        with ledger.store.transaction(read_only=True) as tx:
            keys = {k for (k,) in tx.execute("SELECT key FROM entries")}
        assert len(keys) == applied
    finally:
        ledger.close()


def test_the_gate_locks_once_the_round_has_all_its_cards(tmp_path):
    """SHOE_PROTOCOL §6: the gate is locked whenever no card is due — also after the
    round's 13th card while betting is still open (the next card would be extra_card)."""
    s = started()
    s.open_round().deal(ROUND).wait(1)
    path = s.write(tmp_path / "trace.jsonl")
    core, records, _, commands = drive(path)
    assert core.state == "betting"
    gates = [c[0] for _, c in commands if c[0] in ("LOCK", "UNLOCK")]
    assert gates[-1] == "LOCK", gates
    assert not of(records, "betting_closed")


def test_a_card_from_the_shoe_of_a_closed_table_pauses_it(tmp_path):
    """PROCEDURE §3: a fault pauses the table at once — a closed one too (early_card after
    the shoe ended); the fault does not linger into the next shoe."""
    s = started()
    s.supervisor("close_table").wait(1)
    s.card("5H").wait(1)
    s.dealer("new_shoe").wait(1)  # refused: paused on the early card
    s.supervisor("resume").wait(1)
    s.dealer("new_shoe").wait(1).end()
    path = s.write(tmp_path / "trace.jsonl")
    core, recs, _, _ = drive(path)
    assert faults(recs) == ["early_card"]
    assert [r["reason"] for r in refused(recs, "new_shoe")] == [
        "paused: the supervisor must decide first"]
    assert [r["shoe"] for r in of(recs, "shoe_start")] == [1, 2]
    assert core.state == "shuffling" and core.faults == []


def test_degraded_unread_first_card_is_cancelled_and_ends_the_shoe(tmp_path):
    """Without a camera nothing can name an unread first card: cancel ends the shoe."""
    s = started(camera=False)
    s.lines.clear()
    s.t = 0.0
    s.hello("5EED0001")
    s.dealer("new_shoe").wait(1).supervisor("confirm_shuffle").wait(1).shoe("LOAD").wait(1)
    s.card("??").wait(1)
    s.supervisor("resume").wait(1)  # refused: only cancel clears it
    s.supervisor("cancel_round").wait(1)
    s.dealer("new_shoe").wait(1).end()
    recs = run(s, tmp_path)
    assert faults(recs) == ["unread_card"]
    assert "can only be cancelled" in refused(recs, "resume")[0]["reason"]
    assert not refused(recs, "cancel_round")
    assert [r["shoe"] for r in of(recs, "shoe_start")] == [1, 2]
    assert len(of(recs, "shoe_end")) == 1
