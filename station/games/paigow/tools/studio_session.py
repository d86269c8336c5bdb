"""`station studio`: the session a studio Wenzhou Pai Gow table is fed
(station/studio/scripts.py), on the trace builder of station/sim/script.py: a 32-card deck
shuffled for every two rounds, the dice in the tray and the dealer's entry of them, eight
cards face up by the plan the dice name."""

from __future__ import annotations

import random
from collections.abc import Sequence

from station.games.paigow.rules import DICE_ZONE, PaiGow, deal_plan_for
from station.sim.script import CAMERA_LAG, DEAL_GAP, TraceScript
from station.studio.scripts import BETTING_SECONDS, Session, bets, wallets

#: the zones a round fills and clears: the doors, the banker's first, and the dice tray
ZONES = (*PaiGow.positions, DICE_ZONE)


class _PaiGowScript(TraceScript):
    """A Pai Gow table on paper: a 32-card deck shuffled for every two rounds, the dice in
    the tray and the dealer's entry of them, eight cards face up by the plan the dice name."""

    def __init__(self, table: str, boot_id: str) -> None:
        super().__init__(PaiGow(), table=table, settings={"betting_seconds": BETTING_SECONDS},
                         note=f"studio table {table}", boot_id=boot_id)
        self.header["game"] = PaiGow.name
        self.zones = {z: [] for z in ZONES}

    def shuffle(self) -> _PaiGowScript:
        self.dealer("new_shoe").wait(1)
        self.supervisor("confirm_shuffle").wait(1)
        self.shoe("LOAD").wait(1)
        return self

    def throw(self, faces: Sequence[int], *, tray: Sequence[int] | None = None) -> _PaiGowScript:
        self.wait(1.0)
        self.camera({DICE_ZONE: list(tray if tray is not None else faces)}).wait(0.5)
        self._add(dealer="dice", dice=list(faces))
        return self.wait(1.0)

    def deal8(self, cards: Sequence[str], dice: Sequence[int]) -> _PaiGowScript:
        plan = deal_plan_for(dice)
        for k, c in enumerate(cards):
            self.card(c).wait(CAMERA_LAG)
            door = plan[k]
            self.camera({door: [*self.zones[door], c]})
            self.wait(DEAL_GAP - CAMERA_LAG)
        return self

    def clear(self) -> _PaiGowScript:
        self.wait(2).camera({z: [] for z in ZONES})
        return self.wait(2)


def session(rng: random.Random, table: str, rounds: int, names: list[str],
            cancel_every: int, *, shared_wallets: bool = False) -> Session:
    """`rounds` rounds at `table`; about one in `cancel_every` ends in a dice_mismatch the
    supervisor answers by cancelling the round (0: none). `shared_wallets`: the players' wallets
    are the studio ledger's (a table with `reserve`), so the session sets none."""
    game = PaiGow()
    spots = sorted(game.spots)
    s = _PaiGowScript(table, f"{rng.getrandbits(32):08X}")
    if not shared_wallets:  # else the wallets are the studio ledger's: the session sets none
        wallets(s, rng, names)
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
            bets(s, rng, names, spots)
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
