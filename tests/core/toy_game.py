"""A toy third game, written only against the game contract (station/games/base.py), to prove
the contract is total: "High card" — two positions, LEFT and RIGHT, one card each, dealt face
up after betting closes; the higher rank (A high) wins, equal ranks push.

Its rules are a dozen lines; its procedure is the least a table needs: shuffle check and
LOAD, rounds with a countdown, the deal after the close, each position confirmed by the
camera, validation and settlement. Faults: early and extra cards, unread cards, mismatches,
and the kernel's own (link, device, camera, reboot).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from station.cards import Card, ShoeContents
from station.core.actions import Action
from station.core.bets import Bet, refund_lines
from station.core.deal import DealTracker, dealt_cards
from station.core.faults import FAULT_KINDS
from station.core.inputs import Input, to_s
from station.games.base import BetError, Game, Procedure, decks_of


# ---- the rules: a dozen lines
@dataclass(frozen=True)
class HighCardSettings:
    """The toy game's own setting, read from a table config's `[game]` section."""
    #: the most seconds one `extend_betting` may add to the countdown
    extend_max_seconds: int = 30

    def check(self) -> str | None:
        return None if self.extend_max_seconds >= 1 else "extend_max_seconds: at least 1"


ORDER = "23456789TJQKA"
POSITIONS = ("LEFT", "RIGHT")


class HighCard(Game):
    name = "highcard"
    table_prefix = "HC-"
    positions = POSITIONS
    zones = POSITIONS
    spots = frozenset(POSITIONS)
    deal_plan = POSITIONS
    #: its console panel and road, in its own package
    presentation = "tests.core.toy_panel:HighCardPanel"
    settings_class = HighCardSettings
    #: its tool, in its own module: `station settle --game highcard`
    tools = {"settle_round": "tests.core.toy_game:settle_round"}

    @property
    def deck(self):  # one deck of 52
        return decks_of(1)

    def check_bet(self, spot: str, amount: Any, held: Sequence[tuple[str, int]] = ()) -> int:
        if spot not in self.spots:
            raise BetError("bad_spot", f"no spot {spot!r}")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise BetError("bad_amount", "amount must be a positive integer")
        return amount

    def evaluate(self, hands: Mapping[str, Sequence[Card]]) -> dict[str, dict[str, Any]]:
        left, right = (ORDER.index(hands[p][0].rank) for p in POSITIONS)
        win = "LEFT" if left > right else "RIGHT" if right > left else None
        return {p: {"outcome": "tie" if win is None else "win" if p == win else "lose"}
                for p in POSITIONS}

    def returned(self, spot: str, amount: int, hands: Mapping[str, Sequence[Card]]) -> int:
        outcome = self.evaluate(hands)[spot]["outcome"]
        return {"win": 2 * amount, "tie": amount, "lose": 0}[outcome]


def settle_round(obj: object) -> dict[str, Any]:
    """One round, `{"cards": {"LEFT": [..], "RIGHT": [..]}, "bets": [{account, spot,
    amount}]}`, settled from the rules: its results and what each bet returns."""
    if not isinstance(obj, dict):
        raise ValueError("a round is a JSON object")
    game = HighCard()
    outcome = game.outcome(obj)
    bets = [{**b, "returned": game.returned(b["spot"], game.check_bet(b["spot"], b["amount"]),
                                            outcome)} for b in obj.get("bets", [])]
    return {"results": game.evaluate(outcome), "bets": bets}


# ---- the table procedure
@dataclass(slots=True)
class Shoe:
    number: int
    contents: ShoeContents
    confirmed: bool = False
    loaded: bool = False
    rounds: int = 0
    ended: bool = False


@dataclass(slots=True)
class Round:
    round_id: str
    closes_us: int
    deal: DealTracker
    closed: bool = False
    finished: bool = False
    bets: list[Bet] = field(default_factory=list)


class HighCardProcedure(Procedure):
    states = ("idle", "shuffling", "between_rounds", "betting", "dealing", "confirming",
              "paused", "closed")
    follow = {
        ("shuffling", "between_rounds"): "shuffle_confirmed_and_loaded",
        ("betting", "dealing"): "betting_closes",
        ("dealing", "confirming"): "all_cards_out",
        ("confirming", "between_rounds"): "hand_validated",
        ("between_rounds", "idle"): "shoe_ended",
        ("shuffling", "idle"): "shoe_ended",
    }
    dealer_transitions = (("open_betting", ("between_rounds",), "betting"),)
    round_phases = ("betting", "dealing", "confirming")
    closable = ("idle", "shuffling", "between_rounds")
    cards_due_states = frozenset({"dealing"})
    betting_states = frozenset({"betting"})
    fault_kinds = {k: FAULT_KINDS[k] for k in (
        "early_card", "extra_card", "unread_card", "card_mismatch", "device_fault",
        "link_lost", "shoe_rebooted", "camera_lost", "foreign_card")}
    cancel_only = frozenset({"extra_card", "unread_card", "foreign_card"})
    event_faults = frozenset({"early_card", "extra_card", "unread_card", "foreign_card",
                              "device_fault", "shoe_rebooted"})
    timer_order = ("betting_close", "link", "camera")
    inclusive_timers = frozenset({"betting_close"})
    settings_used = ("betting_seconds", "link_lost_seconds", "camera_lost_seconds", "min_bet",
                     "max_bet")

    def __init__(self, table: Any, game: Any) -> None:
        super().__init__(table, game)
        self.shoe: Shoe | None = None
        self.round: Round | None = None

    #: actions of its own: the dealer gives the bettors more time, a line
    #: `{"dealer": "extend_betting", "seconds": n}`, and calls a round's high card aloud by the
    #: position holding it, `{"dealer": "call", "position": "LEFT"}` (its presentation's)
    actions = {**Procedure.actions,
               "extend_betting": Action("give the bettors more time before the close",
                                        payload=("seconds",)),
               "call": Action("call the round's high card aloud", payload=("position",))}

    def dealer_handlers(self):
        return {"new_shoe": self._new_shoe, "open_betting": self._open_betting,
                "extend_betting": self._extend_betting, "call": self._call}

    def _extend_betting(self, inp: Input) -> None:
        t, r = self.table, self.round
        seconds = inp.extra.get("seconds")
        if r is None or r.closed or r.finished or t.state == "paused":
            return t.refuse("extend_betting", None, "betting is not open")
        most = t.settings.own.extend_max_seconds
        if isinstance(seconds, bool) or not isinstance(seconds, int) or not 1 <= seconds <= most:
            return t.refuse("extend_betting", None, f"bad_seconds: 1 to {most}")
        r.closes_us += t.us(seconds)
        t.arm("betting_close", r.closes_us)
        t.emit("betting_extended", round_id=r.round_id, closes_at=to_s(r.closes_us))
        return None

    def timer_handlers(self):
        return {"betting_close": self._close}

    def phase(self) -> str:
        s, r = self.shoe, self.round
        if s is None or s.ended:
            return "idle"
        if not (s.confirmed and s.loaded):
            return "shuffling"
        if r is None or r.finished:
            return "between_rounds"
        if not r.closed:
            return "betting"
        return "confirming" if r.deal.complete else "dealing"

    def round_in_progress(self) -> bool:
        return self.round is not None and not self.round.finished

    def round_id(self) -> str | None:
        return self.round.round_id if self.round else None

    def shoe_in_play(self) -> bool:
        return self.shoe is not None and not self.shoe.ended

    def on_load(self) -> None:
        self.shoe.loaded = True  # type: ignore[union-attr]

    def shuffle_refusal(self) -> str | None:
        # the kernel refuses with it and the console offers the decision by it
        if self.table.phase != "shuffling" or self.shoe is None or self.shoe.confirmed:
            return "no new shoe is waiting for its shuffle check"
        return None

    def confirm_shuffle(self) -> str | None:
        reason = self.shuffle_refusal()
        if reason is None:
            self.shoe.confirmed = True  # type: ignore[union-attr]
        return reason

    def _new_shoe(self, inp: Input) -> None:
        t = self.table
        if t.state == "paused" or t.phase not in ("idle", "closed"):
            return t.refuse("new_shoe", None, "a shoe is in play or the table is paused")
        self.shoe = Shoe(t.begin_shoe(), ShoeContents(deck=self.game.deck),
                         loaded=t.take_pending_load())
        self.round = None
        t.trigger("new_shoe")
        t.emit("shoe_start", shoe=self.shoe.number)
        t.after_new_shoe()
        return None

    def _call(self, inp: Input) -> None:
        """The dealer calls the round's high card aloud: journaled beside the round, once
        its cards are all dealt."""
        r, t = self.round, self.table
        if r is None or not r.deal.complete:
            return t.refuse("call", None, "no round dealt to call")
        t.emit("called", round_id=r.round_id, position=inp.extra.get("position"))

    def _open_betting(self, inp: Input) -> None:
        t = self.table
        if t.state == "paused" or t.phase != "between_rounds" or any(
                dealt_cards(t.zones[p]) for p in POSITIONS):
            return t.refuse("open_betting", None, "not between rounds with clear zones")
        assert self.shoe is not None
        self.shoe.rounds += 1
        closes = t.now_us + t.us(t.settings.betting_seconds)
        rid = f"{t.table}-S{self.shoe.number}-R{self.shoe.rounds}"
        self.round = Round(rid, closes, DealTracker(self.game.deal_plan, POSITIONS))
        t.arm("betting_close", closes)
        t.trigger("open_betting")
        t.emit("round_open", round_id=rid, shoe=self.shoe.number, round=self.shoe.rounds,
               closes_at=to_s(closes))
        t.watch_camera()
        return None

    def _close(self) -> None:
        r = self.round
        if r is not None and not r.closed:
            r.closed = True
            self.table.emit("betting_closed", round_id=r.round_id)

    def on_card(self, card: Card | None, code: str | None) -> None:
        t, r = self.table, self.round
        if card is not None and self.shoe is not None and self.shoe.contents.draw(card, code):
            t.raise_fault("foreign_card", "a card that cannot belong to this shoe")
        if t.phase != "dealing" or r is None:
            if r is not None and r.deal.complete and self.round_in_progress():
                return t.raise_fault("extra_card", "a third card in a two-card round")
            return t.raise_fault("early_card", "a card left the shoe when none was due")
        r.deal.add(card, code, t.now_us)
        if card is None:
            t.raise_fault("unread_card", "the shoe could not read a card")
        self._compare()

    def on_camera(self, changed: bool) -> None:
        if changed and self.round_in_progress():
            self._compare()

    def _compare(self) -> None:
        r = self.round
        assert r is not None
        for p in POSITIONS:
            if r.deal.compare(p, self.table.zones[p], 1) == "mismatch":
                self.table.raise_fault("card_mismatch", f"{p}: camera and shoe disagree", key=p)

    def condition_holds(self, f: Any) -> str | None:
        r = self.round
        if f.kind == "card_mismatch" and r is not None and self.round_in_progress() and \
                any(v is False for v in r.deal.confirmed.values()):
            return "the camera still disagrees with the shoe"
        return None

    def cancel_round(self, user: str | None, reason: str) -> None:
        t, r = self.table, self.round
        assert r is not None
        for b in r.bets:
            t.credit(b.account, b.deducted)
        r.finished = True
        t.disarm("betting_close", "camera")
        t.emit("round_cancelled", round_id=r.round_id, reason=reason,
               refunds=refund_lines(r.bets), user=user)
        t.message(f"cancel:{r.round_id}", "round_cancelled", round_id=r.round_id, reason=reason)

    def end_shoe(self) -> None:
        if self.shoe is not None and not self.shoe.ended:
            self.shoe.ended = True
            self.table.emit("shoe_end", shoe=self.shoe.number, rounds=self.shoe.rounds,
                            cards_out=self.shoe.contents.drawn)

    def after_input(self) -> None:
        t, r = self.table, self.round
        if r is None or r.finished or t.state == "paused" or t.phase != "confirming":
            return
        if not r.deal.all_read() or (t.settings.camera and not all(
                r.deal.confirmed.get(p) for p in POSITIONS)):
            return
        hands = r.deal.hands()
        results = self.game.evaluate(hands)
        cards = {p: [str(c) for c in cs] for p, cs in hands.items()}
        t.emit("hand", round_id=r.round_id, shoe=self.shoe.number, round=self.shoe.rounds,
               cards=cards, results=results, last_round=False,
               validated_by=["shoe", "camera"] if t.settings.camera else ["shoe"])
        settled = t.settle_bets(r.bets, lambda b: self.game.returned(b.spot, b.amount, hands))
        t.emit("settlement", round_id=r.round_id, bets=settled)
        t.message(f"hand:{r.round_id}", "hand", round_id=r.round_id, game=self.game.name,
                  cards=cards, results=results, validated_by=["shoe", "camera"],
                  settlement=settled)
        t.disarm("camera")
        r.finished = True
        t.rounds_settled += 1
        t.remember({"round_id": r.round_id, "cards": cards, "results": results,
                    "t": to_s(t.now_us)})

    def bet_window(self) -> str | None:
        r = self.round
        if self.shoe is None or self.shoe.ended or r is None:
            return "no_round"
        if r.closed or r.finished or self.table.now_us >= r.closes_us:
            return "betting_closed"
        return None

    def place_bet(self, account: str, spot: str, amount: int, deducted: int) -> dict[str, Any]:
        t, r = self.table, self.round
        assert r is not None
        r.bets.append(Bet(account, spot, amount, deducted))
        t.message(f"bet:{r.round_id}:{len(r.bets)}", "bet", round_id=r.round_id,
                  game=self.game.name, account=account, spot=spot, amount=amount,
                  deducted=deducted)
        return t.emit("bet_accepted", round_id=r.round_id, account=account, spot=spot,
                      amount=amount, deducted=deducted)

    def view(self) -> dict[str, Any]:
        r = self.round
        shoe = None if self.shoe is None else {"number": self.shoe.number,
                                               "rounds": self.shoe.rounds}
        if r is None:
            return {"shoe": shoe, "round": None}
        # dealt face up after the close: public once the camera confirmed the position
        return {"shoe": shoe, "round": {
            "round_id": r.round_id, "betting_open": not r.closed, "finished": r.finished,
            "closes_at": to_s(r.closes_us),
            "revealed": {p: [str(c) for c in r.deal.camera_cards[p]]
                         for p in POSITIONS if r.deal.confirmed.get(p)}}}


HighCard.procedure_class = HighCardProcedure
