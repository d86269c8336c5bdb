"""The Si Zhi Dao game at one table (PROCEDURE.md §7.1-§7.8, §7.9's cancel): seats, a game
with its antes, its deals (the first and the tie rounds), betting, arranging, the showdown,
the pot in layers, buy-in windows and the settlement of the whole pot.

This is the procedure without its devices: the table kernel's shoe, camera and faults stay
outside. The plug-in (`procedure.py`) hands it what the devices established — a deal may
open (shuffle checked and loaded), the k-th read of a deal, the camera has confirmed the
showdown, the table paused or resumed, the supervisor cancelled — and it answers through a
`Port`, which is the kernel's own small API: records (`emit`), timers (`arm`/`disarm`) and the
wallets (`purse`). No clock of its own: time is `port.now_us`.

Records are TRACES.md §3.1's. Cards of a seat appear only in that seat's own `private`
records until its showdown begins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from station.cards import Card, CardError, parse_card
from station.games.sizhidao.arrange import ArrangeError, Arrangement, arrange, auto_arrange
from station.games.sizhidao.betting import BETTING_ACTIONS, BettingRound, Decision, Refused
from station.games.sizhidao.groups import Strength
from station.games.sizhidao.layers import (
    CarriedLayer,
    Layer,
    build_layers,
    buy_in_price,
    carried_on,
    decide_layers,
)
from station.games.sizhidao.seats import MIN_PLAYERS, in_seat_order
from station.games.sizhidao.table import (
    BuyInWindow,
    Rights,
    Seating,
    deal_plan,
    game_leader,
    leader_after_showdown,
    open_window,
)

#: every player action of PROCEDURE.md §7.1
PLAYER_ACTIONS = frozenset(
    {"sit", "leave", *BETTING_ACTIONS, "arrange", "buy_in", "decline", "disconnect", "reconnect"}
)
#: the game's clocks, which a pause stops and a resume restarts in full (§7.8)
DECISION_TIMER = "sz_decision"
ARRANGE_TIMER = "sz_arrange"
BUY_IN_TIMER = "sz_buy_in"
GAME_TIMERS = (DECISION_TIMER, ARRANGE_TIMER, BUY_IN_TIMER)
CARDS_EACH = 4


class Purse(Protocol):
    def credit(self, account: str, amount: int) -> None: ...
    def debit(self, account: str, amount: int) -> None: ...
    def balance(self, account: str) -> int: ...
    #: whether the game may take `amount` now: the mirror, or at a studio table whose
    #: wallets other tables share, the studio ledger's journaled reservation (docs/studio.md)
    def can_pay(self, account: str, amount: int) -> bool: ...


class Port(Protocol):
    """What the game needs from the table around it (the kernel provides exactly this)."""

    now_us: int
    table: str
    purse: Purse

    def emit(self, type_: str, **fields: Any) -> dict[str, Any]: ...
    def message(self, key: str, kind: str, **fields: Any) -> None: ...
    def arm(self, name: str, due_us: int) -> None: ...
    def disarm(self, *names: str) -> None: ...


@dataclass(frozen=True, slots=True)
class GameSettings:
    ante: int = 100
    decision_us: int = 15_000_000
    arrange_us: int = 10_000_000
    buy_in_us: int = 10_000_000

    @classmethod
    def from_seconds(
        cls, ante: int, decision_s: float, arrange_s: float, buy_in_s: float
    ) -> GameSettings:
        return cls(ante, round(decision_s * 1e6), round(arrange_s * 1e6), round(buy_in_s * 1e6))


@dataclass(slots=True)
class Entry:
    """Money the game took from an account: an ante, a bet or a buy-in."""

    deal_id: str
    account: str
    kind: str  # ante | bet | buy_in
    amount: int


# deal phases
DEALING, BETTING, ARRANGING, SHOWDOWN, DONE = "dealing", "betting", "arranging", "showdown", "done"


@dataclass(slots=True)
class Deal:
    number: int
    deal_id: str
    contestants: list[str]
    plan: list[str]
    buyers: dict[str, int]
    opened_us: int
    reads: dict[str, list[Card | None]] = field(default_factory=dict)  # None: unread
    phase: str = DEALING
    betting: BettingRound | None = None
    betting_due: bool = False  # the last read came while paused: betting starts at the resume
    arranged: dict[str, Arrangement] = field(default_factory=dict)
    showdown: dict[str, Arrangement] = field(default_factory=dict)
    shown: list[str] = field(default_factory=list)  # the seats shown down
    showdown_from_us: int | None = None
    layers: list[Layer] = field(default_factory=list)

    @property
    def cards_out(self) -> int:
        return sum(len(c) for c in self.reads.values())

    @property
    def all_dealt(self) -> bool:
        return self.cards_out >= len(self.plan)


@dataclass(slots=True)
class GameState:
    number: int
    game_id: str
    leader: str
    players: dict[str, str]  # seat -> account
    rights: Rights
    entries: list[Entry] = field(default_factory=list)
    deals: list[Deal] = field(default_factory=list)
    carried: list[CarriedLayer] = field(default_factory=list)
    window: BuyInWindow | None = None
    window_deal_id: str | None = None
    next_buyers: dict[str, int] = field(default_factory=dict)
    payouts: dict[str, int] = field(default_factory=dict)  # account -> won, credited at the end
    last_backs: dict[str, Strength] | None = None  # the last showdown's backs

    @property
    def deal(self) -> Deal | None:
        return self.deals[-1] if self.deals else None

    def account_of(self, seat: str) -> str:
        return self.players[seat]

    def seat_of(self, account: str) -> str | None:
        for seat, acc in self.players.items():
            if acc == account:
                return seat
        return None


class SiZhiDaoGame:
    def __init__(self, port: Port, settings: GameSettings | None = None) -> None:
        self.port = port
        self.settings = settings or GameSettings()
        self.seating = Seating()
        self.disconnected: set[str] = set()  # accounts
        self.game: GameState | None = None
        self.games_opened = 0
        self.paused_timers: list[str] = []
        #: the table is paused: no clock runs and nothing moves on to the next phase (§3, §7.8)
        self.paused = False
        self.history: list[dict[str, Any]] = []  # results of finished games, newest last
        self._capture: list[dict[str, Any]] | None = None

    # ------------------------------------------------------------------ what the table asks

    @property
    def game_in_progress(self) -> bool:
        return self.game is not None

    def game_id(self) -> str | None:
        return self.game.game_id if self.game else None

    def deal(self) -> Deal | None:
        return self.game.deal if self.game else None

    def deal_due(self) -> bool:
        """A deal is waiting to open: the game is open and has no deal yet, or a tie round's
        buy-in window has closed."""
        g = self.game
        if g is None or g.window is not None:
            return False
        d = g.deal
        return d is None or (d.phase == DONE and bool(g.carried))

    def deal_in_progress(self) -> bool:
        """From `deal_open` to its `layers` record."""
        d = self.deal()
        return d is not None and d.phase != DONE

    def cards_due(self) -> bool:
        d = self.deal()
        return d is not None and d.phase == DEALING and not d.all_dealt

    def awaiting_showdown(self) -> bool:
        """Arranging has ended: the dealer turns the hands up for the camera."""
        d = self.deal()
        return d is not None and d.phase == SHOWDOWN

    def shown_down(self) -> dict[str, list[Card | None]]:
        """The seats to be shown down and the four cards the shoe read for each (None for a
        card it could not read: the camera supplies it)."""
        d = self.deal()
        if d is None or d.showdown_from_us is None:
            return {}
        return {s: list(d.reads[s]) for s in d.shown}

    # ------------------------------------------------------------------ player actions

    def _emit(self, type_: str, **fields: Any) -> dict[str, Any]:
        rec = self.port.emit(type_, **fields)
        if self._capture is not None:
            self._capture.append(rec)
        return rec

    def player(
        self, account: str, action: str, fields: Mapping[str, Any], *, paused: bool
    ) -> list[dict[str, Any]]:
        """A player action from the platform: taken (its records) or `action_refused`.
        Returns the records it made, the answer the platform gets."""
        self._capture = []
        try:
            self._player(account, action, fields, paused)
        except Refused as e:
            self._emit("action_refused", account=account, action=action, reason=e.reason)
        answer, self._capture = self._capture, None
        return answer

    def _player(self, account: str, action: str, fields: Mapping[str, Any], paused: bool) -> None:
        if action == "sit":
            seat = self.seating.sit(
                account, fields.get("seat"), game_in_progress=self.game_in_progress
            )
            self._emit("seated", account=account, seat=seat)
        elif action == "leave":
            seat = self.seating.leave(account, game_in_progress=self.game_in_progress)
            self.disconnected.discard(account)
            self._emit("left", account=account, seat=seat)
        elif action in ("disconnect", "reconnect"):
            self._connection(account, action)
        elif action in BETTING_ACTIONS:
            self._betting_action(account, action, fields, paused)
        elif action == "arrange":
            self._arrange(account, fields, paused)
        elif action in ("buy_in", "decline"):
            self._buy_in(account, action, paused)
        else:
            raise Refused("bad_action", f"no player action {action!r}")

    def _connection(self, account: str, action: str) -> None:
        seat = self.seating.seat_of(account)
        if seat is None:
            raise Refused("not_seated", "the account has no seat")
        d = self.deal()
        self._emit(
            "player_action",
            deal_id=d.deal_id if d else None,
            account=account,
            seat=seat,
            action=action,
            amount=0,
            total=self._total(d, seat),
        )
        if action == "reconnect":
            self.disconnected.discard(account)
            if d is not None and d.betting is not None:
                if seat in d.contestants:
                    d.betting.reconnect(seat)
            return
        self.disconnected.add(account)
        if d is None or seat not in d.contestants:
            return
        if d.phase == BETTING and d.betting is not None:
            # another player's disconnect leaves the current player's clock running (§7.4)
            self._decided(d, d.betting.disconnect(seat), restart_clock=False)
        elif d.phase == ARRANGING:
            self._maybe_end_arranging(d)

    def _in_deal(self, account: str) -> tuple[Deal, str]:
        """The deal the account plays in and its seat, or `not_in_game`."""
        d = self.deal()
        seat = self.game.seat_of(account) if self.game else None
        if d is None or seat is None or seat not in d.contestants:
            raise Refused("not_in_game", "no seat in the current deal")
        if d.betting is not None and not d.betting.in_game(seat):
            raise Refused("not_in_game", "folded in this deal")
        return d, seat

    def _betting_action(
        self, account: str, action: str, fields: Mapping[str, Any], paused: bool
    ) -> None:
        d, seat = self._in_deal(account)
        if paused:
            raise Refused("paused", "the table is paused")
        if d.phase != BETTING or d.betting is None:
            raise Refused("not_now", "no betting in progress")
        put = d.betting.stake(seat, action, fields.get("amount"))
        if put and not self.port.purse.can_pay(account, put):
            raise Refused("insufficient_funds", "the wallet cannot pay it")
        self._decided(d, d.betting.act(seat, action, fields.get("amount")))

    def _arrange(self, account: str, fields: Mapping[str, Any], paused: bool) -> None:
        d, seat = self._in_deal(account)
        if paused:
            raise Refused("paused", "the table is paused")
        if d.phase != ARRANGING:
            raise Refused("not_now", "no arranging in progress")
        if seat in d.arranged:
            raise Refused("already_arranged", "the first legal arrangement is final")
        if any(c is None for c in d.reads[seat]):
            raise Refused("bad_cards", "a card of the seat was not read: arranged at the showdown")
        try:
            front = [parse_card(c) for c in _card_list(fields.get("front"))]
            back = [parse_card(c) for c in _card_list(fields.get("back"))]
            chosen = arrange(_known(d.reads[seat]), front, back)
        except (CardError, ValueError) as e:
            reason = e.reason if isinstance(e, ArrangeError) else "bad_cards"
            raise Refused(reason, "not an arrangement of the seat's own four cards") from None
        d.arranged[seat] = chosen
        self._emit(
            "player_action",
            deal_id=d.deal_id,
            account=account,
            seat=seat,
            action="arrange",
            amount=0,
            total=self._total(d, seat),
            auto=False,
        )
        self._maybe_end_arranging(d)

    def _buy_in(self, account: str, action: str, paused: bool) -> None:
        g = self.game
        seat = g.seat_of(account) if g else None
        if g is None or seat is None:
            raise Refused("not_in_game", "not a player of this game")
        if paused:
            raise Refused("paused", "the table is paused")
        w = g.window
        if w is None:
            raise Refused("not_now", "no buy-in window is open")
        # the window checks the price against what the wallet can pay
        wallet = w.price if self.port.purse.can_pay(account, w.price) else 0
        answer = w.answer(seat, action, wallet)
        self._record_buy_in(g, account, seat, answer.amount, auto=False)
        if w.everyone_answered:
            self._close_window()

    # ------------------------------------------------------------------ dealer and table

    def open_betting_refusal(self, *, paused: bool) -> str | None:
        """Why `open_betting` is refused now, before any record (None: it may be taken)."""
        if self.game_in_progress:
            return "game_in_progress"
        if paused:
            return "paused"
        if len(self.seating.seats) < MIN_PLAYERS:
            return "not_enough_players"
        return None

    def open_betting(self) -> str | None:
        """Start a game: antes into the pot. Returns the refusal reason, or None when the
        game opened. `bet_rejected` records of those who cannot pay are written either way."""
        ante = self.settings.ante
        payers: dict[str, str] = {}
        for seat in self.seating.occupied():
            account = self.seating.seats[seat]
            if not self.port.purse.can_pay(account, ante):
                self._emit(
                    "bet_rejected",
                    account=account,
                    spot="ANTE",
                    amount=ante,
                    reason="insufficient_funds",
                )
            else:
                payers[seat] = account
        if len(payers) < MIN_PLAYERS:
            return "not_enough_players"
        self.games_opened += 1
        game_id = f"{self.port.table}-G{self.games_opened}"
        leader = game_leader(self.seating.leader, payers)
        g = GameState(self.games_opened, game_id, leader, payers, Rights(payers))
        self.game = g
        for account in payers.values():
            self._take(g, Entry(f"{game_id}-D1", account, "ante", ante))
        self._emit("game_open", game_id=game_id, leader=leader, players=dict(payers), ante=ante)
        return None

    def open_deal(self) -> Deal:
        """The deal that is due opens (its shuffle is checked and loaded, the table not paused)."""
        g = self.game
        assert g is not None and self.deal_due()
        n = len(g.deals) + 1
        deal_id = f"{g.game_id}-D{n}"
        if n == 1:
            contestants = in_seat_order(g.players)
        else:
            tied = {s for la in g.carried for s in la.tied}
            contestants = in_seat_order(tied | set(g.next_buyers))
        plan = deal_plan(contestants, g.leader, CARDS_EACH)
        d = Deal(n, deal_id, contestants, plan, dict(g.next_buyers), self.port.now_us)
        d.reads = {s: [] for s in contestants}
        g.next_buyers = {}
        g.deals.append(d)
        self._emit("deal_open", deal_id=deal_id, contestants=contestants, deal_plan=plan)
        return d

    def read(self, card: Card | None, *, paused: bool) -> str | None:
        """The next read of the deal in progress (None: the shoe could not read it): to its
        seat by the plan, and at once to that seat's player alone. Returns the seat, or None
        when the plan has no place for it."""
        d = self.deal()
        if d is None or d.phase != DEALING or d.all_dealt:
            return None
        seat = d.plan[d.cards_out]
        d.reads[seat].append(card)
        g = self.game
        assert g is not None
        self._emit(
            "private",
            deal_id=d.deal_id,
            account=g.account_of(seat),
            seat=seat,
            cards=[str(c) if c is not None else "??" for c in d.reads[seat]],
        )
        if d.all_dealt:
            if paused:
                d.betting_due = True
            else:
                self._start_betting(d)
        return seat

    def pause(self) -> None:
        """The table paused: the decision, arrange and buy-in clocks stop (§7.8)."""
        g = self.game
        if g is None:
            return  # no clock to stop; a game opens only while the table is not paused
        self.paused = True
        d = g.deal
        running = []
        if d is not None and d.phase == BETTING and d.betting is not None and not d.betting.over:
            running.append(DECISION_TIMER)
        if d is not None and d.phase == ARRANGING:
            running.append(ARRANGE_TIMER)
        if g.window is not None:
            running.append(BUY_IN_TIMER)
        self.port.disarm(*GAME_TIMERS)
        self.paused_timers = running

    def resume(self) -> None:
        """The table resumed: stopped clocks start again in full; betting due starts now, and
        a player left alone by a disconnect during the pause takes the pot now."""
        self.paused = False
        now = self.port.now_us
        durations = {
            DECISION_TIMER: self.settings.decision_us,
            ARRANGE_TIMER: self.settings.arrange_us,
            BUY_IN_TIMER: self.settings.buy_in_us,
        }
        for name in self.paused_timers:
            self.port.arm(name, now + durations[name])
        self.paused_timers = []
        d = self.deal()
        if d is None:
            return
        if d.betting_due:
            d.betting_due = False
            self._start_betting(d)
        elif d.phase == BETTING and d.betting is not None and d.betting.over:
            self._end_betting(d)

    def showdown_confirmed(self, camera_hands: Mapping[str, Sequence[Card]] | None = None) -> None:
        """The camera read every shown-down seat's four cards equal to the shoe's reads;
        `camera_hands` gives the cards of a seat whose read the shoe missed."""
        d = self.deal()
        assert d is not None and d.phase == SHOWDOWN
        for seat in d.shown:
            if seat in d.showdown:
                continue
            if any(c is None for c in d.reads[seat]):
                if camera_hands is None or seat not in camera_hands:
                    raise ValueError(f"{seat}: a card was never read and the camera gave none")
                d.reads[seat] = list(camera_hands[seat])
            d.showdown[seat] = auto_arrange(_known(d.reads[seat]))
        d.showdown = {s: d.showdown[s] for s in d.shown}
        self._emit(
            "showdown", deal_id=d.deal_id, seats={s: a.as_dict() for s, a in d.showdown.items()}
        )
        assert self.game is not None
        self.game.last_backs = {s: a.back_strength for s, a in d.showdown.items()}
        self._settle_layers(d)

    def cancel(self, reason: str) -> None:
        """`cancel_round` voids the whole game: every ante, bet and buy-in refunded in full."""
        g = self.game
        if g is None:
            return
        self.port.disarm(*GAME_TIMERS)
        self.paused_timers = []
        self.paused = False  # the procedure pauses the game again if the table stays paused
        refunds: dict[str, int] = {}
        for e in g.entries:
            refunds[e.account] = refunds.get(e.account, 0) + e.amount
        for account, amount in refunds.items():
            self.port.purse.credit(account, amount)
        lines = [{"account": a, "amount": m} for a, m in refunds.items()]
        self._emit("round_cancelled", round_id=g.game_id, reason=reason, refunds=lines)
        self.port.message(
            f"pot_cancelled:{g.game_id}",
            "pot_cancelled",
            round_id=g.game_id,
            game="sizhidao",
            reason=reason,
            refunds=lines,
        )
        self.history.append(
            {"game_id": g.game_id, "cancelled": reason, "pot": sum(refunds.values())}
        )
        self.game = None

    def wallet_changed(self, account: str) -> None:
        """The platform set an account's balance: betting sees the new wallet."""
        d = self.deal()
        seat = self.game.seat_of(account) if self.game else None
        if d is not None and d.betting is not None and seat in d.contestants and not d.betting.over:
            d.betting.set_wallet(seat, max(0, self.port.purse.balance(account)))

    # ------------------------------------------------------------------ timers

    def timer_handlers(self) -> dict[str, Any]:
        return {
            DECISION_TIMER: self._decision_timeout,
            ARRANGE_TIMER: self._arrange_timeout,
            BUY_IN_TIMER: self._close_window,
        }

    def _decision_timeout(self) -> None:
        d = self.deal()
        if d is None or d.phase != BETTING or d.betting is None or d.betting.over:
            return
        self._decided(d, d.betting.timeout())

    def _arrange_timeout(self) -> None:
        d = self.deal()
        if d is not None and d.phase == ARRANGING:
            self._end_arranging(d)

    # ------------------------------------------------------------------ the deal's course

    def _total(self, d: Deal | None, seat: str) -> int:
        if d is None or d.betting is None:
            g = self.game
            if d is not None and d.number == 1 and g is not None and seat in g.players:
                return self.settings.ante
            return 0
        return d.betting.totals().get(seat, 0)

    def _start_betting(self, d: Deal) -> None:
        g = self.game
        assert g is not None
        start = self.settings.ante if d.number == 1 else 0
        totals = {s: start for s in d.contestants}
        wallets = {s: max(0, self.port.purse.balance(g.account_of(s))) for s in d.contestants}
        gone = {s for s in d.contestants if g.account_of(s) in self.disconnected}
        d.betting = BettingRound(
            totals, wallets, ante=self.settings.ante, leader=g.leader, disconnected=gone
        )
        d.phase = BETTING
        self._decided(d, d.betting.start())

    def _decided(self, d: Deal, decisions: list[Decision], *, restart_clock: bool = True) -> None:
        """Record the decisions betting made; the decision clock counts from the last of them
        (or from the start of betting). `restart_clock=False`: the input decided nothing unless
        it says so (another player's disconnect), so the clock runs on."""
        g = self.game
        assert g is not None and d.betting is not None
        for dec in decisions:
            account = g.account_of(dec.seat)
            if dec.amount:
                self._take(g, Entry(d.deal_id, account, "bet", dec.amount))
            self._emit(
                "player_action",
                deal_id=d.deal_id,
                account=account,
                **dec.as_dict(),
            )
        if d.betting.over:
            self._stop_clock(DECISION_TIMER)
            self._end_betting(d)
        elif decisions or restart_clock:
            self._start_clock(DECISION_TIMER, self.settings.decision_us)

    def _start_clock(self, name: str, duration_us: int) -> None:
        """A game clock starts in full now, or at the resume while paused (§7.8)."""
        self.port.disarm(name)
        if not self.paused:
            self.port.arm(name, self.port.now_us + duration_us)
        elif name not in self.paused_timers:
            self.paused_timers.append(name)

    def _stop_clock(self, name: str) -> None:
        self.port.disarm(name)
        if name in self.paused_timers:
            self.paused_timers.remove(name)

    def _end_betting(self, d: Deal) -> None:
        assert d.betting is not None
        if len(d.betting.still_in()) <= 1:
            if not self.paused:  # else at the resume: nothing is settled while paused (§3)
                self._settle_layers(d)  # a player left alone: no showdown
            return
        d.phase = ARRANGING
        self._start_clock(ARRANGE_TIMER, self.settings.arrange_us)
        self._maybe_end_arranging(d)

    def _maybe_end_arranging(self, d: Deal) -> None:
        g = self.game
        assert g is not None and d.betting is not None
        if d.phase != ARRANGING:
            return
        waiting = [
            s
            for s in d.betting.still_in()
            if s not in d.arranged and g.account_of(s) not in self.disconnected
        ]
        if not waiting:
            self._end_arranging(d)

    def _end_arranging(self, d: Deal) -> None:
        assert d.betting is not None
        self._stop_clock(ARRANGE_TIMER)
        d.shown = d.betting.still_in()
        for seat in d.shown:
            if seat in d.arranged:
                d.showdown[seat] = d.arranged[seat]
            elif all(c is not None for c in d.reads[seat]):
                d.showdown[seat] = auto_arrange(_known(d.reads[seat]))
            # else: arranged once the camera has named the card the shoe missed
        d.showdown_from_us = self.port.now_us
        d.phase = SHOWDOWN

    def _settle_layers(self, d: Deal) -> None:
        g = self.game
        assert g is not None and d.betting is not None
        layers = build_layers(d.betting.totals(), d.betting.folded(), g.carried, d.buyers)
        decided = decide_layers(layers, d.showdown)
        d.layers = decided
        d.phase = DONE
        self._emit("layers", deal_id=d.deal_id, layers=[la.as_dict() for la in decided])
        for la in decided:
            if la.winner is not None:
                account = g.account_of(la.winner)
                g.payouts[account] = g.payouts.get(account, 0) + la.amount
        g.carried = carried_on(decided)
        if not g.carried:
            self._settle_game()
            return
        contestants = {s for la in g.carried for s in la.tied}
        price = buy_in_price(g.carried)
        g.window = open_window(g.rights, contestants, price)
        g.window_deal_id = f"{g.game_id}-D{len(g.deals) + 1}"
        if g.window is not None:
            self.port.arm(BUY_IN_TIMER, self.port.now_us + self.settings.buy_in_us)

    def _take(self, g: GameState, e: Entry) -> None:
        """Money from a wallet into the game's pot: the wallet mirror and the books."""
        self.port.purse.debit(e.account, e.amount)
        g.entries.append(e)
        self.port.message(
            f"pot_in:{g.game_id}:{len(g.entries)}",
            "pot_in",
            round_id=g.game_id,
            game="sizhidao",
            deal_id=e.deal_id,
            account=e.account,
            amount=e.amount,
            what=e.kind,
        )

    def _record_buy_in(
        self, g: GameState, account: str, seat: str, amount: int | None, *, auto: bool
    ) -> None:
        deal_id = g.window_deal_id
        assert deal_id is not None
        if amount is None:
            self._emit(
                "buy_in", deal_id=deal_id, account=account, seat=seat, declined=True, auto=auto
            )
            return
        self._take(g, Entry(deal_id, account, "buy_in", amount))
        g.next_buyers[seat] = amount
        self._emit("buy_in", deal_id=deal_id, account=account, seat=seat, amount=amount, auto=auto)

    def _close_window(self) -> None:
        g = self.game
        if g is None or g.window is None:
            return
        self.port.disarm(BUY_IN_TIMER)
        for a in g.window.close():
            self._record_buy_in(g, g.account_of(a.seat), a.seat, None, auto=True)
        g.window = None

    def _settle_game(self) -> None:
        g = self.game
        assert g is not None
        for account, amount in g.payouts.items():
            self.port.purse.credit(account, amount)
        pot = sum(e.amount for e in g.entries)
        assert pot == sum(g.payouts.values()), "the pot must be paid out to the last unit"
        self._emit(
            "game_settled",
            game_id=g.game_id,
            payouts=dict(g.payouts),
            pot=pot,
            bets=_bet_lines(g),
        )
        self.port.message(
            f"pot_settled:{g.game_id}",
            "pot_settled",
            round_id=g.game_id,
            game="sizhidao",
            payouts=dict(g.payouts),
        )
        if g.last_backs:
            self.seating.leader = leader_after_showdown(g.last_backs, g.leader)
        winners = [self._seat_of_account(g, a) for a in g.payouts]
        self.history.append(
            {
                "game_id": g.game_id,
                "winners": winners,
                "pot": pot,
                "tie_rounds": len(g.deals) - 1,
            }
        )
        self.game = None

    @staticmethod
    def _seat_of_account(g: GameState, account: str) -> str | None:
        return g.seat_of(account)


def _known(cards: Sequence[Card | None]) -> list[Card]:
    if any(c is None for c in cards):
        raise ValueError("a hand with a card nobody read")
    return [c for c in cards if c is not None]


def _card_list(value: object) -> list[object]:
    if not isinstance(value, list):
        raise ValueError("a group is a list of cards")
    return value


def _bet_lines(g: GameState) -> list[dict[str, Any]]:
    """Every ante, bet and buy-in of the game, one line per account, kind and deal: per deal
    the antes, then the buy-ins, then the bets, each in seat order."""
    seat_rank = {acc: i for i, acc in enumerate(g.players[s] for s in in_seat_order(g.players))}
    kinds = {"ante": 0, "buy_in": 1, "bet": 2}
    totals: dict[tuple[str, str, str], int] = {}
    for e in g.entries:
        key = (e.deal_id, e.kind, e.account)
        totals[key] = totals.get(key, 0) + e.amount
    deal_order = {d.deal_id: d.number for d in g.deals}
    ordered = sorted(
        totals.items(),
        key=lambda kv: (deal_order.get(kv[0][0], 0), kinds[kv[0][1]], seat_rank[kv[0][2]]),
    )
    return [
        {"account": acc, "amount": amount, "kind": kind, "deal_id": deal_id}
        for (deal_id, kind, acc), amount in ordered
    ]
