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
    for seq, head, sig, t_us, why in _rows(path, "SELECT seq, head, sig, t_us, why FROM "
                                                 "checkpoints WHERE seq > 0"):
        assert bytes(hashes[seq]) == bytes(head)
        assert chain.checkpoint_ok(KEY, "PD-01", _journal_id(path), seq, bytes(head), sig,
                                   version=chain.CHAIN_VERSION, t_us=t_us, why=why)


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
        v = verify(conn, KEY, LedgerCheckpoint(last, bytes(head), kept["sig"]))
    finally:
        conn.close()
    assert v.ok, v.first_bad


def test_a_journal_from_before_the_chain_is_chained_once_by_hand_its_old_part_marked(
        tmp_path, capsys, monkeypatch):
    """The station does not chain a journal from before the chain by itself (that would sign
    whatever it holds, without anyone deciding to): it refuses it, untouched, naming
    `station journal migrate`, which chains it once with the table's key, records the
    migration in its chain description and signs it."""
    path = tmp_path / "journal.sqlite"
    shutil.copy(OLD, path)
    (n,), = _rows(path, "SELECT COUNT(*) FROM inputs")
    monkeypatch.setenv("STATION_JOURNAL_KEY", KEY.decode())
    assert station_main(["journal", "verify", str(path)]) == 1  # not chained yet
    assert "not migrated yet" in json.loads(capsys.readouterr().out.strip())["first_bad"]["why"]
    tables = _rows(path, "SELECT name FROM sqlite_master ORDER BY name")
    with pytest.raises(JournalError, match="no hash chain.*station journal migrate"):
        Journal(path, signing_key=KEY)
    with pytest.raises(JournalError, match="station journal migrate"):
        TableStation(settings_from_header(_header(path)), path, signing_key=KEY)
    assert _rows(path, "SELECT name FROM sqlite_master ORDER BY name") == tables  # untouched
    monkeypatch.delenv("STATION_JOURNAL_KEY")
    assert station_main(["journal", "migrate", str(path)]) == 1  # not without the key
    assert "needs the table's signing key" in capsys.readouterr().err
    monkeypatch.setenv("STATION_JOURNAL_KEY", KEY.decode())
    assert station_main(["journal", "migrate", str(path)]) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["chained"] == n and done["archived"] is None
    described = json.loads(_rows(path, "SELECT value FROM meta WHERE key='chain'")[0][0])
    assert described["unchained_through"] == n and described["migrated"]["entries"] == n
    hashes = _rows(path, "SELECT seq, hash FROM chain ORDER BY seq")
    j = Journal(path, signing_key=KEY, migrate_chain=True)  # once: nothing migrated again
    assert j.unchained_through == n and j.head_seq == n
    j.close()
    assert _rows(path, "SELECT seq, hash FROM chain ORDER BY seq") == hashes
    assert [w for (w,) in _rows(path, "SELECT why FROM checkpoints ORDER BY seq")] == [
        "genesis", "migrated"]
    assert station_main(["journal", "verify", str(path)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out) == {"ok": True, "entries": n, "checkpoints": 2, "first_bad": None}
    assert f"entries 1-{n} were written before the chain" in out.err


def _header(path: Path):
    from station.core.inputs import parse_header

    return parse_header(json.loads(_rows(path, "SELECT value FROM meta WHERE key='header'")[0][0]))


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
    err = capsys.readouterr().err
    # what replay checks is the trace against its own header; the head it prints whole is
    # the one `journal verify` prints for the journal
    assert "exactly the records its own header says" in err and bytes(head).hex() in err
    key_file = _key_file(tmp_path)
    assert station_main(["journal", "verify", str(path), "--key-file", str(key_file)]) == 0
    assert f"chain head verified: entry {seq}, {bytes(head).hex()}" in capsys.readouterr().err
    # a key file kept beside the journal is used as told, with a warning
    beside = path.parent / "table.key"
    shutil.copy(key_file, beside)
    assert station_main(["journal", "verify", str(path), "--key-file", str(beside)]) == 0
    assert "lies beside the journal" in capsys.readouterr().err
    # one bet's amount changed in the trace: the records differ, and replay says so
    lines = out.read_text().splitlines()
    i = next(k for k, line in enumerate(lines) if '"bet"' in line)
    bet = json.loads(lines[i])
    bet["bet"]["amount"] += 1
    lines[i] = json.dumps(bet)
    bad = tmp_path / "changed.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    assert station_main(["replay", str(bad), "--out", str(tmp_path / "r2.jsonl")]) == 1
    assert "does NOT replay to the records its own header names" in capsys.readouterr().err


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


def test_entries_written_without_the_key_after_an_orderly_stop_are_never_signed(tmp_path):
    """A station run without the key after the table's orderly stop (the station's own code,
    no key) adds entries; the keyed station refuses to start on them, naming the entry, and
    the verifier names them too."""
    path = tmp_path / "j.sqlite"
    _run_shoe(path)
    stop_seq, why = _rows(path, "SELECT seq, why FROM checkpoints ORDER BY seq DESC LIMIT 1")[0]
    assert why == "stop"
    header, _ = read_trace(TRACE)
    st = TableStation(settings_from_header(header), path, clock=Clock())  # no key
    st.start()
    st.submit("supervisor", "end_shoe", "mallory")
    st.stop()
    assert _rows(path, "SELECT MAX(seq) FROM inputs")[0][0] > stop_seq
    with pytest.raises(JournalError, match=f"follow the station's orderly stop at entry {stop_seq}"):
        TableStation(settings_from_header(header), path, clock=Clock(), signing_key=KEY)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    v = verify(conn, KEY)
    assert v.first_bad == {"seq": stop_seq + 1, "why": v.first_bad["why"]}
    assert "orderly stop" in v.first_bad["why"]


def test_a_keyed_restart_after_a_stop_then_a_crash_starts_again(tmp_path):
    """The station's own entries after a restart are not mistaken for foreign ones: once it
    opens the journal with its key the stop's checkpoint is renamed; a stop with nothing new
    to sign marks the newest checkpoint as the stop again."""
    path = tmp_path / "j.sqlite"
    _run_shoe(path)
    header, _ = read_trace(TRACE)
    st = TableStation(settings_from_header(header), path, clock=Clock(), signing_key=KEY)
    assert _rows(path, "SELECT why FROM checkpoints ORDER BY seq DESC LIMIT 1")[0][0] == (
        chain.STOP_THEN_STARTED)
    st.start()
    st.submit("supervisor", "end_shoe", "sup1")
    st._stop.set()  # a crash: no orderly stop, the entry unsigned
    st._q.put((None, None, "", None, None))
    st._thread.join(5)
    st.journal.close()
    st = TableStation(settings_from_header(header), path, clock=Clock(), signing_key=KEY)
    st.start()
    st.stop()
    st = TableStation(settings_from_header(header), path, clock=Clock(), signing_key=KEY)
    st.start()
    st.stop()  # nothing new: the newest checkpoint is the stop again
    assert _rows(path, "SELECT why FROM checkpoints ORDER BY seq DESC LIMIT 1")[0][0] == "stop"
    assert verify(sqlite3.connect(f"file:{path}?mode=ro", uri=True), KEY).ok


def test_the_station_recomputes_the_chain_since_its_last_checkpoint_before_it_appends(tmp_path):
    """An entry after the newest checkpoint changed in place (its stored hash left as it
    was) is found at open, before the station would sign over it."""
    path = tmp_path / "j.sqlite"
    st = _run_shoe(path, stop=False)
    st._stop.set()
    st._q.put((None, None, "", None, None))
    st._thread.join(5)
    st.journal.close()
    cp = _rows(path, "SELECT MAX(seq) FROM checkpoints")[0][0]
    last = _rows(path, "SELECT MAX(seq) FROM inputs")[0][0]
    assert last > cp, "the shoe should end with unsigned entries after its last checkpoint"
    conn = sqlite3.connect(path)
    conn.execute("UPDATE inputs SET t_us = t_us + 1 WHERE seq = ?", (last,))
    conn.commit()
    conn.close()
    header, _ = read_trace(TRACE)
    with pytest.raises(JournalError, match=f"entry {last} is not what the chain"):
        TableStation(settings_from_header(header), path, clock=Clock(), signing_key=KEY)


def _deliver(path: Path, ledger: SettlementCore) -> None:
    worker = DeliveryWorker(path, InProcessTransport(ledger))
    try:
        assert worker.drain(30)
    finally:
        worker.stop()


def test_a_journal_restored_from_an_older_copy_that_plays_on_fails_against_the_ledger(
        tmp_path, capsys):
    """The ledger keeps every checkpoint: a journal put back to an older copy and played past
    the newest the ledger had still disagrees with the ones the lost history left there."""
    from station.settlement.checkpoints import every_one

    header, inputs = read_trace(TRACE)
    settings = settings_from_header(header)
    path = tmp_path / "journal.sqlite"
    ledger_path = tmp_path / "ledger.sqlite"
    clk = Clock()
    st = TableStation(settings, path, clock=clk, journal_sync="normal", signing_key=KEY,
                      checkpoint_every=50)
    st.start()
    body = [i for i in inputs if i.kind != "end"]
    half = len(body) // 3

    def feed(part) -> None:
        for inp in part:
            clk.t = 1000.0 + inp.t_us / US
            st.submit(inp.kind, inp.value, inp.user)

    feed(body[:half])
    st.stop()
    ledger = SettlementCore(ledger_path)
    _deliver(path, ledger)
    backup = tmp_path / "backup.sqlite"
    shutil.copy(path, backup)
    st = TableStation(settings, path, clock=clk, journal_sync="normal", signing_key=KEY,
                      checkpoint_every=50)
    st.start()
    feed(body[half:2 * half])
    st.stop()
    _deliver(path, ledger)
    lost_top = ledger.checkpoint("PD-01", _journal_id(path))["seq"]
    # the journal is put back to the copy, and the table plays on past the ledger's newest,
    # with other inputs (a supervisor's pauses) so its history differs
    for s in ("", "-wal", "-shm"):
        Path(f"{path}{s}").unlink(missing_ok=True)
    shutil.copy(backup, path)
    st = TableStation(settings, path, clock=clk, journal_sync="normal", signing_key=KEY,
                      checkpoint_every=50)
    st.start()
    for _ in range(3):
        st.submit("supervisor", "pause", "sup1")
    feed(body[half:])
    st.stop()
    _deliver(path, ledger)
    assert _rows(path, "SELECT MAX(seq) FROM inputs")[0][0] > lost_top
    rows = every_one(ledger.store, "PD-01", _journal_id(path))
    assert any(r["conflict"] for r in rows)  # kept, marked, not dropped
    ledger.close()
    assert station_main(["journal", "verify", str(path), "--key-file", str(_key_file(tmp_path)),
                         "--ledger", str(ledger_path)]) == 1
    out, err = capsys.readouterr()
    line = json.loads(out)
    assert "disagrees with the ledger" in line["first_bad"]["why"]
    assert "at or below one it already had" in err


def _key_file(tmp_path: Path) -> Path:
    f = tmp_path / "keys" / "table.key"
    f.parent.mkdir(exist_ok=True)
    f.write_bytes(KEY)
    f.chmod(0o600)
    return f


def test_the_station_does_not_start_on_a_journal_its_ledger_knows_to_be_older(tmp_path):
    """With its own ledger at hand (embedded settlement) the station holds its journal
    against the ledger's newest checkpoint before it appends: a journal restored from an
    older copy is refused, never signed over."""
    from station.runtime import start_runtime

    cfg, key = _table_config(tmp_path)

    def play(n: int) -> None:
        st = TableStation(cfg.table, cfg.journal_path, clock=Clock(), signing_key=key)
        st.start()
        for _ in range(n):
            st.submit("supervisor", "resume", "sup1")
        st.stop()

    play(2)
    backup = tmp_path / "backup.sqlite"
    shutil.copy(cfg.journal_path, backup)
    play(2)
    ledger = SettlementCore(cfg.ledger_path)
    _deliver(cfg.journal_path, ledger)
    ledger.close()
    for s in ("", "-wal", "-shm"):
        Path(f"{cfg.journal_path}{s}").unlink(missing_ok=True)
    shutil.copy(backup, cfg.journal_path)
    with pytest.raises(JournalError, match="holds a checkpoint of it at entry 4"):
        start_runtime(cfg, with_console=False, with_bet_api=False)
    play(3)  # another history, as long as the ledger's
    with pytest.raises(JournalError, match="disagrees with its ledger's checkpoint at entry 4"):
        start_runtime(cfg, with_console=False, with_bet_api=False)


def test_a_journal_whose_database_file_is_damaged_is_not_judged(tmp_path, capsys):
    """Bytes overwritten in a page of an index the walk does not read (the station's lookups
    by record type do): verify says the file is damaged (exit 2), never ok."""
    path = tmp_path / "j.sqlite"
    _run_shoe(path)
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    (root,) = _rows(path, "SELECT rootpage FROM sqlite_master WHERE name='records_type'")[0]
    page = _rows(path, "PRAGMA page_size")[0][0]
    with open(path, "r+b") as f:
        f.seek((root - 1) * page)  # its page header
        f.write(b"\xff" * 50)
    key_file = _key_file(tmp_path)
    assert station_main(["journal", "verify", str(path), "--key-file", str(key_file)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "damaged" in err


def _table_config(tmp_path: Path):
    from station.live.config import load_config
    from station.live.journal_key import key_from_file, make_key_file

    root = Path(__file__).parents[2]
    text = (root / "config" / "table_no_camera.toml").read_text("utf-8")
    text = text.replace('dir = "var/PD-02"', f'dir = "{tmp_path / "var"}"')
    (tmp_path / "table.toml").write_text(text, "utf-8")
    cfg = load_config(tmp_path / "table.toml")
    cfg.signing_key_file = make_key_file(tmp_path / "keys" / "PD-02.key")
    cfg.data_dir.mkdir(parents=True, exist_ok=True)
    return cfg, key_from_file(cfg.signing_key_file)


def _drop_chain(path: Path, *, outbox_too: bool) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE inputs SET t_us = t_us + 5 WHERE seq = 2")  # the change to hide
    conn.execute("DELETE FROM meta WHERE key='chain'")
    conn.execute("DROP TABLE chain")
    conn.execute("DROP TABLE checkpoints")
    if outbox_too:
        conn.execute("DELETE FROM settlement_outbox WHERE kind='checkpoint'")
    conn.commit()
    conn.close()


def test_a_chained_journal_disguised_as_one_from_before_the_chain_is_not_chained_again(
        tmp_path, capsys):
    """Its chain tables and description removed, a chained journal looks like one from
    before the chain, which the station chains (and signs) as it holds it. Checkpoints in
    its outbox, or in its ledger, give it away: the station does not open it."""
    from station.runtime import start_runtime

    cfg, key = _table_config(tmp_path)
    st = TableStation(cfg.table, cfg.journal_path, clock=Clock(), signing_key=key)
    st.start()
    for _ in range(3):
        st.submit("supervisor", "resume", "sup1")
    st.stop()
    ledger = SettlementCore(cfg.ledger_path)
    _deliver(cfg.journal_path, ledger)
    ledger.close()
    shutil.copy(cfg.journal_path, tmp_path / "copy.sqlite")
    _drop_chain(tmp_path / "copy.sqlite", outbox_too=False)
    with pytest.raises(JournalError, match="its outbox holds checkpoints"):
        Journal(tmp_path / "copy.sqlite", signing_key=key)
    _drop_chain(cfg.journal_path, outbox_too=True)
    with pytest.raises(JournalError, match="holds 2 checkpoint"):
        start_runtime(cfg, with_console=False, with_bet_api=False)
    assert not _rows(cfg.journal_path, "SELECT value FROM meta WHERE key='chain'")
    # nothing in the file gives it away now: the ledger's checkpoints do, to verify and to
    # the migration
    key_args = ["--key-file", str(cfg.signing_key_file)]
    assert station_main(["journal", "verify", str(cfg.journal_path), *key_args]) == 1
    assert "not migrated yet" in json.loads(capsys.readouterr().out)["first_bad"]["why"]
    assert station_main(["journal", "verify", str(cfg.journal_path), "--ledger",
                         str(cfg.ledger_path), *key_args]) == 1
    bad = json.loads(capsys.readouterr().out)["first_bad"]
    assert bad["seq"] == 0 and "the ledger holds 2 checkpoint(s) of it" in bad["why"]
    assert station_main(["journal", "migrate", str(cfg.journal_path), "--ledger",
                         str(cfg.ledger_path), *key_args]) == 1
    assert "holds 2 checkpoint" in capsys.readouterr().err
    assert not _rows(cfg.journal_path, "SELECT value FROM meta WHERE key='chain'")


def test_a_journal_that_shows_it_was_chained_is_named_by_verify_and_never_chained_again(
        tmp_path, capsys, monkeypatch):
    """A chained journal whose chain tables, description and outbox checkpoints were removed
    still holds the snapshot the keyed station tagged: verify names it (not "written before
    the chain"), and neither the station nor `station journal migrate` chains it. With every
    trace removed, the station still does not chain it by itself: only the operator's
    migrate would, and the ledger's copy is the witness then."""
    path = tmp_path / "journal.sqlite"
    _run_shoe(path, every=250)
    assert _rows(path, "SELECT COUNT(*) FROM snapshots")[0][0] >= 1
    _drop_chain(path, outbox_too=True)
    monkeypatch.setenv("STATION_JOURNAL_KEY", KEY.decode())
    assert station_main(["journal", "verify", str(path)]) == 1
    bad = json.loads(capsys.readouterr().out)["first_bad"]
    assert bad["seq"] == 0 and "was chained and its chain was removed" in bad["why"]
    assert "snapshot tagged with a table key" in bad["why"]
    with pytest.raises(JournalError, match="snapshot tagged with a table key"):
        Journal(path, signing_key=KEY, migrate_chain=True)
    assert station_main(["journal", "migrate", str(path)]) == 1
    assert "snapshot tagged with a table key" in capsys.readouterr().err
    assert not _rows(path, "SELECT name FROM sqlite_master WHERE name IN ('chain', 'checkpoints')")
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM snapshots")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="no hash chain.*station journal migrate"):
        TableStation(settings_from_header(_header(path)), path, signing_key=KEY)
    assert not _rows(path, "SELECT value FROM meta WHERE key='chain'")


V1 = DATA / "journals" / "pokdeng_chain_v1.sqlite"


def _verdict(path: Path):
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return verify(conn, KEY)
    finally:
        conn.close()


def _edit(path: Path, sql: str, args: tuple = ()) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, args)
    conn.commit()
    conn.close()


def test_the_epoch_and_each_checkpoints_time_and_reason_are_signed(tmp_path):
    """`meta.epoch` (where the journal's station time starts on the wall clock) is hashed
    into the genesis, and each checkpoint's `t_us` and `why` are signed with its head: a
    change to any of them fails verify, named by its entry. Nor can the journal be passed
    off as one of the older format, whose checkpoints sign the head alone."""
    path = tmp_path / "journal.sqlite"
    _run_shoe(path, every=100)
    assert _verdict(path).ok
    assert json.loads(_rows(path, "SELECT value FROM meta WHERE key='chain'")[0][0])[
        "version"] == chain.CHAIN_VERSION == 2
    (epoch,), = _rows(path, "SELECT value FROM meta WHERE key='epoch'")
    (seq, why, t_us), = _rows(path, "SELECT seq, why, t_us FROM checkpoints WHERE seq > 0 "
                                    "AND why = 'round_end' LIMIT 1")
    cases = [
        ("UPDATE meta SET value=? WHERE key='epoch'", (repr(float(epoch) - 3600),), 0),
        ("UPDATE checkpoints SET why='every' WHERE seq=?", (seq,), seq),
        ("UPDATE checkpoints SET t_us=t_us+1 WHERE seq=?", (seq,), seq),
        ("UPDATE checkpoints SET why='stop, started again' WHERE why='stop'", (), None),
        ("UPDATE meta SET value=replace(value, '\"version\": 2', '\"version\": 1')"
         " WHERE key='chain'", (), 0),
    ]
    (last,), = _rows(path, "SELECT MAX(seq) FROM checkpoints")
    for sql, args, at in cases:
        copy = tmp_path / "copy.sqlite"
        shutil.copy(path, copy)
        _edit(copy, sql, args)
        v = _verdict(copy)
        assert not v.ok, sql
        assert v.first_bad["seq"] == (last if at is None else at), (sql, v.first_bad)


def test_a_journal_of_the_older_chain_format_verifies_and_carries_on_in_it(tmp_path):
    """A journal chained in format 1 keeps its format: it verifies, a station of today
    appends to it and signs its checkpoints as format 1 does, and it still verifies. (Its
    epoch and its checkpoints' times and reasons stay unsigned: docs/core.md.)"""
    path = tmp_path / "journal.sqlite"
    shutil.copy(V1, path)
    assert json.loads(_rows(path, "SELECT value FROM meta WHERE key='chain'")[0][0])[
        "version"] == 1
    assert _verdict(path).ok
    header, inputs = read_trace(TRACE)
    (n,), = _rows(path, "SELECT COUNT(*) FROM inputs")
    clk = Clock()
    st = TableStation(settings_from_header(header), path, clock=clk, journal_sync="normal",
                      signing_key=KEY, checkpoint_every=100)
    st.start()
    for inp in [i for i in inputs if i.kind != "end"][n:n + 150]:
        clk.t = 1000.0 + inp.t_us / US
        st.submit(inp.kind, inp.value, inp.user)
    st.stop()
    assert json.loads(_rows(path, "SELECT value FROM meta WHERE key='chain'")[0][0])[
        "version"] == 1
    assert _rows(path, "SELECT MAX(seq) FROM checkpoints")[0][0] > n
    v = _verdict(path)
    assert v.ok and v.chain_version == 1, v.first_bad


def test_a_transaction_that_cannot_begin_leaves_the_chain_head_where_it_was(tmp_path):
    """BEGIN refused (the file locked by another writer past the wait) and rolled back, as
    the station does after any failed write: the next entry chains onto the last one
    committed, not onto the head from before an earlier transaction."""
    from station.core.inputs import Input

    header, _ = read_trace(TRACE)
    path = tmp_path / "journal.sqlite"
    j = Journal(path, header, signing_key=KEY)
    for t in (1, 2, 3):
        j.append(Input(t * US, "tick", True), [], [])
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    j.conn.execute("PRAGMA busy_timeout=0")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        j.begin()
    j.rollback()
    other.execute("ROLLBACK")
    other.close()
    assert j.chain_head()[0] == 3
    j.append(Input(4 * US, "tick", True), [], [])
    j.close()
    v = _verdict(path)
    assert v.ok and v.head_seq == 4, v.first_bad
