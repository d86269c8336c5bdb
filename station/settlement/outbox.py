"""The worker that empties the station's outbox to settlement.

The outbox itself belongs to the journal (station/core/outbox.py): the table core writes each message for settlement (a wallet set, an accepted bet, a validated
hand, a cancelled round) into the ``settlement_outbox`` table **in the same SQLite transaction
as its journal entry**: either both are on disk or neither is, so a crash can never leave a
validated hand that settlement will not hear about, nor a message about something the journal
does not know.

`DeliveryWorker` reads the outbox in order, hands batches to a transport (in-process or HTTP to
`station settlement serve`) and marks what the settlement core confirmed. A crash after the
core applied a message but before it was marked only means the message is delivered again; the
core applies each key once and answers a repeat with the first result. A transport that is
down holds the queue at that message (later messages depend on earlier ones: bets before their
hand) and is retried with backoff and reported, never skipped.

A message the core *refuses* is different: the refusal is the core's deterministic answer to
that message (it posted nothing and recorded the refusal in the ledger), so trying it again
would only refuse it again and hold every later bet and hand of the table behind it for ever.
The worker marks it answered (``delivered_at`` set, ``result`` = ``{"refused": {key, reason,
detail}}``, ``last_error``), reports it to `on_error` (the supervisor's alarm) and goes on.
What the refusal leaves open (the bets of a hand that was refused) stays in play in the ledger
until the round is resolved, visible to `ledger check --all-closed`; `refused()` lists them.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from station.core.outbox import OUTBOX_SCHEMA, enqueue  # noqa: F401 - the journal side
from station.settlement.core import BatchOutcome, SettlementRefused


class TransportError(Exception):
    """The settlement core could not be reached or did not answer properly; retry later."""


class Transport(Protocol):
    def deliver(self, messages: list[dict[str, Any]]) -> BatchOutcome:
        """Apply messages in order; results for the applied prefix, and a refusal if any."""
        ...

    def close(self) -> None: ...


ErrorHandler = Callable[[Exception, "str | None"], None]


class DeliveryWorker:
    """Delivers the outbox of the journal file at `journal_db_path` through `transport`.

    `start()` runs it on a background thread that also polls (the table core may write the
    outbox without calling `wake()`); `drain()` delivers everything pending, from whichever
    thread calls it. Errors go to `on_error(exception, message_key)` on every failed attempt,
    and once for each refused message (a `SettlementRefused`).
    """

    def __init__(
        self,
        journal_db_path: str | Path,
        transport: Transport,
        *,
        on_error: ErrorHandler | None = None,
        batch_size: int = 500,
        poll_interval: float = 0.2,
        first_backoff: float = 0.05,
        max_backoff: float = 5.0,
        reconcile_every_s: float = 10.0,
        resend_after_s: float = 60.0,
    ) -> None:
        self.journal_db_path = Path(journal_db_path)
        self.transport = transport
        self.on_error = on_error
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.first_backoff = first_backoff
        self.max_backoff = max_backoff
        self.last_error: Exception | None = None
        self.delivered = 0
        #: messages answered with a refusal since start (each reported to on_error)
        self.refused_count = 0
        self._conn = sqlite3.connect(
            str(self.journal_db_path), isolation_level=None, check_same_thread=False
        )
        self._conn.execute("PRAGMA busy_timeout = 10000")
        self._conn.execute("PRAGMA journal_mode = WAL")
        # A lost "delivered" mark only causes an idempotent redelivery, so the mark need not
        # wait for fsync; the message itself was made durable by the table core's commit.
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.executescript(OUTBOX_SCHEMA)
        self._lock = threading.Lock()  # one delivery at a time, whoever calls
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._backoff = 0.0
        #: confirmed but not yet marked: (seq, result json). Marking takes the journal's write
        #: lock, which the table core holds through each commit's fsync; waiting for it in
        #: SQLite's busy handler (sleeps of 1, 2, 5, 10… ms) would hold the next message
        #: back. So a mark that finds the lock taken is kept and written with the next
        #: cycle's; the worker never sends these again meanwhile. A crash before the mark
        #: only means an idempotent redelivery.
        self._unmarked: list[tuple[int, str]] = []
        self._confirmed_seq = 0
        #: reconciliation with a ledger that reports its progress (the studio bus): how
        #: often to ask, and how long a delivered message may stay unconfirmed, with the
        #: ledger's progress standing still, before it is sent again
        self.reconcile_every_s = reconcile_every_s
        self.resend_after_s = resend_after_s
        self._next_reconcile = time.monotonic() + reconcile_every_s
        self._ledger_seq: int | None = None
        #: messages sent again because the ledger did not confirm them
        self.resent = 0
        from station.metrics import REGISTRY, SETTLEMENT_LATENCY

        self._ack_latency = REGISTRY.histogram(SETTLEMENT_LATENCY, "outbox to settlement acknowledgement")

    # -- control ------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="settlement-delivery", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread (after its current attempt) and close the worker's connection.
        Final: a stopped worker is not started again (make a new one)."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        with self._lock:
            try:
                self._flush_marks(wait=True)
            except sqlite3.Error:
                pass  # unmarked rows are delivered again by the next worker: idempotent
            self._conn.close()

    def wake(self) -> None:
        """Tell the worker something was enqueued (it would find it at the next poll anyway)."""
        self._wake.set()

    def drain(self, timeout: float = 30.0) -> bool:
        """Deliver everything pending now, in order. False if the time ran out first."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with self._lock:
                    if self._cycle() == 0:
                        self._flush_marks(wait=True)
                        return True
                self._backoff = 0.0
            except Exception as exc:  # noqa: BLE001 - every failure is reported and retried
                self._failed(exc)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                time.sleep(min(self._backoff, remaining))
            if time.monotonic() >= deadline:
                return self.pending() == 0

    def pending(self) -> int:
        """Messages not yet confirmed. Its own connection: a delivery in progress (a slow
        service) must not hold up the supervisor's screen asking."""
        conn = sqlite3.connect(str(self.journal_db_path), timeout=10)
        try:
            unmarked = conn.execute(
                "SELECT COUNT(*) FROM settlement_outbox WHERE delivered_at IS NULL"
            ).fetchone()[0]
            return max(0, unmarked - len(self._unmarked))  # confirmed, mark still to write
        finally:
            conn.close()

    # -- delivery -----------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                with self._lock:
                    delivered = self._cycle()
            except Exception as exc:  # noqa: BLE001 - reported, then retried after backoff
                self._failed(exc)
                self._wake.clear()
                self._stopping.wait(self._backoff)
                continue
            self._backoff = 0.0
            if delivered == 0 and time.monotonic() >= self._next_reconcile:
                self._next_reconcile = time.monotonic() + self.reconcile_every_s
                try:
                    with self._lock:
                        if self.reconcile():
                            continue
                except Exception as exc:  # noqa: BLE001 - reported; delivery goes on
                    self._report(exc, None)
            if delivered == 0:
                # marks still to write: try again soon, when the table core is not committing
                self._wake.wait(min(self.poll_interval, 0.02) if self._unmarked
                                else self.poll_interval)

    def _failed(self, exc: Exception) -> None:
        self._backoff = min(self.max_backoff, max(self.first_backoff, self._backoff * 2))
        self._report(exc, exc.key if isinstance(exc, SettlementRefused) else None)

    def _report(self, exc: Exception, key: str | None) -> None:
        self.last_error = exc
        if self.on_error is not None:
            try:
                self.on_error(exc, key)
            except Exception:  # noqa: BLE001 - a broken reporter must not stop delivery
                pass

    def refused(self) -> list[dict[str, Any]]:
        """Messages the settlement core refused (each alarmed once when it was answered)."""
        conn = sqlite3.connect(str(self.journal_db_path), timeout=10)
        try:
            rows = conn.execute(
                "SELECT key, kind, result, delivered_at FROM settlement_outbox"
                " WHERE result LIKE '{\"refused\":%' ORDER BY seq").fetchall()
        finally:
            conn.close()
        return [{"key": k, "kind": kind, "refused": json.loads(r)["refused"], "at": at}
                for k, kind, r, at in rows]

    def _cycle(self) -> int:
        """Deliver one batch; the number delivered (0: nothing pending). Raises on failure."""
        found = self._conn.execute(
            "SELECT seq, key, body, kind, enqueued_at FROM settlement_outbox WHERE delivered_at IS NULL"
            " AND seq > ? ORDER BY seq LIMIT ?",
            (self._confirmed_seq, self.batch_size),
        ).fetchall()
        rows = [(seq, key, body) for seq, key, body, _, _ in found]
        if not rows:
            self._flush_marks(wait=False)
            return 0
        messages = [json.loads(body) for _, _, body in rows]
        try:
            if getattr(self.transport, "numbered", False):
                # the ledger applies a table's messages in outbox order (docs/studio.md)
                outcome = self.transport.deliver(messages, seqs=[seq for seq, _, _ in rows])
            else:
                outcome = self.transport.deliver(messages)
        except Exception as exc:
            self._note_attempt(rows[0][0], repr(exc))
            raise
        applied = outcome.results
        if len(applied) > len(rows):
            raise TransportError(f"the core confirmed {len(applied)} of {len(rows)} messages")
        if applied:
            self._unmarked.extend(
                (seq, json.dumps(result, separators=(",", ":")))
                for (seq, _, _), result in zip(rows, applied, strict=False))
            self._confirmed_seq = rows[len(applied) - 1][0]
            self.delivered += len(applied)
            self._observe_acks(found[:len(applied)], messages)
        if outcome.refused is not None:
            if len(applied) >= len(rows):
                raise TransportError("the core refused a message it was not given")
            seq, key, _ = rows[len(applied)]
            if outcome.refused.key not in (None, key):
                raise TransportError(f"the core refused {outcome.refused.key}, expected {key}")
            self._flush_marks(wait=True)
            self._mark_refused(seq, outcome.refused)
            self._confirmed_seq = seq
            self._report(outcome.refused, key)
            return len(applied) + 1
        self._flush_marks(wait=False)
        return len(applied)

    def reconcile(self) -> int:
        """Ask the ledger how far it has this table's outbox; send again, in order, what it
        still lacks if the transport confirmed it more than `resend_after_s` ago and the
        ledger's progress has not moved since the last time we asked (a message the stream
        lost, or a gap the ledger waits on; a consumer that is merely behind moves on).
        Returns how many messages are to be sent again. Callers hold the worker's lock."""
        ask = getattr(self.transport, "applied_up_to", None)
        if ask is None:
            return 0
        seq = ask()
        before, self._ledger_seq = self._ledger_seq, seq
        if seq is None or seq != before:
            return 0
        self._flush_marks(wait=True)
        now = time.time()
        stale = self._conn.execute(
            "SELECT COUNT(*), MIN(delivered_at) FROM settlement_outbox WHERE seq > ?"
            " AND delivered_at IS NOT NULL AND result NOT LIKE '{\"refused\":%'", (seq,)).fetchone()
        if not stale[0] or now - stale[1] < self.resend_after_s:
            return 0
        self._conn.execute(
            "UPDATE settlement_outbox SET delivered_at = NULL, result = NULL,"
            " last_error = 'sent again: the ledger has the outbox only up to ' || ?"
            " WHERE seq > ? AND delivered_at IS NOT NULL AND result NOT LIKE '{\"refused\":%'",
            (seq, seq))
        self._confirmed_seq = min(self._confirmed_seq, seq)
        again = getattr(self.transport, "sending_again", None)
        if again is not None:
            again(self._conn.execute("SELECT MAX(seq) FROM settlement_outbox").fetchone()[0])
        self.resent += stale[0]
        self._report(TransportError(f"the ledger has this table's outbox only up to {seq}: "
                                    f"sending {stale[0]} messages again"), None)
        return int(stale[0])
    def _observe_acks(self, found: list[tuple[Any, ...]], messages: list[dict[str, Any]]) -> None:
        """Outbox to settlement acknowledgement, per message kind (a hand, a bet...)."""
        now = time.time()
        for (_, _, _, kind, enqueued_at), message in zip(found, messages, strict=False):
            self._ack_latency.observe(max(0.0, now - enqueued_at), kind=kind,
                                      table=str(message.get("table", "")))

    def _flush_marks(self, *, wait: bool) -> None:
        """Mark what the transport confirmed; without `wait`, only if the journal's write
        lock is free right now (else with the next cycle)."""
        if not self._unmarked:
            return
        if not wait:
            self._conn.execute("PRAGMA busy_timeout = 0")
        try:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                if wait:
                    raise
                return  # the table core is committing: mark with the next cycle
        finally:
            if not wait:
                self._conn.execute("PRAGMA busy_timeout = 10000")
        try:
            self._conn.executemany(
                "UPDATE settlement_outbox SET delivered_at = ?, attempts = attempts + 1,"
                " last_error = NULL, result = ? WHERE seq = ?",
                [(time.time(), result, seq) for seq, result in self._unmarked],
            )
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._unmarked.clear()

    def _mark_refused(self, seq: int, refused: SettlementRefused) -> None:
        """The message was answered with a refusal: on record, and out of the queue."""
        self._conn.execute(
            "UPDATE settlement_outbox SET delivered_at = ?, attempts = attempts + 1,"
            " last_error = ?, result = ? WHERE seq = ?",
            (time.time(), str(refused)[:2000],
             json.dumps({"refused": refused.as_dict()}, separators=(",", ":")), seq),
        )
        self.refused_count += 1

    def _note_attempt(self, seq: int, error: str) -> None:
        try:
            self._conn.execute(
                "UPDATE settlement_outbox SET attempts = attempts + 1, last_error = ? WHERE seq = ?",
                (error[:2000], seq),
            )
        except sqlite3.Error:
            pass  # the note is for the supervisor's screen; the retry does not depend on it
