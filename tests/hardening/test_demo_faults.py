"""`station demo --faults KIND`: the scripted dealer survives every fault it can inject, alone
and all together, and the demo runs the number of rounds asked; a demo whose dealer or
bettors died exits non-zero."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from station.games import get_game
from station.sim.dealer import DealerMistakes, ScriptedDealer
from station.sim.studio import Bettors, Studio, StudioOptions

REPO = Path(__file__).resolve().parents[2]
KINDS = ["misplace", "early_turn", "misprint", "noise", "unplug"]
#: what each kind shows in the table's fault counts or link counters when it was injected
SIGNS = {"misplace": "order", "early_turn": "premature_reveal", "misprint": "card_mismatch"}


def run_demo(tmp: Path, faults: str, rounds: int, seed: int) -> tuple[int, dict, str]:
    cmd = [sys.executable, "-m", "station", "demo", "--rounds", str(rounds), "--speed", "4",
           "--betting-seconds", "3", "--port", "0", "--decide-after", "0.5", "--seed", str(seed),
           "--faults", faults, "--fault-rate", "0.5", "--bettors", "2", "--data", str(tmp / "demo"),
           "--password", "demo-password", "--clock", "virtual"]
    # on the virtual clock a loaded machine runs the demo slower, never differently: the
    # camera's frames are read in time for the order fault, whatever else runs beside it
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=580)
    text = out.stdout
    summary = json.loads(text[text.index("{\n"):]) if "{\n" in text else {}
    return out.returncode, summary, out.stderr[-3000:]


def mistakes_of_round(seed: int, round_no: int, kinds: list[str], rate: float = 0.5
                      ) -> tuple[int | None, bool, int | None]:
    """The mistakes the demo's scripted dealer makes in its `round_no`th round (from 1): drawn
    from the seed and the round's number alone, so a slow machine does not change them."""
    on = {k: rate if k in kinds else 0.0 for k in ("misplace", "early_turn", "misprint")}
    dealer = ScriptedDealer(station=None, shoe=None, scene=None, seed=seed,
                            mistakes=DealerMistakes(**on), game=get_game("pokdeng"))
    dealer.rounds_dealt = round_no
    return dealer.round_mistakes(dealer._round_rng())


def settles(mistakes: tuple[int | None, bool, int | None]) -> bool:
    """A round whose only mistake is a misplaced card is corrected and settled; a card turned
    early or a misprint is cancelled by the auto-supervisor."""
    _, early_turn, misprint_at = mistakes
    return not early_turn and misprint_at is None


def seed_with_first_round_mistake(kind: str) -> int:
    """A seed whose first round has this dealer mistake, so the test knows it was injected."""
    index = ["misplace", "early_turn", "misprint"].index(kind)
    for seed in range(1, 1000):
        drawn = mistakes_of_round(seed, 1, [kind])
        if drawn[index] not in (None, False):
            return seed
    raise AssertionError(kind)


def seed_with_every_mistake_early(rounds: int) -> int:
    """A seed whose dealer makes every mistake before the `rounds`th settled round, which comes
    within `rounds + 3` rounds: the run is short, and its length is the seed's, not the
    machine's."""
    for seed in range(1, 1000):
        made: set[str] = set()
        settled = 0
        for n in range(1, rounds + 4):
            drawn = mistakes_of_round(seed, n, KINDS)
            made |= {k for k, hit in zip(("misplace", "early_turn", "misprint"), drawn, strict=True)
                     if hit not in (None, False)}
            settled += settles(drawn)
            if settled == rounds:
                break
        if settled == rounds and len(made) == 3:
            return seed
    raise AssertionError("no seed")


@pytest.mark.slow
@pytest.mark.parametrize("faults", [*KINDS, ",".join(KINDS)])
def test_the_demo_runs_the_rounds_asked_under_each_fault(tmp_path: Path, faults: str) -> None:
    rounds = 3 if "," in faults else 2
    if faults in SIGNS:
        seed = seed_with_first_round_mistake(faults)
    elif "," in faults:
        seed = seed_with_every_mistake_early(rounds)
    else:
        seed = 11
    code, summary, err = run_demo(tmp_path, faults, rounds, seed=seed)
    assert code == 0, (summary, err)
    assert summary["rounds_settled"] == rounds, summary
    assert summary["ledger_check"] == "clean" and summary["problems"] == []
    if faults in SIGNS:
        # the mistake was made, the table paused for it, and the dealer went on
        assert summary["faults"].get(SIGNS[faults], 0) >= 1, summary
        assert summary["decisions"], summary
        # the auto-supervisor's decisions are in the console's audit log, like a person's
        with sqlite3.connect(tmp_path / "demo" / "console_audit.sqlite") as conn:
            rows = conn.execute("SELECT action, outcome FROM audit WHERE user = 'auto-supervisor' "
                                "AND role = 'supervisor'").fetchall()
        decided = {d for _, d in summary["decisions"]}
        assert decided <= {a for a, _ in rows}, (decided, rows)
    link = summary["link"]
    if faults == "noise":
        assert sum(link.get(k, 0) for k in ("bad_crc", "gap", "duplicate", "noise_bytes", "malformed",
                                            "truncated")) > 0, link
    if faults == "unplug":
        assert summary["shoe_unplugs"] >= 1, summary


def test_a_dead_dealer_or_bettor_is_a_problem_the_demo_reports(tmp_path: Path) -> None:
    """`station demo` exits 1 when `Studio.problems()` names anything (station/sim/dealt_demo.py)."""
    studio = Studio(StudioOptions(data_dir=tmp_path, rounds=5))
    assert studio.problems() == []
    studio.dealer = ScriptedDealer(station=None, shoe=None, scene=None, max_rounds=5)
    studio.dealer.rounds_settled = 2
    assert studio.problems() == ["2 of the 5 rounds asked were settled"]
    studio.dealer.error = TimeoutError("the shoe would not give a card")
    studio.bettors = Bettors("http://127.0.0.1:9", "k", None, ["u1"], 1, 1)
    studio.bettors.died.append("bettor-0: KeyError: 'round'")
    problems = studio.problems()
    assert any("the scripted dealer stopped" in p for p in problems)
    assert any("a bettor stopped" in p for p in problems)
    studio.interrupted = True  # stopped by Ctrl-C: fewer rounds is what the person asked for
    assert not any("rounds asked" in p for p in studio.problems())
