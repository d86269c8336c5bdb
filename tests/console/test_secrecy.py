"""Secrecy (PROCEDURE.md §4), tested end to end: rounds are replayed through a live table,
and after every single input every page, API answer and the event stream of the console is
searched for a card the table must still keep to itself — a card dealt face down to a
position not yet revealed after betting closed, or any burn card.

Which cards are secret is worked out here from the trace alone (the shoe's reads in its
bytes, the deal plan, the camera's lines), independently of the station's code.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import httpx
import pytest

from station.core.inputs import US, Input

POSITIONS = ["P1", "P2", "P3", "P4", "P5", "B"]
PLAN = POSITIONS * 2  # the 12 cards after the round's burn card
FRAME = re.compile(r"\$(\d+),(CARD,([0-9A-Z]{2})|UNREAD)\*")
BURN_VALUE = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10}


class SecretOracle:
    """Follows the trace like an observer who can see inside the shoe."""

    def __init__(self, betting_seconds: float) -> None:
        self.betting = betting_seconds
        self.buf = ""
        self.seen_seqs: set[int] = set()
        self.first: str | None = None
        self.burns_left = 0
        self.reads: set[str] = set()  # every card read, except first cards (shown face up)
        self.public: set[str] = set()  # what has been face up on the table after betting closed
        self.round: dict[str, Any] | None = None
        self.rounds: list[dict[str, list[str]]] = []  # each round's cards by position
        self.in_shoe = False

    def feed(self, inp: Input) -> None:
        t = inp.t_us / US
        if inp.kind == "dealer" and inp.value == "new_shoe":
            self.in_shoe, self.first, self.round = True, None, None
        elif inp.kind == "dealer" and inp.value == "open_betting" and self.first and not self.burns_left:
            self.round = {"k": 0, "closes": t + self.betting, "cards": {p: [] for p in POSITIONS}}
            self.rounds.append(self.round["cards"])
        elif inp.kind == "shoe":
            self.buf += inp.value.decode("latin-1") if isinstance(inp.value, bytes) else inp.value
            for m in FRAME.finditer(self.buf):
                seq = int(m.group(1))
                if seq in self.seen_seqs:
                    continue
                self.seen_seqs.add(seq)
                self._card(m.group(3))
            self.buf = self.buf[-200:]  # a frame split across chunks is found next time
        elif inp.kind == "camera":
            closed = self.round is not None and t >= self.round["closes"]
            for zone, cards in inp.value.items():
                face_up = [c for c in cards if c not in ("??", "XX", "CUT")]
                if zone == "BURN":
                    self.public.update(face_up)
                elif zone in POSITIONS and closed and face_up:
                    # face up on the table after betting closed: everyone sees these
                    self.public.update(face_up)
                    assert self.round is not None
                    if len(face_up) == 2 and sorted(face_up) == sorted(self.round["cards"][zone]):
                        self.public.update(self.round["cards"][zone])

    def _card(self, card: str | None) -> None:
        if self.first is None:
            self.first = card or "??"
            if card:
                self.public.add(card)
                self.burns_left = BURN_VALUE.get(card[0], int(card[0]) if card[0].isdigit() else 0)
            return
        if card:
            self.reads.add(card)
        if self.burns_left:
            self.burns_left -= 1
            return
        r = self.round
        if r is not None and card:
            if r["k"] >= 1 and r["k"] - 1 < len(PLAN):
                r["cards"][PLAN[r["k"] - 1]].append(card)
        if r is not None:
            r["k"] += 1

    def secret(self) -> set[str]:
        return self.reads - self.public


CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-])([2-9TJQKA][SHDC])(?![A-Za-z0-9_\-])")


def leaks(text: str, secret: set[str]) -> list[str]:
    """Secret cards written anywhere in `text`, as a token of their own (RULES.md §0 notation;
    the page's rank-and-suit-symbol form is checked in the browser test)."""
    return sorted(set(CARD_TOKEN.findall(text)) & secret)


class StreamTap:
    """Reads the console's event stream all along, keeping every event for checking."""

    def __init__(self, client: Any, path: str) -> None:
        self.events: list[str] = []
        self.versions: list[int] = []
        self.cond = threading.Condition()
        self.stop = False
        self.thread = threading.Thread(target=self._run, args=(client, path), daemon=True)
        self.thread.start()

    def _run(self, client: Any, path: str) -> None:
        try:
            with client.stream("GET", path, timeout=None) as s:
                for line in s.iter_lines():
                    if self.stop:
                        return
                    if line.startswith("data: "):
                        with self.cond:
                            self.events.append(line[6:])
                            self.versions.append(json.loads(line[6:]).get("version", 0))
                            self.cond.notify_all()
        except httpx.HTTPError:
            if not self.stop:
                raise

    def wait_version(self, version: int, timeout: float = 10) -> None:
        with self.cond:
            ok = self.cond.wait_for(lambda: self.versions and max(self.versions) >= version, timeout)
        assert ok, f"the event stream never showed view {version}"

    def take(self) -> list[str]:
        with self.cond:
            out, self.events = self.events, []
            return out


@pytest.mark.parametrize("trace,decision", [("mismatch_cancel", ("cancel_round", 109.1)),
                                            ("order_fault", ("resume", 69.6))])
def test_no_hidden_card_leaves_the_console(make_table, serve, trace, decision) -> None:
    table = make_table(trace)
    con = serve(table)
    sup = con.client("sup1")
    watcher = con.client("dealer1")
    oracle = SecretOracle(float(table.header.settings.get("betting_seconds", 15)))
    tap = StreamTap(watcher, "/api/events")
    tap_one = StreamTap(con.client("sup2"), "/api/tables/PD-01/events")
    # what does not change with the table: checked against every step's secrets all the same
    static = [sup.get(p).text for p in ("/", "/login", "/static/console.js", "/static/console.css",
                                         "/api/session")]
    # every answer that follows the table (`/api/tables/PD-01` is the same view as `/api/tables`
    # and comes on the two event streams)
    pages = ["/api/tables", "/api/tables/PD-01/rounds", "/api/tables/PD-01/roads", "/api/audit",
             "/metrics"]
    recalls: dict[str, str] = {}  # a round that is over does not change: fetched once
    max_secret = 0
    hidden_during_betting = 0
    steps = 0
    decided = False
    while table.pos < len(table.inputs):
        inp = table.inputs[table.pos]
        if inp.kind == "supervisor" and inp.value == decision[0]:
            # the supervisor decides through the console, not the trace
            table.pos += 1
            table.at(decision[1])
            r = con.act(sup, "PD-01", decision[0])
            assert r.status_code == 200, r.text
            decided = True
            texts = [r.text]
        else:
            table.step()
            oracle.feed(inp)
            texts = []
        steps += 1
        version = table.station.view["version"]
        tap.wait_version(version)
        tap_one.wait_version(version)
        secret = oracle.secret()
        max_secret = max(max_secret, len(secret))
        v = table.station.view
        if v.get("round") and v["round"]["betting_open"] and v["round"]["cards_dealt"]:
            hidden_during_betting += 1
        texts += [sup.get(p).text for p in pages]
        for item in sup.get("/api/tables/PD-01/rounds").json()["rounds"]:
            rid = item["round_id"]
            if rid not in recalls:
                recalls[rid] = sup.get(f"/api/tables/PD-01/rounds/{rid}").text
        texts += tap.take() + tap_one.take() + static + list(recalls.values())
        for text in texts:
            bad = leaks(text, secret)
            assert not bad, (f"after input {table.pos} ({inp.kind} at {inp.t_us / US} s) the console "
                             f"shows hidden card(s) {bad}: {text[:400]}")
    tap.stop = tap_one.stop = True

    assert decided
    # the test saw something to keep secret, and would have caught it
    assert hidden_during_betting > 50 and max_secret >= 10
    assert leaks(json.dumps({"x": [sorted(oracle.reads)[0]]}), oracle.reads)
    # the oracle's reading of the trace is right: its rounds are the validated hands
    by_number = {h["round"] if "round" in h else int(h["round_id"].rsplit("R", 1)[1]): h["cards"]
                 for h in table.expected["hands"]}
    for n, cards in by_number.items():
        assert oracle.rounds[n - 1] == cards
    # and the console does show cards once they are public: the last hand, in full
    last = table.expected["hands"][-1]
    rec = sup.get(f"/api/tables/PD-01/rounds/{last['round_id']}").json()
    assert rec["cards"] == last["cards"]
    # a cancelled round's unrevealed cards stay secret for good
    if trace == "mismatch_cancel":
        assert oracle.secret() - {c for h in table.expected["hands"] for cs in h["cards"].values() for c in cs}
