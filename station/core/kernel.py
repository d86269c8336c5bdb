"""The table kernel: one table's inputs, clock, shoe link, faults, decisions and money, with a
game's procedure plugged in (station/games/base.py is the contract, docs/core.md the guide).

One owner feeds it timestamped inputs (`apply`) in time order; before each input every timer
due by then fires at its own time, so live running and replay produce the same records. The
kernel never reads a clock, a device or a database: it is handed everything, and hands back
output records (TRACES.md §3), outbox messages for settlement and commands for the shoe.

The machine (station/core/machine.py) has the skeleton's states and the game's; `paused`
overlays them while a fault waits for the floor supervisor. Each input updates the facts and
then the machine follows them through the trigger the game names for that move.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from firmware_bridge.shoe.events import (
    CardRead,
    Clear,
    Cut,
    Empty,
    Fault,
    Hello,
    Load,
    Reply,
    ShoeEvent,
    Unread,
)
from station.cards import parse_card
from station.core import refusals
from station.core.bets import Bet, Purse
from station.core.faults import KERNEL_FAULT_KINDS, STATION_ERROR, ActiveFault, fault_words
from station.core.inputs import US, Input, to_s
from station.core.machine import build_machine
from station.core.settings import TableSettings
from station.core.shoe_link import ShoeLink
from station.core.skeleton import KERNEL_TIMERS
from station.core.timers import Timers
from station.games import get_game
from station.games.base import BetError

log = logging.getLogger("station.kernel")

#: a studio table's answer for a bet its station took on the table's credit while the studio
#: ledger did not answer (docs/studio.md, "The bus down with reservations on")
ON_CREDIT = "credit"



class TableKernel:
    """One table. Feed `apply(Input)` in time order; read `take_outputs()`."""

    HISTORY_KEPT = 200  # recent rounds kept in memory for the views; the journal has them all

    def __init__(self, settings: TableSettings | None = None, *,
                 journal_id: str | None = "replay") -> None:
        settings = settings or TableSettings()
        self.game = get_game(settings.game)
        if settings.game_settings is None:  # the game's defaults, made once
            settings = replace(settings, game_settings=self.game.settings_class())
        self.settings = settings
        self.table = self.settings.table
        #: outbox keys and round ids start with this: unique per table and per journal
        #: (none for a journal from before journals had ids: its outbox's scheme goes on)
        self.key_prefix = "" if journal_id is None else f"{self.table}/{journal_id}/"
        self.now_us = 0
        self._records: list[dict[str, Any]] = []
        self._messages: list[dict[str, Any]] = []
        self._commands: list[tuple[str, ...]] = []
        self.link = ShoeLink()
        self.purse = Purse()
        self.shoe_count = 0
        self.table_closed = False
        self.faults: list[ActiveFault] = []
        self.fault_counts: Counter[str] = Counter()
        self.last_camera_us: int | None = None
        #: the latest camera observation as it came: the zones it named
        self.observation: dict[str, list[Any]] = {}
        self.rounds_settled = 0
        self.history: list[dict[str, Any]] = []  # settled / cancelled rounds, newest last
        self.proc = self.game.procedure(self)
        #: every kind a fault may have here, with its words: the game's and the kernel's own,
        #: with this table's settings in them
        self.fault_kinds: dict[str, tuple[str, str]] = fault_words(
            {**KERNEL_FAULT_KINDS, **self.proc.fault_kinds}, self.settings)
        missing = [t for t in KERNEL_TIMERS if t not in self.proc.timer_order]
        if missing:
            raise ValueError(f"{self.game.name}: timer_order must place {missing}")
        self.timers = Timers(self.proc.timer_order, self.proc.inclusive_timers)
        self.zones: dict[str, list[Any]] = {z: [] for z in self.game.zones}
        self._timer_handlers: dict[str, Callable[[], None]] = {
            "link": self._timer_link, "camera": self._timer_camera,
            **self.proc.timer_handlers()}
        self._dealer_handlers: dict[str, Callable[[Input], None]] = dict(self.proc.dealer_handlers())
        self._supervisor_handlers: dict[str, Callable[[str | None], None]] = {
            "confirm_shuffle": self._supervisor_confirm_shuffle,
            "resume": self._supervisor_resume,
            "cancel_round": self._supervisor_cancel_round,
            "end_shoe": self._supervisor_end_shoe,
            "close_table": self._supervisor_close_table,
        }
        self._input_handlers: dict[str, Callable[[Input], None]] = {
            "tick": self._on_tick,
            "to_shoe": self._on_to_shoe,
            "shoe": self._on_shoe,
            "camera": self._on_camera,
            "dealer": self._on_dealer,
            "supervisor": self._on_supervisor,
            "wallet": self._on_wallet,
            "bet": self._on_bet,
            "reservation_answer": self._on_reservation_answer,
            # the station's account of a time its journal could not be written: evidence,
            # nothing for the table to do (the clock has moved, as for a tick)
            "station_fault": self._on_tick,
        }
        player = self.proc.player_handler()
        if player is not None:
            self._input_handlers["player"] = player
        self.machine = build_machine(self, self.proc)

    # ------------------------------------------------------------------ reading the table
    @property
    def phase(self) -> str:
        """Where the procedure stands, ignoring any pause."""
        if self.table_closed:
            return "closed"
        return self.proc.phase()

    @property
    def paused(self) -> bool:
        return self.state == "paused"

    @property
    def balances(self) -> dict[str, int]:
        return self.purse.balances

    @property
    def last_bet_decision(self) -> dict[str, Any] | None:
        return self.purse.last_decision

    @property
    def camera_fitted(self) -> bool:
        return self.settings.camera

    def us(self, seconds: float) -> int:
        return round(seconds * US)

    def is_last_round(self, *args: Any, **kwargs: Any) -> bool:
        return self.proc.last_round()

    # ------------------------------------------------------------------ outputs
    def take_outputs(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[str, ...]]]:
        """Records, outbox messages and shoe commands produced since the last call."""
        out = (self._records, self._messages, self._commands)
        self._records, self._messages, self._commands = [], [], []
        return out

    def emit(self, type_: str, **fields: Any) -> dict[str, Any]:
        rec = {"t": to_s(self.now_us), "type": type_, **fields}
        self._records.append(rec)
        return rec

    def message(self, key: str, kind: str, **fields: Any) -> None:
        """An outbox message for settlement. Its `key` and its `round_id` are made unique
        per table and journal (`PD-01/<journal id>/PD-01-S1-R2`): round numbers restart
        with a new journal, and a studio's tables share one ledger. `table_round` keeps the
        round id the records and the floor know. A journal from before journal ids keeps its
        outbox's old scheme whole: no prefix and no `table`, so settlement books its new
        messages with the rows its outbox already holds (the ledger's default table)."""
        if "round_id" in fields and self.key_prefix:
            fields["table_round"] = fields["round_id"]
            fields["round_id"] = self.key_prefix + fields["round_id"]
        where = {"table": self.table} if self.key_prefix else {}
        full_key = self.key_prefix + key
        if kind == "bet" and self.__dict__.get("_bet_credit"):
            # the ledger books what the wallet cannot cover of it as credit the table gave
            fields["credit"] = True
        if kind in self.proc.wallet_draws and self.purse.answers is not None:
            # a draw on a shared wallet: made under the key the studio ledger reserved it with
            answer = self.purse.take_answer(fields.get("account", ""), fields.get("amount", 0))
            if answer is None:
                raise RuntimeError(f"{kind} {key}: the game took money the studio ledger did "
                                   f"not reserve ({fields.get('account')}, {fields.get('amount')})")
            full_key = answer["key"]
        self._messages.append({"key": full_key, "kind": kind,
                               "t": to_s(self.now_us), **where, **fields})

    def command(self, *cmd: str) -> None:
        self._commands.append(cmd)

    def remember(self, entry: dict[str, Any]) -> None:
        self.history.append(entry)
        if len(self.history) > self.HISTORY_KEPT:
            del self.history[: len(self.history) - self.HISTORY_KEPT]

    def refuse(self, action: str, user: str | None, reason: str) -> None:
        rec: dict[str, Any] = {"action": action}
        if user is not None:
            rec["user"] = user
        rec["reason"] = reason
        self.emit("action_refused", **rec)

    # ------------------------------------------------------------------ clock
    def arm(self, name: str, due_us: int) -> None:
        self.timers.arm(name, due_us)

    def disarm(self, *names: str) -> None:
        self.timers.disarm(*names)

    def advance_to(self, t_us: int) -> None:
        """Fire every timer due before `t_us` (at `t_us` too for inclusive ones) in order."""
        while True:
            nxt = self.timers.next_due(t_us)
            if nxt is None:
                break
            due_us, name = nxt
            self.timers.disarm(name)
            self.now_us = max(self.now_us, due_us)
            self._timer_handlers[name]()
            self._after()
        self.now_us = max(self.now_us, t_us)

    def finish(self, t_us: int) -> None:
        """The trace ends at `t_us`: let time run there, then write the final balances."""
        self.advance_to(t_us)
        self.emit("balances", accounts=dict(sorted(self.purse.balances.items())))

    # ------------------------------------------------------------------ inputs
    def apply(self, inp: Input) -> None:
        if inp.kind == "end":
            self.finish(inp.t_us)
            return
        self.advance_to(inp.t_us)
        self.now_us = inp.t_us
        handler = self._input_handlers.get(inp.kind)
        if handler is None:
            raise ValueError(f"a {self.game.name} table takes no {inp.kind!r} input")
        if inp.kind in ("reservation_answer", "bet"):
            handler(inp)
            self._after()
            return
        # the ledger's answers journaled just before this input decide what it may take from
        # the wallets (docs/studio.md, "Pot games in the studio"); without any, the mirror
        answers = self.__dict__.pop("_answers", None)
        if answers is not None:
            self.purse.answers = list(answers)
        try:
            handler(inp)
            self._after()
        finally:
            if answers is not None:
                self.purse.answers = None

    def _on_tick(self, inp: Input) -> None:
        """The clock alone: timers due by now have already fired."""

    def _on_to_shoe(self, inp: Input) -> None:
        """Bytes the recording station sent to the shoe: informational only."""

    def _after(self) -> None:
        self.follow()
        self.proc.after_input()
        self.follow()
        self._drive_shoe()

    def follow(self) -> None:
        """Move the machine to where the facts put the table (never out of a pause), through
        every phase between: the shortest way along the game's `follow` rules. Where no rule
        leads there, the table pauses on `station_error` for the floor supervisor (resume
        then goes straight to where the facts stand); the station never stops on it. (An
        exception inside a handler still stops the station: its state may be half applied,
        and money moved twice is worse than a stopped table.)"""
        for _ in range(len(self.proc.states) + 1):
            if self.state in ("paused", "closed"):
                return
            ph = self.phase
            if ph == self.state:
                return
            path = self._follow_path(self.state, ph)
            if path is None:
                self.station_error(f"no rule of the procedure takes the table from "
                                   f"{self.state} to {ph}")
                return
            # one move at a time: a trigger may land elsewhere than its rule of the path
            # says (rules from one state can share it), so the way is found again after each
            self.trigger(path[0])
        self.station_error(f"the table did not settle in a phase (last {self.state}, "
                           f"the facts say {self.phase})")

    def _follow_path(self, src: str, dst: str) -> list[str] | None:
        """The triggers of the shortest chain of `follow` rules from `src` to `dst`."""
        # the skeleton's own: a table the supervisor closed while it was paused is closed
        # as soon as the pause has ended elsewhere (a cancel that ended the shoe, say)
        rules = {**{(s, "closed"): "close_table" for s in self.proc.closable},
                 **self.proc.follow}
        direct = rules.get((src, dst))
        if direct is not None:
            return [direct]
        frontier, seen = [(src, [])], {src}
        while frontier:
            nxt: list[tuple[str, list[str]]] = []
            for here, trigs in frontier:
                for (a, b), trig in rules.items():
                    if a != here or b in seen:
                        continue
                    if b == dst:
                        return [*trigs, trig]
                    seen.add(b)
                    nxt.append((b, [*trigs, trig]))
            frontier = nxt
        return None

    def station_error(self, detail: str) -> None:
        """Something the kernel cannot follow (a defect of the station, never of the
        table): paused for the supervisor, recorded like every fault."""
        log.error("table %s: %s", self.table, detail)
        self.raise_fault(STATION_ERROR, detail)

    def _drive_shoe(self) -> None:
        st = self.state
        due = st in self.proc.cards_due_states and self.proc.cards_due()
        for cmd in self.link.drive(due, st == "paused", st in self.proc.betting_states):
            self._commands.append(cmd)

    # ---- shoe
    def _on_shoe(self, inp: Input) -> None:
        link = self.link
        # the sequencer's RESEND rate limit counts in seconds
        res = link.stream.feed(inp.value, to_s(self.now_us))
        if res.valid_frames:
            link.last_valid_us = self.now_us
            link.up = True
            self.arm("link", self.now_us + self.us(self.settings.link_lost_seconds))
        for n in res.resend_from:
            self._commands.append(("RESEND", str(n)))
        if res.hello_repeats:
            # a HELLO of the same boot again: the shoe may have missed what was said since,
            # so the gate and the LED go first, as after a new boot
            self.link.forget()
            self._drive_shoe()
        for ev in res.events:
            self._on_shoe_event(ev)
            # a serial read may hold any number of frames (a buffered adapter, a gateless
            # shoe's burst): each frame moves the table as if it had come in a read of its
            # own, so the machine passes every phase the frames take it through, in order
            self._after()
        if (res.events or res.reack) and not link.stream.sequencer.undecided:
            lp = link.stream.last_processed
            if lp is not None:
                self._commands.append(("ACK", str(lp)))

    def _on_shoe_event(self, ev: ShoeEvent) -> None:
        if isinstance(ev, Hello):
            self._on_hello(ev)
        elif isinstance(ev, Load):
            if self.proc.shoe_in_play():
                self.proc.on_load()
            else:
                self.link.pending_load = True
        elif isinstance(ev, CardRead):
            self.proc.on_card(parse_card(ev.card), ev.code)
        elif isinstance(ev, Unread):
            self.proc.on_card(None, None)
        elif isinstance(ev, Cut):
            self.proc.on_cut()
        elif isinstance(ev, Empty):
            self.proc.on_empty()
        elif isinstance(ev, Fault):
            self.link.device_faults.add(ev.code)
            self.raise_fault("device_fault", f"shoe reports {ev.code}")
        elif isinstance(ev, Clear):
            self.link.device_faults.discard(ev.code)
        elif isinstance(ev, Reply):
            if ev.kind == "STATUS":
                self.link.reported(ev.gate, ev.led, ev.cards_out)
            # the shoe answered a station command: the port stops resending it
            self._commands.append(("REPLY", str(ev.station_seq), ev.kind))
        # HB only proves the link is alive

    def _on_hello(self, ev: Hello) -> None:
        # every HELLO, a retransmission too: the gate and the LED are said again, as the
        # first words to this shoe (a replaced shoe boots with its gate open, and the link
        # would otherwise say LOCK only when its own idea of the gate changes)
        self.link.forget()
        previous, self.link.boot_id = self.link.boot_id, ev.boot_id
        # (`rebooted` also when no HELLO was seen before: the station joined the shoe's
        # earlier boot mid-stream, or restarted on a journal of it, and processed its frames)
        booted_again = ev.rebooted or (previous is not None and previous != ev.boot_id)
        if booted_again and self.phase not in ("idle", "closed"):
            self.raise_fault("shoe_rebooted", f"shoe {ev.serial} booted again (boot id {ev.boot_id})")

    def take_pending_load(self) -> bool:
        """A LOAD that came before the shoe was started counts for it."""
        was, self.link.pending_load = self.link.pending_load, False
        return was

    def begin_shoe(self) -> int:
        """The dealer's new_shoe was taken: number the shoe and start its link watch."""
        self.table_closed = False
        self.shoe_count += 1
        self.purse.refs.clear()
        if self.link.up and "link" not in self.timers:
            # the link timer runs from new_shoe even when the shoe has never sent a frame
            self.arm("link", self.now_us + self.us(self.settings.link_lost_seconds))
        return self.shoe_count

    def after_new_shoe(self) -> None:
        if not self.link.up:
            # the link went quiet while the table was idle: a new shoe cannot start blind
            self.raise_fault("link_lost", "no valid frame from the shoe since "
                       f"{to_s(self.link.last_valid_us or 0):g} s")

    def _timer_link(self) -> None:
        self.link.up = False
        if self.phase not in ("idle", "closed"):
            self.raise_fault("link_lost", f"no valid frame from the shoe for "
                       f"{self.settings.link_lost_seconds:g} s")

    # ---- camera
    def _on_camera(self, inp: Input) -> None:
        self.last_camera_us = self.now_us
        self.observation = inp.value
        changed = False
        for zone, seen in inp.value.items():
            if zone in self.zones and self.zones[zone] != seen:
                self.zones[zone] = list(seen)
                changed = True
        if self.settings.camera and self.proc.camera_watched():
            self.arm("camera", self.now_us + self.us(self.settings.camera_lost_seconds))
        self.proc.on_camera(changed)

    def camera_alive(self) -> bool:
        return self.last_camera_us is not None and (
            self.now_us - self.last_camera_us <= self.us(self.settings.camera_lost_seconds)
        )

    def watch_camera(self) -> None:
        """`camera_lost` applies from now: counted from the last observation, which may be
        older than the round."""
        if not self.settings.camera:
            return
        limit = self.us(self.settings.camera_lost_seconds)
        last = self.last_camera_us if self.last_camera_us is not None else self.now_us
        if self.now_us - last > limit:
            self._timer_camera()
        else:
            self.arm("camera", last + limit)

    def _timer_camera(self) -> None:
        if self.settings.camera and self.proc.camera_watched():
            self.raise_fault("camera_lost", f"no camera observation for "
                       f"{self.settings.camera_lost_seconds:g} s while a round is open")

    # ---- faults
    def raise_fault(self, kind: str, detail: str, *, key: str | None = None) -> None:
        """Raise a fault. An event (a card, a shoe frame) is recorded every time it happens;
        a condition the camera or a timer keeps seeing is recorded once while it is active
        (per position, with `key`, for card mismatches)."""
        proc = self.proc
        if kind not in self.fault_kinds:
            raise ValueError(f"{self.game.name}: no fault kind {kind!r}")
        rid = proc.round_id() if proc.round_in_progress() else None
        if kind not in proc.event_faults:
            for f in self.faults:
                if f.kind == kind and f.round_id == rid and f.key == key:
                    return  # already raised and not yet resolved
        in_round = rid is not None
        self.faults.append(ActiveFault(kind, rid, detail, self.now_us, in_round, key,
                                       proc.is_cancel_only(kind, in_round)))
        self.fault_counts[kind] += 1
        self.emit("fault", round_id=rid, kind=kind, detail=detail)
        if self.state != "paused":
            self.trigger("fault")
            self.proc.on_pause()

    def condition_holds(self, f: ActiveFault) -> str | None:
        """Why a decision cannot clear this fault yet (None: it can)."""
        k = f.kind
        if k == "link_lost" and not self.link.up:
            return "the shoe link is still down"
        if k == "device_fault" and self.link.device_faults:
            return f"the shoe still reports {', '.join(sorted(self.link.device_faults))}"
        if k == "camera_lost" and not self.camera_alive():
            return "no camera frames yet"
        return self.proc.condition_holds(f)

    def _lasting(self) -> list[ActiveFault]:
        """Faults whose condition outlives the round and still holds: no decision clears
        them (PROCEDURE.md §3)."""
        return [f for f in self.faults
                if f.kind in self.proc.lasting_faults and self.condition_holds(f)]

    # ---- dealer and supervisor
    def _on_dealer(self, inp: Input) -> None:
        handler = self._dealer_handlers.get(inp.value)
        if handler is None:
            self.refuse(str(inp.value), None, f"no dealer action {inp.value!r} at this table")
            return
        handler(inp)

    def _on_supervisor(self, inp: Input) -> None:
        handler = self._supervisor_handlers.get(inp.value)
        if handler is None:
            self.refuse(str(inp.value), inp.user, f"no supervisor action {inp.value!r}")
            return
        handler(inp.user)

    # each decision is refused by the checks of station/core/refusals.py, the same ones the
    # decisions a screen offers are judged by

    def _supervisor_confirm_shuffle(self, user: str | None) -> None:
        reason = refusals.confirm_shuffle(self) or self.proc.confirm_shuffle()
        if reason:
            self.refuse("confirm_shuffle", user, reason)

    def _supervisor_resume(self, user: str | None) -> None:
        reason, _ = refusals.resume(self)
        if reason:
            return self.refuse("resume", user, reason)
        rid = self.proc.round_id() if self.proc.round_in_progress() else None
        self.proc.resuming(self.faults)
        self.faults.clear()
        self.emit("resumed", round_id=rid, user=user)
        self.trigger("resume")
        if self.proc.round_in_progress() and self.settings.camera and self.proc.camera_watched():
            self.arm("camera", self.now_us + self.us(self.settings.camera_lost_seconds))
        self.proc.on_resume()

    def _supervisor_cancel_round(self, user: str | None) -> None:
        proc = self.proc
        reason, _ = refusals.cancel_round(self)
        if reason:
            return self.refuse("cancel_round", user, reason)
        if not proc.round_in_progress():
            # a fault outside a round (an early card, the first card, the link): there is no
            # round to void. A fault only cancel can clear ends the shoe, anything else ends
            # the pause and nothing is dealt from it
            ends_shoe = proc.cancel_outside_round(user)
            self.faults.clear()
            self.emit("resumed", round_id=None, user=user, action="cancel_round")
            if ends_shoe:
                proc.end_shoe()
                self.trigger("shoe_ended")
            else:
                self.trigger("resume")
            return None
        reason = self.faults[0].kind if self.faults else "supervisor"
        last = proc.last_round()
        proc.cancel_round(user, reason)
        self.faults = self._lasting()
        if not self.faults:
            self.trigger("round_cancelled")
        if last or proc.shoe_must_end():
            proc.end_shoe()
            if self.state not in ("idle", "paused"):
                self.trigger("shoe_ended")
        return None

    def _supervisor_end_shoe(self, user: str | None) -> None:
        reason = refusals.end_shoe(self)
        if reason:
            return self.refuse("end_shoe", user, reason)
        self.faults = self._lasting()
        self.proc.end_shoe()
        if self.state == "paused" and not self.faults:
            self.trigger("shoe_ended")

    def _supervisor_close_table(self, user: str | None) -> None:
        reason = refusals.close_table(self)
        if reason:
            return self.refuse("close_table", user, reason)
        self.faults = self._lasting()
        self.proc.end_shoe()
        self.table_closed = True
        if self.state != "paused" or not self.faults:
            self.trigger("close_table")

    # ---- money
    def credit(self, account: str, amount: int) -> None:
        self.purse.credit(account, amount)

    def debit(self, account: str, amount: int) -> None:
        """Take money from a wallet (an ante, a pot bet): the procedure checked the funds."""
        self.purse.debit(account, amount)

    def _on_wallet(self, inp: Input) -> None:
        acct, bal = inp.value["account"], inp.value["balance"]
        self.purse.balances[acct] = bal
        self.purse.wallet_seq += 1
        self.message(f"wallet:{self.purse.wallet_seq}", "wallet", account=acct, balance=bal)

    def _on_bet(self, inp: Input) -> None:
        v = inp.value
        ref = v.get("ref")
        purse = self.purse
        # a studio intake's reservation answer is for this bet alone, whatever becomes of it
        answers = self.__dict__.pop("_answers", None)
        answer = answers[-1] if answers else None
        if ref is not None:
            # the platform's idempotency key: a bet sent again (its answer was lost when the
            # station restarted) gets the first decision, and is never placed twice
            key = (v["account"], ref)
            if key in purse.refs:
                purse.last_decision = purse.refs[key]
                return
        rec = self.place_bet(v["account"], v["spot"], v["amount"], reservation=answer)
        if ref is not None:
            rec["ref"] = ref
            purse.refs[(v["account"], ref)] = rec
        purse.last_decision = rec

    def _on_reservation_answer(self, inp: Input) -> None:
        """A studio table asked the studio ledger to reserve the bet that comes next, or what
        the action that comes next takes from the wallets (docs/studio.md): its answer,
        journaled, decides those funds instead of this
        table's own mirror, whose wallets other tables also spend. Replay reads it here.
        A pot game's action may draw on several wallets (a game's antes): one answer each,
        all for the input that follows them. The ledger's own answer again (not the table's
        credit, nor no answer) ends what the table counted on credit."""
        if inp.value["answer"] not in (ON_CREDIT, "unavailable"):
            self.purse.on_credit.clear()
        self.__dict__.setdefault("_answers", []).append(inp.value)

    def bet_refusal(self, account: str, spot: str, amount: Any, *,
                    funds: bool = True) -> tuple[str | None, int]:
        """The first TRACES.md reason that applies to this bet now, or None and the deduction.
        `funds=False`: the table's own checks only (the studio ledger answers for the funds)."""
        window = "no_round" if self.table_closed else self.proc.bet_window()
        if window is not None:
            return window, 0
        if self.state == "paused":
            return "paused", 0
        held = self.proc.bets_held(account)
        try:
            deducted = self.game.check_bet(spot, amount, held)
        except BetError as e:
            return e.reason, 0
        limited = self.game.limited_amount(spot, amount, held)
        if amount < self.settings.min_bet or (self.settings.max_bet and limited > self.settings.max_bet):
            return "limit", 0
        if funds and self.purse.balance(account) < deducted:
            return "insufficient_funds", 0
        return None, deducted

    def place_bet(self, account: str, spot: str, amount: Any, *,
                  reservation: dict[str, Any] | None = None) -> dict[str, Any]:
        """`reservation`: the studio ledger's journaled answer for this bet (docs/studio.md),
        which decides its funds after the table's own checks."""
        reason, deducted = self.bet_refusal(account, spot, amount, funds=reservation is None)
        on_credit = reservation is not None and reservation["answer"] == ON_CREDIT
        if reason is None and reservation is not None and not on_credit:
            if reservation["answer"] != "reserved":
                # TRACES.md §3 has one reason for funds the table cannot count on:
                # `insufficient_funds`, whatever the ledger said (no wallet, no answer in
                # time, ...); its own answer stays in the journaled input
                reason = "insufficient_funds"
            else:
                # the studio ledger holds the deduction: the mirror follows its balance
                self.purse.balances[account] = reservation["balance"] + deducted
        if reason is not None:
            return self.emit("bet_rejected", account=account, spot=spot, amount=amount,
                             reason=reason)
        self.purse.debit(account, deducted)
        if on_credit:
            # the studio ledger did not answer and the station's policy took the bet on the
            # table's credit (station/live/reservations.py): counted until the ledger answers
            self.purse.on_credit[account] = self.purse.on_credit.get(account, 0) + deducted
        self._bet_attempt = reservation.get("attempt") if reservation is not None else None
        self._bet_credit = on_credit
        try:
            return self.proc.place_bet(account, spot, amount, deducted)
        finally:
            self._bet_attempt = None
            self._bet_credit = False

    def bet_key(self, round_id: str, number: int) -> str:
        """The outbox key of a round's `number`-th accepted bet. A bet reserved in the studio
        ledger adds its reservation attempt, the key the ledger already holds it under: an
        attempt the table never accepted (no answer in time, or a crash before the journal
        kept it) leaves its key behind, so the next bet never asks under that key again."""
        attempt = self.__dict__.get("_bet_attempt")
        # a bet on the table's credit has a key of its own: its reservation may have been
        # committed after the table stopped waiting (released at round close, as any orphan)
        credit = ":credit" if self.__dict__.get("_bet_credit") else ""
        return f"bet:{round_id}:{number}" + (f":{attempt}" if attempt else "") + credit

    def settle_bets(self, bets: list[Bet], returned_of: Callable[[Bet], int]) -> list[dict[str, Any]]:
        """Credit each bet its return; the settlement lines of a validated hand."""
        settled = []
        for b in bets:
            returned = returned_of(b)
            self.purse.credit(b.account, returned)
            settled.append({"account": b.account, "spot": b.spot, "amount": b.amount,
                            "deducted": b.deducted, "returned": returned})
        return settled
