"""`TableStation`: the table core running live.

One owner thread takes inputs from a queue (shoe bytes from the serial reader, camera
observations, dealer and supervisor actions, wallets, bets, a pot game's player actions),
stamps each with the station
clock, writes it to the journal, applies it, commits what it produced, and only then lets
effects leave: ACK/RESEND and gate/LED commands to the shoe, answers to the bet API and the
console, records to listeners, a wake-up to the settlement delivery worker. When no input
comes, the thread wakes for the next timer (betting close, timeouts) and journals a clock
tick if the timer produced anything.

On start it re-applies the journal to a fresh core, checks the records it re-makes against
the stored ones, and carries on from there: nothing twice, nothing lost.
"""

from __future__ import annotations

import errno
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from station.core import snapshot
from station.core.chain import ends_round
from station.core.inputs import US, Input, TraceHeader
from station.core.journal import STOP, Journal, JournalError
from station.core.kernel import ON_CREDIT
from station.core.kernel import TableKernel as TableCore
from station.core.settings import TableSettings
from station.core.view import public_view
from station.live.recording import NOT_RECORDED
from station.live.reservations import DOWN_ANSWERS
from station.money import MAX_AMOUNT

log = logging.getLogger("station.live")

RecordListener = Callable[[list[dict[str, Any]]], None]
CommandSink = Callable[[tuple[str, ...]], None]


class StationStopped(RuntimeError):
    pass


BETS = "__bets__"  # a queue item holding the bets of one bet-API call
PLAYER = "__player__"  # a queue item holding one player action (its answer is the table's)
#: reservations left unanswered within one group of inputs before the group stops asking
#: (each waits out the reservation timeout on the table's input thread)
SILENT_AFTER = 3


class TableStation:
    def __init__(
        self,
        settings: TableSettings,
        journal_path: str | Path,
        *,
        on_shoe_command: CommandSink | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_idle: float = 0.25,
        journal_sync: str = "full",
        signing_key: bytes | None = None,
        checkpoint_every: int | None = None,
    ) -> None:
        self.settings = settings
        header = TraceHeader(settings.table, settings.game, settings.camera, settings_dict(settings))
        more = {} if checkpoint_every is None else {"checkpoint_every": checkpoint_every}
        self.journal = Journal(journal_path, header, sync=journal_sync, signing_key=signing_key,
                               **more)
        kept = self.journal.header.settings
        if kept != header.settings:
            # Re-applying the journal must reproduce what the table did, so the settings it
            # was started with stay in force for it; new timings take a new journal.
            log.warning("journal %s keeps the table settings it was started with (%s); the "
                        "configuration's (%s) apply to a new journal (a new storage.dir)",
                        journal_path, kept, header.settings)
            from station.core.replay import settings_from_header

            settings = settings_from_header(self.journal.header)
            self.settings = settings
        self.core = TableCore(settings, journal_id=self.journal.journal_id)
        # Station time runs on a monotonic clock from where this start sits on the journal's
        # time line: the wall clock is read once, to count a power cut's gap, and station
        # time never goes backwards, whatever the wall clock does later.
        self._clock = clock
        self._clock0 = clock()
        self._base_us = 0 if self.journal.is_new else max(
            self.journal.last_t_us(), round((time.time() - self.journal.epoch) * US))
        # (extra fields of the input's line or None, the caller's future, kind, value, user)
        self._q: queue.Queue[tuple[dict[str, Any] | None, Future[list[dict[str, Any]]] | None, str, Any, str | None]] = queue.Queue()
        self._listeners: list[RecordListener] = []
        self._on_shoe_command = on_shoe_command
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._last_us = 0
        self._max_idle = max_idle
        self.view: dict[str, Any] = {}
        #: each account's own part of its view (a pot game's seat and cards), published with
        #: `view` and handed to that account alone (station/live/player_api.py)
        self.private_views: dict[str, dict[str, Any]] = {}
        self.view_version = 0
        self._view_cond = threading.Condition()
        self.fatal: BaseException | None = None
        self.inputs_applied = 0
        self.latencies_us: list[int] = []  # input received -> committed, for the benchmark
        from station.metrics import INPUT_LATENCY, REGISTRY

        self._input_latency = REGISTRY.histogram(INPUT_LATENCY, "input received to journaled and applied")
        self.on_outbox: Callable[[], None] | None = None
        #: called after each durable input with the records it made (trace recording)
        self.on_input: Callable[[Input, list[dict[str, Any]]], None] | None = None
        #: the disk under storage.dir (station/live/disk.py): its free space in the view, and
        #: `new_shoe` refused below its floor; None: not watched
        self.disk: Any = None
        #: a studio table's bet intake (docs/studio.md): asks the studio ledger to reserve a
        #: bet message and returns its answer ({"answer": "reserved", "result": {...}} or
        #: {"answer": reason, "detail": ...}); None: the table decides funds on its own
        self.reserve_bet: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        #: with reserve_bet: whether the studio ledger answers (station/live/reservations.py)
        self.reservation_health: Any = None
        #: the policy `credit` while the ledger does not answer: what one account's bets may
        #: take on the table's credit until it answers again (None: such bets are refused)
        self.credit_limit_minor: int | None = None
        #: within one group of inputs: reservations the studio ledger left unanswered, and
        #: once SILENT_AFTER of them, its silence (the last one's detail): the group's later
        #: reservations are not asked
        self._unanswered = 0
        self._ledger_silent: str | None = None

    # ---------------------------------------------------------------- lifecycle
    def add_listener(self, fn: RecordListener) -> None:
        self._listeners.append(fn)

    #: a snapshot of the core's state is kept every this many inputs (and at each shoe's
    #: end), so a restart re-applies only what came after it
    snapshot_every = 20_000

    def recover(self) -> int:
        """Re-apply the journal from its newest snapshot, checking every record it re-makes
        against the stored one. Returns how many inputs it re-applied."""
        after = 0
        snap = self.journal.latest_snapshot()
        if snap is not None:
            try:
                core = snapshot.load(snap[1], self.journal.signing_key,
                                     table=self.journal.header.table,
                                     journal_id=self.journal.journal_id, seq=snap[0])
            except snapshot.StaleSnapshot as e:
                # the journal holds every input: re-apply it from the first instead
                log.warning("journal %s: its snapshot of input %d is not loaded: %s; "
                            "re-applying every input instead",
                            self.journal.path, snap[0], e)
                snap = None
            else:
                if not isinstance(core, TableCore):
                    log.warning("journal %s: its snapshot is no table kernel; re-applying "
                                "every input instead", self.journal.path)
                    snap = None
                else:
                    after, self.core = snap[0], core
        stored = self.journal.iter_records(after)
        n = 0
        made = 0
        for seq, inp in self.journal.inputs(after):
            self.core.apply(inp)
            records, _messages, _commands = self.core.take_outputs()
            for r in records:
                want = next(stored, None)
                if want != r:
                    if self.journal.journal_id is None:
                        raise JournalError(
                            f"{self.journal.path} was written by a station before the table "
                            f"kernel, and today's procedure makes another record from its "
                            f"input {seq} than the one it stored (record {made}: "
                            f"{(want or {}).get('type')} then, {r.get('type')} now): its history "
                            f"touched behaviour corrected since. Carry the table over with "
                            f"`station journal migrate {self.journal.path} --ledger LEDGER` "
                            f"(between rounds; docs/operator.md)")
                    raise JournalError(
                        f"{self.journal.path}: re-applying input {seq} made a record that "
                        f"differs from the stored one (record {made}); they first differ there"
                    )
                made += 1
            n += 1
            self._last_us = max(self._last_us, inp.t_us)
            self._since_snapshot = n
        if next(stored, None) is not None:
            raise JournalError(f"{self.journal.path}: the journal stores records that "
                               f"re-applying it does not make (after record {made})")
        if n == 0 and snap is not None:
            self._last_us = self.journal.last_t_us()
        # the shoe and its gate may have been left anywhere: say everything again
        self.core.link.forget()
        self.inputs_applied = n
        return n

    _since_snapshot = 0

    def _maybe_snapshot(self, seq: int, records: list[dict[str, Any]]) -> None:
        """Inside the open transaction, after input `seq` was applied."""
        self._since_snapshot += 1
        key = self.journal.signing_key
        if key is None:
            return  # a snapshot without a key could not be authenticated, so none is kept
        if self._since_snapshot >= self.snapshot_every or any(
                r["type"] == "shoe_end" for r in records):
            self.journal.add_snapshot(seq, snapshot.dump(
                self.core, key, table=self.journal.header.table,
                journal_id=self.journal.journal_id, seq=seq))
            self._since_snapshot = 0

    def start(self) -> None:
        n = self.recover()
        log.info("journal %s: %d inputs re-applied; table %s is %s",
                 self.journal.path, n, self.settings.table, self.core.state)
        self._publish_view()
        lp = self.core.link.stream.last_processed
        # said only of a boot the station knows: after a mid-stream join (no HELLO heard)
        # the shoe may have booted again while the station was down, and an ACK of the old
        # seqs would make it drop its new frames unread; a shoe still holding the old
        # frames resends them, and their duplicates are acknowledged again
        if (lp is not None and self._on_shoe_command
                and self.core.link.stream.sequencer.boot_id is not None
                and not self.core.link.stream.sequencer.undecided):
            self._on_shoe_command(("ACK", str(lp)))
        self._thread = threading.Thread(target=self._run, name="table-core", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._q.put((None, None, "", None, None))
        if self._thread:
            self._thread.join(timeout)
            if (not self._thread.is_alive() and self.fatal is None and not self.journal.closed
                    and self.journal.signing_key is not None):
                self._checkpoint_at_stop()
        self.journal.close()

    def _checkpoint_at_stop(self) -> None:
        """An orderly stop signs the chain head, so the whole journal is vouched for."""
        try:
            self.journal.begin()
            if not self.journal.checkpoint(STOP):
                self.journal.mark_stopped()
            self.journal.commit()
        except Exception:  # noqa: BLE001 - the journal stays whole; the tail is unsigned
            self.journal.rollback()
            log.exception("journal %s: no checkpoint at stop", self.journal.path)

    # ---------------------------------------------------------------- clock
    def _now_us(self) -> int:
        """Station time for the next input. Only the owner thread calls this: it alone
        moves the table's time, which never goes backwards."""
        t = self._base_us + round((self._clock() - self._clock0) * US)
        self._last_us = max(self._last_us, t)
        return self._last_us

    def now_us(self) -> int:
        """Station time as any thread may read it (moves nothing)."""
        return max(self._last_us, self._base_us + round((self._clock() - self._clock0) * US))

    # ---------------------------------------------------------------- inputs
    def submit(self, kind: str, value: Any, user: str | None = None, *,
               wait: bool = True, timeout: float = 10.0,
               extra: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Queue one input; with `wait`, return the records it produced once they are durable.
        `extra`: what the input's line carries beside its value (a dealer's dice entry:
        ``{"dice": [4, 5]}``)."""
        if self.fatal is not None:
            raise StationStopped(f"the table core stopped: {self.fatal}")
        if kind == "dealer" and value == "new_shoe" and self.disk is not None:
            low = self.disk.new_shoe_refusal()
            if low is not None:
                # refused before the table takes it (not journaled: nothing happened at the
                # table), so no shoe starts that the disk might not hold to its end
                log.warning("table %s: new_shoe refused: %s", self.settings.table, low)
                return [{"type": "action_refused", "action": "new_shoe", "user": user,
                         "reason": low, "t": self.now_us() / US}]
        fut: Future[list[dict[str, Any]]] | None = Future() if wait else None
        self._q.put((extra or None, fut, kind, value, user))
        if fut is None:
            return []
        return fut.result(timeout)

    def feed_shoe_bytes(self, data: bytes) -> None:
        """From the serial reader thread: bytes as they arrived."""
        if data:
            self.submit("shoe", bytes(data), wait=False)

    def place_bets(self, bets: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The bet API's path: the bets of one call are journaled and decided together, in
        order, in one transaction (all of them recorded, or none); returns the core's
        decision record for each."""
        values = []
        for b in bets:
            value = {"account": b["account"], "spot": b["spot"], "amount": b["amount"]}
            if b.get("ref"):
                value["ref"] = b["ref"]
            values.append(value)
        if not values:
            return []
        if self.fatal is not None:
            raise StationStopped(f"the table core stopped: {self.fatal}")
        fut: Future[Any] = Future()
        self._q.put((None, fut, BETS, values, None))
        return fut.result(10.0)

    def player_action(self, action: dict[str, Any], timeout: float = 10.0) -> list[dict[str, Any]]:
        """The player API's path (a pot game, PROCEDURE.md §7.1): one player action is
        journaled, applied and committed like any other input; returns what the table made
        of it once durable (`player_action`, `seated`, `buy_in`... or `action_refused`),
        never another account's private record."""
        if self.core.proc.player_handler() is None:
            raise ValueError(f"players do not act at a {self.settings.game} table")
        if self.fatal is not None:
            raise StationStopped(f"the table core stopped: {self.fatal}")
        fut: Future[Any] = Future()
        self._q.put((None, fut, PLAYER, dict(action), None))
        return fut.result(timeout)

    # ---------------------------------------------------------------- the owner thread
    #: while the journal cannot be written, a write is tried again at most this often (the
    #: inputs in between are refused: the shoe resends what was never acknowledged)
    write_probe_s = 0.5

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                timeout = self._max_idle
                if self.core.timers:
                    due = min(self.core.timers.values())
                    timeout = max(0.0, min(timeout, (due - self._now_us()) / US + 0.0005))
                try:
                    item = self._q.get(timeout=timeout)
                except queue.Empty:
                    item = None
                batch = [] if item is None else [item]
                try:
                    self._step(batch)
                finally:
                    # an input counts as in flight (inputs_in_flight) until its step is done
                    for _ in batch:
                        self._q.task_done()
        except BaseException as e:  # noqa: BLE001 - recorded, surfaced to every caller
            self.fatal = e
            log.exception("table core stopped")
            while True:
                try:
                    _, fut, *_ = self._q.get_nowait()
                except queue.Empty:
                    break
                if fut:
                    fut.set_exception(StationStopped(str(e)))

    def _step(self, batch: list[tuple[Any, ...]]) -> None:
        """One turn of the owner thread: the inputs taken (grown in place by whatever else is
        waiting), or a tick when none came."""
        if self._stop.is_set():
            return
        if self.write_fault is not None and not self._journal_writable():
            if batch:
                self._refuse_unwritten(list(batch))
            return
        if not batch:
            self._guarded(self._tick)
            return
        # group commit: whatever else is already waiting shares this transaction
        while len(batch) < self.max_group:
            try:
                nxt = self._q.get_nowait()
            except queue.Empty:
                break
            batch.append(nxt)
            if nxt[0] is None and nxt[2] == "":  # stop marker: back for the loop to see
                self._q.put(nxt)
                batch.pop()
                self._q.task_done()
                break
        self._guarded(lambda: self._process_group(list(batch)))

    def inputs_in_flight(self) -> int:
        """Inputs queued or being applied, not yet committed and answered (a simulated
        table's virtual clock holds while there are any: station/sim/demo_clock.py)."""
        return self._q.unfinished_tasks

    max_group = 256

    # ---------------------------------------------------------------- a journal that cannot write
    #: set while the journal cannot be written (disk full, I/O error): the view's
    #: `device_fault`; None once writes succeed again
    write_fault: dict[str, Any] | None = None

    def _guarded(self, step: Callable[[], None]) -> None:
        """Run one journaled step; a journal write that fails stops the table instead of the
        station: nothing of the step was committed, acknowledged or answered."""
        try:
            step()
        except (sqlite3.OperationalError, sqlite3.DatabaseError, OSError) as e:
            if not journal_write_failed(e):
                raise
            self._journal_failed(e)

    def _journal_failed(self, e: BaseException) -> None:
        try:
            self.journal.rollback()
        except sqlite3.Error:
            log.exception("journal %s: rollback after a failed write", self.journal.path)
        first = self.write_fault is None
        # when the journal first failed to write: now, on the table's clock (whatever the
        # step that failed had or had not read of it yet)
        failed_at = self._now_us() / US
        if first:
            self._outage = {"kind": "device_fault", "since": failed_at, "attempts": 0,
                            "refused": 0, "error": str(e), "last_error": str(e)}
        self._outage["attempts"] += 1
        self._outage["last_error"] = str(e)
        self.write_fault = {
            "kind": "device_fault", "round_id": None, "station": True,
            "detail": f"the journal cannot be written ({e}); nothing after its last entry was "
                      "taken or acknowledged; the table goes on by itself once it can write",
            "since": self._outage["since"], "meaning": "the station's disk failed a write",
            "options": [], "cancel_only": False}
        self._write_tried = time.monotonic()
        if first:
            log.error("journal %s: a write failed (%s): the table stops until it can write",
                      self.journal.path, e)
        # what the core applied of the failed step was never journaled: the core goes back to
        # exactly what the journal holds (its inputs re-applied, each record checked)
        applied = self.inputs_applied
        self.core = TableCore(self.settings, journal_id=self.journal.journal_id)
        self.recover()
        self.inputs_applied = applied
        self._publish_view()

    _write_tried = 0.0
    #: while the journal cannot be written: what the `station_fault` entry will say of it
    _outage: dict[str, Any] = {}

    def _journal_writable(self) -> bool:
        """While the journal cannot be written: try one real write (at most every
        `write_probe_s`); once one succeeds, journal the outage (`station_fault`) as the
        first entry after it, and only then clear the fault and go on (True)."""
        now = time.monotonic()
        if now - self._write_tried < self.write_probe_s:
            return False
        self._write_tried = now
        try:
            self.journal.probe_write()
        except (sqlite3.Error, OSError) as e:
            if not journal_write_failed(e):
                raise
            self._outage["attempts"] += 1
            self._outage["last_error"] = str(e)
            return False
        failed_before = self._outage["attempts"]
        self._guarded(self._journal_outage)
        if self._outage["attempts"] != failed_before:
            return False  # the disk refused the outage's own entry: still standing
        log.warning("journal %s: writes succeed again after %d failed; the table goes on",
                    self.journal.path, failed_before)
        self.write_fault = None
        self._outage = {}
        self._publish_view()
        return True

    def _journal_outage(self) -> None:
        """The journal's own trace of the time it could not be written: one `station_fault`
        entry, journaled and applied as any input (it changes nothing at the table; timers
        due by now fire, as a tick would fire them), so the round's timeline and its
        evidence pack show when the table stood, how many writes failed and why."""
        inp = Input(self._now_us(), "station_fault", dict(self._outage))
        self.journal.begin()
        try:
            records, messages, commands = self._apply_one(inp)
            self.journal.commit()
        except BaseException:
            self.journal.rollback()
            raise
        self.inputs_applied += 1
        self._after_commit([(inp, None, records, messages, commands, records)])

    def _refuse_unwritten(self, batch: list[tuple[Any, ...]]) -> None:
        """Inputs that came while the journal cannot be written: not taken (no ACK, so the
        shoe resends; callers hear why)."""
        self._outage["refused"] += len(batch)
        for _extra, fut, *_ in batch:
            if fut is not None and not fut.done():
                fut.set_exception(StationStopped(
                    f"the journal cannot be written: {self.write_fault['detail']}"))

    def _tick(self) -> None:
        now = self._now_us()
        if self.core.timers.next_due(now) is None:
            return
        inp = Input(now, "tick", True)
        seq = self.journal.begin(inp)
        in_round = self._in_round()
        try:
            self.core.apply(inp)
            records, messages, commands = self.core.take_outputs()
        except BaseException:
            self.journal.rollback()
            raise
        if not records and not messages:
            self.journal.rollback()  # a tick that changed nothing need not be kept
        else:
            self.journal.add_outputs(seq, records, messages)
            self._maybe_snapshot(seq, records)
            self._checkpoint_at_round_end(in_round, inp.t_us, records)
            self.journal.commit()
            self.inputs_applied += 1
        self._after_commit([(inp, None, records, messages, commands, records)])

    def _process_group(self, batch: list[tuple[Any, ...]]) -> None:
        """Journal, apply and commit inputs that arrived together, in one transaction; only
        then let their effects out."""
        received = time.perf_counter_ns()
        done: list[tuple[Any, ...]] = []
        # what the studio ledger left unanswered in this group: once SILENT_AFTER
        # reservations went unanswered, the group's others are not asked (each would wait out
        # its timeout on this thread: a call of 40 bets during a cut of the bus took 40
        # timeouts, longer than its caller waits). One slow answer (a wallet's row held by a
        # round's commit) does not silence the rest. Calls that queued meanwhile form the next
        # group, which asks again: the table stalls a few timeouts per group at most.
        self._unanswered = 0
        self._ledger_silent = None
        try:
            # inside: a journal that cannot even begin a transaction refuses the batch too
            self.journal.begin()
            for extra, fut, kind, value, user in batch:
                if kind == BETS:  # one call of the bet API: its bets share this transaction
                    decisions: list[dict[str, Any] | None] = []
                    for i, v in enumerate(value):
                        t_us = self._now_us()
                        answer = (self._reserve(t_us, v, done) if self.reserve_bet is not None
                                  else None)
                        inp = Input(t_us, "bet", v)
                        records, messages, commands = self._apply_one(inp)
                        decision = self.core.last_bet_decision
                        if (answer is not None and answer["answer"] != "reserved"
                                and decision is not None
                                and decision.get("type") == "bet_rejected"):
                            # the record says insufficient_funds (TRACES.md); the player
                            # hears what the studio ledger said, e.g. unavailable
                            decision = dict(decision, ledger=answer["answer"])
                        elif (answer is not None and answer["answer"] == ON_CREDIT
                              and decision is not None):
                            # accepted while the ledger is away, on the table's credit
                            decision = dict(decision, ledger=ON_CREDIT)
                        decisions.append(decision)
                        last = i == len(value) - 1  # the caller hears once all are decided
                        done.append((inp, fut if last else None, records, messages, commands,
                                     decisions))
                    continue
                if kind == PLAYER:
                    t_us = self._now_us()
                    down = self._reserve_draws(t_us, "player", value, None, None, done)
                    inp = Input(t_us, "player", value)
                    records, messages, commands = self._apply_one(inp)
                    answer = list(getattr(self.core.proc, "last_answer", None) or [])
                    if down is not None:
                        # the record says insufficient_funds (TRACES.md); the player hears
                        # what the studio ledger said, as a bet's caller does
                        answer = [dict(r, ledger=down)
                                  if r.get("type") in ("action_refused", "bet_rejected") else r
                                  for r in answer]
                    done.append((inp, fut, records, messages, commands, answer))
                    continue
                t_us = self._now_us()
                self._reserve_draws(t_us, kind, value, user, extra, done)
                inp = Input(t_us, kind, value, user, dict(extra) if extra else {})
                records, messages, commands = self._apply_one(inp)
                done.append((inp, fut, records, messages, commands, records))
            self.journal.commit()
        except BaseException as e:
            self.journal.rollback()
            if isinstance(e, sqlite3.Error | OSError) and journal_write_failed(e):
                # the table stands first, so whoever hears of the refusal sees it standing
                self._journal_failed(e)
                self._refuse_unwritten(batch)
                return
            for _, fut, *_ in batch:
                if fut and not fut.done():
                    fut.set_exception(StationStopped(f"the table core stopped: {e}"))
            raise
        self.inputs_applied += len(batch)
        self._after_commit(done)
        lat = (time.perf_counter_ns() - received) // 1000
        self.latencies_us.extend([lat] * len(batch))
        for _ in batch:
            self._input_latency.observe(lat / 1e6, table=self.settings.table)
        if len(self.latencies_us) > 100_000:
            del self.latencies_us[:50_000]

    def _probe(self, t_us: int, inputs: list[Input]) -> list[dict[str, Any]]:
        """The outbox messages these inputs would make, applied on a copy of the table core
        whose wallets can pay anything (funds are the studio ledger's to say)."""
        import pickle

        probe = pickle.loads(pickle.dumps(self.core, pickle.HIGHEST_PROTOCOL))
        probe.purse.probing = True
        for inp in inputs:
            probe.apply(inp)
        _records, messages, _commands = probe.take_outputs()
        return messages

    def _reserve(self, t_us: int, bet: dict[str, Any],
                 done: list[tuple[Any, ...]]) -> dict[str, Any] | None:
        """A studio table: if the core would accept this bet but for its funds, ask the studio
        ledger to reserve the very bet message the outbox would then carry, and journal its
        answer as an input just before the bet, at the same time, in the same transaction (a
        crash before the commit leaves neither: the table never accepted the bet, and the
        ledger releases the reservation when the round closes). Replay reads the answer from
        the journal and never asks again."""
        import secrets

        # each request its own key (docs/studio.md): an attempt the table does not accept, or
        # does not live to journal, must not collide with the next bet of the round
        attempt = secrets.token_hex(6)
        messages = self._probe(t_us, [
            Input(t_us, "reservation_answer", {"key": "", "attempt": attempt,
                                               "answer": "reserved",
                                               "balance": MAX_AMOUNT * 1000}),
            Input(t_us, "bet", bet)])
        request = next((m for m in messages if m.get("kind") == "bet"), None)
        if request is None:
            return None  # refused for the table's own reasons (or a retried ref): nothing to ask
        return self._ask_ledger(t_us, request, {"key": request["key"], "attempt": attempt}, done,
                                on_down=self._on_credit)

    def _on_credit(self, request: dict[str, Any], value: dict[str, Any]) -> dict[str, Any]:
        """The ledger did not answer a bet's reservation. With the policy `credit`
        (station/live/reservations.py) the table takes it on its own credit while the account's
        bets on credit since the ledger last answered stay within `credit_limit_minor`; the
        answer `credit` is journaled (replay takes the bet the same way) and the bet's outbox
        message says so, for the ledger to book what the wallet cannot cover."""
        limit = self.credit_limit_minor
        if limit is None:
            return value
        account, deducted = request["account"], request["deducted"]
        owed = self.core.purse.on_credit.get(account, 0)
        if owed + deducted > limit:
            return {**value, "detail": f"table credit of {account} would be {owed + deducted},"
                                       f" over its limit {limit}; {value.get('detail', '')}"[:300]}
        return {**value, "answer": ON_CREDIT, "account": account, "amount": deducted}

    def _reserve_draws(self, t_us: int, kind: str, value: Any, user: str | None,
                       extra: Any, done: list[tuple[Any, ...]]) -> str | None:
        """A studio table of a pot game (docs/studio.md, "Pot games in the studio"): an action
        that may take money from the players' wallets (the game says which) is tried first on
        a copy of the core; each draw the copy made (an ante, a bet, a buy-in) is reserved in
        the studio ledger under a key of its own (the draw's key and a fresh attempt), and the
        answers are journaled just before the action, which then takes only what was
        reserved. An answer the table never journals leaves a reservation its game did not
        take: the ledger releases it when the game closes.

        An action's draws are all taken or none while the ledger does not answer: if it did
        not answer one of them (the others after it are then not asked), those it reserved
        are journaled as not answered too, so a game never opens without a player whose ante
        merely went unanswered; the dealer opens it again once the ledger answers (the same
        game, whose close releases what was reserved and not taken)."""
        import secrets

        proc = self.core.proc
        if self.reserve_bet is None or not proc.wallet_draws or not proc.may_draw(kind, value):
            return None
        messages = self._probe(t_us, [Input(t_us, kind, value, user,
                                            dict(extra) if extra else {})])
        down: dict[str, Any] | None = None
        values: list[dict[str, Any]] = []
        for m in messages:
            if m.get("kind") not in proc.wallet_draws:
                continue
            attempt = secrets.token_hex(6)
            request = dict(m, key=f"{m['key']}:{attempt}")
            answer = {"key": request["key"], "attempt": attempt, "account": m["account"],
                      "amount": m["amount"]}
            if down is not None:
                # the ledger did not answer this action's last draw: the others of the same
                # action are not asked (each would wait out its own timeout)
                detail = str(down.get("detail"))
                values.append({**answer, "answer": down["answer"],
                               "detail": (detail if detail.startswith("not asked: ")
                                          else "not asked: " + detail)[:300]})
                continue
            values.append(self._ledger_answer(request, answer))
            if values[-1]["answer"] in DOWN_ANSWERS:
                down = values[-1]
        for v in values:
            if down is not None and v["answer"] == "reserved":
                v = {k: x for k, x in v.items() if k != "balance"}
                v.update(answer=down["answer"],
                         detail="reserved, not taken: another draw of the action was not"
                                " answered (released when its game closes)")
            self._journal_answer(t_us, v, done)
        return None if down is None else str(down["answer"])

    def _ask_ledger(self, t_us: int, request: dict[str, Any], answer: dict[str, Any],
                    done: list[tuple[Any, ...]], on_down: Callable[..., dict[str, Any]] | None = None,
                    ) -> dict[str, Any]:
        """Reserve `request` in the studio ledger and journal its answer (`answer` with the
        ledger's word; `on_down(request, value)` may turn no answer into the table's own) as
        an input; returns the journaled answer."""
        value = self._ledger_answer(request, answer, on_down)
        self._journal_answer(t_us, value, done)
        return value

    def _ledger_answer(self, request: dict[str, Any], answer: dict[str, Any],
                       on_down: Callable[..., dict[str, Any]] | None = None) -> dict[str, Any]:
        """Ask the studio ledger to reserve `request`: the answer to journal."""
        assert self.reserve_bet is not None
        if self._ledger_silent is not None:
            reply = {"answer": "unavailable",
                     "detail": f"not asked: the studio ledger left {self._unanswered}"
                               " reservations of the same moment unanswered: "
                               + self._ledger_silent}
        else:
            try:
                reply = self.reserve_bet(request)
            except Exception as exc:  # noqa: BLE001 - no answer is an answer
                reply = {"answer": "unavailable", "detail": repr(exc)}
            if str(reply.get("answer")) in DOWN_ANSWERS:
                self._unanswered += 1
                if self._unanswered >= SILENT_AFTER:
                    self._ledger_silent = str(reply.get("detail") or reply.get("answer"))[:200]
        value: dict[str, Any] = {**answer, "answer": str(reply.get("answer"))}
        result = reply.get("result") if isinstance(reply.get("result"), dict) else {}
        if value["answer"] == "reserved":
            balance = result.get("balance")
            if isinstance(balance, bool) or not isinstance(balance, int):
                value = {**answer, "answer": "unavailable",
                         "detail": "the ledger's answer named no balance"}
            else:
                value["balance"] = balance
        elif reply.get("detail"):
            value["detail"] = str(reply["detail"])[:300]
        if value["answer"] in DOWN_ANSWERS and on_down is not None:
            value = on_down(request, value)
        return value

    def _journal_answer(self, t_us: int, value: dict[str, Any],
                        done: list[tuple[Any, ...]]) -> None:
        if self.reservation_health is not None:
            self.reservation_health.note(value)
        inp = Input(t_us, "reservation_answer", value)
        records, messages, commands = self._apply_one(inp)
        done.append((inp, None, records, messages, commands, records))

    def _apply_one(self, inp: Input) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[str, ...]]]:
        seq = self.journal.add_input(inp)
        in_round = self._in_round()
        self.core.purse.last_decision = None
        self.core.apply(inp)
        records, messages, commands = self.core.take_outputs()
        self.journal.add_outputs(seq, records, messages)
        self._maybe_snapshot(seq, records)
        self._checkpoint_at_round_end(in_round, inp.t_us, records)
        return records, messages, commands

    def _in_round(self) -> bool:
        return bool(self.core.proc.round_in_progress())

    def _checkpoint_at_round_end(self, was_in_round: bool, t_us: int,
                                 records: list[dict[str, Any]]) -> None:
        """A round (a pot game's game) that just ended is signed at once: its records can
        then no longer be changed unnoticed, by anyone, once the ledger has the checkpoint.
        An entry holding a record the game declares round-ending is always signed: that is
        what `station journal verify` requires (`ends_round`)."""
        if (was_in_round and not self._in_round()) or ends_round(
                type(self.core.proc).round_end_records, (r.get("type") for r in records)):
            self.journal.checkpoint("round_end", t_us)

    def _after_commit(self, done: list[tuple[Any, ...]]) -> None:
        """Durable: now the world may hear of it.

        The view is published before any listener hears the records: a player's stream
        answers each batch with that player's view, read on its own thread, so a view
        published later would let it send the view from before the batch (the page then
        shows the table as it was until the next batch, which at a quiet moment never
        comes). Then the answers: whoever acted and then reads the view sees its own
        action in it (a dealer that opened a game and then waited on a view from before
        the game opened would open it again)."""
        self._publish_view()
        any_messages = False
        for inp, _fut, records, messages, commands, _answer in done:
            self._deliver_commands(commands)
            any_messages = any_messages or bool(messages)
            if self.on_input is not None and inp.kind not in NOT_RECORDED:
                try:
                    self.on_input(inp, records)
                except Exception:
                    log.exception("input recorder failed")
            if records:
                for fn in self._listeners:
                    try:
                        fn(records)
                    except Exception:  # a listener's trouble is its own
                        log.exception("record listener failed")
        if any_messages and self.on_outbox:
            self.on_outbox()
        for _inp, fut, _records, _messages, _commands, answer in done:
            if fut is not None:
                fut.set_result(answer)

    def _deliver_commands(self, commands: list[tuple[str, ...]]) -> None:
        if self._on_shoe_command:
            for c in commands:
                try:
                    self._on_shoe_command(c)
                except Exception:
                    log.exception("shoe command %s failed", c)

    def _publish_view(self) -> None:
        v = public_view(self.core)
        if self.write_fault is not None:
            # the table stands on the station's own device fault, beside the kernel's
            v["faults"] = [*v["faults"], self.write_fault]
            v["paused"] = True
        if self.disk is not None:
            try:
                v["disk"] = self.disk.status()
            except OSError as e:
                v["disk"] = {"error": str(e)}
        if self.reservation_health is not None:
            # the table's console shows whether the studio ledger answers its reservations
            v["reservations"] = self.reservation_health.state()
        own = getattr(self.core.proc, "private_views", None)
        private = own() if own is not None else {}
        with self._view_cond:
            self.view_version += 1
            v["version"] = self.view_version
            self.view = v
            self.private_views = private
            self._view_cond.notify_all()

    def own_view(self, account: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The public view and this account's own part of it, from one publication."""
        with self._view_cond:
            return self.view, self.private_views.get(account)

    def wait_view(self, after_version: int, timeout: float) -> dict[str, Any]:
        """Block until the view is newer than `after_version` (or timeout); return it."""
        with self._view_cond:
            self._view_cond.wait_for(lambda: self.view_version > after_version, timeout)
            return self.view


#: what SQLite says when the disk under the journal fails a write
_WRITE_FAILURES = ("database or disk is full", "disk i/o error", "disk full", "no space")


def journal_write_failed(e: BaseException) -> bool:
    """A failure of the disk under the journal (full, an I/O error), not a defect."""
    if isinstance(e, OSError) and not isinstance(e, sqlite3.Error):
        return e.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EROFS)
    text = str(e).lower()
    return any(w in text for w in _WRITE_FAILURES)


def settings_dict(s: TableSettings) -> dict[str, Any]:
    """The settings a table of this game runs with, as a journal or trace header has them:
    those its procedure reads, in its order, then the game's own it did not name."""
    from dataclasses import fields

    from station.games import get_game

    proc = get_game(s.game).table_procedure()
    names = list(proc.settings_used if proc is not None else ())
    names += [f.name for f in fields(s.own) if f.name not in names]
    return {name: s.value(name) for name in names}
