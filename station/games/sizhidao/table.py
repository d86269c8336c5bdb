"""Seating, the leader rule, tie-round rights and the buy-in window, as pure state
(PROCEDURE.md §7.1, §7.2, §7.7). No clock, no I/O: refusals raise `Refused` with the reason
of §7.1, checked in its order (the table checks `paused` itself where §7.1 puts it).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from station.games.sizhidao.betting import Refused
from station.games.sizhidao.groups import Strength
from station.games.sizhidao.seats import SEATS, counter_clockwise_from, in_seat_order, next_after


class Seating:
    """Who sits where, and who leads.

    The leader is the first player to sit; it passes when its player leaves (to the next
    occupied seat counter-clockwise; with no seat occupied, the next to sit leads), and after
    a game with a showdown it goes to the strongest back (`after_showdown`)."""

    def __init__(self) -> None:
        self.seats: dict[str, str] = {}  # seat -> account
        self.leader: str | None = None

    def seat_of(self, account: str) -> str | None:
        for seat, acc in self.seats.items():
            if acc == account:
                return seat
        return None

    def sit(self, account: str, seat: object, *, game_in_progress: bool) -> str:
        if not isinstance(seat, str) or seat not in SEATS:
            raise Refused("bad_seat", "seats are S1-S7")
        if self.seat_of(account) is not None:
            raise Refused("already_seated", "the account has a seat already")
        if seat in self.seats:
            raise Refused("seat_taken", f"{seat} is taken")
        if game_in_progress:
            raise Refused("game_in_progress", "nobody sits down during a game")
        self.seats[seat] = account
        if self.leader is None:
            self.leader = seat
        return seat

    def leave(self, account: str, *, game_in_progress: bool) -> str:
        seat = self.seat_of(account)
        if seat is None:
            raise Refused("not_seated", "the account has no seat")
        if game_in_progress:
            raise Refused("game_in_progress", "nobody leaves during a game")
        del self.seats[seat]
        if self.leader == seat:
            self.leader = next_after(self.seats, seat)
        return seat

    def occupied(self) -> list[str]:
        return in_seat_order(self.seats)


def game_leader(table_leader: str | None, players: Collection[str]) -> str:
    """The leader of a game: the table's leader, or when it sits the game out, the next
    player of the game counter-clockwise."""
    if not players:
        raise ValueError("a game has players")
    if table_leader is None:
        return in_seat_order(players)[0]
    return counter_clockwise_from(players, table_leader, include_start=True)[0]


def leader_after_showdown(backs: Mapping[str, Strength], previous_leader: str) -> str:
    """The seat whose back was the strongest at a showdown; among equal backs, the first
    counter-clockwise starting with the previous leader's own seat."""
    if not backs:
        raise ValueError("a showdown shows at least one seat")
    best = max(backs.values())
    tops = [s for s, b in backs.items() if b == best]
    return counter_clockwise_from(tops, previous_leader, include_start=True)[0]


def deal_plan(players: Collection[str], leader: str, cards_each: int = 4) -> list[str]:
    """The seat of each card: one at a time from the first player counter-clockwise after
    the leader's seat, until each has `cards_each`."""
    order = counter_clockwise_from(players, leader, include_start=False)
    return order * cards_each


class Rights:
    """Who may still buy in to a game's tie rounds (RULES.md §3.6, PROCEDURE.md §7.7)."""

    def __init__(self, players: Iterable[str]) -> None:
        self.players = in_seat_order(players)
        self.lost: set[str] = set()

    def eligible(self, contestants: Collection[str]) -> list[str]:
        """Players of the game who contest no carried layer and still hold the right."""
        return [s for s in self.players if s not in contestants and s not in self.lost]


@dataclass(frozen=True, slots=True)
class BuyInAnswer:
    seat: str
    amount: int | None  # None: declined
    auto: bool

    def as_dict(self) -> dict[str, object]:
        if self.amount is None:
            return {"seat": self.seat, "declined": True, "auto": self.auto}
        return {"seat": self.seat, "amount": self.amount, "auto": self.auto}


@dataclass(slots=True)
class BuyInWindow:
    """One tie round's buy-in window: the price is fixed for it; it closes once every
    eligible player has answered, or at its time (`close`), where silence declines."""

    rights: Rights
    eligible: list[str]
    price: int
    answers: dict[str, BuyInAnswer] = field(default_factory=dict)
    closed: bool = False

    def check(self, seat: str, action: str, wallet: int) -> None:
        if seat not in self.rights.players:
            raise Refused("not_in_game", "not a player of this game")
        if self.closed:
            raise Refused("not_now", "no buy-in window is open")
        if seat not in self.eligible or seat in self.answers:
            raise Refused("no_right", "a contestant, the right lost, or already answered")
        if action == "buy_in" and wallet < self.price:
            raise Refused("insufficient_funds", f"the buy-in is {self.price}")

    def answer(self, seat: str, action: str, wallet: int) -> BuyInAnswer:
        """`buy_in` or `decline`. Raises Refused."""
        if action not in ("buy_in", "decline"):
            raise Refused("bad_action", f"{action!r} is no buy-in answer")
        self.check(seat, action, wallet)
        a = BuyInAnswer(seat, self.price if action == "buy_in" else None, auto=False)
        self.answers[seat] = a
        if a.amount is None:
            self.rights.lost.add(seat)
        return a

    @property
    def everyone_answered(self) -> bool:
        return all(s in self.answers for s in self.eligible)

    def close(self) -> list[BuyInAnswer]:
        """Close the window: the silent decline (auto). Returns those automatic answers."""
        if self.closed:
            return []
        self.closed = True
        silent = [BuyInAnswer(s, None, auto=True) for s in self.eligible if s not in self.answers]
        for a in silent:
            self.answers[a.seat] = a
            self.rights.lost.add(a.seat)
        return silent

    def buyers(self) -> dict[str, int]:
        return {s: a.amount for s, a in self.answers.items() if a.amount is not None}


def open_window(rights: Rights, contestants: Collection[str], price: int) -> BuyInWindow | None:
    """The buy-in window of a coming tie round, or None when nobody is eligible."""
    eligible = rights.eligible(contestants)
    if not eligible:
        return None
    return BuyInWindow(rights, eligible, price)
