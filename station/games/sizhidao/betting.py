"""One deal's betting round as a pure state object (PROCEDURE.md §7.4). No clock, no I/O:
the table drives it with decisions, silences (`timeout`) and disconnects, and writes what it
answers.

Each player of the deal has a **total**, what it has put in this deal's betting (in the first
deal the ante counts; a tie round starts at 0), and a **wallet**, what it can still put in.
The highest total is the **level**.

- The first to act is the leader or, when the leader is not in the deal or cannot act, the
  next player of the deal counter-clockwise who can (in, wallet above 0).
- The opening decision is `bet` (a new total at least one ante above the level), `fold` or
  `all_in`. After it, whatever it was: `call` (match the level), `raise` (to a new total at
  least one ante above the level), `fold` or `all_in` (the whole wallet).
- Any all-in above the level raises it and reopens the betting, even by less than one ante. A
  call or raise that empties the wallet makes the player all-in; a wallet too small to call
  can only go all-in or fold.
- The turn passes counter-clockwise to the next player who needs to act: in, not all-in, and
  below the level or without a decision since the level last rose.
- Betting ends when nobody needs to act, when at most one player is still in, or when one
  player alone can act and is at the level.
- A disconnected player is folded (`auto`) when the turn reaches them, or at the disconnect if
  it comes during their turn; silence (`timeout`) folds too.

A refused decision raises `Refused` with its reason and changes nothing; the reasons this
object knows, in the order of PROCEDURE.md §7.1 (the table checks `paused` itself, between
`not_in_game` and `not_now`): `not_in_game`, `not_now`, `not_your_turn`, `bad_action`,
`bad_amount`, `raise_too_small`, `insufficient_funds`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from station.games.sizhidao.seats import counter_clockwise_from, in_seat_order
from station.money import MAX_AMOUNT

BET, CALL, RAISE, FOLD, ALL_IN = "bet", "call", "raise", "fold", "all_in"
BETTING_ACTIONS = (BET, CALL, RAISE, FOLD, ALL_IN)
OPENING_ACTIONS = frozenset({BET, FOLD, ALL_IN})
LATER_ACTIONS = frozenset({CALL, RAISE, FOLD, ALL_IN})


class Refused(Exception):
    """A player action the game does not allow now; `reason` as in PROCEDURE.md §7.1."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision taken: the body of a `player_action` record, less ids and time."""

    seat: str
    action: str
    amount: int  # what it put in now
    total: int  # its total in this deal's betting
    auto: bool
    all_in: bool  # the player has nothing left to put in after it

    def as_dict(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "action": self.action,
            "amount": self.amount,
            "total": self.total,
            "auto": self.auto,
        }


@dataclass(slots=True)
class _Player:
    total: int
    wallet: int
    folded: bool = False
    all_in: bool = False
    decided: bool = False  # has decided since the level last rose
    connected: bool = True


class BettingRound:
    def __init__(
        self,
        totals: Mapping[str, int],
        wallets: Mapping[str, int],
        *,
        ante: int,
        leader: str,
        disconnected: Iterable[str] = (),
    ) -> None:
        """`totals`: every player of the deal -> its total so far (the ante in a first deal,
        0 in a tie round); `wallets`: what each can still put in."""
        if set(totals) != set(wallets):
            raise ValueError("totals and wallets must name the same players")
        if len(totals) < 2:
            raise ValueError("a betting round needs at least two players")
        if ante <= 0:
            raise ValueError("the ante must be positive")
        self.ante = ante
        self.leader = leader
        self.order = in_seat_order(totals)
        gone = set(disconnected)
        self._p = {
            s: _Player(
                total=totals[s],
                wallet=wallets[s],
                all_in=wallets[s] <= 0,
                connected=s not in gone,
            )
            for s in self.order
        }
        self.opened = False  # the opening decision has been taken
        self.to_act: str | None = None
        self.over = False
        self._started = False

    # --- what the table reads ------------------------------------------------------------

    @property
    def level(self) -> int:
        return max(p.total for p in self._p.values())

    def totals(self) -> dict[str, int]:
        return {s: p.total for s, p in self._p.items()}

    def wallets(self) -> dict[str, int]:
        return {s: p.wallet for s, p in self._p.items()}

    def folded(self) -> set[str]:
        return {s for s, p in self._p.items() if p.folded}

    def still_in(self) -> list[str]:
        return [s for s in self.order if not self._p[s].folded]

    def all_in(self) -> list[str]:
        return [s for s in self.order if self._p[s].all_in and not self._p[s].folded]

    def in_game(self, seat: str) -> bool:
        """A player of this deal who has not folded."""
        return seat in self._p and not self._p[seat].folded

    def needs_to_act(self, seat: str) -> bool:
        p = self._p[seat]
        if p.folded or p.all_in:
            return False
        return p.total < self.level or not p.decided

    def _can_act(self, seat: str) -> bool:
        p = self._p[seat]
        return not p.folded and not p.all_in

    # --- driving it ----------------------------------------------------------------------

    def start(self) -> list[Decision]:
        """Betting starts: the first to act gets the turn. Returns automatic folds (a first
        actor who is disconnected); `over` may already be true."""
        if self._started:
            raise RuntimeError("betting already started")
        self._started = True
        if self._ended():
            return self._end()
        able = [s for s in self.order if self._can_act(s)]
        first = counter_clockwise_from(able, self.leader, include_start=True)
        self.to_act = first[0]
        return self._fold_absent()

    def act(self, seat: str, action: str, amount: object = None) -> list[Decision]:
        """A player's decision. Returns it followed by any automatic folds it leads to.
        Raises Refused."""
        self.check(seat, action, amount)
        return [self._apply(seat, action, amount, auto=False), *self._advance(seat)]

    def check(self, seat: str, action: str, amount: object = None) -> None:
        """Raise Refused with the first reason that applies, else return."""
        if seat not in self._p or self._p[seat].folded:
            raise Refused("not_in_game", "no seat in this deal, or folded in it")
        if not self._started or self.over:
            raise Refused("not_now", "no betting in progress")
        if seat != self.to_act:
            raise Refused("not_your_turn", f"it is {self.to_act}'s turn")
        allowed = LATER_ACTIONS if self.opened else OPENING_ACTIONS
        if action not in allowed:
            raise Refused(
                "bad_action",
                f"{action!r} is not {'a later' if self.opened else 'the opening'} decision",
            )
        p = self._p[seat]
        if action in (BET, RAISE):
            if (
                isinstance(amount, bool)
                or not isinstance(amount, int)
                or amount <= 0
                or amount > MAX_AMOUNT
            ):
                raise Refused("bad_amount", "the amount is the new total, a whole positive number")
            if amount < self.level + self.ante:
                raise Refused(
                    "raise_too_small", f"the new total must be at least {self.level + self.ante}"
                )
            if amount - p.total > p.wallet:
                raise Refused("insufficient_funds", "the wallet does not hold that much")
        elif action == CALL:
            if self.level - p.total > p.wallet:
                raise Refused("insufficient_funds", "the wallet is too small to call")

    def stake(self, seat: str, action: str, amount: object = None) -> int:
        """What this decision would put in now (checked: raises Refused); changes nothing."""
        self.check(seat, action, amount)
        p = self._p[seat]
        if action == CALL:
            return self.level - p.total
        if action == ALL_IN:
            return p.wallet
        if action in (BET, RAISE):
            assert isinstance(amount, int)
            return amount - p.total
        return 0

    def timeout(self) -> list[Decision]:
        """The player to act stayed silent for its whole decision time: folded (auto)."""
        if self.over or self.to_act is None:
            raise RuntimeError("nobody is to act")
        seat = self.to_act
        return [self._apply(seat, FOLD, None, auto=True), *self._advance(seat)]

    def disconnect(self, seat: str) -> list[Decision]:
        """A player lost the connection; folded at once if it is its turn."""
        self._p[seat].connected = False
        if self._started and not self.over and seat == self.to_act:
            return [self._apply(seat, FOLD, None, auto=True), *self._advance(seat)]
        return []

    def reconnect(self, seat: str) -> None:
        self._p[seat].connected = True

    def set_wallet(self, seat: str, wallet: int) -> None:
        """The platform set the player's balance: what it can still put in from now on."""
        self._p[seat].wallet = wallet

    # --- internals -----------------------------------------------------------------------

    def _apply(self, seat: str, action: str, amount: object, *, auto: bool) -> Decision:
        p = self._p[seat]
        level = self.level
        if action == FOLD:
            put = 0
            p.folded = True
        elif action == CALL:
            put = level - p.total
        elif action == ALL_IN:
            put = p.wallet
        else:  # bet, raise: amount is the new total, checked
            assert isinstance(amount, int)
            put = amount - p.total
        p.total += put
        p.wallet -= put
        if action != FOLD and p.wallet <= 0:
            p.all_in = True
        p.decided = True
        if p.total > level:
            for s, other in self._p.items():
                if s != seat:
                    other.decided = False
        self.opened = True
        return Decision(seat, action, put, p.total, auto, p.all_in)

    def _ended(self) -> bool:
        still_in = self.still_in()
        if len(still_in) <= 1:
            return True
        if not any(self.needs_to_act(s) for s in self.order):
            return True
        able = [s for s in still_in if self._can_act(s)]
        return len(able) == 1 and self._p[able[0]].total == self.level

    def _end(self) -> list[Decision]:
        self.over = True
        self.to_act = None
        return []

    def _advance(self, after: str) -> list[Decision]:
        if self._ended():
            return self._end()
        waiting = [s for s in self.order if self.needs_to_act(s)]
        self.to_act = counter_clockwise_from(waiting, after, include_start=False)[0]
        return self._fold_absent()

    def _fold_absent(self) -> list[Decision]:
        out: list[Decision] = []
        while not self.over and self.to_act is not None and not self._p[self.to_act].connected:
            seat = self.to_act
            out.append(self._apply(seat, FOLD, None, auto=True))
            out.extend(self._advance(seat))
        return out
