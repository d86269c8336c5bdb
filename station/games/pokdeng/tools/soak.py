"""The soak of a Pok Deng table (`station soak --game pokdeng`): shoes of 8 decks with a cut
card, each round dealt by the plan on station/sim/soak.py's noisy link, with the game's
trouble injected per round: a misplaced card (order), an unplugged or jammed shoe, a card the
camera reads as another (card_mismatch, the round cancelled)."""

from __future__ import annotations

from typing import Any

from station.cards import parse_card
from station.games.pokdeng.tools.script import CARDS_PER_ROUND, GAME, PLAN, POSITIONS, hands_of
from station.sim.script import TraceScript
from station.sim.soak import NoisyScript, Soak, run_soak

SPOTS = sorted(GAME.spots)  # sorted: the soak is seeded, its draws must not depend on set order


class PokDengSoak(Soak):
    game = GAME

    def play(self, accounts: list[str]) -> None:
        o, rng = self.o, self.rng
        rounds = 0
        while rounds < o.rounds:
            script = NoisyScript(GAME, rng, o.noise, table=self.settings.table,
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


def run(args: Any) -> int:
    """`station soak --game pokdeng` (the command's arguments)."""
    return run_soak(args, PokDengSoak)
