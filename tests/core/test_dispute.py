"""`station dispute` for a settled, a cancelled and a faulted-then-resumed round of each game,
from journals and ledgers the soak wrote (a Si Zhi Dao game with a link fault resumed by the
floor from a recorded session with the shoe silent for five seconds): the pack is checked
against the journal and the ledger (cards, bets, postings, decisions and their users, the
result), its proof holds, and its `index.html` opens in Chromium without a script error. A
round changed in the journal afterwards gets a pack whose proof says so."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from station.core import chain
from station.core.inputs import US, read_trace
from station.core.replay import settings_from_header
from station.core.verify import LedgerCheckpoint
from station.dispute.gather import gather
from station.games.paigow.tools.soak import PaiGowSoak
from station.games.pokdeng.tools.soak import PokDengSoak
from station.games.sizhidao.tools.soak import SiZhiDaoSoak, SzSoakOptions
from station.live.table_station import TableStation
from station.settlement.core import SettlementCore
from station.settlement.outbox import DeliveryWorker
from station.settlement.transport import InProcessTransport
from station.sim.soak import SoakOptions
from tests.browser import chromium, new_page
from tests.core.chain_tools import genesis_of, resign

pytestmark = pytest.mark.soak

KEY = b"dispute-key-0123456789abcdef0123"
SZ_TRACE = Path(__file__).parents[1] / "data" / "traces-sizhidao" / "clean_session" / "trace.jsonl"


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


def _with_link_gap(src: Path, at: int, gap_s: float, out: Path) -> None:
    """The recorded session with the shoe silent for `gap_s` from line `at` (every later
    line that much later) and the floor resuming once the shoe speaks again."""
    lines = [json.loads(x) for x in src.read_text().splitlines()]
    res, resumed = lines[:at], False
    for obj in lines[at:]:
        o = {**obj, "t": round(obj["t"] + gap_s, 3)}
        res.append(o)
        if not resumed and "shoe" in o:
            res.append({"t": round(o["t"] + 0.01, 3), "supervisor": "resume", "user": "floor1"})
            resumed = True
    out.write_text("\n".join(json.dumps(o) for o in res) + "\n")


def _station_from_trace(trace: Path, data: Path) -> None:
    header, inputs = read_trace(trace)
    clk = Clock()
    st = TableStation(settings_from_header(header), data / "journal.sqlite", clock=clk,
                      journal_sync="normal", signing_key=KEY)
    ledger = SettlementCore(data / "ledger.sqlite")
    worker = DeliveryWorker(data / "journal.sqlite", InProcessTransport(ledger))
    st.start()
    for inp in inputs:
        if inp.kind == "end":
            break
        clk.t = 1000.0 + inp.t_us / US
        st.submit(inp.kind, inp.value, inp.user, extra=inp.extra or None)
    st.stop()
    assert worker.drain(30)
    worker.stop()
    ledger.close()


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> dict[str, list[Path]]:
    root = tmp_path_factory.mktemp("disputes")
    PokDengSoak(SoakOptions(rounds=16, seed=21, crash=0.05, jam=0.12, unplug=0.1, mismatch=0.12,
                     misplace=0.0, signing_key=KEY), root / "pokdeng").run()
    PaiGowSoak(SoakOptions(rounds=16, seed=22, crash=0.05, jam=0.12, unplug=0.1,
                     mismatch=0.12, misplace=0.0, signing_key=KEY), root / "paigow").run()
    SiZhiDaoSoak(SzSoakOptions(games=5, seed=23, crash=0.01, cancel=0.3, signing_key=KEY),
                 root / "sizhidao").run()
    gap = root / "sz_gap.jsonl"
    _with_link_gap(SZ_TRACE, 60, 5.0, gap)
    (root / "sizhidao_fault").mkdir()
    _station_from_trace(gap, root / "sizhidao_fault")
    # recorded sessions with tied deals and buy-ins, and with all-ins in layers
    more = []
    for name in ("tie_once", "allin_layers"):
        (root / name).mkdir()
        _station_from_trace(SZ_TRACE.parents[1] / name / "trace.jsonl", root / name)
        more.append(root / name)
    return {"pokdeng": [root / "pokdeng"], "paigow": [root / "paigow"],
            "sizhidao": [root / "sizhidao", root / "sizhidao_fault"], "sizhidao_more": more}


def _records(data: Path) -> list[tuple[int, dict]]:
    conn = sqlite3.connect(data / "journal.sqlite")
    try:
        return [(s, json.loads(r)) for s, r in
                conn.execute("SELECT input_seq, record FROM records ORDER BY seq")]
    finally:
        conn.close()


def _rounds(data: Path) -> dict[str, dict[str, object]]:
    """Each round (a pot game's game) of the journal: how it ended, and whether it was
    paused by a fault and resumed."""
    out: dict[str, dict[str, object]] = {}
    for _, r in _records(data):
        rid = r.get("round_id") or r.get("game_id")
        if r["type"] in ("round_open", "game_open"):
            out[rid] = {"end": None, "resumed": False}
        elif rid in out:
            if r["type"] == "resumed":
                out[rid]["resumed"] = True
            elif r["type"] in ("settlement", "game_settled"):
                out[rid]["end"] = "settled"
            elif r["type"] == "round_cancelled":
                out[rid]["end"] = "cancelled"
    return out


def _pick(datas: list[Path]) -> dict[str, tuple[Path, str]]:
    picked: dict[str, tuple[Path, str]] = {}
    for data in datas:
        for rid, r in _rounds(data).items():
            if r["end"] == "settled" and not r["resumed"]:
                picked.setdefault("settled", (data, rid))
            elif r["end"] == "cancelled":
                picked.setdefault("cancelled", (data, rid))
            elif r["end"] == "settled" and r["resumed"]:
                picked.setdefault("resumed", (data, rid))
    return picked


def _dispute(data: Path, rid: str, out: Path, env_key: bytes = KEY) -> tuple[int, dict]:
    p = subprocess.run([sys.executable, "-m", "station", "dispute", rid, "--data", str(data),
                        "--out", str(out)], capture_output=True, text=True, timeout=120,
                       env={"STATION_JOURNAL_KEY": env_key.decode(), "PATH": "/usr/bin:/bin"})
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


def _check_against_journal(data: Path, rid: str, ev: dict) -> None:
    conn = sqlite3.connect(data / "journal.sqlite")
    first, last = ev["entries"]
    inputs = conn.execute("SELECT seq, t_us, line FROM inputs WHERE seq BETWEEN ? AND ? "
                          "ORDER BY seq", (first, last)).fetchall()
    conn.close()
    assert [e["seq"] for e in ev["timeline"]] == [s for s, _, _ in inputs]
    assert [e["t"] for e in ev["timeline"]] == [t / US for _, t, _ in inputs]
    mine = [(s, r) for s, r in _records(data) if first <= s <= last]
    assert [r for e in ev["timeline"] for r in e["records"]] == [r for _, r in mine]
    # every decision is there, with the user who took it
    sup = [(json.loads(line)["supervisor"], json.loads(line).get("user"))
           for _, _, line in inputs if "supervisor" in json.loads(line)]
    assert [(d["action"], d["user"]) for d in ev["decisions"] if d["by"] == "supervisor"] == sup
    # cards: what the records say the shoe read, per position, beside the camera's last view
    # (per deal in a game of several deals: "<deal_id>/<seat>")
    def named(deal, pos):
        return f"{deal}/{pos}" if deal else pos

    shoe = {}
    for _, r in mine:
        if isinstance(r.get("cards"), dict):
            for pos, cards in r["cards"].items():
                shoe[named(r.get("deal_id"), pos)] = cards
    for pos, cards in shoe.items():
        assert ev["cards"][pos]["shoe"] == cards
    cams, deal = {}, None
    for e in ev["timeline"]:
        if e["input"]["kind"] == "camera":
            cams.update({named(deal, z): seen for z, seen in e["input"]["value"].items()})
        deal = next((r["deal_id"] for r in reversed(e["records"]) if "deal_id" in r), deal)
    for zone, seen in cams.items():
        assert ev["cards"][zone]["camera"] == seen
    # bets: every accepted bet of the round, each with its ledger postings (which balance)
    accepted = [r for _, r in mine if r["type"] == "bet_accepted"]
    bet_msgs = [b for b in ev["bets"] if b["kind"] == "bet"]
    assert sorted((r["account"], r["spot"], r["amount"]) for r in accepted) == sorted(
        (b["account"], b["spot"], b["amount"]) for b in bet_msgs)
    ledger = SettlementCore(data / "ledger.sqlite")
    try:
        for b in ev["bets"]:
            assert b["in_ledger"] and ledger.applied(b["key"], table=b["message"]["table"])
            assert sum(p["amount"] for p in b["postings"]) == 0
            if b["kind"] == "bet":
                wallet = [p for p in b["postings"] if p["account_kind"] == "wallet"]
                assert wallet == [{"account": b["account"], "account_kind": "wallet",
                                   "amount": -b["deducted"]}]
    finally:
        ledger.close()
    assert ev["result"] == [r for s, r in mine if s == last]
    assert ev["proof"]["replay_equal"] is True and ev["proof"]["chain"]["through_round"] is True
    # what the round paid back: the ledger credited each account what the records return
    assert ev["proof"]["payouts_agree"] is True and all(p["agrees"] for p in ev["payouts"])
    returned: dict[str, int] = {}
    for _, r in mine:
        for b in (r.get("bets") or []) + (r.get("refunds") or []):
            x = b.get("returned", b.get("amount") if "refunds" in r else 0) or 0
            returned[b["account"]] = returned.get(b["account"], 0) + x
        for a, x in (r.get("payouts") or {}).items():
            returned[a] = returned.get(a, 0) + x
    assert {p["account"]: p["chained"] for p in ev["payouts"]} == {
        a: x for a, x in returned.items() if x}


@pytest.mark.parametrize("game", ("pokdeng", "paigow", "sizhidao"))
def test_a_pack_for_a_settled_a_cancelled_and_a_resumed_round(tables, game, tmp_path):
    picked = _pick(tables[game])
    assert set(picked) == {"settled", "cancelled", "resumed"}, (game, picked)
    for how, (data, rid) in picked.items():
        out = tmp_path / f"{how}.zip"
        rc, line = _dispute(data, rid, out)
        assert rc == 0 and line["replay_equal"] and line["chain_ok"], line
        with zipfile.ZipFile(out) as z:
            names = set(z.namelist())
            ev = json.loads(z.read("evidence.json"))
            z.extractall(tmp_path / how)
        assert {"evidence.json", "index.html"} <= names
        assert set(ev["frames"]) <= names
        assert ev["round_id"] == rid and ev["game"] == game
        for field in ("table", "timeline", "cards", "bets", "result", "frames", "proof"):
            assert field in ev
        _check_against_journal(data, rid, ev)
        if how == "resumed":
            kinds = [r["type"] for e in ev["timeline"] for r in e["records"]]
            assert "fault" in kinds and "resumed" in kinds
            assert any(d["action"] == "resume" and d["user"] for d in ev["decisions"])
        if game == "sizhidao":
            # for the floor and the regulator: every deal of the game, every private card
            deals = [r for e in ev["timeline"] for r in e["records"] if r["type"] == "deal_open"]
            private = [r for e in ev["timeline"] for r in e["records"] if r["type"] == "private"]
            assert deals and all(d["deal_id"].startswith(rid + "-D") for d in deals)
            assert private
            # each deal's own cards, the last read of each seat in it (earlier deals' kept)
            last_read = {f"{p['deal_id']}/{p['seat']}": p["cards"] for p in private}
            assert {p["deal_id"] for p in private} == {d["deal_id"] for d in deals}
            for slot, cards in last_read.items():
                assert ev["cards"][slot]["shoe"] == cards, slot
        with chromium() as browser, new_page(browser, 1280, 900, f"{game} {how} pack") as page:
            page.goto((tmp_path / how / "index.html").as_uri())
            assert page.locator("#replay-verdict").inner_text() == "yes"
            assert page.locator("#chain-verdict").inner_text() == "intact"
            shown = int(page.locator("#shown").inner_text())
            page.locator("#only-decisions").check()
            assert int(page.locator("#shown").inner_text()) < shown


def test_a_round_changed_afterwards_gets_a_pack_that_says_so(tables, tmp_path):
    src = tables["pokdeng"][0]
    data = tmp_path / "copy"
    data.mkdir()
    conn = sqlite3.connect(src / "journal.sqlite")
    out = sqlite3.connect(data / "journal.sqlite")
    conn.backup(out)
    conn.close()
    _data, rid = _pick([src])["settled"]
    ev_rc, ev = _dispute(src, rid, tmp_path / "before.zip")
    first, last = ev["entries"]
    seq, line = out.execute("SELECT seq, line FROM inputs WHERE seq BETWEEN ? AND ? AND line "
                            "LIKE '%\"bet\"%' LIMIT 1", (first, last)).fetchone()
    obj = json.loads(line)
    obj["bet"]["amount"] += 100
    out.execute("UPDATE inputs SET line=? WHERE seq=?", (json.dumps(obj), seq))
    out.commit()
    out.close()
    rc, line = _dispute(data, rid, tmp_path / "after.zip")
    assert rc == 1 and line["chain_ok"] is False
    with zipfile.ZipFile(tmp_path / "after.zip") as z:
        proof = json.loads(z.read("evidence.json"))["proof"]
    assert proof["chain"]["first_bad"]["seq"] == seq


def test_a_round_rewritten_and_resigned_with_the_key_is_not_intact_against_the_ledger(tables,
                                                                                       tmp_path):
    """Whoever holds the key changes a bet of a settled round, recomputes the chain and
    re-signs every checkpoint from there: the journal alone looks whole, but the ledger's
    newest checkpoint (after the round) disagrees, so the pack does not call the round
    intact, though the disagreement is found only after the round's last entry."""
    src = tables["pokdeng"][0]
    _data, rid = _pick([src])["settled"]
    path = tmp_path / "journal.sqlite"
    conn = sqlite3.connect(src / "journal.sqlite")
    c = sqlite3.connect(path)
    conn.backup(c)
    conn.close()
    intact, _ = gather(src / "journal.sqlite", rid, key=KEY)
    first, last = intact["entries"]
    seq, line = c.execute("SELECT seq, line FROM inputs WHERE seq BETWEEN ? AND ? AND line "
                          "LIKE '%\"bet\"%' LIMIT 1", (first, last)).fetchone()
    obj = json.loads(line)
    obj["bet"]["amount"] += 100
    c.execute("UPDATE inputs SET line=? WHERE seq=?", (json.dumps(obj), seq))
    header = c.execute("SELECT value FROM meta WHERE key='header'").fetchone()[0]
    table = json.loads(header)["table"]
    jid = c.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()[0]
    head = genesis_of(c)
    recs: dict[int, list[str]] = {}
    for s, r in c.execute("SELECT input_seq, record FROM records ORDER BY seq"):
        recs.setdefault(s, []).append(r)
    for s, t_us, text in c.execute("SELECT seq, t_us, line FROM inputs ORDER BY seq").fetchall():
        head = chain.entry_hash(head, s, t_us, text, recs.get(s, []))
        c.execute("UPDATE chain SET hash=? WHERE seq=?", (head, s))
    for (s,) in c.execute("SELECT seq FROM checkpoints WHERE seq >= ?", (seq,)).fetchall():
        (h,), = c.execute("SELECT hash FROM chain WHERE seq=?", (s,)).fetchall()
        resign(c, KEY, s, bytes(h))
    c.commit()
    c.close()
    ledger = SettlementCore(src / "ledger.sqlite")
    try:
        row = ledger.checkpoint(table, jid)
    finally:
        ledger.close()
    cp = LedgerCheckpoint(row["seq"], bytes.fromhex(row["head"]), row["sig"])
    assert cp.seq > last
    alone, _ = gather(path, rid, key=KEY)
    assert alone["proof"]["chain"]["ok"] and alone["proof"]["chain"]["through_round"]
    ev, _ = gather(path, rid, key=KEY, ledger_checkpoint=cp)
    proof = ev["proof"]["chain"]
    assert not proof["ok"] and proof["first_bad"]["seq"] == cp.seq > last
    assert proof["through_round"] is False
    # the untouched journal against the same ledger is intact through the round
    assert gather(src / "journal.sqlite", rid, key=KEY,
                  ledger_checkpoint=cp)[0]["proof"]["chain"]["through_round"] is True


def _ledger_entries(ledger: SettlementCore, table: str, round_id: str) -> dict[str, list]:
    """The ledger's entries of one round (by its booked round id), each with its postings."""
    with ledger.store.transaction(read_only=True) as tx:
        rows = tx.execute("SELECT id, key FROM entries WHERE table_id = ? AND round_id = ?",
                          (table, round_id))
        return {key: sorted((name, int(amount)) for name, amount in tx.execute(
                    "SELECT a.name, p.amount FROM postings p JOIN accounts a ON a.id = p.account_id"
                    " WHERE p.entry_id = ?", (entry_id,)))
                for entry_id, key in rows}


def test_a_si_zhi_dao_pack_holds_every_posting_of_every_pot_movement(tables):
    """Every ante, bet (raises and all-ins are bets), buy-in, payout and refund of each game,
    from the soak and from recorded sessions with tied deals and all-ins: the pack holds each
    outbox message of the game, each matched by its key to the ledger's entry with all its
    postings, and nothing the ledger booked for the game is missing from it. The pack's
    money agrees with the game's own records, and the pot it shows ends at 0."""
    from station.settlement.ledger import open_store

    games = 0
    for data in tables["sizhidao"] + tables["sizhidao_more"]:
        ended = {}
        for _, r in _records(data):
            if r["type"] in ("game_settled", "round_cancelled"):
                ended[r.get("game_id") or r["round_id"]] = r
        store = open_store(str(data / "ledger.sqlite"), read_only=True)
        ledger = SettlementCore(data / "ledger.sqlite")
        try:
            for rid, end in ended.items():
                ev, _ = gather(data / "journal.sqlite", rid, key=KEY, ledger=store)
                msgs = {b["key"]: b for b in ev["bets"]}
                table = next(iter(msgs.values()))["message"]["table"]
                booked = next(iter(msgs.values()))["message"]["round_id"]
                books = _ledger_entries(ledger, table, booked)
                assert set(msgs) == set(books), (rid, set(books) ^ set(msgs))
                for key, b in msgs.items():
                    assert b["in_ledger"] is True
                    assert sorted((p["account"], p["amount"]) for p in b["postings"]) == books[key]
                    assert sum(p["amount"] for p in b["postings"]) == 0
                pot_in = [b["message"] for b in msgs.values() if b["kind"] == "pot_in"]
                if end["type"] == "game_settled":
                    # the game's record totals each account's antes, buy-ins and bets per deal
                    totals: dict[tuple, int] = {}
                    for m in pot_in:
                        k = (m["deal_id"], m["what"], m["account"])
                        totals[k] = totals.get(k, 0) + m["amount"]
                    assert totals == {(x["deal_id"], x["kind"], x["account"]): x["amount"]
                                      for x in end["bets"]}
                    out = [b for b in msgs.values() if b["kind"] == "pot_settled"]
                    paid = {p["account"]: p["amount"] for p in out[0]["postings"]
                            if p["account_kind"] == "wallet"}
                    assert len(out) == 1 and paid == end["payouts"]
                else:
                    out = [b for b in msgs.values() if b["kind"] == "pot_cancelled"]
                    back = {p["account"]: p["amount"] for p in out[0]["postings"]
                            if p["account_kind"] == "wallet"}
                    put_in: dict[str, int] = {}
                    for m in pot_in:
                        put_in[m["account"]] = put_in.get(m["account"], 0) + m["amount"]
                    assert len(out) == 1 and back == put_in == {
                        x["account"]: x["amount"] for x in end["refunds"]}
                pot = [p["amount"] for b in msgs.values() for p in b["postings"]
                       if p["account"] == f"pot:{booked}"]
                assert pot and sum(pot) == 0, rid
                games += 1
        finally:
            store.close()
            ledger.close()
    assert games >= 8


def test_a_pack_of_one_deal_holds_the_money_moved_in_that_deal(tables):
    """A tied game's second deal, disputed on its own: its buy-ins and bets are in its pack
    with their postings (they name the deal, not only the game)."""
    from station.settlement.ledger import open_store

    data = tables["sizhidao_more"][0]  # tie_once: a game with two deals
    deals = [r["deal_id"] for _, r in _records(data) if r["type"] == "deal_open"]
    second = next(d for d in deals if d.endswith("-D2"))
    store = open_store(str(data / "ledger.sqlite"), read_only=True)
    try:
        ev, _ = gather(data / "journal.sqlite", second, key=KEY, ledger=store)
    finally:
        store.close()
    moved = [b for b in ev["bets"] if b["kind"] == "pot_in"]
    assert moved and all(b["message"]["deal_id"] == second and b["in_ledger"] for b in moved)
    assert {b["message"]["what"] for b in moved} >= {"buy_in"}


def test_a_pack_follows_the_tables_configuration(tables, tmp_path):
    """`station dispute --config`: the journal in the configured storage.dir, the frames in
    the configured `[camera] frames_dir` (outside storage.dir), the configured ledger and the
    key file the configuration names; standard error says which key and which folders."""
    data = tables["pokdeng"][0]
    _d, rid = _pick([data])["settled"]
    frames = tmp_path / "camera-frames"
    frames.mkdir()
    png = b"\x89PNG\r\n\x1a\n" + b"frame of " + rid.encode()
    (frames / f"{rid}.png").write_bytes(png)
    key_file = tmp_path / "keys" / "table.key"
    key_file.parent.mkdir()
    key_file.write_bytes(KEY + b"\n")
    key_file.chmod(0o600)
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nname = "{rid.split("-S")[0]}"\n[storage]\ndir = "{data}"\n'
                   f'[shoe]\nurl = "loop://"\n[camera]\nframes_dir = "{frames}"\n'
                   f'[journal]\nsigning_key_file = "{key_file}"\n')
    out = tmp_path / "pack.zip"
    p = subprocess.run([sys.executable, "-m", "station", "dispute", rid, "--config", str(cfg),
                        "--out", str(out)], capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr
    assert f"the key from the key file {key_file}" in p.stderr and f"frames from {frames}" in p.stderr
    with zipfile.ZipFile(out) as z:
        ev = json.loads(z.read("evidence.json"))
        assert z.read(f"frames/{rid}.png") == png
    assert ev["frames"] == [f"frames/{rid}.png"]
    assert ev["proof"]["chain"]["key"] == f"the key file {key_file}"
    assert all(b["in_ledger"] for b in ev["bets"])  # the configured (embedded) ledger
    # --data with --frames says the same without a configuration
    p = subprocess.run([sys.executable, "-m", "station", "dispute", rid, "--data", str(data),
                        "--frames", str(frames), "--key-file", str(key_file), "--out",
                        str(tmp_path / "pack2.zip")], capture_output=True, text=True,
                       timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert p.returncode == 0 and json.loads(p.stdout)["frames"] == 1, p.stderr


def _copy_table(src: Path, data: Path) -> Path:
    """A copy of a table's journal and ledger, to change."""
    data.mkdir()
    for name in ("journal.sqlite", "ledger.sqlite"):
        conn, out = sqlite3.connect(src / name), sqlite3.connect(data / name)
        conn.backup(out)
        conn.close()
        out.close()
    return data


def test_a_pack_names_the_chained_bets_and_finds_the_ledger_disagreeing(tables, tmp_path):
    """The outbox is not chained: a bet message changed there (its amounts) and another
    deleted leave the pack's bets as the chained records name them, and the ledger's
    postings of the changed one, still the original, agree with the records; a ledger
    posting that differs from the records makes the round not intact against the ledger."""
    src = tables["pokdeng"][0]
    data = _copy_table(src, tmp_path / "copy")
    _data, rid = _pick([src])["settled"]
    j = sqlite3.connect(data / "journal.sqlite")
    rows = [(s, json.loads(b)) for s, b in j.execute(
        "SELECT seq, body FROM settlement_outbox WHERE kind='bet' ORDER BY seq")]
    mine = [(s, b) for s, b in rows if b.get("table_round") == rid]
    assert len(mine) >= 2
    (s1, b1), (s2, b2) = mine[0], mine[1]
    b1["amount"], b1["deducted"] = b1["amount"] * 5, b1["deducted"] * 5
    j.execute("UPDATE settlement_outbox SET body=? WHERE seq=?", (json.dumps(b1), s1))
    j.execute("DELETE FROM settlement_outbox WHERE seq=?", (s2,))
    j.commit()
    recorded = [json.loads(r) for (r,) in j.execute(
        "SELECT record FROM records WHERE type='bet_accepted' ORDER BY seq")]
    j.close()
    recorded = [r for r in recorded if r["round_id"] == rid]
    rc, line = _dispute(data, rid, tmp_path / "outbox.zip")
    with zipfile.ZipFile(tmp_path / "outbox.zip") as z:
        ev = json.loads(z.read("evidence.json"))
    bets = [b for b in ev["bets"] if b["kind"] == "bet"]
    assert [(b["account"], b["amount"], b["deducted"]) for b in bets] == [
        (r["account"], r["amount"], r["deducted"]) for r in recorded]
    assert b2["key"] in {b["key"] for b in bets}  # the deleted one is still there
    assert rc == 0 and line["ledger_agrees"] is True, line
    # the ledger's posting of the first bet changed: the round is not intact against it
    led = sqlite3.connect(data / "ledger.sqlite")
    (entry,) = led.execute("SELECT id FROM entries WHERE key=?", (b1["key"],)).fetchone()
    led.execute("UPDATE postings SET amount = amount * 5 WHERE entry_id=?", (entry,))
    led.commit()
    led.close()
    rc, line = _dispute(data, rid, tmp_path / "ledger.zip")
    assert rc == 1 and line["ledger_agrees"] is False and line["chain_ok"] is True, line
    with zipfile.ZipFile(tmp_path / "ledger.zip") as z:
        ev = json.loads(z.read("evidence.json"))
        html = z.read("index.html").decode()
    bad = [b for b in ev["bets"] if b.get("ledger_disagrees")]
    assert [b["key"] for b in bad] == [b1["key"]]
    assert "DISAGREES" in html and "id='ledger-verdict'>NO" in html


@pytest.mark.parametrize("game", ("pokdeng", "sizhidao"))
def test_a_payout_posting_that_differs_from_the_settlement_shows_in_the_pack(tables, game,
                                                                             tmp_path):
    """The ledger's posting of what a settled round paid one account changed: the pack names
    the account (what the chained records return, what the ledger credited), marks the
    paying message, the round is not intact against the ledger (exit 1), and the page shows
    it (Chromium)."""
    src = tables[game][0]
    data = _copy_table(src, tmp_path / "copy")
    _data, rid = _pick([src])["settled"]
    rc, line = _dispute(data, rid, tmp_path / "before.zip")
    assert rc == 0 and line["ledger_agrees"] is True, line
    with zipfile.ZipFile(tmp_path / "before.zip") as z:
        before = json.loads(z.read("evidence.json"))
    paid = [p for p in before["payouts"] if p["chained"] > 0]
    assert paid, before["payouts"]
    who = paid[0]["account"]
    paying = [b for b in before["bets"] if b["kind"] != "bet" and any(
        p["account"] == who and p["account_kind"] == "wallet" and p["amount"] > 0
        for p in b["postings"])]
    assert len(paying) == 1, paying
    led = sqlite3.connect(data / "ledger.sqlite")
    (entry,) = led.execute("SELECT id FROM entries WHERE key=?", (paying[0]["key"],)).fetchone()
    changed = led.execute(
        "UPDATE postings SET amount = amount + 7 WHERE entry_id=? AND account_id IN (SELECT id "
        "FROM accounts WHERE kind='wallet' AND name=?)", (entry, who)).rowcount
    led.commit()
    led.close()
    assert changed == 1
    rc, line = _dispute(data, rid, tmp_path / "after.zip")
    assert rc == 1 and line["ledger_agrees"] is False and line["chain_ok"] is True, line
    with zipfile.ZipFile(tmp_path / "after.zip") as z:
        ev = json.loads(z.read("evidence.json"))
        z.extractall(tmp_path / "after")
    assert ev["proof"]["payouts_agree"] is False and ev["proof"]["bets_agree"] is True
    assert [p for p in ev["payouts"] if not p["agrees"]] == [
        {"account": who, "chained": paid[0]["chained"], "ledger": paid[0]["chained"] + 7,
         "agrees": False}]
    marked = [b for b in ev["bets"] if b.get("ledger_disagrees")]
    assert [b["key"] for b in marked] == [paying[0]["key"]]
    assert who in marked[0]["ledger_disagrees"]
    with chromium() as browser, new_page(browser, 1280, 900, f"{game} payout changed") as page:
        page.goto((tmp_path / "after" / "index.html").as_uri())
        assert page.locator("#ledger-verdict").inner_text() == "NO"
        row = page.locator("#payouts tr[data-agrees='False']")
        assert row.count() == 1 and who in row.inner_text()
