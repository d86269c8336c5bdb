"""Soak: thousands of rounds through the live station at accelerated time, with faults.

The machinery of a game's soak (its `soak` tool, station/games/<game>/tools/soak.py, plays
the rounds on it). The table is simulated on paper (`TraceScript`: real DS frames with link noise — corrupted,
duplicated, split and junk-padded frames with the shoe's resends — camera zones, dealer and
supervisor actions, wallets, bets) and fed into a real `TableStation` with its SQLite journal,
its outbox and a real settlement core with its ledger, on a virtual clock. Injected per round:
link noise, unplugs (link_lost), jams (device_fault), misplaced cards (order), misprinted
faces (card_mismatch), and station crashes (the station is abandoned mid-shoe and started
again from its journal). The supervisor's decisions are scripted as a floor supervisor would
take them. The report: rounds, faults by kind, decisions, exactly-once settlement, ledger
check, memory over time, latency percentiles, and PNG plots.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from array import array
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.core.inputs import US, Input, parse_input
from station.core.settings import TableSettings
from station.games.base import Game
from station.sim.script import TraceScript
from station.sim.soaked_station import SoakedStation


@dataclass
class SoakOptions:
    rounds: int = 10_000
    seed: int = 1
    accounts: int = 40
    bets_per_round: int = 12
    noise: float = 0.02  # per frame: corrupted, duplicated, junk, split (each)
    unplug: float = 0.01  # per round
    jam: float = 0.005
    misplace: float = 0.02
    mismatch: float = 0.01
    crash: float = 0.003
    journal_sync: str = "normal"
    sample_every: int = 50  # rounds between memory samples
    mistype: float = 0.02  # at a dice table: a die typed wrong (dice_mismatch, typed again)
    signing_key: bytes | None = None  # the journal's checkpoint key (None: chain, unsigned)


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class NoisyScript(TraceScript):
    """TraceScript whose shoe frames cross a noisy link: a corrupted frame is sent again by
    the shoe's retransmission timer 250 ms later (before anything newer: the table waits for
    it), duplicates, junk bytes and split writes come as they do on a bad cable."""

    def __init__(self, game: Game | str, rng: random.Random, noise: float, **kw: Any) -> None:
        self.rng = rng
        self.noise = noise
        super().__init__(game, **kw)

    def shoe_bytes(self, data: bytes) -> TraceScript:
        r = self.rng
        send = super().shoe_bytes
        if self.noise and data.startswith(b"$") and r.random() < self.noise:
            bad = bytearray(data)
            i = r.randrange(1, len(bad) - 2)
            bad[i] ^= 1 << r.randrange(7)
            send(bytes(bad))
            self.t = round(self.t + 0.25, 6)  # the shoe's resend timer
        if self.noise and r.random() < self.noise:
            send(bytes(r.randrange(256) for _ in range(r.randint(1, 6))) + data)
        elif self.noise and r.random() < self.noise * 2 and len(data) > 6:
            cut = r.randrange(1, len(data) - 1)
            send(data[:cut])
            send(data[cut:])
        else:
            send(data)
        if self.noise and r.random() < self.noise:
            send(data)  # a duplicate: the shoe resent before the station's ACK reached it
        return self


@dataclass
class SoakReport:
    game: str = ""
    rounds_opened: int = 0
    hands: int = 0
    cancelled: int = 0
    faults: Counter = field(default_factory=Counter)
    decisions: Counter = field(default_factory=Counter)
    bets_accepted: int = 0
    bets_settled: int = 0
    bets_refunded: int = 0
    crashes: int = 0
    shoes: int = 0
    inputs: int = 0
    seconds: float = 0.0
    table_seconds: float = 0.0
    ledger_ok: bool = False
    ledger_problems: list[str] = field(default_factory=list)
    balances_match: bool = False
    exactly_once: bool = False
    memory: list[tuple[int, float]] = field(default_factory=list)
    latency_ms: dict[str, float] = field(default_factory=dict)
    restart_seconds: list[float] = field(default_factory=list)
    injected: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["faults"] = dict(self.faults)
        d["decisions"] = dict(self.decisions)
        d["injected"] = dict(self.injected)
        return d


class Soak:
    """A soak of one game's table: a game's soak says which (`game`) and plays its rounds on
    paper (`play`), feeding them to the station as it goes (`_feed`) and calling
    `_after_round` after each; the station, its crashes and the verdict are this class's."""

    #: the game whose table is soaked
    game: Game

    def __init__(self, opts: SoakOptions, directory: Path) -> None:
        self.o = opts
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(opts.seed)
        self.report = SoakReport(game=self.game.name)
        # one float per input for the whole soak: kept compact so the harness's own memory
        # does not hide the station's in the RSS figures
        self.latencies = array("f")
        self.settings = TableSettings(table=f"{self.game.table_prefix}SOAK", game=self.game.name,
                                      betting_seconds=15)

    # ---- the station, its settlement, its restarts
    @property
    def station(self) -> Any:
        return self.under_test.station

    @property
    def ledger(self) -> Any:
        return self.under_test.ledger

    def _start_station(self) -> None:
        self.under_test = SoakedStation(self.settings, self.dir, self.clock, self.o.journal_sync,
                                        self.o.signing_key)
        self.report.restart_seconds.append(self.under_test.start())

    def _crash(self) -> None:
        self.report.crashes += 1
        self.report.restart_seconds.append(self.under_test.crash())

    # ---- the clock and the feed
    def clock(self) -> float:
        return 1_000_000.0 + self.now

    now = 0.0

    def _feed(self, script: TraceScript, start: int) -> int:
        """Submit the script's lines from `start`; returns where it stopped."""
        lines = script.lines
        for i in range(start, len(lines)):
            obj = lines[i]
            inp: Input = parse_input(obj, i + 1)
            self.now = self.t_offset + inp.t_us / US
            t = time.perf_counter()
            if inp.extra:  # a dealer's dice entry carries its faces
                self.station.submit(inp.kind, inp.value, inp.user, extra=inp.extra)
            else:
                self.station.submit(inp.kind, inp.value, inp.user)
            self.latencies.append((time.perf_counter() - t) * 1000)
            self.report.inputs += 1
        return len(lines)

    # ---- the session
    def run(self) -> SoakReport:
        o = self.o
        started = time.perf_counter()
        self.t_offset = 0.0
        self._start_station()
        accounts = [f"p{i:03d}" for i in range(o.accounts)]
        self.play(accounts)
        self.report.table_seconds = self.t_offset
        self.under_test.finish()
        self.report.seconds = time.perf_counter() - started
        self._verify()
        return self.report

    def _after_round(self, rounds: int) -> None:
        if self.rng.random() < self.o.crash:
            self._crash()
        if rounds % self.o.sample_every == 0:
            self.report.memory.append((rounds, rss_mb()))

    def play(self, accounts: list[str]) -> None:
        """Play `self.o.rounds` rounds on paper, feeding each to the station."""
        raise NotImplementedError

    #: the shoe's frame sequence where the last shoe's script left it
    _shoe_seq = 0

    # ---- what the records say
    def _verify(self) -> None:
        from station.core.journal import Journal

        rep = self.report
        j = Journal(self.dir / "journal.sqlite")
        accepted: Counter = Counter()
        closed: Counter = Counter()
        for r in j.stored_records():
            t = r["type"]
            if t == "fault":
                rep.faults[r["kind"]] += 1
            elif t in ("resumed",):
                rep.decisions["resume"] += 1
            elif t == "round_cancelled":
                rep.decisions["cancel_round"] += 1
                rep.cancelled += 1
                rep.bets_refunded += len(r["refunds"])
                closed[r["round_id"]] += 1
            elif t == "round_open":
                rep.rounds_opened += 1
            elif t == "hand":
                rep.hands += 1
            elif t == "bet_accepted":
                rep.bets_accepted += 1
                accepted[r["round_id"]] += 1
            elif t == "settlement":
                rep.bets_settled += len(r["bets"])
                closed[r["round_id"]] += 1
        j.close()
        rep.exactly_once = (rep.bets_settled + rep.bets_refunded == rep.bets_accepted
                            and all(n == 1 for n in closed.values())
                            and set(accepted) <= set(closed))
        check = self.ledger.check()
        rep.ledger_ok = check.ok
        rep.ledger_problems = list(check.problems)[:20]
        core_bal = self.station.core.balances
        books = self.ledger.balances()
        rep.balances_match = all(books.get(a, 0) == b for a, b in core_bal.items())
        lat = sorted(self.latencies)
        if lat:
            rep.latency_ms = {
                "p50": round(statistics.median(lat), 3),
                "p90": round(lat[int(0.90 * len(lat))], 3),
                "p99": round(lat[int(0.99 * len(lat))], 3),
                "p999": round(lat[min(len(lat) - 1, int(0.999 * len(lat)))], 3),
                "max": round(lat[-1], 3),
            }
        self.ledger.close()


def write_report(rep: SoakReport, opts: SoakOptions, out: Path, latencies: Any,
                 command: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "soak.json").write_text(json.dumps({"options": opts.__dict__, **rep.as_dict()},
                                              indent=2, default=str))
    written = [out / "soak.json"]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return written
    if rep.memory:
        fig, ax = plt.subplots(figsize=(7, 3.2))
        xs, ys = zip(*rep.memory, strict=True)
        ax.plot(xs, ys)
        ax.set_xlabel("rounds")
        ax.set_ylabel("RSS (MiB)")
        ax.set_title("station memory over the soak")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "soak_memory.png", dpi=110)
        plt.close(fig)
        written.append(out / "soak_memory.png")
    if latencies:
        fig, ax = plt.subplots(figsize=(7, 3.2))
        ax.hist([min(x, 10.0) for x in latencies], bins=100, log=True)
        ax.set_xlabel("input -> durable output (ms, clipped at 10)")
        ax.set_ylabel("inputs")
        ax.set_title("latency over the soak")
        fig.tight_layout()
        fig.savefig(out / "soak_latency.png", dpi=110)
        plt.close(fig)
        written.append(out / "soak_latency.png")
    lines = [
        "# Soak report", "",
        f"Made by `{command}`.", "",
        "| figure | value |", "|---|---|",
        f"| rounds opened | {rep.rounds_opened} |",
        f"| hands validated and settled | {rep.hands} |",
        f"| rounds cancelled (all bets refunded) | {rep.cancelled} |",
        f"| shoes | {rep.shoes} |",
        f"| station crashes (restarted from the journal) | {rep.crashes} |",
        f"| inputs journaled | {rep.inputs} |",
        f"| table time simulated | {rep.table_seconds / 3600:.1f} h |",
        f"| wall time | {rep.seconds:.0f} s |",
        f"| bets accepted / settled / refunded | {rep.bets_accepted} / {rep.bets_settled} / {rep.bets_refunded} |",
        f"| every bet settled or refunded exactly once | {rep.exactly_once} |",
        f"| `ledger check` | {'clean' if rep.ledger_ok else rep.ledger_problems} |",
        f"| ledger balances equal the table core's | {rep.balances_match} |",
        f"| latency p50 / p90 / p99 / p99.9 / max (ms) | {' / '.join(str(v) for v in rep.latency_ms.values())} |",
        f"| memory (RSS of the whole soak process: station, settlement core, harness) first / last sample | {rep.memory[0][1]:.0f} / {rep.memory[-1][1]:.0f} MiB |" if rep.memory else "| memory | - |",
        f"| restart (journal re-applied) slowest | {max(rep.restart_seconds):.2f} s |",
        "", "Faults by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(rep.faults.items())),
        "", "Decisions: " + ", ".join(f"{k} {v}" for k, v in sorted(rep.decisions.items())),
        "", "![memory](soak_memory.png)", "", "![latency](soak_latency.png)", "",
    ]
    (out / "README.md").write_text("\n".join(lines))
    written.append(out / "README.md")
    return written


def run_soak(args: Any, soak_class: type[Soak]) -> int:
    """`station soak --game GAME` on a game's `Soak` (the command's arguments). Prints the
    report; exits 0 only when it is all right."""
    import shlex
    import sys
    import tempfile

    opts = SoakOptions(rounds=args.rounds, seed=args.seed, journal_sync=args.sync,
                       crash=args.crash, sample_every=max(1, args.rounds // 200))
    command = "./run.sh station soak " + " ".join(shlex.quote(a) for a in sys.argv[2:])
    with tempfile.TemporaryDirectory(prefix="station-soak-") as tmp:
        soak = soak_class(opts, Path(args.work or tmp))
        rep = soak.run()
        files = write_report(rep, opts, Path(args.out), soak.latencies, command.strip())
    print(json.dumps({k: v for k, v in rep.as_dict().items() if k not in ("memory", "restart_seconds")},
                     indent=2, default=str))
    print("report: " + ", ".join(str(f) for f in files))
    ok = rep.exactly_once and rep.ledger_ok and rep.balances_match
    return 0 if ok else 1
