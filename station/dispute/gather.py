"""Gather one round's evidence: what `evidence.json` holds (docs/operator.md, "Answering a
dispute").

Everything comes from the table's own files, read only: the journal (every input of the
round with its time, the records it made, the outbox messages), the ledger (the postings of
each message, matched by key), the console's audit log (who decided what) and the camera
frames kept at validation. A round is found by its id in the records: every record naming it
(or a part of it, as a pot game's deal `<game id>-D2` is part of its game) belongs to it, and
the round spans the journal entries from the first such record to the last. Nothing here
names a game: positions, zones and seats are what the records and camera readings carry.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from station.core import chain
from station.core.inputs import parse_header, parse_input, zone_kinds_of
from station.core.kernel import TableKernel
from station.core.replay import settings_from_header
from station.core.verify import LedgerCheckpoint, verify
from station.frames_kept import round_frames

#: a DS frame as the shoe sends it: `$<seq>,<TYPE>[,<fields>]*<crc>` (SHOE_PROTOCOL.md)
FRAME = re.compile(r"\$(\d+),([A-Z_]+)((?:,[^*\r\n]*)?)\*([0-9A-Fa-f]{4})")


class DisputeError(RuntimeError):
    pass


def _names(value: Any, rid: str) -> bool:
    """The record names the round, or a part of it (`<round id>-…`)."""
    if isinstance(value, str):
        return value == rid or value.startswith(rid + "-")
    if isinstance(value, dict):
        return any(_names(v, rid) for k, v in value.items() if k.endswith("_id"))
    return False


def decode_shoe(text: str) -> list[dict[str, Any]]:
    """The DS frames in one read of shoe bytes (a read may hold several, or part of one)."""
    out = []
    for m in FRAME.finditer(text):
        fields = [f for f in m.group(3).split(",")[1:]] if m.group(3) else []
        out.append({"seq": int(m.group(1)), "type": m.group(2), "fields": fields})
    return out


def gather(path: Path, rid: str, *, key: bytes, frames_dir: Path | None = None,
           audit_path: Path | None = None,
           ledger_checkpoint: LedgerCheckpoint | list[LedgerCheckpoint] | None = None,
           ledger: Any = None) -> tuple[dict[str, Any], list[Path]]:
    """The evidence and the frame files to pack with it, from the journal at `path`, the
    frames kept in `frames_dir`, the console's audit log at `audit_path`. `ledger`: an open
    ledger store (station/settlement/ledger) or None."""
    if not path.is_file():
        raise DisputeError(f"{path}: no such journal")
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return _gather(conn, frames_dir, audit_path, rid, key, ledger_checkpoint, ledger)
    except sqlite3.DatabaseError as e:
        raise DisputeError(f"{path}: the journal cannot be read ({e})") from None
    finally:
        conn.close()


def _gather(conn: sqlite3.Connection, frames_dir: Path | None, audit_path: Path | None,
            rid: str, key: bytes,
            ledger_cp: LedgerCheckpoint | list[LedgerCheckpoint] | None,
            ledger: Any) -> tuple[dict[str, Any], list[Path]]:
    ledger_cps = [ledger_cp] if isinstance(ledger_cp, LedgerCheckpoint) else list(ledger_cp or [])
    header = parse_header(json.loads(conn.execute(
        "SELECT value FROM meta WHERE key='header'").fetchone()[0]))
    jid_row = conn.execute("SELECT value FROM meta WHERE key='journal_id'").fetchone()
    jid = jid_row[0] if jid_row else None
    mine: list[tuple[int, dict[str, Any]]] = []
    for seq, text in conn.execute("SELECT input_seq, record FROM records ORDER BY seq"):
        r = json.loads(text)
        if _names({k: v for k, v in r.items() if k.endswith("_id")}, rid):
            mine.append((int(seq), r))
    if not mine:
        raise DisputeError(f"round {rid}: no record of the journal names it")
    first, last = mine[0][0], mine[-1][0]
    timeline = list(_timeline(conn, first, last, zone_kinds_of(header.game)))
    audit = _audit(audit_path, rid) if audit_path is not None else []
    decisions = [{"seq": e["seq"], "t": e["t"], "by": e["input"]["kind"],
                  "action": e["input"]["value"],
                  "user": e["input"].get("user"), "records": [r["type"] for r in e["records"]]}
                 for e in timeline if e["input"]["kind"] in ("supervisor", "dealer")]
    # what the round's last entry made: its end (settlement or refunds), and what came with
    # it (a shoe that ended with the round)
    result = [json.loads(t) for (t,) in conn.execute(
        "SELECT record FROM records WHERE input_seq = ? ORDER BY seq", (last,))]
    messages = _messages(conn, rid)
    bets, bets_agree = _bets(conn, rid, header.table, jid, messages, ledger)
    payouts, payouts_agree = _payouts([r for _, r in mine], bets, ledger is not None)
    ledger_agrees = None if ledger is None else bool(bets_agree and payouts_agree)
    verdict = verify(conn, key, ledger_cps)
    round_intact = _vouched_through(conn, verdict, key, header.table, jid, last, ledger_cps)
    head = conn.execute("SELECT hash FROM chain WHERE seq=?", (last,)).fetchone()
    replay_equal, replay_detail = _replay_equal(conn, header, jid, last)
    frames = round_frames(frames_dir, rid)
    evidence = {
        "round_id": rid,
        "game": header.game,
        "table": header.table,
        "journal_id": jid,
        "entries": [first, last],
        "timeline": timeline,
        "decisions": decisions,
        # the station's own faults in the round: a time its journal could not be written
        "station_faults": [{"seq": e["seq"], "t": e["t"], **e["input"]["value"]}
                           for e in timeline if e["input"]["kind"] == "station_fault"],
        "audit": audit,
        "cards": _cards(timeline, [r for _, r in mine]),
        "bets": bets,
        # what the chained records return to each account (payouts, returns, refunds)
        # beside what the ledger's postings of the round's paying messages credited it
        "payouts": payouts,
        "result": result,
        "frames": [f"frames/{p.name}" for p in frames],
        "proof": {
            "chain": {**verdict.line(), "through_round": round_intact,
                      "round_last_seq": last,
                      "head_at_round_end": bytes(head[0]).hex() if head else None,
                      "ledger_checkpoint": max((c.seq for c in ledger_cps), default=None)},
            "replay_equal": replay_equal,
            "replay": replay_detail,
            # the ledger's postings of the round's bets, and of what it paid back, against
            # the chained records (None: no ledger given)
            "ledger_agrees": ledger_agrees,
            "bets_agree": bets_agree,
            "payouts_agree": payouts_agree if ledger is not None else None,
        },
    }
    return evidence, frames


def _vouched_through(conn: sqlite3.Connection, verdict: Any, key: bytes, table: str,
                     jid: str | None, last: int, ledger_cps: list[LedgerCheckpoint]) -> bool:
    """Whether the chain proves the round as the table wrote it: the first checkpoint at or
    after the round's last entry is signed with the table's key and signs the chain the walk
    recomputed there, nothing bad was found up to it, and (given the ledger's checkpoint)
    the ledger's agrees with the journal too. A problem found only after the round is not
    enough to call it intact: a rewrite re-signed with the key shows only at the ledger's."""
    row = conn.execute("SELECT seq, head, sig, t_us, why FROM checkpoints WHERE seq >= ? "
                       "ORDER BY seq LIMIT 1", (last,)).fetchone()
    if row is None:
        return False
    seq, head, sig = int(row[0]), bytes(row[1]), str(row[2])
    bad = verdict.first_bad
    if bad is not None and bad["seq"] <= seq:
        return False
    if verdict.heads.get(seq) != head or not chain.checkpoint_ok(
            key, table, jid, seq, head, sig, version=verdict.chain_version, t_us=int(row[3]),
            why=str(row[4])):
        return False
    for ledger_cp in ledger_cps:
        # the walk keeps the chain's hash at each ledger entry it reaches; one beyond the
        # journal's end is a journal cut short
        if (verdict.heads.get(ledger_cp.seq) != ledger_cp.head
                or not chain.signature_ok(key, table, jid, ledger_cp.seq, ledger_cp.head,
                                          ledger_cp.sig)):
            return False
    return True


def _timeline(conn: sqlite3.Connection, first: int, last: int,
              zone_kinds: Mapping[str, str]) -> Iterator[dict[str, Any]]:
    records: dict[int, list[dict[str, Any]]] = {}
    for seq, text in conn.execute("SELECT input_seq, record FROM records WHERE input_seq "
                                  "BETWEEN ? AND ? ORDER BY seq", (first, last)):
        records.setdefault(int(seq), []).append(json.loads(text))
    for seq, t_us, line in conn.execute("SELECT seq, t_us, line FROM inputs WHERE seq BETWEEN "
                                        "? AND ? ORDER BY seq", (first, last)):
        obj = json.loads(line)
        inp = parse_input(obj, seq, journal=True, zone_kinds=zone_kinds)
        entry: dict[str, Any] = {"seq": seq, "t": t_us / 1_000_000,
                                 "input": {"kind": inp.kind, "value": inp.value}}
        if inp.user is not None:
            entry["input"]["user"] = inp.user
        if inp.extra:
            entry["input"].update(inp.extra)
        if isinstance(inp.value, bytes):  # bytes from or to the shoe, as the trace has them
            text = inp.value.decode("latin-1")
            entry["input"]["frames"] = decode_shoe(text)
            entry["input"]["value"] = text
        entry["records"] = records.get(seq, [])
        yield entry


def _audit(path: Path, rid: str) -> list[dict[str, Any]]:
    """The console's audit rows of the round: who decided what, when, from where, and what
    came of it (absent when the table ran without a console)."""
    if not path.is_file():
        return []
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(
            "SELECT * FROM audit WHERE round_id = ? OR round_id LIKE ? ORDER BY id",
            (rid, rid + "-%"))]
    finally:
        conn.close()


def _cards(timeline: list[dict[str, Any]], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per position (door, seat, zone): the shoe's reads as the records name them, beside
    what the camera last saw there in the round (and each reading it reported)."""
    by: dict[str, dict[str, Any]] = {}

    def slot(name: str) -> dict[str, Any]:
        return by.setdefault(name, {"shoe": None, "camera": None, "camera_readings": []})

    for r in records:
        cards = r.get("cards")
        deal = r.get("deal_id")
        if isinstance(cards, dict):
            for pos, cs in cards.items():
                slot(_in_deal(deal, pos))["shoe"] = cs
        elif isinstance(cards, list) and isinstance(r.get("seat"), str):
            slot(_in_deal(deal, r["seat"]))["shoe"] = cards
    deal = None  # the deal the camera's readings belong to: the last one a record named
    for e in timeline:
        if e["input"]["kind"] == "camera" and isinstance(e["input"]["value"], dict):
            for zone, seen in e["input"]["value"].items():
                s = slot(_in_deal(deal, zone))
                s["camera"] = seen
                s["camera_readings"].append({"t": e["t"], "seq": e["seq"], "seen": seen})
        for r in e["records"]:
            if isinstance(r.get("deal_id"), str):
                deal = r["deal_id"]
    for s in by.values():
        s["agree"] = (None if s["shoe"] is None or s["camera"] is None
                      else sorted(map(str, s["shoe"])) == sorted(map(str, s["camera"])))
    return dict(sorted(by.items()))


def _in_deal(deal: Any, position: str) -> str:
    """A position's name in the pack: per deal where a round has several (a game of tied
    deals), so an earlier deal's cards are not overwritten by a later one's."""
    return f"{deal}/{position}" if isinstance(deal, str) else position


def _messages(conn: sqlite3.Connection, rid: str) -> list[dict[str, Any]]:
    """Every outbox message of the round: its round (as the floor knows it, `table_round`)
    is the round or the round is part of it, or it moved money in a deal of the round (a
    pot game's `deal_id`, when the pack is of one deal)."""
    out = []
    for key, kind, body, delivered in conn.execute(
            "SELECT key, kind, body, delivered_at FROM settlement_outbox ORDER BY seq"):
        m = json.loads(body)
        if _names(m.get("table_round", m.get("round_id")), rid) or _names(m.get("deal_id"), rid):
            out.append({"key": key, "kind": kind, "message": m, "delivered": delivered is not None})
    return out


def _bets(conn: sqlite3.Connection, rid: str, table: str, jid: str | None,
          messages: list[dict[str, Any]], ledger: Any) -> tuple[list[dict[str, Any]], bool | None]:
    """The round's bets as the chained records name them (`bet_accepted`, in the order the
    table took them: the n-th is the outbox's `bet:ROUND:n`), each beside what the ledger
    booked under its key and whether that agrees: its wallet posting is the bet's deduction.
    The outbox is not chained, so it only supplies the key and the delivery state; a bet
    message of the round that no chained record names is listed and disagrees. The round's
    other messages (hands, refunds) follow as the outbox holds them. Returns the bets and
    whether the ledger agrees (None without a ledger)."""
    bet_msgs = [m for m in messages if m["kind"] == "bet"]
    others = [_with_postings(m, ledger) for m in messages if m["kind"] != "bet"]
    prefix = f"{table}/{jid}/" if jid else ""
    out: list[dict[str, Any]] = []
    used: set[str] = set()
    agrees = True
    numbers: dict[str, int] = {}
    for seq, text in conn.execute("SELECT input_seq, record FROM records WHERE type = "
                                  "'bet_accepted' ORDER BY seq"):
        r = json.loads(text)
        round_id = r.get("round_id")
        if not isinstance(round_id, str) or not _names(round_id, rid):
            continue
        numbers[round_id] = n = numbers.get(round_id, 0) + 1
        want = f"bet:{round_id}:{n}"
        found = next((m for m in bet_msgs if m["key"] not in used and (
            m["key"].endswith("/" + want) or m["key"] == want
            or re.search(rf"(^|/){re.escape(want)}:", m["key"]))), None)
        chained = {k: r.get(k) for k in ("account", "spot", "amount", "deducted")}
        entry = found if found is not None else {
            "key": prefix + want, "kind": "bet", "message": {"table": table if jid else ""},
            "delivered": False}
        used.add(entry["key"])
        b = {**_with_postings(entry, ledger), **chained, "seq": int(seq), "chained": True}
        b["message"] = entry["message"]
        if ledger is not None:
            why = _posting_disagrees(b, chained)
            if why:
                b["ledger_disagrees"] = why
                agrees = False
        out.append(b)
    for m in bet_msgs:
        if m["key"] not in used:
            b = {**_with_postings(m, ledger), "chained": False,
                 "ledger_disagrees": "no chained record of the journal names this bet"}
            agrees = False
            out.append(b)
    return out + others, (agrees if ledger is not None else None)


#: the settlement messages that pay money back to accounts (station/settlement/core.py): a
#: round's hand (its settlement), its cancel (refunds), a pot's payouts or refunds
PAYING_KINDS = ("hand", "round_cancelled", "pot_settled", "pot_cancelled")


def chained_returns(records: list[dict[str, Any]]) -> dict[str, int]:
    """What the round's chained records return to each account: every bet's `returned` (a
    settlement's, or a cancel's refunds), a refund's `amount` where it names no return, and
    a pot's `payouts` (account -> amount)."""
    out: dict[str, int] = {}

    def add(account: Any, amount: Any) -> None:
        if isinstance(account, str) and isinstance(amount, int) and not isinstance(amount, bool):
            out[account] = out.get(account, 0) + amount

    for r in records:
        if isinstance(r.get("payouts"), dict):
            for account, amount in r["payouts"].items():
                add(account, amount)
        for name in ("bets", "refunds"):
            for e in r.get(name) or ():
                if isinstance(e, dict) and "returned" in e:
                    add(e.get("account"), e["returned"])
                elif isinstance(e, dict) and name == "refunds":
                    add(e.get("account"), e.get("amount"))
    return out


def _payouts(records: list[dict[str, Any]], entries: list[dict[str, Any]],
             with_ledger: bool) -> tuple[list[dict[str, Any]], bool]:
    """Per account, what the chained records return beside what the ledger credited its
    wallet for the round's paying messages (its settlement, refunds or pot payouts); each
    paying message whose postings credit an account otherwise than the records is marked
    `ledger_disagrees`. Returns the rows and whether all agree (True without a ledger: the
    ledger column is then None)."""
    want = {a: x for a, x in chained_returns(records).items() if x}
    paying = [e for e in entries if e["kind"] in PAYING_KINDS]
    got: dict[str, int] = {}
    for e in paying:
        for p in e.get("postings") or ():
            if p["account_kind"] == "wallet":
                got[p["account"]] = got.get(p["account"], 0) + p["amount"]
    rows = []
    for account in sorted(set(want) | ({a for a, x in got.items() if x} if with_ledger else set())):
        chained, booked = want.get(account, 0), got.get(account, 0)
        rows.append({"account": account, "chained": chained,
                     "ledger": booked if with_ledger else None,
                     "agrees": (booked == chained) if with_ledger else None})
    if not with_ledger:
        return rows, True
    wrong = [r for r in rows if not r["agrees"]]
    for e in paying:
        if not e.get("in_ledger"):
            e.setdefault("ledger_disagrees", "the ledger holds no entry for it")
            continue
        mine = {p["account"] for p in e["postings"] if p["account_kind"] == "wallet"}
        off = [r for r in wrong if r["account"] in mine]
        if off:
            e["ledger_disagrees"] = "; ".join(
                f"the ledger credited {r['account']} {r['ledger']:+d}; the chained records "
                f"return {r['chained']}" for r in off)
    return rows, not wrong and all(e.get("in_ledger") for e in paying)


def _posting_disagrees(b: dict[str, Any], chained: dict[str, Any]) -> str | None:
    refused = b.get("ledger_refused")
    if refused is not None:
        return f"the ledger refused it ({refused['reason']})"
    if not b.get("in_ledger"):
        return "the ledger holds no entry for it"
    wallet = sum(p["amount"] for p in b["postings"]
                 if p["account_kind"] == "wallet" and p["account"] == chained["account"])
    if wallet != -int(chained["deducted"] or 0):
        return (f"the ledger posted {wallet:+d} to {chained['account']}; the chained record "
                f"deducts {chained['deducted']}")
    if sum(p["amount"] for p in b["postings"]) != 0:
        return "the ledger's postings for it do not balance"
    return None


def _with_postings(entry: dict[str, Any], ledger: Any) -> dict[str, Any]:
    """The outbox message beside what the ledger booked for its key."""
    m = entry["message"]
    out = {**{k: m[k] for k in ("account", "spot", "amount", "deducted") if k in m}, **entry}
    if ledger is None:
        out["postings"] = None
        return out
    table = m.get("table", "")
    with ledger.transaction(read_only=True) as tx:
        row = tx.one("SELECT id FROM entries WHERE table_id = ? AND key = ?", (table, entry["key"]))
        if row is None:
            out["postings"] = []
            out["in_ledger"] = False
            # refused by the ledger (nothing posted), and why; else not delivered yet
            refused = tx.one("SELECT reason, detail FROM refusals WHERE table_id = ? AND key = ?",
                             (table, entry["key"]))
            if refused is not None:
                out["ledger_refused"] = {"reason": refused[0], "detail": refused[1]}
            return out
        rows = tx.execute(
            "SELECT a.kind, a.table_id, a.name, p.amount FROM postings p JOIN accounts a"
            " ON a.id = p.account_id WHERE p.entry_id = ? ORDER BY p.id", (row[0],))
    out["in_ledger"] = True
    out["postings"] = [{"account": name, "account_kind": kind, "amount": int(amount),
                        **({"table": t} if t else {})} for kind, t, name, amount in rows]
    return out


def _replay_equal(conn: sqlite3.Connection, header: Any, jid: str | None,
                  last: int) -> tuple[bool, str]:
    """Re-apply the journal from its first input to the round's last entry with a fresh
    kernel; the records it makes must be exactly the stored ones."""
    kernel = TableKernel(settings_from_header(header), journal_id=jid)
    stored = conn.execute("SELECT input_seq, record FROM records WHERE input_seq <= ? "
                          "ORDER BY seq", (last,))
    prev = None
    made = 0
    kinds = zone_kinds_of(header.game)
    for seq, line in conn.execute("SELECT seq, line FROM inputs WHERE seq <= ? ORDER BY seq",
                                  (last,)):
        inp = parse_input(json.loads(line), seq, prev, journal=True, zone_kinds=kinds)
        prev = inp.t_us
        kernel.apply(inp)
        records, _messages, _commands = kernel.take_outputs()
        for r in records:
            want = stored.fetchone()
            if want is None or json.loads(want[1]) != r or want[0] != seq:
                return False, f"entry {seq} re-applied makes another record (record {made})"
            made += 1
    if stored.fetchone() is not None:
        return False, f"the journal stores records re-applying it does not make (after {made})"
    return True, f"{made} records re-made from entry 1 to {last}, each equal to the stored one"


def ledger_checkpoint_of(ledger: Any, table: str, jid: str | None) -> list[LedgerCheckpoint]:
    """Every checkpoint the ledger holds of the journal."""
    from station.settlement.checkpoints import every_one

    return [LedgerCheckpoint(r["seq"], bytes.fromhex(r["head"]), r["sig"])
            for r in every_one(ledger, table if jid else "", jid or "")]


__all__ = ["DisputeError", "chain", "gather", "ledger_checkpoint_of"]
