"""The journal's hash chain and its signed checkpoints, as a live station writes them: every
N entries, at each round's end and at an orderly stop; each one delivered to the ledger, which
keeps the newest; a journal from before the chain chained once with its old part marked; an
exported trace naming the chain head it ends at, and `station replay` saying whether it
matches."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from station.cli import main as station_main
from station.core import chain
from station.core.inputs import US, read_trace
from station.core.journal import Journal, JournalError
from station.core.replay import settings_from_header
from station.core.verify import LedgerCheckpoint, verify
from station.live.table_station import TableStation
from station.settlement.core import SettlementCore, SettlementRefused
from station.settlement.outbox import DeliveryWorker
from station.settlement.transport import InProcessTransport

DATA = Path(__file__).parents[1] / "data"
TRACE = DATA / "traces" / "clean_shoe" / "trace.jsonl"
OLD = DATA / "journals" / "pokdeng_before_kernel.sqlite"
KEY = b"0123456789abcdef0123456789abcdef"


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


def _run_shoe(path: Path, *, every: int = 100, stop: bool = True) -> TableStation:
    header, inputs = read_trace(TRACE)
    clk = Clock()
    st = TableStation(settings_from_header(header), path, clock=clk, journal_sync="normal",
                      signing_key=KEY, checkpoint_every=every)
    st.start()
    for inp in inputs:
        if inp.kind == "end":
            break
        clk.t = 1000.0 + inp.t_us / US
        st.submit(inp.kind, inp.value, inp.user)
    if stop:
        st.stop()
    return st


def _rows(path: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_checkpoints_every_n_entries_at_each_round_end_and_at_stop(tmp_path):
    path = tmp_path / "journal.sqlite"
    _run_shoe(path, every=100)
    cps = _rows(path, "SELECT seq, why FROM checkpoints ORDER BY seq")
    (last,), = _rows(path, "SELECT MAX(seq) FROM inputs")
    whys = [w for _, w in cps]
    assert cps[0] == (0, "genesis")
    assert cps[-1][0] == last
    # the clean shoe's 30 rounds: a checkpoint at the entry each ends with (its settlement),
    # "round_end" unless the N-th entry's checkpoint fell on it
    settled_at = [s for (s,) in _rows(path, "SELECT input_seq FROM records WHERE type='settlement'")]
    assert len(settled_at) == 30 and set(settled_at) <= {s for s, _ in cps}
    assert {s for s, w in cps if w == "round_end"} <= set(settled_at)
    seqs = [s for s, _ in cps]
    assert all(b - a <= 100 for a, b in zip(seqs, seqs[1:], strict=False)), "a gap longer than N entries"
    assert "every" in whys
    # each checkpoint signs the chain's own hash at its entry
    hashes = dict(_rows(path, "SELECT seq, hash FROM chain"))
    for seq, head, sig in _rows(path, "SELECT seq, head, sig FROM checkpoints WHERE seq > 0"):
        assert bytes(hashes[seq]) == bytes(head)
        assert chain.signature_ok(KEY, "PD-01", _journal_id(path), seq, bytes(head), sig)


def _journal_id(path: Path) -> str:
    return _rows(path, "SELECT value FROM meta WHERE key='journal_id'")[0][0]


def test_each_checkpoint_reaches_the_ledger_which_keeps_the_newest(tmp_path):
    path = tmp_path / "journal.sqlite"
    _run_shoe(path, every=250)
    ledger = SettlementCore(tmp_path / "ledger.sqlite")
    worker = DeliveryWorker(path, InProcessTransport(ledger))
    try:
        assert worker.drain(30)
    finally:
        worker.stop()
    jid = _journal_id(path)
    (last, head), = _rows(path, "SELECT seq, head FROM checkpoints ORDER BY seq DESC LIMIT 1")
    kept = ledger.checkpoint("PD-01", jid)
    assert kept is not None and kept["seq"] == last and kept["head"] == bytes(head).hex()
    # an older checkpoint arriving late (a redelivery) does not push the newest out
    (old_seq, old_head, old_sig), = _rows(path, "SELECT seq, head, sig FROM checkpoints "
                                                "WHERE why='round_end' LIMIT 1")
    ledger.apply({"key": f"PD-01/{jid}/checkpoint:late", "kind": "checkpoint", "table": "PD-01",
                  "journal_id": jid, "seq": old_seq, "head": bytes(old_head).hex(),
                  "sig": old_sig, "t": 1.0})
    assert ledger.checkpoint("PD-01", jid)["seq"] == last
    with pytest.raises(SettlementRefused) as refused:
        ledger.apply({"key": "PD-01/x/checkpoint:bad", "kind": "checkpoint", "table": "PD-01",
                      "journal_id": jid, "seq": 5, "head": "zz", "sig": old_sig})
    assert refused.value.reason == "malformed"
    assert ledger.check().ok  # a checkpoint posts nothing
    ledger.close()
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        v = verify(conn, KEY, LedgerCheckpoint(last, bytes(head), _rows(
            path, f"SELECT sig FROM checkpoints WHERE seq={last}")[0][0]))
    finally:
        conn.close()
    assert v.ok, v.first_bad


def test_a_journal_from_before_the_chain_is_chained_once_its_old_part_marked(tmp_path, capsys,
                                                                              monkeypatch):
    path = tmp_path / "journal.sqlite"
    shutil.copy(OLD, path)
    (n,), = _rows(path, "SELECT COUNT(*) FROM inputs")
    monkeypatch.setenv("STATION_JOURNAL_KEY", KEY.decode())
    assert station_main(["journal", "verify", str(path)]) == 1  # not chained yet
    assert "no hash chain" in json.loads(capsys.readouterr().out.strip())["first_bad"]["why"]
    j = Journal(path, signing_key=KEY)
    assert j.unchained_through == n and j.head_seq == n
    j.close()
    hashes = _rows(path, "SELECT seq, hash FROM chain ORDER BY seq")
    j = Journal(path, signing_key=KEY)  # a second open migrates nothing again
    assert j.unchained_through == n
    j.close()
    assert _rows(path, "SELECT seq, hash FROM chain ORDER BY seq") == hashes
    assert [w for (w,) in _rows(path, "SELECT why FROM checkpoints ORDER BY seq")] == [
        "genesis", "migrated"]
    assert station_main(["journal", "verify", str(path)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out) == {"ok": True, "entries": n, "checkpoints": 2, "first_bad": None}
    assert f"entries 1-{n} were written before the chain" in out.err


def test_an_exported_trace_names_its_chain_head_and_replay_says_it_matches(tmp_path, capsys):
    path = tmp_path / "journal.sqlite"
    _run_shoe(path)
    out = tmp_path / "all.jsonl"
    assert station_main(["journal", "export", str(path), str(out)]) == 0
    first = json.loads(out.read_text().splitlines()[0])
    (seq, head), = _rows(path, "SELECT seq, hash FROM chain ORDER BY seq DESC LIMIT 1")
    assert first["chain"]["seq"] == seq and first["chain"]["head"] == bytes(head).hex()
    capsys.readouterr()
    assert station_main(["replay", str(out), "--out", str(tmp_path / "r.jsonl")]) == 0
    assert "matches the journal's chain" in capsys.readouterr().err
    # one bet's amount changed in the trace: the records differ, and replay says so
    lines = out.read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if '"bet"' in line)
    bet = json.loads(lines[i])
    bet["bet"]["amount"] += 1
    lines[i] = json.dumps(bet)
    bad = tmp_path / "changed.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    assert station_main(["replay", str(bad), "--out", str(tmp_path / "r2.jsonl")]) == 1
    assert "does NOT match the journal's chain" in capsys.readouterr().err


def test_a_chained_journal_whose_chain_description_is_removed_is_not_chained_again(tmp_path):
    """Deleting `meta.chain` must not make the station re-migrate (re-hash and re-sign)
    whatever the journal now holds: it refuses to open it, naming why. And the ledger refuses
    a chain start (genesis or migrated) for a journal whose chain it already holds."""
    path = tmp_path / "journal.sqlite"
    _run_shoe(path, every=250)
    ledger = SettlementCore(tmp_path / "ledger.sqlite")
    worker = DeliveryWorker(path, InProcessTransport(ledger))
    try:
        assert worker.drain(30)
    finally:
        worker.stop()
    jid = _journal_id(path)
    before = _rows(path, "SELECT seq, head, sig FROM checkpoints ORDER BY seq")
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM meta WHERE key='chain'")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="description .* is missing"):
        Journal(path, signing_key=KEY)
    assert _rows(path, "SELECT seq, head, sig FROM checkpoints ORDER BY seq") == before
    assert _rows(path, "SELECT value FROM meta WHERE key='chain'") == []
    # a chain started again elsewhere (a copy re-migrated by hand) reaches the ledger
    head = bytes(32)
    for why, seq in (("genesis", 0), ("migrated", 5000)):
        with pytest.raises(SettlementRefused) as refused:
            ledger.apply({"key": f"PD-01/{jid}/restart:{why}", "kind": "checkpoint",
                          "table": "PD-01", "journal_id": jid, "seq": seq, "head": head.hex(),
                          "sig": chain.sign(KEY, "PD-01", jid, seq, head), "why": why, "t": 1.0})
        assert refused.value.reason == "chain_restarted"
    assert ledger.checkpoint("PD-01", jid)["seq"] == before[-1][0]
    # a journal the ledger has never seen starts its chain there as before
    ledger.apply({"key": "PD-01/other/checkpoint:0", "kind": "checkpoint", "table": "PD-01",
                  "journal_id": "other", "seq": 0, "head": head.hex(),
                  "sig": chain.sign(KEY, "PD-01", "other", 0, head), "why": "genesis", "t": 1.0})
    assert ledger.checkpoint("PD-01", "other")["seq"] == 0
    ledger.close()
