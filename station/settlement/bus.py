"""The studio bus on NATS JetStream: what leaves each table, and the settlement that takes it.

Subjects, one per table (a table's name is a subject token: letters, digits, ``-``, ``_``):

- ``studio.settle.<table>``: the table's outbox messages (wallet sets, bets, hands, cancelled
  rounds), in outbox order, each with the header ``Nats-Msg-Id: <table>:<key>`` so the stream
  drops a message published twice within its duplicate window (a station that crashed between
  the stream's acknowledgement and marking the row delivered publishes it again);
- ``studio.state.<table>``: the table's public state for the studio console (the stream keeps
  the latest per table);
- ``studio.alarm.<table>``: what the settlement service refused of the table's messages.

The station side is `NatsTransport`, a transport of the existing `DeliveryWorker`: a message
counts as delivered once the stream has stored it (its acknowledgement names the stream
sequence). Messages are published one after the other, each only after the previous one is
acknowledged, so a table's messages are in the stream in outbox order even across failures
(bets before their hand). A station that cannot reach the bus keeps running on its journal
and outbox: delivery fails fast, the worker retries with backoff, and catches up when the bus
is back; nothing is lost (the outbox row stays until the stream has it) and nothing is applied
twice (the stream's dedup, and behind it the ledger's (table, key) idempotency).

The settlement side is `BusConsumer`: a durable pull consumer on ``studio.settle.*``; each
fetched batch is applied to the ledger in order (`SettlementCore.apply_batch`, one commit per
run of messages between refusals) and acknowledged only after that commit. A refused message
is recorded in the ledger, published on the table's alarm subject and acknowledged: it never
holds up the queue. If the ledger is unreachable the batch is kept and retried (its deadline
extended), so nothing is redelivered out of order while the consumer lives; if the consumer
dies before acknowledging, JetStream redelivers and the ledger answers repeats with their
first result.

One consumer process per durable name applies the studio's messages in stream order. To scale
out, give each settlement process its own durable and its own tables (``--tables``; docs/studio.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from station.settlement.core import BatchOutcome, SettlementCore, SettlementRefused
from station.settlement.outbox import TransportError
from station.settlement.partitions import Partition

log = logging.getLogger(__name__)

SETTLE_STREAM = "STUDIO_SETTLE"
STATE_STREAM = "STUDIO_STATE"
ALARM_STREAM = "STUDIO_ALARM"
SETTLE_PREFIX = "studio.settle."
STATE_PREFIX = "studio.state."
ALARM_PREFIX = "studio.alarm."
#: request/reply: a table's bet intake reserves a bet in the studio ledger before accepting it
RESERVE_PREFIX = "studio.reserve."
RESERVE_QUEUE = "reserve"
DEFAULT_DURABLE = "settlement"
#: how long the stream remembers message ids to drop duplicates, seconds
DUPLICATE_WINDOW_S = 600.0
#: how long the settlement messages are kept in the stream after they were stored, seconds
SETTLE_MAX_AGE_S = 7 * 24 * 3600.0
MSG_ID_HEADER = "Nats-Msg-Id"
#: the message's sequence in its table's outbox: the ledger applies a table's messages in it
OUTBOX_SEQ_HEADER = "Studio-Outbox-Seq"
#: on a settle message the bus would not carry (too large), put there in its place: the reason
REFUSED_HEADER = "Studio-Refused"
#: request/reply: a station asks how far the ledger has applied its outbox (reconciliation)
APPLIED_PREFIX = "studio.applied."
#: a station says it is on the bus (when it connects, before it deals): the settlement process
#: whose partition the table hashes to takes its durable then, not at its first message
HELLO_PREFIX = "studio.hello."
#: the fewest messages one durable's fetch takes when a round's budget is shared out
MIN_SHARE = 4
#: how long a round of fetches (one transaction) is meant to take, seconds: every table's next
#: message waits for the round before it, so a flood's rounds are cut to this (by the time a
#: message has been taking to apply lately) and a paced table's message is never long behind
ROUND_TARGET_S = 0.03
#: the same while no table with only a burst to apply has come for LIGHT_MEMORY_S: nobody is
#: waiting behind a backlog but the backlog itself, which goes faster in longer rounds
#: (longer runs of a table's bets, fewer commits)
BACKLOG_ROUND_TARGET_S = 0.25
LIGHT_MEMORY_S = 2.0
#: a durable with fewer messages waiting than this has them all in the next round
BURST = 32
#: what a message is taken to cost to apply before any round was timed, seconds (a slow
#: ledger's: a consumer started into a flood does not begin with a round of `batch`)
FIRST_GUESS_PER_MESSAGE_S = 0.002
#: how long a settlement process's lease on a durable lasts without renewal, seconds
LEASE_S = 10.0
#: how long a message after a gap waits before it is offered again, seconds
GAP_WAIT_S = 1.0
#: after the first message of a fetch, how long the consumer waits for the ones the stream said
#: were waiting behind it (they are there: the pull ends as they come, well before), seconds
FOLLOW_UP_S = 0.5
_TABLE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def check_table_name(table: str) -> str:
    if not isinstance(table, str) or not _TABLE_NAME.match(table):
        raise ValueError(f"a table name on the bus is 1-64 letters, digits, '-' or '_': {table!r}")
    return table


async def ensure_streams(js: Any) -> None:
    """Create the studio's streams if they do not exist (idempotent; several processes may)."""
    from nats.js import api
    from nats.js.errors import BadRequestError, NotFoundError

    wanted = [
        api.StreamConfig(name=SETTLE_STREAM, subjects=[SETTLE_PREFIX + "*"],
                         storage=api.StorageType.FILE, retention=api.RetentionPolicy.LIMITS,
                         duplicate_window=DUPLICATE_WINDOW_S, max_age=SETTLE_MAX_AGE_S),
        api.StreamConfig(name=STATE_STREAM, subjects=[STATE_PREFIX + "*"],
                         storage=api.StorageType.FILE, max_msgs_per_subject=1,
                         duplicate_window=10.0),
        api.StreamConfig(name=ALARM_STREAM, subjects=[ALARM_PREFIX + "*"],
                         storage=api.StorageType.FILE, max_msgs_per_subject=1000,
                         max_age=SETTLE_MAX_AGE_S),
    ]
    for config in wanted:
        try:
            await js.stream_info(config.name)
        except NotFoundError:
            try:
                await js.add_stream(config)
            except BadRequestError:
                await js.stream_info(config.name)  # another process made it meanwhile


class _LoopThread:
    """An asyncio loop on its own thread, for callers that are threads (the delivery worker)."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Any, timeout_s: float) -> Any:
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout_s)
        except FutureTimeout:
            future.cancel()
            raise

    def stop(self) -> None:
        """Cancel what still runs on the loop (client tasks of nats-py), then end it."""

        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        if self._thread.is_alive():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(5)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(5)
        with contextlib.suppress(RuntimeError):
            self.loop.close()


async def _connect(url: str, name: str, on_reconnect: Callable[[], Any] | None = None) -> Any:
    # `nats.js` imported whole here: the client reaches it as an attribute, which a table's
    # thread could otherwise see half-imported while another thread's first use imports it
    import nats
    import nats.js  # noqa: F401

    async def quiet(exc: Exception) -> None:  # reconnects are normal; the caller reports
        log.debug("bus %s: %s", name, exc)

    async def reconnected() -> None:
        if on_reconnect is not None:
            on_reconnect()

    return await nats.connect(
        servers=[url], name=name, connect_timeout=2, allow_reconnect=True,
        reconnected_cb=reconnected,
        max_reconnect_attempts=-1, reconnect_time_wait=0.5, error_cb=quiet,
        # nothing is buffered while disconnected: a publish then fails at once and the
        # outbox keeps the message, instead of a second copy waiting in a client buffer
        pending_size=0,
    )


class NatsTransport:
    """The station's outbox to the studio bus, for one table (a `Transport`)."""

    def __init__(self, url: str, table: str, *, publish_timeout_s: float = 5.0) -> None:
        self.url = url
        self.table = check_table_name(table)
        self.subject = SETTLE_PREFIX + table
        self.publish_timeout_s = publish_timeout_s
        self._loop = _LoopThread(f"bus-{table}")
        self._nc: Any = None
        self._js: Any = None
        self._again = 0
        self._again_upto = 0

    async def _ensure(self) -> Any:
        if self._nc is None or self._nc.is_closed:
            self._nc = await _connect(self.url, f"station-{self.table}")
            self._js = self._nc.jetstream(timeout=self.publish_timeout_s)
            await ensure_streams(self._js)
            # the settlement process of our partition takes our durable before the first
            # message (a table's first messages, its players' wallets, wait for nobody)
            with contextlib.suppress(Exception):
                await self._nc.publish(HELLO_PREFIX + self.table, b"")
        if not self._nc.is_connected:
            raise TransportError(f"the studio bus at {self.url} is not reachable (reconnecting)")
        return self._js

    def connect(self, timeout_s: float = 5.0) -> bool:
        """Connect now (and make sure the streams exist) rather than at the first message, as
        a station does when it starts; False if the bus is not there (delivery retries)."""
        try:
            self._loop.run(self._ensure(), timeout_s)
        except Exception:  # noqa: BLE001 - the first delivery will say why
            return False
        return True

    #: the delivery worker passes each message's outbox sequence (`deliver(..., seqs=)`)
    numbered = True
    #: publishes in flight at once: a burst is not a round trip per message
    WINDOW = 128

    async def _publish(self, messages: list[dict[str, Any]],
                       seqs: list[int] | None = None) -> BatchOutcome:
        outcome = BatchOutcome()
        try:
            js = await self._ensure()
        except TransportError:
            raise
        except Exception as exc:  # noqa: BLE001 - whatever nats raises, the bus is not there
            raise TransportError(f"the studio bus at {self.url} is not reachable: {exc!r}") from exc
        limit = self._nc.max_payload
        bodies = [json.dumps(m, separators=(",", ":"), ensure_ascii=False).encode()
                  for m in messages]
        for start in range(0, len(messages), self.WINDOW):
            chunk = range(start, min(len(messages), start + self.WINDOW))
            big = next((i for i in chunk if limit and len(bodies[i]) > limit), None)
            if big == start:
                # the bus will never carry it: refused for good, alarmed on the table's alarm
                # subject as settlement alarms, and the messages behind it flow
                if outcome.results:
                    return outcome
                return await self._too_large(js, messages[big], len(bodies[big]), limit,
                                             None if seqs is None else seqs[big])
            if big is not None:
                chunk = range(start, big)
            # Published together, acknowledged each on its own: the connection carries them
            # in order, so the stream stores them in order; should one fail and a later one
            # be stored, the later one carries its outbox sequence and the ledger holds it
            # until the missing one comes again (the prefix confirmed here is what is marked).
            acks = await asyncio.gather(*(self._publish_one(js, messages[i], bodies[i],
                                                           None if seqs is None else seqs[i])
                                          for i in chunk), return_exceptions=True)
            for i, ack in zip(chunk, acks, strict=True):
                key = messages[i].get("key")
                if isinstance(ack, BaseException):
                    if outcome.results:
                        return outcome
                    raise TransportError(f"publishing {key} to the studio bus failed: {ack!r}")
                outcome.results.append({"key": key, "kind": messages[i].get("kind"),
                                        "bus": {"stream": ack.stream, "seq": ack.seq,
                                                "duplicate": bool(ack.duplicate)}})
            if big is not None:
                return outcome  # the large one heads the next delivery
        return outcome

    async def _publish_one(self, js: Any, message: dict[str, Any], body: bytes,
                           seq: int | None) -> Any:
        msg_id = f"{self.table}:{message.get('key')}"
        if seq is not None and seq <= self._again_upto:
            # sent again because the ledger lacks it: the stream may still remember the id of
            # a copy it lost, and would drop this one (the ledger's keys answer any repeat)
            msg_id += f":again{self._again}"
        headers = {MSG_ID_HEADER: msg_id}
        if seq is not None:
            headers[OUTBOX_SEQ_HEADER] = str(seq)
        return await js.publish(self.subject, body, timeout=self.publish_timeout_s,
                                stream=SETTLE_STREAM, headers=headers)

    async def _too_large(self, js: Any, message: dict[str, Any], size: int,
                         limit: int, seq: int | None = None) -> BatchOutcome:
        key = message.get("key") if isinstance(message.get("key"), str) else ""
        refused = SettlementRefused(key, "too_large", f"the message is {size} bytes; the studio "
                                    f"bus carries at most {limit} (nats-server max_payload)")
        alarm = dict(refused.as_dict(), table=self.table, kind=message.get("kind"),
                     refused_at="bus", t=time.time())
        try:
            await js.publish(ALARM_PREFIX + self.table, json.dumps(alarm).encode(),
                             timeout=self.publish_timeout_s, stream=ALARM_STREAM)
            if seq is not None:
                # in its place on the table's subject, so the ledger records the refusal and
                # its outbox sequence counts as answered (the ledger waits for no gap)
                stub = {"key": key, "kind": message.get("kind"), "bytes": size,
                        "refused_at": "bus", "detail": refused.detail}
                await js.publish(self.subject, json.dumps(stub).encode(),
                                 timeout=self.publish_timeout_s, stream=SETTLE_STREAM,
                                 headers={MSG_ID_HEADER: f"{self.table}:{key}",
                                          OUTBOX_SEQ_HEADER: str(seq), REFUSED_HEADER: "too_large"})
        except Exception as exc:  # noqa: BLE001 - not alarmed yet: hold and retry
            raise TransportError(f"alarming the refusal of {key} failed: {exc!r}") from exc
        return BatchOutcome(results=[], refused=refused)

    def deliver(self, messages: list[dict[str, Any]], *,
                seqs: list[int] | None = None) -> BatchOutcome:
        try:
            return self._loop.run(self._publish(messages, seqs),
                                  self.publish_timeout_s * (len(messages) // self.WINDOW + 3))
        except FutureTimeout:
            raise TransportError(f"the studio bus at {self.url} did not answer in time") from None

    def sending_again(self, up_to_seq: int) -> None:
        """The delivery worker sends the outbox again up to `up_to_seq` (reconciliation)."""
        self._again += 1
        self._again_upto = up_to_seq

    def applied_up_to(self, timeout_s: float = 2.0) -> int | None:
        """How far the studio ledger has answered this table's outbox (its highest outbox
        sequence), or None when no settlement process answered or it never heard of the table.
        Raises TransportError when the bus is not there."""
        async def ask() -> Any:
            await self._ensure()
            reply = await self._nc.request(APPLIED_PREFIX + self.table, b"", timeout=timeout_s)
            return json.loads(reply.data).get("outbox_seq")

        try:
            seq = self._loop.run(ask(), timeout_s + 2.0)
        except Exception as exc:  # noqa: BLE001 - no answer: nothing to reconcile now
            raise TransportError(f"the ledger's progress of {self.table} is unknown: {exc!r}") from exc
        return seq if isinstance(seq, int) else None

    def close(self) -> None:
        async def shut() -> None:
            if self._nc is not None and not self._nc.is_closed:
                with contextlib.suppress(Exception):
                    await self._nc.close()

        with contextlib.suppress(Exception):
            self._loop.run(shut(), 5)
        self._loop.stop()


class StatePublisher:
    """A table's public state for the studio console: the latest only, best effort.

    `publish(state)` never blocks the table: the state is handed to the bus thread, which
    keeps the newest one while the bus is unreachable and sends it when it is back.
    """

    def __init__(self, url: str, table: str) -> None:
        self.url = url
        self.table = check_table_name(table)
        self.subject = STATE_PREFIX + table
        self._loop = _LoopThread(f"state-{table}")
        self._latest: dict[str, Any] | None = None
        self._nc: Any = None
        self._event = asyncio.Event()
        self._task = asyncio.run_coroutine_threadsafe(self._run(), self._loop.loop)

    def publish(self, state: dict[str, Any]) -> None:
        self._latest = dict(state, table=self.table)
        self._loop.loop.call_soon_threadsafe(self._event.set)

    async def _run(self) -> None:
        nc = None
        try:
            await self._publish_loop()
        finally:
            nc = self._nc
            if nc is not None and not nc.is_closed:
                with contextlib.suppress(Exception):
                    await nc.close()

    async def _publish_loop(self) -> None:
        while True:
            await self._event.wait()
            self._event.clear()
            state = self._latest
            if state is None:
                continue
            try:
                if self._nc is None or self._nc.is_closed:
                    self._nc = await _connect(self.url, f"state-{self.table}")
                    await ensure_streams(self._nc.jetstream())
                nc = self._nc
                if not nc.is_connected:
                    raise ConnectionError("reconnecting")
                await nc.jetstream().publish(self.subject, json.dumps(state).encode(),
                                             timeout=2, stream=STATE_STREAM)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the console can wait; try again soon
                log.debug("state of %s not published: %s", self.table, exc)
                await asyncio.sleep(0.5)
                if self._latest is state:
                    self._event.set()

    def close(self) -> None:
        self._loop.stop()  # cancels the publishing task, which closes its connection


class Reserver:
    """A table asking the studio ledger to reserve a bet at its intake, or a pot game's draw
    on a wallet (an ante, a bet, a buy-in: a `pot_in`) before its game takes it
    (docs/studio.md).

    `reserve(bet)` sends the message the outbox will carry (same key) and returns the
    ledger's answer, which the table journals as an input and decides the bet from:
    ``{"answer": "reserved", "result": {...}}``, ``{"answer": <refusal reason>, "detail"}``
    (``insufficient_funds``, ``no_wallet``, …) or ``{"answer": "unavailable", "detail"}`` when
    no answer came within `timeout_s` (the table then rejects the bet; a reservation that
    committed anyway is released when the round closes without it).
    """

    def __init__(self, url: str, table: str) -> None:
        self.url = url
        self.table = check_table_name(table)
        self.subject = RESERVE_PREFIX + table
        self._loop = _LoopThread(f"reserve-{table}")
        self._nc: Any = None

    async def _request(self, body: bytes, timeout_s: float) -> dict[str, Any]:
        if self._nc is None or self._nc.is_closed:
            self._nc = await _connect(self.url, f"reserve-{self.table}")
        if not self._nc.is_connected:
            raise ConnectionError("the studio bus is reconnecting")
        reply = await self._nc.request(self.subject, body, timeout=timeout_s)
        return json.loads(reply.data)

    def reserve(self, bet: dict[str, Any], *, timeout_s: float = 0.3) -> dict[str, Any]:
        body = json.dumps(bet, separators=(",", ":")).encode()
        try:
            return self._loop.run(self._request(body, timeout_s), timeout_s + 2.0)
        except Exception as exc:  # noqa: BLE001 - no answer is an answer: unavailable
            return {"answer": "unavailable", "detail": repr(exc)[:300]}

    def close(self) -> None:
        async def shut() -> None:
            if self._nc is not None and not self._nc.is_closed:
                with contextlib.suppress(Exception):
                    await self._nc.close()

        with contextlib.suppress(Exception):
            self._loop.run(shut(), 5)
        self._loop.stop()


CommitHandler = Callable[[list[tuple[str, dict[str, Any]]], float], None]


async def _quietly(coro: Any) -> None:
    with contextlib.suppress(Exception):
        await coro


def _header_int(headers: Any, name: str) -> int | None:
    value = (headers or {}).get(name)
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


class _Item:
    """One message of a table to apply: from a fetch (`msg`) or read from the stream (None)."""

    __slots__ = ("table", "data", "msg", "outbox_seq", "stream_seq", "refused_at_bus")

    def __init__(self, table: str, data: bytes, msg: Any, headers: Any, stream_seq: int | None):
        self.table = table
        self.data = data
        self.msg = msg
        self.outbox_seq = _header_int(headers, OUTBOX_SEQ_HEADER)
        self.stream_seq = stream_seq
        self.refused_at_bus = (headers or {}).get(REFUSED_HEADER)


class BusConsumer:
    """The settlement service on the bus: durable consumers applying to one ledger.

    Without `tables` or `partition`, one durable (`durable`) takes every table's messages.
    With either, this process owns a partition: a durable per table (``<durable>-<table>``),
    the tables named, or (`partition`) every table on the bus whose name hashes to it, found as
    they appear. Each durable is leased in the ledger (`station.settlement.ledger.progress`): a
    second process on it waits as a standby and takes over when the lease runs out (the owner
    died) or is released (it stopped, or the partitions were re-drawn).

    Each round of fetches (all the durables' at once) is applied in one transaction, grouped
    by table (each table's messages in its order; across tables nothing is ordered) so runs of
    a table's bets take the core's fast path, and acknowledged after the commit. A message
    carrying its outbox sequence is applied only in that order: one after a gap waits
    (negatively acknowledged, redelivered later) for the missing one, which the station
    re-sends when it sees the ledger's progress behind what it published.

    `run()` blocks until `stop()`; `on_commit(applied, t)` gets the (table, result) pairs of
    each commit and the time just after it (for the studio benchmark's latency figures).
    """

    def __init__(self, core: SettlementCore, url: str, *, durable: str = DEFAULT_DURABLE,
                 tables: Sequence[str] | None = None, batch: int = 1024,
                 ack_wait_s: float = 30.0, on_commit: CommitHandler | None = None,
                 on_refused: Callable[[str, SettlementRefused], None] | None = None,
                 serve_reservations: bool = True, partition: Partition | None = None,
                 lease_s: float = LEASE_S, owner: str | None = None,
                 gap_wait_s: float = GAP_WAIT_S) -> None:
        from station.settlement.ledger import progress

        self.core = core
        self.serve_reservations = serve_reservations
        self.url = url
        self.durable = durable
        if tables and partition is not None:
            raise ValueError("a partition is by hash or by a list of tables, not both")
        self.tables = [check_table_name(t) for t in tables] if tables else None
        self.partition = partition
        self.batch = batch
        self.ack_wait_s = ack_wait_s
        self.on_commit = on_commit
        self.on_refused = on_refused
        self.lease_s = lease_s
        self.gap_wait_s = gap_wait_s
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.applied = 0
        self.refused = 0
        self.redelivered = 0
        #: messages read back from the stream that a previous owner (or this process before
        #: its connection dropped) was given and did not acknowledge (`_recover_pending`)
        self.recovered = 0
        #: messages held back because one before them (by outbox sequence) was missing
        self.held = 0
        #: gaps seen: (table, expected outbox seq, seq that came)
        self.gaps: list[tuple[str, int, int]] = []
        #: gaps seen since the process started (the list keeps only the last 100)
        self.gaps_seen = 0
        #: when the last commit was (time.time()), for the status
        self.last_commit_at: float | None = None
        self._progress = progress
        progress.ensure_progress_tables(core.store)
        self._stopping = threading.Event()
        self._reconnected = threading.Event()
        #: durable -> (subject, table or None for the all-tables durable)
        self._durables: dict[str, tuple[str, str | None]] = {}
        self._subs: dict[str, Any] = {}
        #: next outbox sequence expected per table (from the ledger's progress)
        self._next_seq: dict[str, int] = {}
        #: gaps seen per table, not yet counted in the ledger's table_progress
        self._gap_counts: Counter = Counter()
        #: tables that said they are on the bus (HELLO_PREFIX) and may have sent nothing yet
        self._announced: set[str] = set()
        self._hello: asyncio.Event | None = None
        #: seconds a message has taken to apply lately (a first guess until rounds are timed)
        self._per_message_s = FIRST_GUESS_PER_MESSAGE_S
        #: durables that brought messages to the last round
        self._active = 1
        #: when a durable last brought a burst, not a backlog (time.monotonic())
        self._light_at = -LIGHT_MEMORY_S
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def partitioned(self) -> bool:
        return self.tables is not None or self.partition is not None

    def owned_durables(self) -> list[str]:
        return sorted(self._subs)

    def stop(self) -> None:
        self._stopping.set()

    def reassign(self, *, tables: Sequence[str] | None = None,
                 partition: Partition | None = None) -> None:
        """Re-draw this process's partition while it runs: within a couple of seconds it
        releases the tables it no longer owns (their next owner then takes them, first
        applying what this one left unacknowledged) and takes the new ones when free."""
        if not self.partitioned:
            raise ValueError("only a partitioned consumer (tables or partition) is re-drawn")
        if (tables is None) == (partition is None):
            raise ValueError("a partition is by hash or by a list of tables: give one")
        self.tables = [check_table_name(t) for t in tables] if tables is not None else None
        self.partition = partition

    def run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        nc = None
        while not self._stopping.is_set():
            try:
                nc = await _connect(self.url, f"settlement-{self.durable}",
                                    on_reconnect=self._reconnected.set)
                break
            except Exception as exc:  # noqa: BLE001 - the bus may come up after us
                log.warning("settlement: the studio bus at %s is not reachable: %s", self.url, exc)
                await asyncio.sleep(1.0)
        if nc is None:
            return
        fetches: dict[str, asyncio.Task] = {}
        try:
            js = nc.jetstream(timeout=10)
            if self.serve_reservations:
                # a queue group: every settlement process may answer, standbys too; each bet
                # is row-locked on its wallet and keyed by (table, key), so answering twice is
                # harmless
                await nc.subscribe(RESERVE_PREFIX + "*", queue=RESERVE_QUEUE, cb=self._reserve)
            # a station asks how far the ledger is with its table (reconciliation)
            await nc.subscribe(APPLIED_PREFIX + "*", queue=RESERVE_QUEUE, cb=self._applied)
            self._hello = asyncio.Event()
            if self.partition is not None:  # every process hears every hello: no queue group
                await nc.subscribe(HELLO_PREFIX + "*", cb=self._on_hello)
            await self._ensure_streams(js)
            next_upkeep = 0.0
            while not self._stopping.is_set():
                if self._reconnected.is_set():
                    # messages in flight to us when the connection dropped are delivered in
                    # the bus's eyes and would come again only after their ack wait, after
                    # newer ones: apply them first, as at start-up
                    self._reconnected.clear()
                    try:
                        for durable in list(self._subs):
                            await self._recover_pending(js, durable)
                    except self._progress.LeaseLost as exc:
                        log.warning("settlement: %s", exc)
                        self._drop(fetches, list(self._subs))
                    except Exception as exc:  # noqa: BLE001 - the bus is flaky still: again
                        log.warning("settlement: recovering after a reconnect failed: %s", exc)
                        self._reconnected.set()
                        await asyncio.sleep(0.5)
                        continue
                if time.monotonic() >= next_upkeep or self._hello.is_set():
                    self._hello.clear()
                    await self._upkeep(js, fetches)
                    next_upkeep = time.monotonic() + min(2.0, self.lease_s / 4)
                for durable, sub in self._subs.items():
                    if durable not in fetches:
                        fetches[durable] = asyncio.ensure_future(self._fetch(sub))
                if not fetches:
                    await asyncio.sleep(0.2)  # a standby, or no table of ours on the bus yet
                    continue
                hello = asyncio.ensure_future(self._hello.wait())
                done, _ = await asyncio.wait([*fetches.values(), hello], timeout=0.5,
                                             return_when=asyncio.FIRST_COMPLETED)
                hello.cancel()
                if not any(task.done() for task in fetches.values()):
                    continue
                items: list[_Item] = []
                ready = [d for d, task in fetches.items() if task.done()]
                self._active = max(1, sum(1 for d in ready if fetches[d].result()))
                for durable in ready:
                    msgs = fetches.pop(durable).result()
                    items += [_Item(m.subject[len(SETTLE_PREFIX):], m.data or b"", m, m.headers,
                                    m.metadata.sequence.stream) for m in msgs]
                    # the durable's next messages come while these are applied (they are
                    # applied in a later round, after this one's commit: the order holds)
                    fetches[durable] = asyncio.ensure_future(self._fetch(self._subs[durable]))
                if items:
                    try:
                        await self._apply(js, items)
                    except self._progress.LeaseLost as exc:
                        log.warning("settlement: %s; stopping those tables", exc)
                        self._drop(fetches, list(self._subs))
        finally:
            for task in fetches.values():
                task.cancel()
            with contextlib.suppress(Exception):
                await asyncio.get_running_loop().run_in_executor(
                    None, self._progress.release, self.core.store, list(self._subs), self.owner)
            with contextlib.suppress(Exception):
                await nc.close()

    async def _ensure_streams(self, js: Any) -> None:
        while True:
            try:
                await ensure_streams(js)
                return
            except Exception as exc:  # noqa: BLE001 - retried until the bus answers
                if self._stopping.is_set():
                    raise
                log.warning("settlement: cannot reach the studio streams: %s", exc)
                await asyncio.sleep(1.0)

    def _drop(self, fetches: dict[str, asyncio.Task], durables: list[str]) -> None:
        """Stop applying these durables (their lease is another's now): what we fetched and did
        not acknowledge comes to the new owner."""
        for durable in durables:
            task = fetches.pop(durable, None)
            if task is not None:
                task.cancel()
            sub = self._subs.pop(durable, None)
            if sub is not None:
                # its pull request stays on the server until it expires: a message delivered
                # to it after the next owner read the durable's state would wait out its ack
                # wait (the table's settlement held behind it); no interest, no delivery
                asyncio.ensure_future(_quietly(sub.unsubscribe()))
            _, table = self._durables.get(durable, ("", None))
            if table is not None:
                self._next_seq.pop(table, None)
            else:
                self._next_seq.clear()

    async def _wanted(self, js: Any) -> dict[str, tuple[str, str | None]]:
        """The durables this process should apply: durable -> (subject, table or None)."""
        if not self.partitioned:
            return {self.durable: (SETTLE_PREFIX + "*", None)}
        if self.tables is not None:
            names = list(self.tables)
        else:
            info = await js.stream_info(SETTLE_STREAM, subjects_filter=SETTLE_PREFIX + "*")
            names = [s[len(SETTLE_PREFIX):] for s in (info.state.subjects or {})]
            names = [t for t in {*names, *self._announced}
                     if _TABLE_NAME.match(t) and self.partition.owns(t)]
        return {f"{self.durable}-{t}": (SETTLE_PREFIX + t, t) for t in sorted(names)}

    async def _upkeep(self, js: Any, fetches: dict[str, asyncio.Task]) -> None:
        """Renew our leases, take the free ones we should own, and subscribe to them."""
        loop = asyncio.get_running_loop()
        try:
            wanted = await self._wanted(js)
        except Exception as exc:  # noqa: BLE001 - the bus is away: next time
            log.debug("settlement: listing the tables failed: %s", exc)
            wanted = {d: self._durables[d] for d in self._subs}
        store = self.core.store
        for durable in list(self._subs):
            if durable not in wanted:  # re-drawn partitions: hand it over
                self._drop(fetches, [durable])
                with contextlib.suppress(Exception):
                    await loop.run_in_executor(None, self._progress.release, store, [durable],
                                               self.owner)
        try:
            leased = await loop.run_in_executor(None, self._progress.acquire_many, store,
                                                list(wanted), self.owner, self.lease_s)
        except Exception as exc:  # noqa: BLE001 - the ledger is away: nothing is applied
            log.warning("settlement: the ledger is not reachable for the leases: %s", exc)
            return
        new: list[str] = []
        for durable, (subject, table) in wanted.items():
            if durable not in leased:
                if durable in self._subs:
                    log.warning("settlement: the lease of %s is another process's now", durable)
                    self._drop(fetches, [durable])
                continue
            if durable not in self._subs:
                self._durables[durable] = (subject, table)
                new.append(durable)
        # the new durables' subscriptions and states asked for at once (a studio opening is a
        # hundred tables; one after the other they would hold up the rounds for a while)
        subs = await asyncio.gather(*(self._subscribe(js, d, self._durables[d][0]) for d in new),
                                    return_exceptions=True)
        infos = await asyncio.gather(*(js.consumer_info(SETTLE_STREAM, d) for d in new),
                                     return_exceptions=True)
        # the new tables' own accounts before their first messages (a commit each, which would
        # otherwise sit in a table's first round with it), in one trip off the loop
        await loop.run_in_executor(None, self._prepare_tables,
                                   [self._durables[d][1] for d in new if self._durables[d][1]])
        for durable, sub, info in zip(new, subs, infos, strict=True):
            failed = sub if isinstance(sub, BaseException) else info
            if isinstance(failed, BaseException):  # the bus is away: next time
                log.warning("settlement: cannot take %s: %s", durable, failed)
                self._drop(fetches, [durable])
                continue
            self._subs[durable] = sub
            try:
                # what the previous owner was given and did not acknowledge, first
                await self._recover_pending(js, durable, info)
            except self._progress.LeaseLost:
                self._drop(fetches, [durable])
            except Exception as exc:  # noqa: BLE001 - the bus is away: next time
                log.warning("settlement: cannot take %s: %s", durable, exc)
                self._drop(fetches, [durable])

    def _prepare_tables(self, tables: list[str]) -> None:
        for table in tables:
            try:
                self.core.prepare_table(table)
            except Exception as exc:  # noqa: BLE001 - the ledger is away: the first round makes them
                log.debug("settlement: accounts of %s not made ahead: %s", table, exc)
                return

    async def _on_hello(self, msg: Any) -> None:
        table = msg.subject[len(HELLO_PREFIX):]
        if not _TABLE_NAME.match(table) or table in self._announced:
            return
        self._announced.add(table)  # all of them: a re-drawn partition may make it ours later
        if self.partition is not None and self.partition.owns(table) and self._hello is not None:
            self._hello.set()  # take its durable now

    async def _subscribe(self, js: Any, durable: str, subject: str) -> Any:
        from nats.js import api

        config = api.ConsumerConfig(
            durable_name=durable, ack_policy=api.AckPolicy.EXPLICIT,
            deliver_policy=api.DeliverPolicy.ALL, ack_wait=self.ack_wait_s,
            max_ack_pending=max(1000, 4 * self.batch), filter_subject=subject, max_deliver=-1)
        return await js.pull_subscribe(subject, durable=durable, stream=SETTLE_STREAM,
                                       config=config)

    async def _reserve(self, msg: Any) -> None:
        table = msg.subject[len(RESERVE_PREFIX):]
        try:
            bet: Any = json.loads(msg.data)
        except ValueError:
            bet = f"not JSON: {msg.data[:200]!r}"
        loop = asyncio.get_running_loop()
        try:
            outcome = await loop.run_in_executor(
                None, lambda: self.core.apply_batch([bet], table=table, reservation=True))
        except Exception as exc:  # noqa: BLE001 - the ledger is away: the table hears so
            answer: dict[str, Any] = {"answer": "unavailable", "detail": repr(exc)[:300]}
        else:
            if outcome.refused is not None:
                answer = {"answer": outcome.refused.reason, "detail": outcome.refused.detail}
            else:
                answer = {"answer": "reserved", "result": outcome.results[0]}
        if msg.reply:
            with contextlib.suppress(Exception):
                await msg.respond(json.dumps(answer, separators=(",", ":")).encode())

    async def _applied(self, msg: Any) -> None:
        """A station asks how far the ledger is with its table: {"outbox_seq": N or null}."""
        table = msg.subject[len(APPLIED_PREFIX):]
        loop = asyncio.get_running_loop()
        try:
            up_to = await loop.run_in_executor(None, self._progress.applied_up_to,
                                               self.core.store, [table])
        except Exception as exc:  # noqa: BLE001 - the ledger is away: no answer is the answer
            log.debug("settlement: progress of %s not read: %s", table, exc)
            return
        if msg.reply:
            with contextlib.suppress(Exception):
                await msg.respond(json.dumps({"table": table,
                                              "outbox_seq": up_to.get(table)}).encode())

    async def _recover_pending(self, js: Any, durable: str, info: Any = None) -> None:
        """Apply, in stream order, what a previous consumer process was given and did not
        acknowledge (it died, or it handed the table over), or what was in flight to this one
        when its connection dropped, before anything newer.

        JetStream would redeliver those only when their ack wait runs out, after newer
        messages of the same table had been handed to us: a hand before its bets. Read
        straight from the stream by sequence (the next of the durable's subject each time),
        they are applied first; their redelivered copies later get the ledger's first
        results and are acknowledged.
        """
        from nats.js.errors import NotFoundError

        subject, _ = self._durables[durable]
        if info is None:
            info = await js.consumer_info(SETTLE_STREAM, durable)
        first, last = info.ack_floor.stream_seq + 1, info.delivered.stream_seq
        if last < first:
            return
        log.warning("settlement: %s had messages in flight up to stream sequence %d; applying"
                    " them first", durable, last)
        items: list[_Item] = []
        seq = first
        while seq <= last:
            try:
                raw = await js.get_msg(SETTLE_STREAM, seq, subject=subject, next=True)
            except NotFoundError:
                break  # nothing more of the subject in the stream
            if raw.seq is None or raw.seq > last:
                break
            items.append(_Item(raw.subject[len(SETTLE_PREFIX):], raw.data or b"", None,
                               raw.headers, raw.seq))
            seq = raw.seq + 1
        log.warning("settlement: %s: %d message(s) of %s read back from stream sequences %d-%d",
                    durable, len(items), subject, first, last)
        self.recovered += len(items)
        for i in range(0, len(items), self.batch):
            await self._apply(js, items[i:i + self.batch])

    async def _fetch(self, sub: Any) -> list[Any]:
        from nats.errors import TimeoutError as NatsTimeout

        # A long poll for one message returns the moment it arrives. The message says how
        # many more of its durable are waiting (`num_pending`): none, and the round goes
        # with it at once (a paced table's message pays no wait for company); some, and
        # exactly those are asked for, which the stream has, so the pull ends when they have
        # come rather than on a timer (a pull for more than is there would linger for the
        # rest, and one cut short by a short timer would take a few dozen of a backlog of
        # thousands per round: a commit every few dozen messages in a flood).
        try:
            msgs = await sub.fetch(1, timeout=0.5)
        except (TimeoutError, NatsTimeout):
            return []
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the bus is away; nats-py reconnects
            log.debug("settlement: fetch failed: %s", exc)
            await asyncio.sleep(0.2)
            return []
        try:
            waiting = int(msgs[-1].metadata.num_pending)
        except Exception:  # noqa: BLE001 - no metadata (not from a stream): nothing more asked
            waiting = 0
        # A round of fetches is one transaction, and every table's next message waits for
        # it: the durables that bring messages share the round's budget, so a flooding table
        # cannot make the round (and the paced tables' messages in it) long.
        share = max(MIN_SHARE, self._round_budget() // max(1, self._active))
        # a table's burst (its players' wallets at opening, a round's bets and its hand) goes
        # whole; a backlog (a flood, a table catching up) takes its share of the round
        if waiting < BURST:
            more = waiting
            self._light_at = time.monotonic()
        else:
            more = min(share - 1, waiting)
        if more > 0:
            try:
                msgs += await sub.fetch(more, timeout=FOLLOW_UP_S)
            except (TimeoutError, NatsTimeout):
                pass
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the first one is still ours to apply
                log.debug("settlement: fetch failed: %s", exc)
        return msgs

    def _round_budget(self) -> int:
        """How many messages a round may take: what applies in ROUND_TARGET_S (in
        BACKLOG_ROUND_TARGET_S while only backlogs are being applied) at the pace messages
        have been applied lately, within `batch`."""
        light = time.monotonic() - self._light_at < LIGHT_MEMORY_S
        target_s = ROUND_TARGET_S if light else BACKLOG_ROUND_TARGET_S
        return max(MIN_SHARE, min(self.batch, int(target_s / self._per_message_s)))

    def _load_next_seqs(self, tables: list[str]) -> None:
        """The next outbox sequence each table's messages must carry, from the ledger."""
        missing = [t for t in tables if t not in self._next_seq]
        if missing:
            up_to = self._progress.applied_up_to(self.core.store, missing)
            for t in missing:
                self._next_seq[t] = up_to[t] + 1 if t in up_to else 0  # 0: any first

    def _in_order(self, items: list[_Item]) -> tuple[list[_Item], list[_Item]]:
        """(what may be applied now, what waits for a message missing before it)."""
        take: list[_Item] = []
        wait: list[_Item] = []
        expected = dict(self._next_seq)
        blocked: set[str] = set()
        # by outbox sequence (stable: unnumbered ones first, in stream order): messages held
        # after a gap come back each on its own delay, in any order, mixed with newer ones; the
        # one the ledger waits for must not be held because a later one came before it
        for item in sorted(items, key=lambda i: -1 if i.outbox_seq is None else i.outbox_seq):
            seq, table = item.outbox_seq, item.table
            if seq is None:  # a station that does not number its messages: stream order
                take.append(item)
                continue
            want = expected.get(table, 0)
            if table in blocked or (want and seq > want):
                if table not in blocked:
                    self.gaps.append((table, want, seq))
                    del self.gaps[:-100]
                    self.gaps_seen += 1
                    log.warning("settlement: table %s sent outbox message %d, the ledger has it"
                                " only up to %d: holding it until the station re-sends the rest",
                                table, seq, want - 1)
                    self._gap_counts[table] += 1
                blocked.add(table)
                wait.append(item)
                continue
            if seq >= want:
                expected[table] = seq + 1
            take.append(item)  # the next one, or a repeat (the ledger answers it again)
        return take, wait

    async def _apply(self, js: Any, items: list[_Item]) -> None:
        """Apply in each table's order; acknowledge after the commit."""
        loop = asyncio.get_running_loop()
        numbered = sorted({i.table for i in items if i.outbox_seq is not None})
        backoff = 0.05
        while numbered:
            try:
                await loop.run_in_executor(None, self._load_next_seqs, numbered)
                break
            except Exception as exc:  # noqa: BLE001 - the ledger is away: keep the batch
                log.warning("settlement: the ledger is not reachable, retrying: %s", exc)
                if self._stopping.is_set():
                    return
                await self._hold(items)
                await asyncio.sleep(backoff)
                backoff = min(2.0, backoff * 2)
        items, waiting = self._in_order(items)
        for item in waiting:
            self.held += 1
            if item.msg is not None:
                with contextlib.suppress(Exception):
                    await item.msg.nak(delay=self.gap_wait_s)
        # each table's messages together, in their order: runs of bets for the fast path
        order = {t: n for n, t in enumerate(dict.fromkeys(i.table for i in items))}
        items = sorted(items, key=lambda i: order[i.table])  # stable: a table's order holds
        messages: list[Any] = []
        tables: list[str] = []
        for item in items:
            if item.refused_at_bus:
                messages.append({"__refused_at_bus__": item.refused_at_bus, "body": item.data})
            else:
                try:
                    messages.append(json.loads(item.data))
                except ValueError:
                    messages.append(f"not JSON: {item.data[:200]!r}")  # refused, on record
            tables.append(item.table)
            if item.msg is not None and item.msg.metadata.num_delivered > 1:
                self.redelivered += 1
        backoff = 0.05
        start = 0
        while start < len(messages):
            try:
                # the ledger's transactions are synchronous (psycopg): off the bus's loop
                began = time.monotonic()
                outcome, committed_at = await loop.run_in_executor(
                    None, self._apply_sync, messages[start:], tables[start:], items[start:])
                took = (time.monotonic() - began) / max(1, len(messages) - start)
                # up at once, down slowly: a round that ran slow cuts the next ones now
                self._per_message_s = max(took, 0.7 * self._per_message_s + 0.3 * took)
            except self._progress.LeaseLost:
                raise
            except Exception as exc:  # noqa: BLE001 - the ledger is away: keep the batch
                log.warning("settlement: the ledger is not reachable, retrying: %s", exc)
                await self._hold(items[start:])
                if self._stopping.is_set():
                    return
                await asyncio.sleep(backoff)
                backoff = min(2.0, backoff * 2)
                continue
            n = len(outcome.results)
            done = n + (1 if outcome.refused is not None else 0)
            for item in items[start:start + done]:
                if item.outbox_seq is not None:
                    self._next_seq[item.table] = max(self._next_seq.get(item.table, 0),
                                                     item.outbox_seq + 1)
            self.last_commit_at = committed_at
            if self.on_commit is not None and n:
                self.on_commit(list(zip(tables[start:start + n], outcome.results, strict=True)),
                               committed_at)
            self.applied += n
            if outcome.refused is not None:
                self.refused += 1
                await self._alarm(js, tables[start + n], outcome.refused)
            for item in items[start:start + done]:
                if item.msg is not None:
                    with contextlib.suppress(Exception):
                        await item.msg.ack()
            start += done

    @staticmethod
    async def _hold(items: list[_Item]) -> None:
        for item in items:
            if item.msg is not None:
                with contextlib.suppress(Exception):
                    await item.msg.in_progress()  # not redelivered meanwhile: order holds

    def _lease_names(self, tables: set[str]) -> list[str]:
        if not self.partitioned:
            return [self.durable]
        return [f"{self.durable}-{t}" for t in tables]

    def _apply_sync(self, messages: list[Any], tables: list[str],
                    items: list[_Item]) -> tuple[BatchOutcome, float]:
        progress = self._progress

        gaps = dict(self._gap_counts)
        #: the tables whose progress (and gaps) the committed transaction wrote: in_tx runs
        #: again if a transaction is retried, so the last call's are the ones committed
        recorded: set[str] = set()

        def in_tx(tx: Any, answered: int) -> None:
            # the lease in the same commit: a process that lost it commits nothing more
            progress.renew(tx, self._lease_names(set(tables)), self.owner, self.lease_s)
            done: dict[str, tuple[int, int | None]] = {}
            for item in items[:answered]:
                if item.outbox_seq is not None:
                    seq, _ = done.get(item.table, (-1, None))
                    if item.outbox_seq > seq:
                        done[item.table] = (item.outbox_seq, item.stream_seq)
            written = progress.record_progress(tx, done, gaps)
            recorded.clear()
            recorded.update(written)

        first = messages[0] if messages else None
        if isinstance(first, dict) and "__refused_at_bus__" in first:
            outcome = self._record_bus_refusal(first, tables[0], in_tx)
        else:
            end = next((k for k, m in enumerate(messages)
                        if isinstance(m, dict) and "__refused_at_bus__" in m), len(messages))
            outcome = self.core.apply_batch(messages[:end], table=tables[:end], in_tx=in_tx)
        # the gaps counted are on record only for tables whose progress this commit recorded
        # (a round the ledger answered only in part leaves the others' gaps to a later one)
        for table in recorded:
            if table in gaps:
                self._gap_counts[table] -= gaps[table]
                if self._gap_counts[table] <= 0:
                    del self._gap_counts[table]
        return outcome, time.time()

    def _record_bus_refusal(self, stub: dict[str, Any], table: str, in_tx: Any) -> BatchOutcome:
        """A message the bus would not carry (too large), announced by the station in its
        place: on record in the ledger's refusals, and its outbox sequence counts as answered."""
        try:
            body = json.loads(stub["body"])
        except ValueError:
            body = {}
        refused = SettlementRefused(body.get("key"), str(stub["__refused_at_bus__"]),
                                    str(body.get("detail", "refused by the bus")))
        with self.core.store.transaction() as tx:
            self.core._record_refusal(tx, table, body, refused)  # noqa: SLF001 - the core's record
            in_tx(tx, 1)
        return BatchOutcome(results=[], refused=refused)

    async def _alarm(self, js: Any, table: str, refused: SettlementRefused) -> None:
        log.error("settlement refused %s of table %s: %s: %s", refused.key, table,
                  refused.reason, refused.detail)
        if self.on_refused is not None:
            with contextlib.suppress(Exception):
                self.on_refused(table, refused)
        body = json.dumps(dict(refused.as_dict(), table=table, t=time.time())).encode()
        with contextlib.suppress(Exception):
            await js.publish(ALARM_PREFIX + table, body, timeout=2, stream=ALARM_STREAM)
