"""Soak of a Si Zhi Dao table: many games through the live station at accelerated time, with
station crashes.

The session is played on paper by the lockstep simulator (`station.games.sizhidao.sim`:
bots that sit, bet, raise, fold, go all-in, arrange or leave it to the automatic
arrangement, buy in, drop their connection and leave; a one-deck shoe shuffled fresh for
every deal; a camera over the seat zones), which also runs a table kernel beside it and so
knows every record the table must make. The same trace is then fed into a real
`TableStation` with its SQLite journal, its outbox and a real settlement core with its
ledger, on a virtual clock; now and then the station is abandoned between two inputs (a
crash) and started again from its journal. The report: games, deals, tie rounds, crashes,
whether the journal holds exactly the records the table must make (nothing lost, nothing
twice), whether every game was settled or cancelled exactly once, the ledger check with
every pot account at zero, and the wallets in the books against the table's.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.core.inputs import US, parse_header, parse_input
from station.core.replay import settings_from_header
from station.sim.soaked_station import SoakedStation


@dataclass
class SzSoakOptions:
    games: int = 200
    seed: int = 1
    players: int = 5
    crash: float = 0.0005  # chance per input of a crash after it
    cancel: float = 0.05  # chance per deal that the supervisor cancels the game
    journal_sync: str = "normal"
    signing_key: bytes | None = None  # the journal's checkpoint key (None: chain, unsigned)


@dataclass
class SzSoakReport:
    games: int = 0
    settled: int = 0
    cancelled: int = 0
    deals: int = 0
    tie_rounds: int = 0
    player_actions: Counter = field(default_factory=Counter)
    refused: Counter = field(default_factory=Counter)
    faults: Counter = field(default_factory=Counter)
    inputs: int = 0
    crashes: int = 0
    seconds: float = 0.0
    table_seconds: float = 0.0
    records_match: bool = False
    exactly_once: bool = False
    ledger_ok: bool = False
    ledger_problems: list[str] = field(default_factory=list)
    pots: int = 0
    pots_not_zero: dict[str, int] = field(default_factory=dict)
    balances_match: bool = False

    @property
    def ok(self) -> bool:
        return (self.records_match and self.exactly_once and self.ledger_ok
                and not self.pots_not_zero and self.balances_match)

    def as_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        for k in ("player_actions", "refused", "faults"):
            d[k] = dict(sorted(d[k].items()))
        d["ok"] = self.ok
        return d


class SiZhiDaoSoak:
    def __init__(self, opts: SzSoakOptions, directory: Path) -> None:
        self.o = opts
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(opts.seed)
        self.report = SzSoakReport()
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    @property
    def station(self) -> Any:
        return self.under_test.station

    @property
    def ledger(self) -> Any:
        return self.under_test.ledger

    def run(self) -> SzSoakReport:
        from station.games.sizhidao.sim import SimTable

        started = time.perf_counter()
        sim = SimTable(self.o.seed, table="SZ-SOAK", players=self.o.players,
                       cancel_rate=self.o.cancel)
        sim.run(self.o.games)
        header = parse_header(sim.script.header)
        self.under_test = SoakedStation(settings_from_header(header), self.dir, self.clock,
                                        self.o.journal_sync, self.o.signing_key)
        self.under_test.start()
        lines = sim.script.lines
        for i, obj in enumerate(lines):
            if "end" in obj:
                break
            inp = parse_input(obj, i + 2)
            self.now = inp.t_us / US
            self.station.submit(inp.kind, inp.value, inp.user)
            self.report.inputs += 1
            if self.rng.random() < self.o.crash:
                self.report.crashes += 1
                self.under_test.crash()
        self.report.table_seconds = self.now
        final_balances = dict(self.station.core.balances)
        self.under_test.finish()
        self.report.seconds = round(time.perf_counter() - started, 3)
        self._verify(sim.records, final_balances)
        return self.report

    def _verify(self, expected: list[dict[str, Any]], balances: dict[str, int]) -> None:
        from station.core.journal import Journal

        rep = self.report
        j = Journal(self.dir / "journal.sqlite")
        stored = list(j.stored_records())
        j.close()
        rep.records_match = stored == expected
        ends: Counter = Counter()
        opened = set()
        for r in stored:
            t = r["type"]
            if t == "game_open":
                rep.games += 1
                opened.add(r["game_id"])
            elif t == "deal_open":
                rep.deals += 1
            elif t == "game_settled":
                rep.settled += 1
                ends[r["game_id"]] += 1
            elif t == "round_cancelled":
                rep.cancelled += 1
                ends[r["round_id"]] += 1
            elif t == "player_action":
                rep.player_actions[r["action"] + (" (auto)" if r.get("auto") else "")] += 1
            elif t == "action_refused":
                rep.refused[r["reason"]] += 1
            elif t == "fault":
                rep.faults[r["kind"]] += 1
        rep.tie_rounds = rep.deals - rep.games
        rep.exactly_once = set(ends) == opened and all(n == 1 for n in ends.values())
        check = self.ledger.check(require_closed=True)
        rep.ledger_ok = check.ok
        rep.ledger_problems = list(check.problems)[:20]
        books = self.ledger.balances()
        rep.balances_match = all(books.get(a, 0) == b for a, b in balances.items())
        self.ledger.close()
        db = sqlite3.connect(f"file:{self.dir / 'ledger.sqlite'}?mode=ro", uri=True)
        try:
            pots = dict(db.execute("SELECT name, balance FROM accounts WHERE kind = 'system' "
                                   "AND substr(name, 1, 4) = 'pot:'").fetchall())
        finally:
            db.close()
        rep.pots = len(pots)
        rep.pots_not_zero = {k: v for k, v in pots.items() if v != 0}


def run_soak(args: argparse.Namespace) -> int:
    """`station soak --game sizhidao` (the soak command's arguments: `--rounds` counts games,
    `--seed`, `--work`, `--sync`, `--crash` a chance per game, `--out` where the report goes).
    Prints the report; exits 0 only when it is all right."""
    games = int(getattr(args, "rounds", 200) or 200)
    per_game = float(getattr(args, "crash", 0.003))
    # about 250 inputs make a game: the chance per game spread over its inputs
    opts = SzSoakOptions(games=games, seed=int(getattr(args, "seed", 1)),
                         crash=min(1.0, per_game / 250),
                         journal_sync=getattr(args, "sync", "normal"))
    with tempfile.TemporaryDirectory(prefix="station-soak-sizhidao-") as tmp:
        rep = SiZhiDaoSoak(opts, Path(getattr(args, "work", None) or tmp)).run()
    text = json.dumps(rep.as_dict(), indent=2, default=str)
    out = getattr(args, "out", None)
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        path = Path(out) / "sizhidao_soak.json"
        path.write_text(text + "\n", encoding="utf-8")
        print(f"report: {path}")
    print(text)
    return 0 if rep.ok else 1
