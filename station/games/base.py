"""The contract between the table kernel and a game (docs/core.md is its one-page guide).

A game is two things:

- `Game`: the rules, pure and stateless — its deck (a card multiset), its spots and bet
  checks, its evaluation and the return of each bet. Settlement, the rules CLI and the
  simulators use only this half.
- `Procedure`: what the station enforces at the table, one instance per table, holding the
  game's facts (the shoe or shuffle, the round or game in play). The kernel
  (`station.core.kernel.TableKernel`) owns time, the shoe link, faults and the supervisor's
  decisions, money and the state machine; it calls the procedure through the handler tables
  and hooks declared here, and the procedure calls back through the kernel's small API
  (`emit`, `raise_fault`, `arm`, `disarm`, `credit`, `debit`, `message`; docs/core.md).

Nothing here knows a particular game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from station.cards import ALL_CARDS, Card, CardError, parse_card
from station.core.actions import Action
from station.core.settings import NoSettings
from station.core.skeleton import BURN, SKELETON_STATES
from station.games.decisions import decision, ordered, supervisor_decisions

if TYPE_CHECKING:
    from station.core.faults import ActiveFault
    from station.core.kernel import TableKernel

__all__ = ["BURN", "SKELETON_STATES", "BetError", "Game", "OutcomeError", "Procedure", "decks_of"]


class BetError(ValueError):
    """A bet the game cannot take; `reason` is a TRACES.md bet_rejected reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class OutcomeError(ValueError):
    """A `hand` message whose outcome the game cannot read; `reason` is the settlement
    side's refusal reason (`malformed`, `bad_cards`, or a game's own such as `bad_dice`)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def decks_of(n: int) -> Counter[Card]:
    """The multiset of `n` full 52-card decks."""
    return Counter({c: n for c in ALL_CARDS})


class Game(ABC):
    """The rules of one game (stateless)."""

    name: str
    #: table names of this game start with this (PD-, WZ-, SZ-)
    table_prefix: str
    #: positions that receive hands, in reveal order (the `cards` keys of a hand record)
    positions: tuple[str, ...]
    #: camera zones the procedure checks
    zones: tuple[str, ...]
    #: what the camera finds in each zone that holds no cards: its kind ("dice": a dice tray),
    #: by which the camera picks the zone's reader (firmware_bridge/camera/build.py)
    zone_kinds: Mapping[str, str] = MappingProxyType({})
    #: the game's name in messages ("a <title> layout needs ..."); empty: its `name`
    title: str = ""
    #: the layout of the game's studio table, "module:NAME" of a dict as a layout file holds
    #: it (firmware_bridge/camera/layout.py): what a table of the game films when its config
    #: names no layout file (None: it must name one)
    camera_layout: str | None = None
    #: the game's camera accuracy suite, "module:function" (station camera accuracy --game):
    #: function(firmware_bridge.camera.suite.AccuracyOptions) -> list of AccuracyTable
    camera_accuracy: str | None = None
    #: every spot a bet may name
    spots: frozenset[str] = frozenset()
    #: the game's own settings: a frozen dataclass of its package, every field with its
    #: default, read from a table config's `[game]` section and recorded in trace headers
    #: beside the table's (station/core/settings.py reads it; a `check()` method returning
    #: a problem in words, or None, checks the fields together)
    settings_class: type = NoSettings
    #: the game's tools, each in its package: tool name -> "module:function"
    #: (station/games/tools.py names the tools and how each is called)
    tools: Mapping[str, str] = MappingProxyType({})

    @property
    def deck(self) -> Counter[Card]:
        """What the shoe holds when full: each identity and how many copies."""
        return decks_of(getattr(self, "decks", 1))

    #: the deal plan when it is fixed at round open (what the k-th card of a round is for)
    deal_plan: tuple[str, ...] = ()

    @property
    def cards_per_round(self) -> int:
        return len(self.deal_plan)

    @abstractmethod
    def check_bet(self, spot: str, amount: Any, held: Sequence[tuple[str, int]] = ()) -> int:
        """Validate a bet and return what placing it deducts. `held` is what the same account
        already holds this round, as (spot, amount) in order. Raises BetError with the first
        reason that applies of the game's own (`bad_spot`, `bad_amount`, game reasons such as
        `conflict`); table limits and funds are the kernel's."""

    def outcome(self, message: Mapping[str, Any]) -> Any:
        """The outcome a round settles on, read from the round's `hand` message: what
        `evaluate` and `returned` take. By default the cards of each position (`cards`:
        position -> card texts, every position named); a game settled on something else,
        the faces of dice say, reads its own fields. Raises OutcomeError."""
        cards = message.get("cards")
        if not isinstance(cards, dict):
            raise OutcomeError("malformed", "field 'cards' missing or not an object")
        if set(cards) != set(self.positions):
            raise OutcomeError("bad_cards", f"a {self.name} hand names positions "
                                            f"{sorted(self.positions)}, got {sorted(cards)}")
        hands: dict[str, list[Card]] = {}
        for position, texts in cards.items():
            if not isinstance(texts, list):
                raise OutcomeError("bad_cards", f"{position}: not a list of cards")
            try:
                hands[position] = [parse_card(c) for c in texts]
            except CardError as exc:
                raise OutcomeError("bad_cards", f"{position}: {exc}") from None
        return hands

    @abstractmethod
    def evaluate(self, outcome: Any) -> dict[str, dict[str, Any]]:
        """Results per position (the `results` of a hand record) of an outcome (`outcome()`:
        by default the cards of each position)."""

    @abstractmethod
    def returned(self, spot: str, amount: int, outcome: Any) -> int:
        """What settlement gives back for an accepted bet, on this outcome."""

    def limited_amount(self, spot: str, amount: int, held: Sequence[tuple[str, int]]) -> int:
        """The amount the table's `min_bet`/`max_bet` apply to: the bet itself by default; a
        game whose bets on one spot add up for the limits returns the spot's new total."""
        return amount

    #: how the console and the player API present this game: "module:Class" of a
    #: `station.games.presentation.Presentation` in the game's package (None: the base one,
    #: no panel and no road)
    presentation: str | None = None

    # ------------------------------------------------------------------ table procedure
    #: the procedure run at a table of this game: the class, or where it is as
    #: "module:Class" (imported only when a table needs it, so settlement and the rules
    #: tools load the rules alone); None: rules only, no table yet
    procedure_class: type[Procedure] | str | None = None

    @classmethod
    def table_procedure(cls) -> type[Procedure] | None:
        """The procedure class, imported on first use."""
        spec = cls.procedure_class
        if spec is None or isinstance(spec, type):
            return spec
        from station.games import GameError, load_declared
        from station.games.validate import validate_procedure

        found = load_declared(cls.name, "procedure", spec)
        if not (isinstance(found, type) and issubclass(found, Procedure)):
            raise GameError(f"game {cls.name!r}: {spec} is not a station.games.base.Procedure")
        validate_procedure(cls.name, found, cls)
        cls.procedure_class = found
        return found

    def procedure(self, table: TableKernel) -> Procedure:
        proc = self.table_procedure()
        if proc is None:
            raise ValueError(f"{self.name}: no table procedure (rules only)")
        return proc(table, self)


class Procedure(ABC):
    """A game's procedure at one table. Subclasses declare the class attributes below and
    implement the hooks; the kernel never calls a handler by a name built from a string."""

    # ---- the machine (kernel: station/core/machine.py builds it)
    #: every state in diagram order, the skeleton's included
    states: tuple[str, ...]
    #: (from, to) -> the trigger that moves the machine there when the facts say so
    follow: Mapping[tuple[str, str], str]
    #: (trigger, from states, to state) for the dealer's own moves, e.g. open_betting
    dealer_transitions: Sequence[tuple[str, Sequence[str], str]] = ()
    #: states in which a round (a hand, or a game of a pot game) is in progress
    round_phases: tuple[str, ...]
    #: skeleton states a round in progress can also stand in (a pot game dealing each
    #: deal from a fresh deck waits for it in `shuffling` and `between_rounds`): `cancel_round` voids
    #: the round from these too
    round_waits: tuple[str, ...] = ()
    #: a recorded trace rotates at each shoe (TRACES.md §4); a game that spans shoes and whose
    #: seats outlast its games (a pot game of seated players) keeps the session in one file, so every file
    #: replays on its own to the records the table made
    trace_per_shoe: bool = True
    #: states from which close_table is taken (besides paused)
    closable: tuple[str, ...]
    #: states from which the dealer's new_shoe starts a shoe (a pot game shuffles inside a game)
    new_shoe_sources: tuple[str, ...] = ("idle", "closed")
    #: states in which the shoe must give cards (its gate is unlocked)
    cards_due_states: frozenset[str] = frozenset()
    #: states in which bets are taken (the shoe's LED shows amber)
    betting_states: frozenset[str] = frozenset()

    # ---- faults
    #: fault kind -> (what it means to the supervisor, what the supervisor may do)
    fault_kinds: Mapping[str, tuple[str, str]]
    #: kinds that only cancel can clear
    cancel_only: frozenset[str] = frozenset()
    #: kinds recorded each time they happen, not conditions that persist
    event_faults: frozenset[str] = frozenset()
    #: kinds whose condition outlives the round (the link, the device, the camera): a
    #: cancel, end of shoe or close does not clear them while the condition holds
    lasting_faults: frozenset[str] = frozenset({"link_lost", "device_fault", "camera_lost"})

    # ---- time
    #: the game's timers, in the order they fire when due at the same instant
    timer_order: tuple[str, ...] = ()
    #: timers that fire *at* their time (the others once more than their time has passed)
    inclusive_timers: frozenset[str] = frozenset()

    #: the record types that end a round (a pot game's game): the station signs the journal
    #: at each entry holding one, and `station journal verify` requires a checkpoint there
    round_end_records: frozenset[str] = frozenset()
    #: the record types at which the camera keeps the frame it last saw, with the zones
    #: drawn (the cards' validation), for the console's recall and the evidence pack; the
    #: frame is named by the record's `deal_id`, else its `round_id`, else its `game_id`
    frame_records: frozenset[str] = frozenset()

    #: the settings this game's procedure reads, the table's and its own, in the order a
    #: journal or trace header records them (its own settings not named here follow them)
    settings_used: tuple[str, ...] = ()

    #: the actions the table takes besides the supervisor's decisions (TRACES.md `dealer`
    #: lines): who sends each, what its line carries, what it does. Each needs its handler
    #: in `dealer_handlers`
    actions: Mapping[str, Action] = {
        "new_shoe": Action("start a new shoe: the supervisor then confirms the shuffle"),
        "open_betting": Action("open the next round for bets"),
    }
    def __init__(self, table: TableKernel, game: Game) -> None:
        self.table = table
        self.game = game

    # ---- handler tables the kernel dispatches through
    def dealer_handlers(self) -> Mapping[str, Callable[[Any], None]]:
        """dealer action -> handler(input), `new_shoe` and `open_betting` included: the
        kernel has no dealer action of its own (it starts the shoe's link watch when the
        game's `new_shoe` calls `begin_shoe`), so an action missing here is refused."""
        return {}

    def timer_handlers(self) -> Mapping[str, Callable[[], None]]:
        """timer name -> handler()."""
        return {}

    def player_handler(self) -> Callable[[Any], None] | None:
        """Handler for `player` inputs (games where players act), or None."""
        return None

    # ---- facts -> phase
    @abstractmethod
    def phase(self) -> str:
        """Where the procedure stands by its facts, ignoring any pause (a state name)."""

    @abstractmethod
    def round_in_progress(self) -> bool: ...

    @abstractmethod
    def round_id(self) -> str | None:
        """The id faults and cancellations of the round in progress carry (None between)."""

    # ---- shoe
    def on_load(self) -> None: ...

    @abstractmethod
    def on_card(self, card: Card | None, code: str | None) -> None:
        """A card left the shoe (`None`: UNREAD)."""

    def on_cut(self) -> None: ...

    def on_empty(self) -> None: ...

    def shoe_in_play(self) -> bool:
        """A shoe is in play (cards may be due from it)."""
        return False

    def cards_due(self) -> bool:
        """In a cards-due state, whether a card is due now (the gate opens only then)."""
        return True

    def shuffle_refusal(self) -> str | None:
        """Why no shuffle can be confirmed now (None: `confirm_shuffle` takes it), the pause
        aside; reading facts only. The kernel refuses with it and the decisions offered say
        it (station/core/refusals.py)."""
        if self.table.phase != "shuffling":
            return "no new shoe is waiting for its shuffle check"
        return None

    def confirm_shuffle(self) -> str | None:
        """The supervisor confirms the shuffle (`shuffle_refusal` has let it); a refusal
        reason still, or None when taken."""
        return self.shuffle_refusal()

    def shoe_must_end(self) -> bool:
        """After a cancel: the shoe cannot go on (it is empty)."""
        return False

    # ---- camera
    def on_camera(self, changed: bool) -> None:
        """A camera observation was applied to the kernel's zones (`changed`: a zone moved).
        The observation itself — the zones it named, `{}` for "seen, nothing changed" — is
        `table.observation` (e.g. a DICE tray reported again after the close counts)."""

    def camera_watched(self) -> bool:
        """`camera_lost` applies now (a round is open and not yet settled or cancelled)."""
        return self.round_in_progress()

    # ---- decisions
    @abstractmethod
    def condition_holds(self, fault: ActiveFault) -> str | None:
        """Why this fault's condition still holds (None: it has cleared)."""

    def is_cancel_only(self, kind: str, in_round: bool) -> bool:
        """Only cancel clears this fault (a reboot inside a round, say)."""
        if kind == "shoe_rebooted":
            return in_round
        return kind in self.cancel_only

    def on_pause(self) -> None:
        """The table has just paused (a fault): stop the game's own clocks if it has any
        that a pause stops (a pot game's players' decision clocks)."""

    def resuming(self, faults: list[ActiveFault]) -> None:
        """The supervisor resumes these faults (all conditions clear), before they go."""

    def on_resume(self) -> None:
        """The supervisor resumed: restart the game's fault clocks."""

    @abstractmethod
    def cancel_round(self, user: str | None, reason: str) -> None:
        """Void the round in progress: refund every bet of it and record it."""

    def cancel_outside_round(self, user: str | None) -> bool:
        """`cancel_round` while paused with no round in progress, all conditions clear.
        Return True when the shoe must end (a cancel-only fault outside a round)."""
        return any(f.cancel_only for f in self.table.faults)

    def end_shoe(self) -> None:
        """The shoe ends (supervisor's end_shoe, close_table, or the procedure itself)."""

    def last_round(self) -> bool:
        """The current round (in progress or just ended) is the shoe's last."""
        return False

    def after_input(self) -> None:
        """Called after every input and timer, once the machine follows the facts:
        validation and anything else that waits for the table to be unpaused."""

    # ---- money
    def bet_window(self) -> str | None:
        """The kernel's reasons before the game's checks: `no_round`, `betting_closed`
        (`paused` is the kernel's own). None when bets are taken now."""
        return "no_round"

    def bets_held(self, account: str) -> list[tuple[str, int]]:
        """What `account` already holds this round, as (spot, amount), for the bet check."""
        return []

    def place_bet(self, account: str, spot: str, amount: int, deducted: int) -> dict[str, Any]:
        """Record an accepted bet (the kernel has debited the wallet)."""
        raise NotImplementedError

    #: outbox message kinds (each with `account` and `amount`) by which the game itself takes
    #: money from a player's wallet, outside the bet intake (a pot game's `pot_in`). A studio
    #: table whose wallets other tables share reserves each in the studio ledger before the
    #: game takes it (docs/studio.md, "Pot games in the studio"): the game asks
    #: `purse.can_pay(account, amount)` before it takes, never its mirror of the balance
    wallet_draws: frozenset[str] = frozenset()

    def may_draw(self, kind: str, value: Any) -> bool:
        """Whether this input (`player` or `dealer`, with its value) may make any of
        `wallet_draws`: the studio station then tries it first on a copy of the table and
        reserves what that copy took."""
        return False

    # ---- views
    def view(self) -> dict[str, Any]:
        """The game's part of the public view: nothing a viewer may not see."""
        return {}

    # ---- the decisions a screen offers
    #: what a round is called at this table, in sentences for the floor ("game" for a pot)
    round_word: str = "round"

    def decisions(self) -> list[dict[str, Any]]:
        """The dealer's and the supervisor's decisions now, in button order, each
        `{"action", "allowed", "effect", "reason", "may_clear"}` (`reason`: why not, None
        when allowed; `may_clear`: refused only while a fault's condition holds). `allowed`
        is exactly whether the table would take the action now; reading facts only, this
        changes nothing (the public view carries it as `decisions`).

        This default knows the kernel's supervisor decisions and judges the dealer's
        `new_shoe` and `open_betting` by the machine's states alone; a game says it in its
        own words and with its own checks (station/games/decisions.py has the shared part)."""
        t = self.table
        paused = t.state == "paused"
        opens = {s for trig, sources, _ in self.dealer_transitions if trig == "open_betting"
                 for s in sources}
        out = supervisor_decisions(
            self, shoe_label=None,
            cancel_effect=f"void {self.round_word} {self.round_id()} and refund every bet of it")
        out.append(decision("new_shoe", "paused: the supervisor must decide first" if paused
                            else None if t.phase in self.new_shoe_sources
                            else "a shoe is still in play (End shoe first)", "start a new shoe"))
        out.append(decision("open_betting", "paused: the supervisor must decide first" if paused
                            else None if t.phase in opens else f"no {self.round_word} can open now",
                            f"open the next {self.round_word} for bets"))
        return ordered(out)
