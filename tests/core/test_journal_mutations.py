"""`station journal verify` against hundreds of random tamperings of real journals of each
game, written by the soak (station, journal, outbox, ledger, crashes and restarts) at
accelerated time: single-byte changes anywhere in an entry, deleted, inserted, duplicated,
swapped and moved entries or records, truncations, a chain recomputed without the key, and a
journal re-signed with it (which only the ledger's checkpoint catches). Each must be caught
and named by the `seq` of the first entry it touches; the untouched journal verifies."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from station.core import chain
from station.core.verify import LedgerCheckpoint, verify
from station.games.paigow.tools.soak import PaiGowSoak
from station.games.pokdeng.tools.soak import PokDengSoak
from station.games.sizhidao.tools.soak import SiZhiDaoSoak, SzSoakOptions
from station.settlement.core import SettlementCore
from station.sim.soak import SoakOptions
from tests.core.chain_tools import genesis_of, resign

pytestmark = pytest.mark.soak

KEY = b"5f1c0d8e2a7b4c9d6e3f1a2b3c4d5e6f"
GAMES = ("pokdeng", "paigow", "sizhidao")


@pytest.fixture(scope="module")
def journals(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("soaked")
    PokDengSoak(SoakOptions(rounds=14, seed=11, crash=0.08, jam=0.1, unplug=0.08, mismatch=0.1,
                     signing_key=KEY), root / "pokdeng").run()
    PaiGowSoak(SoakOptions(rounds=14, seed=12, crash=0.08, mismatch=0.1,
                     signing_key=KEY), root / "paigow").run()
    SiZhiDaoSoak(SzSoakOptions(games=4, seed=13, crash=0.01, cancel=0.3, signing_key=KEY),
                 root / "sizhidao").run()
    return {g: root / g / "journal.sqlite" for g in GAMES}


def _copy(path: Path) -> sqlite3.Connection:
    src = sqlite3.connect(path)
    mem = sqlite3.connect(":memory:", isolation_level=None)
    src.backup(mem)
    src.close()
    return mem


def _ledger_cp(path: Path) -> LedgerCheckpoint:
    conn = sqlite3.connect(path)
    table = json.loads(conn.execute("SELECT value FROM meta WHERE key='header'").fetchone()[0])["table"]
    jid = conn.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()[0]
    conn.close()
    core = SettlementCore(path.parent / "ledger.sqlite")
    try:
        row = core.checkpoint(table, jid)
    finally:
        core.close()
    assert row is not None, "the soak's ledger holds no checkpoint of its journal"
    return LedgerCheckpoint(row["seq"], bytes.fromhex(row["head"]), row["sig"])


def _last(c: sqlite3.Connection) -> int:
    return int(c.execute("SELECT MAX(seq) FROM inputs").fetchone()[0])


def _change_byte(rng: random.Random, text: str) -> str | bytes:
    """One byte of the text's UTF-8 changed; as text when it still decodes, else the raw bytes
    (SQLite keeps whatever a writer puts there)."""
    raw = bytearray(text.encode())
    i = rng.randrange(len(raw))
    raw[i] = (raw[i] + rng.randrange(1, 256)) % 256
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return bytes(raw)


def mutate_byte(rng: random.Random, c: sqlite3.Connection) -> int:
    seq = rng.randint(1, _last(c))
    target = rng.choice(("line", "record", "t_us", "hash"))
    recs = c.execute("SELECT seq, record FROM records WHERE input_seq=?", (seq,)).fetchall()
    if target == "record" and recs:
        rid, rec = rng.choice(recs)
        c.execute("UPDATE records SET record=? WHERE seq=?", (_change_byte(rng, rec), rid))
    elif target == "t_us":
        c.execute("UPDATE inputs SET t_us = t_us + ? WHERE seq=?",
                  (rng.choice((-1, 1)) * rng.randint(1, 10**6), seq))
    elif target == "hash":
        (h,), = c.execute("SELECT hash FROM chain WHERE seq=?", (seq,)).fetchall()
        h = bytearray(h)
        h[rng.randrange(32)] ^= 1 << rng.randrange(8)
        c.execute("UPDATE chain SET hash=? WHERE seq=?", (bytes(h), seq))
    else:
        (line,), = c.execute("SELECT line FROM inputs WHERE seq=?", (seq,)).fetchall()
        c.execute("UPDATE inputs SET line=? WHERE seq=?", (_change_byte(rng, line), seq))
    return seq


def _delete(c: sqlite3.Connection, where: str, args: tuple) -> None:
    c.execute(f"DELETE FROM inputs WHERE {where}", args)
    c.execute(f"DELETE FROM records WHERE {where.replace('seq', 'input_seq')}", args)
    c.execute(f"DELETE FROM chain WHERE {where}", args)


def mutate_delete(rng: random.Random, c: sqlite3.Connection) -> int:
    seq = rng.randint(1, _last(c))
    _delete(c, "seq = ?", (seq,))
    return seq


def _shift_up(c: sqlite3.Connection, from_seq: int) -> None:
    """Entries from `from_seq` on move one place later (the primary key via negatives)."""
    c.execute("UPDATE inputs SET seq = -seq - 1 WHERE seq >= ?", (from_seq,))
    c.execute("UPDATE inputs SET seq = -seq WHERE seq < 0")
    c.execute("UPDATE records SET input_seq = input_seq + 1 WHERE input_seq >= ?", (from_seq,))


def _copy_entry(c: sqlite3.Connection, src: int, dst: int) -> None:
    (t_us, line), = c.execute("SELECT t_us, line FROM inputs WHERE seq=?", (src,)).fetchall()
    c.execute("INSERT INTO inputs (seq, t_us, line) VALUES (?,?,?)", (dst, t_us, line))
    for typ, rec in c.execute("SELECT type, record FROM records WHERE input_seq=? ORDER BY seq",
                              (src,)).fetchall():
        c.execute("INSERT INTO records (input_seq, type, record) VALUES (?,?,?)", (dst, typ, rec))


def mutate_insert(rng: random.Random, c: sqlite3.Connection) -> int:
    """An entry slipped in before entry k (a copy of another, or a made-up bet), the later
    ones renumbered: the chain's own rows stay where they were."""
    last = _last(c)
    k = rng.randint(1, last)
    src = rng.choice([s for s in range(max(1, k - 50), min(last, k + 50) + 1) if s != k])
    _shift_up(c, k)
    if rng.random() < 0.5:
        _copy_entry(c, src + (1 if src >= k else 0), k)
    else:
        (t_us,), = c.execute("SELECT t_us FROM inputs WHERE seq=?", (k + 1,)).fetchall()
        c.execute("INSERT INTO inputs (seq, t_us, line) VALUES (?,?,?)", (k, t_us, json.dumps(
            {"t": t_us / 1e6, "bet": {"account": "u1", "spot": "P1", "amount": 500}})))
    return k


def mutate_duplicate(rng: random.Random, c: sqlite3.Connection) -> int:
    """An entry copied to the end, its chain hash with it."""
    last = _last(c)
    src = rng.randint(1, last)
    _copy_entry(c, src, last + 1)
    (h,), = c.execute("SELECT hash FROM chain WHERE seq=?", (src,)).fetchall()
    c.execute("INSERT INTO chain VALUES (?, ?)", (last + 1, h))
    return last + 1


def mutate_swap(rng: random.Random, c: sqlite3.Connection) -> int:
    last = _last(c)
    while True:
        a, b = sorted(rng.sample(range(1, last + 1), 2))
        rows = {s: c.execute("SELECT t_us, line FROM inputs WHERE seq=?", (s,)).fetchone()
                for s in (a, b)}
        recs = {s: c.execute("SELECT record FROM records WHERE input_seq=? ORDER BY seq",
                             (s,)).fetchall() for s in (a, b)}
        if rows[a] != rows[b] or recs[a] != recs[b]:
            break
    c.execute("UPDATE inputs SET seq=-1 WHERE seq=?", (a,))
    c.execute("UPDATE inputs SET seq=? WHERE seq=?", (a, b))
    c.execute("UPDATE inputs SET seq=? WHERE seq=-1", (b,))
    c.execute("UPDATE records SET input_seq=-1 WHERE input_seq=?", (a,))
    c.execute("UPDATE records SET input_seq=? WHERE input_seq=?", (a, b))
    c.execute("UPDATE records SET input_seq=? WHERE input_seq=-1", (b,))
    return a


def mutate_move_record(rng: random.Random, c: sqlite3.Connection) -> int:
    """A record handed to the entry before or after the one that made it."""
    last = _last(c)
    rid, seq = rng.choice(c.execute(
        "SELECT seq, input_seq FROM records WHERE input_seq > 1 AND input_seq < ?",
        (last,)).fetchall())
    to = seq + rng.choice((-1, 1))
    c.execute("UPDATE records SET input_seq=? WHERE seq=?", (to, rid))
    return min(seq, to)


def mutate_truncate(rng: random.Random, c: sqlite3.Connection) -> int:
    """Everything from entry k on cut off; the checkpoints left as they were."""
    k = rng.randint(1, _last(c))
    _delete(c, "seq >= ?", (k,))
    return k


def _recompute_from(c: sqlite3.Connection, k: int) -> None:
    (prev,) = c.execute("SELECT hash FROM chain WHERE seq=?", (k - 1,)).fetchone() if k > 1 else (
        None,)
    if prev is None:
        prev = genesis_of(c)
    head = bytes(prev)
    for seq, t_us, line in c.execute("SELECT seq, t_us, line FROM inputs WHERE seq >= ? "
                                     "ORDER BY seq", (k,)).fetchall():
        recs = [r for (r,) in c.execute("SELECT record FROM records WHERE input_seq=? ORDER BY seq",
                                        (seq,))]
        head = chain.entry_hash(head, seq, t_us, line, recs)
        c.execute("UPDATE chain SET hash=? WHERE seq=?", (head, seq))


def _change_a_card(rng: random.Random, c: sqlite3.Connection) -> int:
    """What the issue fears: a card changed in the journal (a shoe line's code)."""
    rows = c.execute("SELECT seq, line FROM inputs WHERE line LIKE '%CARD,%'").fetchall()
    seq, line = rng.choice(rows)
    i = line.index("CARD,") + 5
    new = "2" if line[i] != "2" else "3"
    c.execute("UPDATE inputs SET line=? WHERE seq=?", (line[:i] + new + line[i + 1:], seq))
    return seq


def _first_checkpoint_from(c: sqlite3.Connection, k: int) -> int:
    return int(c.execute("SELECT MIN(seq) FROM checkpoints WHERE seq >= ?", (k,)).fetchone()[0])


def mutate_recompute(rng: random.Random, c: sqlite3.Connection) -> int:
    """A card changed and the chain recomputed after it, without the key: the first
    checkpoint after the change no longer signs the chain (its head updated too, its
    signature cannot be)."""
    k = _change_a_card(rng, c)
    _recompute_from(c, k)
    cp = _first_checkpoint_from(c, k)
    if rng.random() < 0.5:
        (h,), = c.execute("SELECT hash FROM chain WHERE seq=?", (cp,)).fetchall()
        c.execute("UPDATE checkpoints SET head=? WHERE seq=?", (h, cp))
    return cp


#: the record types each game's station ends a round with (its settlement or its cancel)
ROUND_ENDS = {"pokdeng": ("settlement", "round_cancelled"),
              "paigow": ("settlement", "round_cancelled"),
              "sizhidao": ("game_settled", "round_cancelled")}


def _game(c: sqlite3.Connection) -> str:
    return json.loads(c.execute("SELECT value FROM meta WHERE key='header'").fetchone()[0])["game"]


def mutate_rewrite_recent(rng: random.Random, c: sqlite3.Connection) -> int:
    """Without the key: a card of a recent round changed, the chain recomputed from there
    and every checkpoint from there on deleted (the unsigned-tail disguise). The first round
    that ends after the change has lost the checkpoint the table wrote at its end."""
    ends = ROUND_ENDS[_game(c)]
    marks = ",".join("?" * len(ends))
    k = _change_a_card(rng, c)
    row = c.execute(f"SELECT MIN(input_seq) FROM records WHERE input_seq >= ? AND type IN ({marks})",
                    (k, *ends)).fetchone()
    if row[0] is None:
        # the change fell in the last round, which never ended: change another card (an
        # earlier one, in the end, whose recomputed chain covers this change too)
        return mutate_rewrite_recent(rng, c)
    _recompute_from(c, k)
    c.execute("DELETE FROM checkpoints WHERE seq >= ?", (k,))
    return int(row[0])


def mutate_record_type(rng: random.Random, c: sqlite3.Connection) -> int:
    """A record filed under another type (the column the station's lookups use; its text is
    hashed, the column is not): a settlement hidden from `records_of_type`, say."""
    rid, seq, typ = rng.choice(c.execute("SELECT seq, input_seq, type FROM records").fetchall())
    other = rng.choice([t for (t,) in c.execute("SELECT DISTINCT type FROM records") if t != typ])
    c.execute("UPDATE records SET type=? WHERE seq=?", (other, rid))
    return int(seq)


MUTATIONS = {mutate_byte: 150, mutate_delete: 30, mutate_insert: 30, mutate_duplicate: 10,
             mutate_swap: 30, mutate_move_record: 20, mutate_truncate: 25, mutate_recompute: 15,
             mutate_rewrite_recent: 20, mutate_record_type: 20}


@pytest.mark.parametrize("game", GAMES)
def test_every_tampering_is_caught_and_named_by_its_seq(journals, game):
    path = journals[game]
    intact = _copy(path)
    v = verify(intact, KEY)
    assert v.ok and v.entries > 300 and v.checkpoints >= 4, v.line()
    rng = random.Random(f"mutations-{game}")
    missed = []
    n = 0
    for mutation, count in MUTATIONS.items():
        for _ in range(count):
            c = _copy(path)
            want = mutation(rng, c)
            got = verify(c, KEY)
            n += 1
            if got.ok or got.first_bad["seq"] != want:
                missed.append((mutation.__name__, want, got.line()))
            c.close()
    assert n >= 300
    assert not missed, f"{len(missed)} of {n} not caught or misnamed: {missed[:5]}"


@pytest.mark.parametrize("game", GAMES)
def test_a_journal_rewritten_with_the_key_disagrees_with_the_ledger(journals, game):
    path = journals[game]
    cp = _ledger_cp(path)
    assert verify(_copy(path), KEY, cp).ok
    rng = random.Random(f"resign-{game}")
    for _ in range(5):
        c = _copy(path)
        k = _change_a_card(rng, c)
        _recompute_from(c, k)
        # whoever holds the key re-signs every checkpoint from the change on
        for seq, in c.execute("SELECT seq FROM checkpoints WHERE seq >= ?", (k,)).fetchall():
            (h,), = c.execute("SELECT hash FROM chain WHERE seq=?", (seq,)).fetchall()
            resign(c, KEY, seq, bytes(h))
        assert verify(c, KEY).ok  # on the table PC alone it looks whole
        got = verify(c, KEY, cp)
        assert not got.ok and got.first_bad["seq"] == cp.seq, got.line()
        assert "ledger" in got.first_bad["why"]
    # a tail cut with its checkpoints removed too: only the ledger still knows the length
    c = _copy(path)
    k = _last(c) - 3
    _delete(c, "seq >= ?", (k,))
    c.execute("DELETE FROM checkpoints WHERE seq >= ?", (k,))
    got = verify(c, KEY, cp)
    assert not got.ok and got.first_bad["seq"] == k and "cut short" in got.first_bad["why"]
    assert f"vouching for {cp.seq} entries" in got.first_bad["why"]


def test_verify_prints_one_json_line_with_its_exit_codes(journals, tmp_path):
    path = journals["pokdeng"]
    env = {"STATION_JOURNAL_KEY": KEY.decode(), "PATH": "/usr/bin:/bin"}

    def verify_cli(*args: str) -> tuple[int, dict | None, str]:
        p = subprocess.run([sys.executable, "-m", "station", "journal", "verify", *args],
                           capture_output=True, text=True, env=env, timeout=60)
        lines = p.stdout.splitlines()
        assert len(lines) <= 1
        return p.returncode, json.loads(lines[0]) if lines else None, p.stderr

    rc, line, _ = verify_cli(str(path), "--ledger", str(path.parent / "ledger.sqlite"))
    assert rc == 0 and set(line) == {"ok", "entries", "checkpoints", "first_bad"}
    assert line["ok"] is True and line["first_bad"] is None and line["entries"] > 300
    bad = tmp_path / "journal.sqlite"
    c = _copy(path)
    seq = _change_a_card(random.Random(5), c)
    out = sqlite3.connect(bad)
    c.backup(out)
    out.close()
    rc, line, _ = verify_cli(str(bad))
    assert rc == 1 and line["ok"] is False and line["first_bad"]["seq"] == seq
    assert line["entries"] > 300 and line["checkpoints"] >= 4
    # cannot read: no file, not a journal, no key
    assert verify_cli(str(tmp_path / "none.sqlite"))[0] == 2
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all" * 100)
    rc, line, err = verify_cli(str(garbage))
    assert rc == 2 and line is None and "not a station journal" in err
    del env["STATION_JOURNAL_KEY"]
    rc, line, err = verify_cli(str(bad))
    assert rc == 2 and "no signing key" in err
    env["STATION_JOURNAL_KEY"] = "other-key-of-32-bytes-0123456789"
    rc, line, _ = verify_cli(str(path))
    assert rc == 1 and line["first_bad"]["seq"] == 0 and "signature" in line["first_bad"]["why"]


def test_a_byte_changed_in_the_file_itself_is_named_by_its_seq(journals, tmp_path):
    """The file edited as bytes, not through SQLite: a card's text in a page of the file
    turned into a byte that is not UTF-8. SQLite reads the page as it is; verify hashes the
    stored bytes and names the entry (exit 1), instead of failing to decode it (exit 2)."""
    bad = tmp_path / "journal.sqlite"
    c = _copy(journals["pokdeng"])
    out = sqlite3.connect(bad)
    c.backup(out)
    out.close()
    c.close()
    raw = bytearray(bad.read_bytes())
    i = raw.index(b"CARD,", len(raw) // 2) + 5
    raw[i] = 0xFF
    bad.write_bytes(bytes(raw))
    probe = sqlite3.connect(bad)
    probe.text_factory = bytes
    changed = [s for s, line in probe.execute("SELECT seq, line FROM inputs") if b"\xff" in line]
    probe.close()
    assert len(changed) == 1
    p = subprocess.run([sys.executable, "-m", "station", "journal", "verify", str(bad)],
                       capture_output=True, text=True, timeout=60,
                       env={"STATION_JOURNAL_KEY": KEY.decode(), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 1, p.stderr
    line = json.loads(p.stdout)
    assert line["ok"] is False and line["first_bad"]["seq"] == changed[0], line


def test_a_tail_cut_says_how_many_entries_the_last_checkpoint_vouches_for(journals):
    """Cut with its chain rows (the checkpoints then lie beyond the end) or without them (the
    chain then holds entries the journal does not): both say it was cut short, and how many
    entries the last checkpoint vouches for."""
    path = journals["paigow"]
    c = _copy(path)
    vouched = int(c.execute("SELECT MAX(seq) FROM checkpoints").fetchone()[0])
    k = vouched - 5
    for keep_chain in (False, True):
        c = _copy(path)
        c.execute("DELETE FROM inputs WHERE seq >= ?", (k,))
        c.execute("DELETE FROM records WHERE input_seq >= ?", (k,))
        if not keep_chain:
            c.execute("DELETE FROM chain WHERE seq >= ?", (k,))
        got = verify(c, KEY)
        assert not got.ok and got.first_bad["seq"] == k, got.line()
        assert "cut short" in got.first_bad["why"], got.first_bad
        assert f"vouches for {vouched} entries" in got.first_bad["why"], got.first_bad


def test_a_journal_rewritten_under_a_new_id_is_not_vouched_for_by_the_ledger(journals, tmp_path):
    """Whoever holds the key rewrites the journal and gives it a new journal id, so that the
    ledger's checkpoints (kept per journal id) seem to be of another journal: the books
    vouch for no journal they never heard of, and `verify --ledger` says so."""
    path = journals["pokdeng"]
    (old_id,), = sqlite3.connect(path).execute(
        "SELECT value FROM meta WHERE key='journal_id'").fetchall()
    c = _copy(path)
    c.execute("UPDATE meta SET value='0000aaaa1111' WHERE key='journal_id'")
    _change_a_card(random.Random(9), c)
    _recompute_from(c, 1)
    for seq, in c.execute("SELECT seq FROM checkpoints").fetchall():
        head = genesis_of(c) if seq == 0 else bytes(
            c.execute("SELECT hash FROM chain WHERE seq=?", (seq,)).fetchone()[0])
        resign(c, KEY, seq, head)
    assert verify(c, KEY).ok  # on the table PC alone it looks whole
    bad = tmp_path / "journal.sqlite"
    out = sqlite3.connect(bad)
    c.backup(out)
    out.close()
    p = subprocess.run([sys.executable, "-m", "station", "journal", "verify", str(bad),
                        "--ledger", str(path.parent / "ledger.sqlite")], capture_output=True,
                       text=True, env={"STATION_JOURNAL_KEY": KEY.decode(), "PATH": "/usr/bin:/bin"},
                       timeout=60)
    line = json.loads(p.stdout)
    assert p.returncode == 1 and line["ok"] is False and line["first_bad"]["seq"] == 0, p.stdout
    assert "holds no checkpoint of this journal" in line["first_bad"]["why"]
    assert f"it holds this table's journal(s) {old_id}" in line["first_bad"]["why"]
