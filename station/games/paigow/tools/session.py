"""Whole Wenzhou Pai Gow sessions written as traces, each with the outcomes a station that
follows PROCEDURE.md §6 must give when it replays it (the `expected.json` of TRACES.md §3.1's
shared traces: rounds, dice, hands, settlements, refusals, shoe ends, balances).

Three kinds, seeded:
- `clean`: shuffles of the 32 cards, two rounds each, a clean link and the camera;
- `noisy_link`: the same table on a bad cable: spoiled frames the shoe sends again 250 ms
  later, duplicated frames, frames split into pieces, junk bytes between frames, and lost
  frames whose successor arrives ahead of the gap (the station asks `RESEND`, the shoe sends
  both again);
- `degraded_no_camera`: no camera; the dealer's dice entry alone makes the dice known and
  the shoe alone validates the hands.

The expected outcomes are not taken from the station: they are worked out here from the
session as it was staged — the shuffle's cards and the dice give the hands (the rules of
RULES.md §2), each bet is accepted or refused by the order of reasons of TRACES.md §3 against
the bettor's balance and what it already holds, and the balances follow from the wallets,
the deductions and the returns.

    python -m station.games.paigow.tools.session tests/data/traces-paigow-station
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware_bridge.shoe.codec import encode_frame
from firmware_bridge.tracefile import text_of_bytes
from station.cards import parse_card
from station.core.inputs import US, to_s
from station.games.paigow import SPOTS, conflict
from station.games.paigow.rules import DICE_ZONE, deal_plan_for, first_door
from station.games.paigow.tiles import DECK
from station.games.paigow.tools.script import DOORS, GAME, PaiGowScript
from station.sim.script import CAMERA_LAG, DEAL_GAP, TraceScript

KINDS = ("clean", "noisy_link", "degraded_no_camera")
NOTES = {
    "clean": "shuffles of the 32 cards, two rounds each, clean link, camera on",
    "noisy_link": "the same table on a bad cable: spoiled, duplicated, split and lost frames, "
                  "junk bytes, the shoe's resends and the station's RESEND",
    "degraded_no_camera": "no camera: the dice entry alone makes the dice known, hands "
                          "validated by the shoe alone",
}


class NoisyPaiGowScript(PaiGowScript):
    """PaiGowScript whose shoe frames cross a noisy link (SHOE_PROTOCOL.md §2, §4)."""

    def __init__(self, rng: random.Random, noise: float, **kw: Any) -> None:
        self.rng = rng
        self.noise = noise
        self.lost: tuple[bytes, float] | None = None  # a frame the wire ate, and when
        self.station_seq = 0
        self.counts = {"spoiled": 0, "duplicated": 0, "split": 0, "junk": 0, "lost": 0}
        super().__init__(**kw)

    def _add(self, **line: Any) -> None:
        # a resend moves the shoe's clock on inside a wait: time never runs backwards
        if self.lines and self.t < self.lines[-1]["t"]:
            self.t = self.lines[-1]["t"]
        super()._add(**line)

    def _resend_lost(self) -> None:
        data, _ = self.lost  # type: ignore[misc]
        self.lost = None
        TraceScript.shoe_bytes(self, data)

    def wait(self, seconds: float) -> TraceScript:
        # the shoe's retransmission timer: 250 ms after a frame nobody acknowledged
        if self.lost is not None:
            due = self.lost[1] + 0.25
            if self.t + seconds >= due:
                ahead = max(0.0, due - self.t)
                super().wait(ahead)
                if self.lost is not None:
                    self._resend_lost()
                return super().wait(seconds - ahead)
        return super().wait(seconds)

    def shoe_bytes(self, data: bytes) -> TraceScript:
        r, send = self.rng, super().shoe_bytes
        is_frame = data.startswith(b"$") and not data.startswith(b"$0,")
        if self.lost is not None:
            # this frame arrives ahead of the gap: dropped, RESEND, the shoe sends both again
            send(data)
            self.station_seq += 1
            lost_seq = self.lost[0][1:].split(b",", 1)[0].decode()
            self._add(to_shoe=text_of_bytes(encode_frame(self.station_seq, "RESEND", lost_seq)))
            self.t = round(self.t + 0.02, 6)
            self._resend_lost()
            return send(data)
        if is_frame and r.random() < self.noise:
            self.counts["lost"] += 1
            self.lost = (data, self.t)
            self._last_shoe = self.t
            return self
        if is_frame and r.random() < self.noise:
            self.counts["spoiled"] += 1
            bad = bytearray(data)
            i = r.randrange(1, len(bad) - 3)
            bad[i] ^= 1 << r.randrange(7)
            send(bytes(bad))
            self.t = round(self.t + 0.25, 6)  # the shoe's resend timer
        if r.random() < self.noise:
            self.counts["junk"] += 1
            send(bytes(r.choice((0x00, 0xFF, 0x7E, 0x20, 0x0A)) for _ in range(r.randint(1, 6))))
        if r.random() < self.noise * 2 and len(data) > 6:
            self.counts["split"] += 1
            cuts = sorted(r.sample(range(1, len(data)), r.randint(1, 3)))
            for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True):
                send(data[a:b])
        else:
            send(data)
        if is_frame and r.random() < self.noise:
            self.counts["duplicated"] += 1
            send(data)  # the shoe resent before the station's ACK reached it
        return self


@dataclass
class Expected:
    """The outcomes, worked out from the session as staged."""

    balances: dict[str, int] = field(default_factory=dict)
    rounds: list[dict] = field(default_factory=list)
    dice: list[dict] = field(default_factory=list)
    hands: list[dict] = field(default_factory=list)
    settlements: list[dict] = field(default_factory=list)
    bet_rejected: list[dict] = field(default_factory=list)
    action_refused: list[dict] = field(default_factory=list)
    shoe_starts: list[int] = field(default_factory=list)
    shoe_ends: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "dice": self.dice, "hands": self.hands,
                "settlements": self.settlements, "cancelled": [], "faults": [], "fault_rounds": [],
                "resumed": [], "bet_rejected": self.bet_rejected, "action_refused": self.action_refused,
                "shoe_starts": self.shoe_starts, "shoe_ends": self.shoe_ends,
                "balances": dict(sorted(self.balances.items())), "clean": True}


class Session:
    def __init__(self, kind: str, seed: int, shuffles: int) -> None:
        if kind not in KINDS:
            raise ValueError(f"no session kind {kind!r} (kinds: {', '.join(KINDS)})")
        self.rng = random.Random(seed)
        self.kind, self.shuffles = kind, shuffles
        camera = kind != "degraded_no_camera"
        kw = dict(camera=camera, settings={"betting_seconds": 15}, note=NOTES[kind],
                  boot_id=f"{self.rng.randrange(1 << 32):08X}")
        self.s: PaiGowScript = (NoisyPaiGowScript(random.Random(seed + 1), 0.06, **kw)
                                if kind == "noisy_link" else PaiGowScript(**kw))
        self.x = Expected()
        self.accounts = [f"u{i:02d}" for i in range(1, 13)]

    # ---- money, as the table must take it
    def _bet(self, account: str, spot: str, amount: int, held: dict[str, list[str]],
             accepted: list[dict], closes_at: float) -> None:
        self.s.bet(account, spot, amount)
        reason = None
        if round(self.s.t, 3) >= closes_at:  # a bet at closes_at itself is late
            reason = "betting_closed"
        elif conflict(held.setdefault(account, []), spot) is not None:
            reason = "conflict"
        elif amount > self.x.balances[account]:
            reason = "insufficient_funds"
        if reason:
            self.x.bet_rejected.append({"account": account, "spot": spot, "amount": amount,
                                        "reason": reason})
            return
        self.x.balances[account] -= amount
        held[account].append(spot)
        accepted.append({"account": account, "spot": spot, "amount": amount, "deducted": amount})

    def _bets(self, accepted: list[dict], held: dict[str, list[str]], until_s: float) -> None:
        r, s = self.rng, self.s
        while True:
            gap = r.uniform(0.2, 0.9)
            if s.t + gap > until_s - 0.1:
                break
            s.wait(gap)
            account = r.choice(self.accounts)
            spot = r.choice(SPOTS)
            if r.random() < 0.15:  # a bettor who backs the other side of a door it holds
                mine = held.get(account) or [spot]
                door, side = mine[0].split("_")
                spot = f"{door}_{'LOSE' if side == 'WIN' else 'WIN'}"
            amount = r.choice((10, 50, 100, 150, 200, 500, 999, 1000, 2500, 5000))
            self._bet(account, spot, amount, held, accepted, until_s)

    # ---- the table
    def run(self) -> tuple[PaiGowScript, dict[str, Any]]:
        r, s, x = self.rng, self.s, self.x
        for a in self.accounts:
            x.balances[a] = r.choice((300, 2000, 20_000, 50_000))
            s.wallet(a, x.balances[a])
        s.wait(0.9)
        for shoe in range(1, self.shuffles + 1):
            s.dealer("new_shoe").wait(r.uniform(1.5, 3))
            x.shoe_starts.append(shoe)
            s.supervisor("confirm_shuffle").wait(r.uniform(0.5, 2))
            s.shoe("LOAD").wait(r.uniform(1, 3))
            cards = list(DECK)
            r.shuffle(cards)
            for number in (1, 2):
                self._round(shoe, number, [str(c) for c in cards[8 * (number - 1): 8 * number]])
            x.shoe_ends.append({"shoe": shoe, "rounds": 2, "cards_out": 16, "cards_out_strict": True})
            s.wait(r.uniform(2, 6))
        s.end()
        return s, x.as_dict()

    def _round(self, shoe: int, number: int, cards: list[str]) -> None:
        r, s, x = self.rng, self.s, self.x
        rid = f"{s.header['table']}-S{shoe}-R{number}"
        s.open_round()
        opened_us = round(round(s.opened_at, 3) * US)
        closes_at = to_s(opened_us + 15 * US)
        x.rounds.append({"round_id": rid, "closes_at": closes_at})
        accepted: list[dict] = []
        held: dict[str, list[str]] = {}
        if r.random() < 0.5:  # the dealer enters the dice too soon
            s.wait(0.5).dice([r.randint(1, 6), r.randint(1, 6)]).wait(0.2)
            x.action_refused.append({"action": "dice", "reason": "betting_open"})
        self._bets(accepted, held, closes_at)
        s.wait(max(0.0, closes_at - s.t + r.uniform(0.05, 0.4)))
        for _ in range(r.randint(1, 2)):  # late bets
            self._bet(r.choice(self.accounts), r.choice(SPOTS), 100, held, accepted, closes_at)
            s.wait(0.1)
        s.wait(r.uniform(0.5, 1.0))
        dice = [r.randint(1, 6), r.randint(1, 6)]
        if not s.camera_on:
            s.dice(dice).wait(1.0)
        elif r.random() < 0.5:
            s.tray(dice).wait(r.uniform(0.3, 0.8)).dice(dice).wait(1.0)
        else:
            s.dice(list(reversed(dice))).wait(r.uniform(0.2, 0.6)).tray(dice).wait(1.0)
            dice = list(reversed(dice))  # the entry is what the record names
        x.dice.append({"round_id": rid, "dice": dice, "first_door": first_door(dice)})
        if r.random() < 0.3:
            s.dice(dice).wait(0.3)  # entered again once known
            x.action_refused.append({"action": "dice", "reason": "dice_known"})
        plan = deal_plan_for(dice)
        hands: dict[str, list[str]] = {d: [] for d in DOORS}
        for k, c in enumerate(cards):
            s.card(c).wait(CAMERA_LAG)
            hands[plan[k]].append(c)
            if s.camera_on:
                s.camera({plan[k]: list(hands[plan[k]])})
            s.wait(DEAL_GAP - CAMERA_LAG + r.uniform(-0.15, 0.3))
        parsed = {d: [parse_card(c) for c in cs] for d, cs in hands.items()}
        results = GAME.evaluate(parsed)
        x.hands.append({"round_id": rid, "shoe": shoe, "round": number, "cards": hands,
                        "dice": dice, "first_door": first_door(dice), "results": results,
                        "validated_by": ["shoe", "camera"] if s.camera_on else ["shoe"]})
        for b in accepted:
            b["returned"] = GAME.returned(b["spot"], b["amount"], parsed)
            x.balances[b["account"]] += b["returned"]
        x.settlements.append({"round_id": rid, "bets": accepted})
        s.wait(r.uniform(2.5, 3.5))
        if s.camera_on:
            s.camera({z: [] for z in (*DOORS, DICE_ZONE)})
        s.wait(r.uniform(1, 3))


def session(kind: str, seed: int = 14, shuffles: int = 3) -> tuple[PaiGowScript, dict[str, Any]]:
    """The staged session and its expected outcomes."""
    return Session(kind, seed, shuffles).run()


def write_all(directory: Path, seed: int = 14, shuffles: int = 3) -> list[Path]:
    out = []
    for i, kind in enumerate(KINDS):
        folder = directory / kind
        folder.mkdir(parents=True, exist_ok=True)
        script, expected = session(kind, seed + 100 * i, shuffles)
        script.write(folder / "trace.jsonl")
        (folder / "expected.json").write_text(json.dumps(expected, indent=1) + "\n", "utf-8")
        out.append(folder)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m station.games.paigow.tools.session",
                                description="write the Pai Gow session traces with their expected outcomes")
    p.add_argument("directory", type=Path)
    p.add_argument("--seed", type=int, default=14)
    p.add_argument("--shuffles", type=int, default=3)
    a = p.parse_args(argv)
    for folder in write_all(a.directory, a.seed, a.shuffles):
        print(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
