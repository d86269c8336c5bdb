"""Bets against the house on a round's spots, for the games whose players bet before a deal
(the house-banked games): the window, what an account holds, and the accepted bet.

The game's procedure keeps `shoe` (with `ended` and `rounds_opened`) and `round` (with
`round_id`, `bets`, `closed`, `finished` and `closes_us`); the kernel has already run its own
checks and the game's bet checks, and has debited the wallet, when `place_bet` is called."""

from __future__ import annotations

from typing import Any

from station.core.bets import Bet


class HouseBets:
    """Mixed into a `Procedure` before it: `class MyGameProcedure(HouseBets, Procedure)`."""

    table: Any
    game: Any
    shoe: Any
    round: Any

    def bet_window(self) -> str | None:
        shoe, r = self.shoe, self.round
        if shoe is None or shoe.ended or shoe.rounds_opened == 0 or r is None:
            return "no_round"
        if r.finished or r.closed or self.table.now_us >= r.closes_us:
            return "betting_closed"
        return None

    def bets_held(self, account: str) -> list[tuple[str, int]]:
        r = self.round
        return [] if r is None else [(b.spot, b.amount) for b in r.bets if b.account == account]

    def place_bet(self, account: str, spot: str, amount: int, deducted: int) -> dict[str, Any]:
        t = self.table
        r = self.round
        assert r is not None
        r.bets.append(Bet(account, spot, amount, deducted))
        t.message(t.bet_key(r.round_id, len(r.bets)), "bet", round_id=r.round_id,
                  game=self.game.name, account=account, spot=spot, amount=amount,
                  deducted=deducted)
        return t.emit("bet_accepted", round_id=r.round_id, account=account, spot=spot,
                      amount=amount, deducted=deducted)
