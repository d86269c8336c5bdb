"""A scripted dealer (and a patient floor supervisor) for the simulated studio table.

The dealer does what a dealer's hands do: presses new_shoe, loads the shoe, draws the first
card and shows it in the BURN zone, burns, presses open_betting and deals the round. At a game
whose deal plan is fixed at round open (`Game.deal_plan`) this dealer deals it as is: every
card of the plan from the shoe, face down into the zone the plan names (a burn card into none),
waits for betting to close, turns the positions in reveal order, waits for the hand to be
validated and clears the table. A game dealt another way (a plan the dice name, cards face up,
no first card) has its own dealer on this one, among its tools
(station/games/<game>/tools/, the game's `scripted_dealer`). The cards come from a
`ShoeSimulator` (which sends them to the station over a real serial port) and land in a
`TableScene` (which the synthetic camera renders for the real recogniser). Dealer and
supervisor actions go into the station through the same journaled input path as the console.

Mistakes are data (`DealerMistakes`): a card put in the wrong zone, a card turned too early,
a misprinted face; a dealer names those it makes (`mistakes_made`). The supervisor confirms
shuffles and, when the table pauses, waits `decide_after` seconds for a person at the console
before deciding itself: resume when the fault allows it (after correcting the table), cancel
otherwise. Every decision it takes is handed to `on_decision` (the demo writes them to the
console's audit log, like a person's).

A round that ends under the dealer's hands — cancelled by the supervisor (this one or a person
at the console) — is over: the dealer stops dealing it, clears the table and opens the next
one. `max_rounds` counts rounds settled; a cancelled round is dealt again.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from station.games import get_game
from station.games.base import BURN, Game
from station.sim.demo_clock import VirtualClock, WallClock

log = logging.getLogger("station.sim.dealer")

#: how long the scripted dealer waits, in the table's seconds whatever its pace, for the table to get
#: somewhere (the shoe ready, a first card): a busy machine's station is slow, not wrong
TABLE_WAIT_S = 120.0
#: how long it keeps asking a locked gate for a card before it calls the shoe broken
GATE_WAIT_S = 120.0


@dataclass
class DealerMistakes:
    """Probabilities per round of each kind of dealer mistake."""

    misplace: float = 0.0  # one card into the wrong zone (order fault, then corrected)
    early_turn: float = 0.0  # a card turned face up while betting is open (premature_reveal)
    misprint: float = 0.0  # a card whose face is not what the shoe read (card_mismatch)
    mistype_dice: float = 0.0  # at a dice table: one die typed wrong (dice_mismatch, typed again)


#: the dealer's mistakes `station demo --faults` can ask for (each a `DealerMistakes` field)
MISTAKES = ("misplace", "early_turn", "misprint", "mistype_dice")
#: the card after which a dealer who turns a card too early turns the first position's
EARLY_TURN_AFTER = 5


class ScriptedDealer:
    #: the mistakes this dealer makes when asked (`station demo --faults`)
    mistakes_made: tuple[str, ...] = ("misplace", "early_turn", "misprint")

    def __init__(
        self,
        station: Any,
        shoe: Any,
        scene: Any | None,
        *,
        speed: float = 1.0,
        deal_gap: float = 0.7,
        decide_after: float = 8.0,
        mistakes: DealerMistakes | None = None,
        seed: int = 7,
        max_rounds: int | None = None,
        max_shoes: int | None = None,
        on_round: Callable[[int], None] | None = None,
        on_decision: Callable[[str, str, str, list[dict[str, Any]], str | None], None] | None = None,
        clock: WallClock | VirtualClock | None = None,
        game: Game | None = None,
    ) -> None:
        self.station = station
        #: the game dealt (None: the station's own)
        self._game = game
        #: the table's time line: the dealer's pace and its deadlines (station/sim/demo_clock.py)
        self.clock = clock or WallClock()
        self.shoe = shoe
        self.scene = scene
        self.speed = speed
        self.deal_gap = deal_gap
        self.decide_after = decide_after
        self.mistakes = mistakes or DealerMistakes()
        self.seed = seed
        self.rng = random.Random(seed)
        self.max_rounds = max_rounds
        self.max_shoes = max_shoes
        self.on_round = on_round
        #: (kind, action, user, records, round_id) of each action the scripted people take
        self.on_decision = on_decision
        self.rounds_dealt = 0
        self.rounds_settled = 0
        self.rounds_cancelled = 0
        self._round_id: str | None = None
        #: the faults seen this round, by kind: the same trouble twice is cancelled. Each
        #: dealer its own (a class-level dict was shared by every table of a studio)
        self._faults_this_round: dict[str, int] = {}
        self.shoes_started = 0
        self.decisions: list[tuple[str, str]] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.done = threading.Event()
        self.error: BaseException | None = None

    @property
    def game(self) -> Game:
        if self._game is None:
            self._game = get_game(self.station.settings.game)
        return self._game

    # ---- plumbing
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="scripted-dealer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(10)

    def _sleep(self, seconds: float) -> None:
        if self.clock.sleep(seconds / self.speed, self._stop):
            raise _Stopped

    def _wait_view(self, version: int) -> dict[str, Any]:
        """The table's view once newer than `version` (or a moment later): the dealer waits on
        the table, so the clock goes on meanwhile."""
        with self.clock.waiting():
            return self.station.wait_view(version, 0.2)

    def _round_rng(self) -> random.Random:
        """The chances of the round being dealt, from the seed and the round's number alone:
        a round cancelled for a timing fault (a slow machine's camera, a late shoe frame) does
        not shift the mistakes of every round after it, so a seed means the same table."""
        return random.Random(f"{self.seed}:{self.rounds_dealt}")

    def round_mistakes(self, rng: random.Random) -> tuple[int | None, bool, int | None]:
        """This round's mistakes: the card (by deal index) put into the wrong zone (neither
        the first two cards of the plan nor its last), whether a card is turned during
        betting, the card whose face is not what the shoe read (any but the first)."""
        cards = len(self.game.deal_plan)
        misplace_at = rng.randrange(2, cards - 1) if rng.random() < self.mistakes.misplace else None
        early_turn = rng.random() < self.mistakes.early_turn
        misprint_at = rng.randrange(1, cards) if rng.random() < self.mistakes.misprint else None
        return misplace_at, early_turn, misprint_at

    def _view(self) -> dict[str, Any]:
        return self.station.view

    def _act(self, kind: str, action: str, user: str | None = None,
             extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        r = self._view().get("round") or {}
        round_id = r.get("round_id") if r and not r.get("finished") else None
        records = (self.station.submit(kind, action, user, extra=extra) if extra
                   else self.station.submit(kind, action, user))
        if self.on_decision is not None:
            who = user or "scripted-dealer"
            try:
                self.on_decision(kind, action, who, records, round_id)
            except Exception:  # noqa: BLE001 - an audit hiccup must not stop the table
                log.exception("could not record the decision %s by %s", action, who)
        return records

    def _round_over(self, v: dict[str, Any]) -> bool:
        """The round this dealer is dealing has ended (settled or cancelled)."""
        if self._round_id is None:
            return False
        r = v.get("round")
        return not r or r.get("round_id") != self._round_id or bool(r.get("finished"))

    def _wait_for(self, cond: Callable[[dict[str, Any]], bool], what: str, timeout: float = 600) -> dict[str, Any]:
        deadline = self.clock.now() + timeout
        version = -1
        while True:
            if self._stop.is_set():
                raise _Stopped
            v = self._wait_view(version)
            version = v.get("version", version)
            if v.get("paused"):
                self._supervise(v)
                continue
            if cond(v):
                return v
            if self._round_over(v):
                raise _RoundOver
            if self.clock.now() > deadline:
                raise TimeoutError(f"the scripted dealer waited too long for {what}")

    # ---- the floor supervisor
    def _supervise(self, v: dict[str, Any]) -> None:
        """The table is paused: give a person `decide_after` seconds, then decide."""
        since = self.clock.now()
        version = v.get("version", 0)
        while self.clock.now() - since < self.decide_after / self.speed:
            v = self._wait_view(version)
            version = v.get("version", version)
            if not v.get("paused") or self._stop.is_set():
                return
        faults = v.get("faults", [])
        kinds = [f["kind"] for f in faults]
        self._correct_table(v)
        rnd = v.get("round") or {}
        in_round = bool(rnd) and not rnd.get("finished")
        seen_before = any(self._faults_this_round.get(k, 0) for k in kinds)
        for k in kinds:
            self._faults_this_round[k] = self._faults_this_round.get(k, 0) + 1
        if in_round and (seen_before or "card_mismatch" in kinds
                         or any(f.get("cancel_only") for f in faults)):
            # the same trouble twice, or camera and shoe disagreeing on a card: not worth
            # the players' time; every bet of the round is refunded
            decision = "cancel_round"
        else:
            decision = "resume"
        recs = self._act("supervisor", decision, "auto-supervisor")
        refused = [r for r in recs if r["type"] == "action_refused"]
        if refused and decision == "resume":
            if v.get("round") and not v["round"].get("finished"):
                decision = "cancel_round"
            else:
                decision = "end_shoe"
            recs = self._act("supervisor", decision, "auto-supervisor")
        self.decisions.append((",".join(kinds), decision))
        if decision == "cancel_round" and self.scene is not None:
            self._sleep(1.0)
            self.scene.clear_all()

    def _correct_table(self, v: dict[str, Any]) -> None:
        """Before resuming, the dealer puts right what the camera complained about: the card
        dealt into the wrong zone goes where the deal order wanted it. Only when the camera
        complained: a pause for something else (a camera that went quiet on a busy machine)
        leaves it where it lies, for the station to find."""
        if self.scene is None or self._misplaced is None:
            return
        if "order" not in {f["kind"] for f in v.get("faults", [])}:
            return
        wrong, right, card = self._misplaced
        self._misplaced = None
        if card not in self._on_table.get(wrong, []):
            return  # the table was cleared since (a round cancelled): nothing to move
        keep = list(self._on_table[wrong])
        keep.remove(card)
        self.scene.clear(wrong)
        for c in keep:
            self.scene.deal(wrong, c, face_up=wrong in self._revealed)
        self._on_table[wrong] = keep
        self.scene.deal(right, card, face_up=right in self._revealed)
        self._on_table[right].append(card)
        self._sleep(2.0)  # the camera settles on the corrected zones

    _misplaced: tuple[str, str, str] | None = None  # (wrong zone, right zone, card)

    # ---- the dealer
    def _run(self) -> None:
        self.clock.join()
        try:
            while not self._stop.is_set():
                if self.max_rounds is not None and self.rounds_settled >= self.max_rounds:
                    break
                v = self._view()
                phase = v.get("phase")
                if v.get("paused"):
                    self._supervise(v)
                elif phase in ("idle", "closed"):
                    if self.max_shoes is not None and self.shoes_started >= self.max_shoes:
                        break
                    self._new_shoe()
                elif not self.shoe.loaded:
                    # the table has a shoe in play (its journal says so after a restart) but
                    # the shoe holds no cards: it came back from a reboot empty, so nothing of
                    # that shoe can be dealt. The round under way is refunded, the shoe ended,
                    # and a new one is shuffled and loaded
                    self._end_lost_shoe(v)
                elif phase == "between_rounds":
                    self._round()
                else:
                    self._wait_for(lambda v: v.get("phase") in ("between_rounds", "idle"),
                                   "the table to be between rounds", timeout=120)
        except _Stopped:
            pass
        except BaseException as e:  # noqa: BLE001 - reported by whoever runs the demo
            self.error = e
            log.exception("scripted dealer stopped")
        finally:
            self.clock.leave()
            self.done.set()

    def _end_lost_shoe(self, v: dict[str, Any]) -> None:
        r = v.get("round")
        decision = "cancel_round" if r and not r.get("finished") else "end_shoe"
        recs = self._act("supervisor", decision, "auto-supervisor")
        self.decisions.append(("shoe_not_loaded", decision))
        refused = [r for r in recs if r["type"] == "action_refused"]
        if refused:
            raise RuntimeError(f"the table would not {decision} a shoe that holds no cards: "
                               f"{refused[0].get('reason')}")
        self._sleep(1.0)

    def _draw(self) -> str:
        refused: Exception | None = None
        # a person waits for the gate as long as the table is not paused for it; the deadline
        # is in the table's seconds, not in dealer pace, so a slow machine's late STATUS is no
        # error
        deadline = self.clock.now() + GATE_WAIT_S
        while self.clock.now() < deadline:
            try:
                return self.shoe.draw()
            except Exception as e:  # the gate is locked (paused) or jammed: wait, try again
                log.debug("draw refused: %s", e)
                refused = e
                self._sleep(0.25)
                v = self._view()
                if v.get("paused"):
                    self._supervise(v)
                    v = self._view()
                if self._round_over(v):
                    # cancelled under our hands: the gate stays locked
                    raise _RoundOver from refused
        raise TimeoutError("the shoe would not give a card")

    def _shuffle(self) -> None:
        """A new shoe: the table cleared, new_shoe, the supervisor's shuffle check, the
        shoe loaded."""
        self.shoes_started += 1
        if self.scene is not None:
            self.scene.clear_all()
        self._act("dealer", "new_shoe")
        self._sleep(1.0)
        self._act("supervisor", "confirm_shuffle", "auto-supervisor")
        self.shoe.load()
        self._sleep(1.0)

    def _new_shoe(self) -> None:
        self._shuffle()
        self._wait_for(lambda v: v.get("phase") == "ready", "the shoe to be ready", TABLE_WAIT_S)
        first = self._draw()
        while first == "CUT":
            first = self._draw()
        if self.scene is not None and first != "??":
            self.scene.deal(BURN, first, face_up=True)
        self._sleep(2.0)
        v = self._wait_for(lambda v: v.get("shoe") and v["shoe"].get("first_card"),
                           "the first card", TABLE_WAIT_S)
        for _ in range(v["shoe"]["burn_count"]):
            c = self._draw()
            if c == "CUT":
                self._draw()
            self._sleep(self.deal_gap * 0.6)
        if self.scene is not None:
            self.scene.clear(BURN)
        self._sleep(1.5)

    def _round(self) -> None:
        cam = self._view().get("camera") or {}
        if cam.get("fitted") and cam.get("last_seen") is None:
            # a dealer does not open a round while the camera shows nothing yet (its first
            # picture can take seconds on a busy machine; the round would stop at camera_lost)
            self._wait_for(lambda v: (v.get("camera") or {}).get("last_seen") is not None,
                           "the camera's first picture", TABLE_WAIT_S)
        recs = self._act("dealer", "open_betting")
        if any(r["type"] == "action_refused" for r in recs):
            self._sleep(1.0)
            return
        opened = next((r for r in recs if r["type"] == "round_open"), None)
        self._round_id = opened["round_id"] if opened else None
        self.rounds_dealt += 1
        try:
            self._deal_round()
        except _RoundOver:
            pass
        finally:
            round_id, self._round_id = self._round_id, None
        v = self._view()
        settled = any(h.get("round_id") == round_id and "cancelled" not in h
                      for h in v.get("history") or [])
        if settled:
            self.rounds_settled += 1
        else:
            # cancelled (by the auto-supervisor or a person): the table is cleared, its bets
            # were refunded, and the next round is dealt in its place
            self.rounds_cancelled += 1
            self._sleep(1.0)
            if self.scene is not None:
                self.scene.clear_all()
                self.scene.hand_over(None)
            self._sleep(1.5)
            return
        if self.on_round:
            self.on_round(self.rounds_settled)

    def _deal_round(self) -> None:
        """The round by the game's fixed deal plan, face down; turned in reveal order."""
        plan, positions = self.game.deal_plan, self.game.positions
        self._on_table: dict[str, list[str]] = {p: [] for p in positions}
        self._revealed: set[str] = set()
        self._faults_this_round: dict[str, int] = {}
        self.rng = self._round_rng()
        self._misplaced = None  # a card misplaced in a cancelled round left with its table
        misplace_at, early_turn, misprint_at = self.round_mistakes(self.rng)
        self._sleep(1.0)
        k = 0
        while k < len(plan):
            card = self._draw()
            if card == "CUT":
                if self.scene is not None:
                    self.scene.cut_card(True)
                    self._sleep(0.8)
                    self.scene.cut_card(False)
                continue
            pos = plan[k]
            if pos != BURN and self.scene is not None:
                zone = pos
                if card == "??":
                    card = self.rng.choice(["7H", "2S"])  # the card is real; only the reader failed
                if k == misplace_at:
                    zone = positions[(positions.index(pos) + 1) % len(positions)]
                    self._misplaced = (zone, pos, card)
                self._on_table[zone].append(card)
                if k == misprint_at:
                    # a card whose face is not what the shoe read (a mis-read, or a card from
                    # another deck): the camera will disagree with the shoe at the reveal
                    self.scene.deal(zone, "KS" if card != "KS" else "QS")
                else:
                    self.scene.deal(zone, card)
                self.scene.hand_over(zone)
            k += 1
            self._sleep(self.deal_gap)
            if self.scene is not None:
                self.scene.hand_over(None)
            if early_turn and k == EARLY_TURN_AFTER and self.scene is not None:
                self.scene.reveal(positions[0])
                early_turn = False
        self._wait_for(lambda v: v.get("round") and not v["round"]["betting_open"],
                       "betting to close", 120)
        if self.scene is not None:
            for p in positions:
                v = self._view()
                if v.get("paused"):
                    self._supervise(v)
                self.scene.reveal(p)
                self._revealed.add(p)
                self._sleep(1.0)
        self._close_round()

    def _close_round(self) -> None:
        """Wait for the hand to be validated and settled, then clear the table for the next
        round."""
        self._wait_for(lambda v: not v.get("round") or v["round"]["finished"],
                       "the hand to be validated", 120)
        self._sleep(2.0)
        if self.scene is not None:
            self.scene.clear_all()
        self._sleep(1.5)


class _RoundOver(Exception):
    """The round being dealt was cancelled: stop dealing it."""


class _Stopped(Exception):
    pass
