"""The soak of a Wenzhou Pai Gow table (`station soak --game paigow`): shuffles of the 32
cards, two rounds each (PROCEDURE.md §6), on a noisy link, with the game's trouble injected
per round: a card on the wrong door (order), an unplugged or jammed shoe, a face the camera
reads as another (card_mismatch, the round cancelled), a die typed wrong (dice_mismatch)."""

from __future__ import annotations

from typing import Any

from station.games.paigow import SPOTS as PAIGOW_SPOTS
from station.games.paigow.rules import deal_plan_for
from station.games.paigow.tiles import DECK
from station.games.paigow.tools.script import DOORS, GAME
from station.games.paigow.tools.session import NoisyPaiGowScript
from station.sim.soak import Soak, run_soak


class PaiGowSoak(Soak):
    game = GAME

    def play(self, accounts: list[str]) -> None:
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
                self._round(script, deck[8 * (number - 1): 8 * number], accounts)
                rounds += 1
                fed = self._feed(script, fed)
                self._after_round(rounds)
            while script.lost is not None:  # the shoe resends what the wire ate before it
                script.wait(0.3)
            self._feed(script, fed)
            self._shoe_seq = script.seq
            self.t_offset += script.t + 0.5
            self.now = self.t_offset

    def _round(self, s: Any, cards: list[str], accounts: list[str]) -> None:
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
            wrong_door = DOORS[(DOORS.index(plan[k]) + 1) % len(DOORS)]
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


def run(args: Any) -> int:
    """`station soak --game paigow` (the command's arguments)."""
    return run_soak(args, PaiGowSoak)
