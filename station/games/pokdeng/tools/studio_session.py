"""`station studio`: the session a studio Pok Deng table is fed (station/studio/scripts.py),
written on the trace builder of station/sim/script.py: 8-deck shoes cut 300 to 360 cards in,
13 cards a round by the deal plan, the players' bets while betting is open."""

from __future__ import annotations

import random

from station.cards import parse_card
from station.games.pokdeng.rules import PokDeng
from station.sim.script import DEAL_GAP, TraceScript
from station.studio.scripts import BETTING_SECONDS, Session, bets, wallets


def session(rng: random.Random, table: str, rounds: int, names: list[str],
            cancel_every: int, *, shared_wallets: bool = False) -> Session:
    """`rounds` rounds at `table`; about one in `cancel_every` ends in a card_mismatch the
    supervisor answers by cancelling the round (0: none). `shared_wallets`: the players' wallets
    are the studio ledger's (a table with `reserve`), so the session sets none."""
    game = PokDeng()
    spots = sorted(game.spots)
    s = TraceScript(game, table=table, settings={"betting_seconds": BETTING_SECONDS},
                    note=f"studio table {table}", boot_id=f"{rng.getrandbits(32):08X}")
    if not shared_wallets:  # else the wallets are the studio ledger's: the session sets none
        wallets(s, rng, names)
    done = 0
    while done < rounds:
        deck = sorted(str(c) for c in game.deck.elements())
        rng.shuffle(deck)
        first = deck.pop()
        burns = [deck.pop() for _ in range(game.burn_count(parse_card(first)))]
        s.start_shoe(first, burns)
        cut = rng.randint(300, 360)
        out = 1 + len(burns)
        while done < rounds:
            last = out + 2 * game.cards_per_round > cut or done == rounds - 1
            if last:
                s.card("CUT").wait(DEAL_GAP)
            cards = [deck.pop() for _ in range(game.cards_per_round)]
            out += len(cards)
            s.open_round()
            bets(s, rng, names, spots)
            s.deal(cards)
            s.until_closed()
            hands = s.hands_of(cards)
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
