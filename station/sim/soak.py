"""Soak: thousands of rounds through the live station at accelerated time, with faults.

The table is simulated on paper (`TraceScript`: real DS frames with link noise — corrupted,
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

from station.cards import parse_card
from station.core.inputs import US, Input, parse_input
from station.core.settings import TableSettings
from station.sim.script import CARDS_PER_ROUND, GAME, PLAN, POSITIONS, TraceScript, hands_of
from station.sim.soaked_station import SoakedStation

SPOTS = sorted(GAME.spots)  # sorted: the soak is seeded, its draws must not depend on set order


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
    game: str = "pokdeng"  # or "paigow": shuffles of the 32 cards, two rounds each
    mistype: float = 0.02  # Pai Gow: a die typed wrong (dice_mismatch, typed again)
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

    def __init__(self, rng: random.Random, noise: float, **kw: Any) -> None:
        self.rng = rng
        self.noise = noise
        super().__init__(**kw)

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
    def __init__(self, opts: SoakOptions, directory: Path) -> None:
        self.o = opts
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(opts.seed)
        self.report = SoakReport()
        # one float per input for the whole soak: kept compact so the harness's own memory
        # does not hide the station's in the RSS figures
        self.latencies = array("f")
        if opts.game not in ("pokdeng", "paigow"):
            raise ValueError(f"the soak plays pokdeng or paigow, not {opts.game!r}")
        self.settings = (TableSettings(table="WZ-SOAK", game="paigow", betting_seconds=15)
                         if opts.game == "paigow" else TableSettings(table="PD-SOAK", betting_seconds=15))

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
        if o.game == "paigow":
            self._run_paigow(accounts)
        else:
            self._run_pokdeng(accounts)
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

    def _run_pokdeng(self, accounts: list[str]) -> None:
        o, rng = self.o, self.rng
        rounds = 0
        while rounds < o.rounds:
            script = NoisyScript(rng, o.noise, table=self.settings.table,
                                 boot_id=f"{rng.getrandbits(32):08X}" if rounds == 0 else "5EED0001")
            if rounds == 0:
                script.lines.clear()  # the shoe's HELLO comes once, at power-up
                script.hello("5EED0001")
            else:
                script.lines.clear()
                script.seq = self._shoe_seq
            for a in accounts:
                if rng.random() < (1.0 if rounds == 0 else 0.05):
                    script.wallet(a, rng.choice([5_000, 20_000, 100_000]))
            deck = sorted(str(c) for c in GAME.deck.elements())
            rng.shuffle(deck)
            cut = rng.randint(300, 360)
            first = deck.pop()
            burns = [deck.pop() for _ in range(GAME.burn_count(parse_card(first)))]
            script.start_shoe(first, burns)
            self.report.shoes += 1
            pos = 1 + len(burns)
            shoe_rounds = 0
            cut_done = False
            fed = self._feed(script, 0)
            while rounds < o.rounds:
                if not cut_done and pos + CARDS_PER_ROUND > cut:
                    script.card("CUT").wait(0.7)
                    cut_done = True
                    last = True
                else:
                    last = False
                cards = [deck.pop() for _ in range(CARDS_PER_ROUND)]
                pos += CARDS_PER_ROUND
                self._round(script, cards, accounts)
                rounds += 1
                shoe_rounds += 1
                fed = self._feed(script, fed)
                self._after_round(rounds)
                if last:
                    break
            self._shoe_seq = script.seq
            self.t_offset += script.t + 0.5  # the shoe heartbeats on between shoes
            self.now = self.t_offset

    # ---- Wenzhou Pai Gow: shuffles of the 32 cards, two rounds each (PROCEDURE.md §6)
    def _run_paigow(self, accounts: list[str]) -> None:
        from station.games.paigow.tiles import DECK
        from station.sim.paigow_session import NoisyPaiGowScript

        o, rng = self.o, self.rng
        rounds = 0
        while rounds < o.rounds:
            script = NoisyPaiGowScript(rng, o.noise, table=self.settings.table, boot_id="5EED0001")
            script.lines.clear()
            if rounds == 0:
                script.hello("5EED0001")  # the shoe's HELLO comes once, at power-up
            else:
                script.seq = self._shoe_seq
            for a in accounts:
                if rng.random() < (1.0 if rounds == 0 else 0.05):
                    script.wallet(a, rng.choice([5_000, 20_000, 100_000]))
            deck = [str(c) for c in DECK]
            rng.shuffle(deck)
            script.start_shuffle()
            self.report.shoes += 1
            fed = self._feed(script, 0)
            for number in (1, 2):
                if rounds >= o.rounds:
                    break
                self._paigow_round(script, deck[8 * (number - 1): 8 * number], accounts)
                rounds += 1
                fed = self._feed(script, fed)
                self._after_round(rounds)
            while script.lost is not None:  # the shoe resends what the wire ate before it
                script.wait(0.3)
            self._feed(script, fed)
            self._shoe_seq = script.seq
            self.t_offset += script.t + 0.5
            self.now = self.t_offset

    def _paigow_round(self, s: Any, cards: list[str], accounts: list[str]) -> None:
        from station.games.paigow import SPOTS as PAIGOW_SPOTS
        from station.games.paigow.rules import deal_plan_for

        o, rng = self.o, self.rng
        s.open_round()
        for _ in range(o.bets_per_round):
            s.bet(rng.choice(accounts), rng.choice(PAIGOW_SPOTS), rng.choice([10, 20, 50, 100, 500])).wait(0.05)
        misplace = rng.random() < o.misplace
        unplug = rng.random() < o.unplug and not misplace
        jam = rng.random() < o.jam and not (misplace or unplug)
        mismatch = rng.random() < o.mismatch and not (misplace or unplug or jam)
        mistype = rng.random() < o.mistype
        for name, on in (("misplace", misplace), ("unplug", unplug), ("jam", jam),
                         ("mismatch", mismatch), ("mistype", mistype)):
            if on:
                self.report.injected[name] += 1
        s.until_closed()
        dice = [rng.randint(1, 6), rng.randint(1, 6)]
        if mistype:
            wrong = [dice[0], 1 + dice[1] % 6]
            s.wait(1.0).tray(dice).wait(0.5).dice(wrong).wait(5.5)  # dice_mismatch at 5 s
            s.dice(dice).wait(0.5).supervisor("resume").wait(0.5)
        else:
            s.throw(dice)
        plan = deal_plan_for(dice)
        if misplace:
            k = rng.randrange(0, 8)
            wrong_door = ("BANKER", "SHUN", "CHU", "DAO")[(("BANKER", "SHUN", "CHU", "DAO").index(plan[k]) + 1) % 4]
            s.deal8(cards[: k + 1], dice, place={k: wrong_door}).wait(1.5)
            s.camera({wrong_door: s.zones[wrong_door][:-1], plan[k]: [*s.zones[plan[k]], cards[k]]}).wait(1.0)
            s.supervisor("resume").wait(0.5)
            s.deal8(cards[k + 1:], dice, start=k + 1)
        elif unplug:
            s.deal8(cards[:4], dice)
            s.link_silent = True
            s.wait(3.6)
            s.link_silent = False
            s.shoe("HB", str(int(s.t * 1000))).wait(0.3)
            s.supervisor("resume").wait(0.3)
            s.deal8(cards[4:], dice, start=4)
        elif jam:
            s.deal8(cards[:4], dice)
            s.shoe("FAULT", "JAM").wait(2.0).shoe("CLEAR", "JAM").wait(0.5)
            s.supervisor("resume").wait(0.3)
            s.deal8(cards[4:], dice, start=4)
        elif mismatch:
            s.deal8(cards, dice, shown={5: "KS"}).wait(2.0)  # a face the shoe did not read
            s.supervisor("cancel_round").wait(1.0)
            s.clear()
            return
        else:
            s.deal8(cards, dice)
        s.wait(1.0)
        s.clear()

    _shoe_seq = 0

    def _round(self, s: TraceScript, cards: list[str], accounts: list[str]) -> None:
        o, rng = self.o, self.rng
        s.open_round()
        for _ in range(o.bets_per_round):
            spot = rng.choice(SPOTS)
            s.bet(rng.choice(accounts), spot, rng.choice([10, 20, 50, 100, 500])).wait(0.05)
        misplace = rng.random() < o.misplace
        unplug = rng.random() < o.unplug
        jam = rng.random() < o.jam
        mismatch = rng.random() < o.mismatch
        for name, on in (("misplace", misplace), ("unplug", unplug and not misplace),
                         ("jam", jam and not (misplace or unplug)), ("mismatch", mismatch)):
            if on:
                self.report.injected[name] += 1
        if misplace:
            k = rng.randrange(3, 12)
            s.deal(cards[:k])
            s.card(cards[k]).wait(0.4)
            wrong = POSITIONS[(POSITIONS.index(PLAN[k]) + 1) % len(POSITIONS)]
            s.camera({wrong: [*s.zones[wrong], "??"]}).wait(2.0)
            s.camera({wrong: s.zones[wrong][:-1], PLAN[k]: [*s.zones[PLAN[k]], "??"]}).wait(1.0)
            s.supervisor("resume").wait(0.5)
            s.deal(cards[k + 1 :], start=k + 1)
        elif unplug:
            s.deal(cards[:6])
            s.link_silent = True
            s.wait(3.6)
            s.link_silent = False
            s.shoe("HB", str(int(s.t * 1000))).wait(0.3)
            s.supervisor("resume").wait(0.3)
            s.deal(cards[6:], start=6)
        elif jam:
            s.deal(cards[:4])
            s.shoe("FAULT", "JAM").wait(2.0).shoe("CLEAR", "JAM").wait(0.5)
            s.supervisor("resume").wait(0.3)
            s.deal(cards[4:], start=4)
        else:
            s.deal(cards)
        s.until_closed()
        hands = hands_of(cards)
        if mismatch:
            s.reveal({"P1": hands["P1"]})
            wrong_card = "KS" if "KS" not in hands["P2"] else "QS"
            s.camera({"P2": [hands["P2"][0], wrong_card]}).wait(2.0)
            s.supervisor("cancel_round").wait(1.0)
            s.clear_zones()
            return
        s.reveal(hands)
        s.clear_zones()

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


def run(args: Any) -> int:
    """`station soak --game GAME` for a house-banked game of this soak (the command's
    arguments). Prints the report; exits 0 only when it is all right."""
    import shlex
    import sys
    import tempfile

    opts = SoakOptions(rounds=args.rounds, seed=args.seed, journal_sync=args.sync,
                       crash=args.crash, sample_every=max(1, args.rounds // 200), game=args.game)
    command = "./run.sh station soak " + " ".join(shlex.quote(a) for a in sys.argv[2:])
    with tempfile.TemporaryDirectory(prefix="station-soak-") as tmp:
        soak = Soak(opts, Path(args.work or tmp))
        rep = soak.run()
        files = write_report(rep, opts, Path(args.out), soak.latencies, command.strip())
    print(json.dumps({k: v for k, v in rep.as_dict().items() if k not in ("memory", "restart_seconds")},
                     indent=2, default=str))
    print("report: " + ", ".join(str(f) for f in files))
    ok = rep.exactly_once and rep.ledger_ok and rep.balances_match
    return 0 if ok else 1
