"""What a studio table's station receives, written out in advance for each game.

A simulated studio table is a real station (station/studio/tables.py): its table core reads
the same inputs as at a real table — the shoe's DS frames with their heartbeats, the camera's
zone observations, the dealer's and supervisor's actions, wallets, bets and players' actions.
This module writes those inputs as trace lines, for one table's session of its game, on the
trace builders of each game (station/sim/script.py for Pok Deng and, on it, Pai Gow; the Si
Zhi Dao table simulator station/games/sizhidao/sim.py with its bots). Every table has its own
players (`<table>.u01`…), bettors bet what they like (the table core decides each bet against
its balances) and some rounds end in a fault the supervisor answers by cancelling the round.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from station.cards import parse_card
from station.sim.script import CAMERA_LAG, DEAL_GAP, TraceScript, hands_of

#: a studio table's betting window (table time): shorter than a floor table's, so a simulated
#: round is mostly dealing
BETTING_SECONDS = 8


@dataclass
class Session:
    """A table's session: its trace header and its input lines (trace format, TRACES.md)."""

    header: dict[str, Any]
    lines: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0

    @property
    def table_seconds(self) -> float:
        return float(self.lines[-1]["t"]) if self.lines else 0.0


def build_session(game: str, table: str, *, seed: int, rounds: int, accounts: int = 8,
                  cancel_every: int = 7) -> Session:
    """A session of `rounds` rounds (a pot game: games) of `game` at `table`, written by the
    game's `studio_session` tool (station/games/tools.py)."""
    from station.games.tools import game_tool, games_with

    write = game_tool(game, "studio_session")
    if write is None:
        raise ValueError(f"no studio session for the game {game!r} (games with one: "
                         f"{', '.join(games_with('studio_session'))})")
    rng = random.Random(f"{table}:{game}:{seed}")
    names = [f"{table}.u{i + 1:02d}" for i in range(accounts)]
    return write(rng, table, rounds, names, cancel_every)


def _wallets(s: TraceScript, rng: random.Random, names: Sequence[str]) -> None:
    for a in names:
        s.wallet(a, rng.choice([2_000, 5_000, 20_000]))


def _bets(s: TraceScript, rng: random.Random, names: Sequence[str], spots: Sequence[str]) -> None:
    for _ in range(rng.randint(3, 12)):
        s.bet(rng.choice(names), rng.choice(spots), rng.choice([10, 20, 50, 100, 500, 1000]))
        s.wait(round(rng.uniform(0.05, 0.4), 3))


# ---- Pok Deng ------------------------------------------------------------------------------

def pokdeng_session(rng: random.Random, table: str, rounds: int, names: list[str],
                    cancel_every: int) -> Session:
    from station.sim.script import GAME

    spots = sorted(GAME.spots)
    s = TraceScript(table=table, settings={"betting_seconds": BETTING_SECONDS},
                    note=f"studio table {table}", boot_id=f"{rng.getrandbits(32):08X}")
    _wallets(s, rng, names)
    done = 0
    while done < rounds:
        deck = sorted(str(c) for c in GAME.deck.elements())
        rng.shuffle(deck)
        first = deck.pop()
        burns = [deck.pop() for _ in range(GAME.burn_count(parse_card(first)))]
        s.start_shoe(first, burns)
        cut = rng.randint(300, 360)
        out = 1 + len(burns)
        while done < rounds:
            last = out + 2 * GAME.cards_per_round > cut or done == rounds - 1
            if last:
                s.card("CUT").wait(DEAL_GAP)
            cards = [deck.pop() for _ in range(GAME.cards_per_round)]
            out += len(cards)
            s.open_round()
            _bets(s, rng, names, spots)
            s.deal(cards)
            s.until_closed()
            hands = hands_of(cards)
            done += 1
            if cancel_every and rng.randrange(cancel_every) == 0:
                # the camera reads P2's second card as another card: card_mismatch pauses the
                # table, the supervisor cancels the round and every bet is refunded
                s.reveal({"P1": hands["P1"]})
                wrong = next(c for c in ("KS", "QS", "JS") if c not in hands["P2"])
                s.camera({"P2": [hands["P2"][0], wrong]}).wait(2.0)
                s.supervisor("cancel_round").wait(1.0)
            else:
                s.reveal(hands)
            s.clear_zones()
            if last:
                break
    s.end()
    return Session(dict(s.header), s.lines, done)


# ---- Wenzhou Pai Gow -----------------------------------------------------------------------

DOORS = ("BANKER", "SHUN", "CHU", "DAO")


class _PaiGowScript(TraceScript):
    """A Pai Gow table on paper: a 32-card deck shuffled for every two rounds, the dice in
    the tray and the dealer's entry of them, eight cards face up by the plan the dice name."""

    def __init__(self, table: str, boot_id: str) -> None:
        super().__init__(table=table, settings={"betting_seconds": BETTING_SECONDS},
                         note=f"studio table {table}", boot_id=boot_id)
        self.header["game"] = "paigow"
        self.zones = {z: [] for z in (*DOORS, "DICE")}

    def shuffle(self) -> _PaiGowScript:
        self.dealer("new_shoe").wait(1)
        self.supervisor("confirm_shuffle").wait(1)
        self.shoe("LOAD").wait(1)
        return self

    def throw(self, faces: Sequence[int], *, tray: Sequence[int] | None = None) -> _PaiGowScript:
        self.wait(1.0)
        self.camera({"DICE": list(tray if tray is not None else faces)}).wait(0.5)
        self._add(dealer="dice", dice=list(faces))
        return self.wait(1.0)

    def deal8(self, cards: Sequence[str], dice: Sequence[int]) -> _PaiGowScript:
        from station.games.paigow.rules import deal_plan_for

        plan = deal_plan_for(dice)
        for k, c in enumerate(cards):
            self.card(c).wait(CAMERA_LAG)
            door = plan[k]
            self.camera({door: [*self.zones[door], c]})
            self.wait(DEAL_GAP - CAMERA_LAG)
        return self

    def clear(self) -> _PaiGowScript:
        self.wait(2).camera({z: [] for z in (*DOORS, "DICE")})
        return self.wait(2)


def paigow_session(rng: random.Random, table: str, rounds: int, names: list[str],
                   cancel_every: int) -> Session:
    from station.games import get_game

    game = get_game("paigow")
    spots = sorted(game.spots)
    s = _PaiGowScript(table, f"{rng.getrandbits(32):08X}")
    _wallets(s, rng, names)
    done = 0
    while done < rounds:
        deck = sorted(str(c) for c in game.deck.elements())
        rng.shuffle(deck)
        s.shuffle()
        for _ in range(2):  # two rounds of eight cards from each shuffled deck
            if done >= rounds:
                break
            cards = [deck.pop() for _ in range(8)]
            dice = [rng.randint(1, 6), rng.randint(1, 6)]
            s.open_round()
            _bets(s, rng, names, spots)
            s.until_closed()
            done += 1
            if cancel_every and rng.randrange(cancel_every) == 0:
                # the tray shows other dice than the dealer entered, for longer than the
                # table allows: dice_mismatch pauses it, the supervisor cancels the round
                other = [dice[0] % 6 + 1, dice[1]]
                s.throw(dice, tray=other).wait(6.0)
                s.supervisor("cancel_round").wait(1.0)
                s.clear()
                continue
            s.throw(dice).deal8(cards, dice).wait(1.0)
            s.clear()
    s.end()
    return Session(dict(s.header), s.lines, done)


# ---- Si Zhi Dao ----------------------------------------------------------------------------

def sizhidao_session(rng: random.Random, table: str, games: int, names: list[str],
                     cancel_every: int) -> Session:
    from station.games.sizhidao.sim import SimTable

    sim = SimTable(rng.getrandbits(32), table=table, players=5)
    # the table's own players (the simulator's bots are named bot1…)
    sim.accounts = [f"{table}.{a}" for a in sim.accounts]
    sim.run(games)
    return Session(dict(sim.script.header), sim.script.lines, games)
