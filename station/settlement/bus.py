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
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from station.settlement.core import BatchOutcome, SettlementCore, SettlementRefused
from station.settlement.outbox import TransportError

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
#: after the first message of a fetch, how long the consumer waits for more, seconds
FOLLOW_UP_S = 0.001
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

    async def _ensure(self) -> Any:
        if self._nc is None or self._nc.is_closed:
            self._nc = await _connect(self.url, f"station-{self.table}")
            self._js = self._nc.jetstream(timeout=self.publish_timeout_s)
            await ensure_streams(self._js)
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

    async def _publish(self, messages: list[dict[str, Any]]) -> BatchOutcome:
        outcome = BatchOutcome()
        try:
            js = await self._ensure()
        except TransportError:
            raise
        except Exception as exc:  # noqa: BLE001 - whatever nats raises, the bus is not there
            raise TransportError(f"the studio bus at {self.url} is not reachable: {exc!r}") from exc
        for message in messages:
            body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
            key = message.get("key")
            limit = self._nc.max_payload
            if limit and len(body) > limit:
                # the bus will never carry it: refused for good, alarmed on the table's alarm
                # subject as settlement alarms, and the messages behind it flow
                if outcome.results:
                    return outcome
                return await self._too_large(js, message, len(body), limit)
            try:
                ack = await js.publish(self.subject, body, timeout=self.publish_timeout_s,
                                       stream=SETTLE_STREAM,
                                       headers={MSG_ID_HEADER: f"{self.table}:{key}"})
            except Exception as exc:  # noqa: BLE001 - the prefix before it stands
                if outcome.results:
                    return outcome
                raise TransportError(f"publishing {key} to the studio bus failed: {exc!r}") from exc
            outcome.results.append({"key": key, "kind": message.get("kind"),
                                    "bus": {"stream": ack.stream, "seq": ack.seq,
                                            "duplicate": bool(ack.duplicate)}})
        return outcome

    async def _too_large(self, js: Any, message: dict[str, Any], size: int,
                         limit: int) -> BatchOutcome:
        key = message.get("key") if isinstance(message.get("key"), str) else ""
        refused = SettlementRefused(key, "too_large", f"the message is {size} bytes; the studio "
                                    f"bus carries at most {limit} (nats-server max_payload)")
        alarm = dict(refused.as_dict(), table=self.table, kind=message.get("kind"),
                     refused_at="bus", t=time.time())
        try:
            await js.publish(ALARM_PREFIX + self.table, json.dumps(alarm).encode(),
                             timeout=self.publish_timeout_s, stream=ALARM_STREAM)
        except Exception as exc:  # noqa: BLE001 - not alarmed yet: hold and retry
            raise TransportError(f"alarming the refusal of {key} failed: {exc!r}") from exc
        return BatchOutcome(results=[], refused=refused)

    def deliver(self, messages: list[dict[str, Any]]) -> BatchOutcome:
        try:
            return self._loop.run(self._publish(messages),
                                  self.publish_timeout_s * (len(messages) + 2))
        except FutureTimeout:
            raise TransportError(f"the studio bus at {self.url} did not answer in time") from None

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
    """A table's bet intake asking the studio ledger to reserve a bet (docs/studio.md).

    `reserve(bet)` sends the bet message the outbox will carry (same key) and returns the
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


class BusConsumer:
    """The settlement service on the bus: a durable consumer applying to one ledger.

    `run()` blocks until `stop()`; `on_commit(applied, t)` gets the (table, result) pairs of
    each commit and the time just after it (for the studio benchmark's latency figures).
    """

    def __init__(self, core: SettlementCore, url: str, *, durable: str = DEFAULT_DURABLE,
                 tables: Sequence[str] | None = None, batch: int = 256,
                 ack_wait_s: float = 30.0, on_commit: CommitHandler | None = None,
                 on_refused: Callable[[str, SettlementRefused], None] | None = None,
                 serve_reservations: bool = True) -> None:
        self.core = core
        self.serve_reservations = serve_reservations
        self.url = url
        self.durable = durable
        self.tables = [check_table_name(t) for t in tables] if tables else None
        self.batch = batch
        self.ack_wait_s = ack_wait_s
        self.on_commit = on_commit
        self.on_refused = on_refused
        self.applied = 0
        self.refused = 0
        self.redelivered = 0
        self._stopping = threading.Event()
        self._reconnected = threading.Event()
        self._durables: list[tuple[str, str]] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    def stop(self) -> None:
        self._stopping.set()

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
        try:
            js = nc.jetstream(timeout=10)
            if self.serve_reservations:
                # a queue group: every settlement process may answer; each bet is row-locked
                # on its wallet and keyed by (table, key), so answering twice is harmless
                await nc.subscribe(RESERVE_PREFIX + "*", queue=RESERVE_QUEUE,
                                   cb=self._reserve)
            subs = await self._subscribe(js)
            while not self._stopping.is_set():
                if self._reconnected.is_set():
                    # messages in flight to us when the connection dropped are delivered in
                    # the bus's eyes and would come again only after their ack wait, after
                    # newer ones: apply them first, as at start-up
                    self._reconnected.clear()
                    try:
                        for durable, subject in self._durables:
                            await self._recover_pending(js, durable, subject)
                    except Exception as exc:  # noqa: BLE001 - the bus is flaky still: again
                        log.warning("settlement: recovering after a reconnect failed: %s", exc)
                        self._reconnected.set()
                        await asyncio.sleep(0.5)
                        continue
                got = False
                for sub in subs:
                    msgs = await self._fetch(sub)
                    if msgs:
                        got = True
                        await self._apply(js, [(m.subject[len(SETTLE_PREFIX):], m.data, m)
                                               for m in msgs])
                if not got:
                    await asyncio.sleep(0)
        finally:
            with contextlib.suppress(Exception):
                await nc.close()

    async def _subscribe(self, js: Any) -> list[Any]:
        from nats.js import api

        while True:
            try:
                await ensure_streams(js)
                subjects = ([SETTLE_PREFIX + t for t in self.tables] if self.tables
                            else [SETTLE_PREFIX + "*"])
                subs = []
                self._durables = []
                for subject in subjects:
                    # with --tables, a durable per table: the same table always resumes the
                    # same consumer, whatever else the list holds
                    durable = (f"{self.durable}-{subject[len(SETTLE_PREFIX):]}" if self.tables
                               else self.durable)
                    config = api.ConsumerConfig(
                        durable_name=durable, ack_policy=api.AckPolicy.EXPLICIT,
                        deliver_policy=api.DeliverPolicy.ALL, ack_wait=self.ack_wait_s,
                        max_ack_pending=max(1000, 4 * self.batch), filter_subject=subject,
                        max_deliver=-1)
                    sub = await js.pull_subscribe(subject, durable=durable,
                                                  stream=SETTLE_STREAM, config=config)
                    await self._recover_pending(js, durable, subject)
                    subs.append(sub)
                    self._durables.append((durable, subject))
                return subs
            except Exception as exc:  # noqa: BLE001 - retried until the bus answers
                if self._stopping.is_set():
                    raise
                log.warning("settlement: cannot subscribe to the studio bus: %s", exc)
                await asyncio.sleep(1.0)

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

    async def _recover_pending(self, js: Any, durable: str, subject: str) -> None:
        """Apply, in stream order, what a previous consumer process was given and did not
        acknowledge (it died), or what was in flight to this one when its connection dropped,
        before anything newer.

        JetStream would redeliver those only when their ack wait runs out, after newer
        messages of the same table had been handed to us: a hand before its bets. Read
        straight from the stream by sequence, they are applied first; their redelivered copies
        later get the ledger's first results and are acknowledged.
        """
        from nats.js.errors import NotFoundError

        info = await js.consumer_info(SETTLE_STREAM, durable)
        first, last = info.ack_floor.stream_seq + 1, info.delivered.stream_seq
        if last < first:
            return
        log.warning("settlement: %s had %d messages in flight; applying them first",
                    durable, last - first + 1)
        pattern = subject[:-1] if subject.endswith("*") else None
        items: list[tuple[str, bytes, Any]] = []
        for seq in range(first, last + 1):
            try:
                raw = await js.get_msg(SETTLE_STREAM, seq)
            except NotFoundError:
                continue  # removed from the stream (its age limit): nothing to apply
            if raw.subject == subject or (pattern and raw.subject.startswith(pattern)):
                items.append((raw.subject[len(SETTLE_PREFIX):], raw.data or b"", None))
        for i in range(0, len(items), self.batch):
            await self._apply(js, items[i:i + self.batch])

    async def _fetch(self, sub: Any) -> list[Any]:
        from nats.errors import TimeoutError as NatsTimeout

        # A long poll for one message returns the moment it arrives; then whatever else is
        # there (a pull for many messages at once would linger until its whole batch is
        # there or its time is up: latency for nothing). nats-py asks for the rest with a
        # no-wait pull first, answered at once; only when that finds nothing does it linger,
        # for what is left of FOLLOW_UP_S (the studio benchmark measured 5 ms of it in every
        # commit's latency at 5 ms).
        try:
            msgs = await sub.fetch(1, timeout=0.5)
        except (TimeoutError, NatsTimeout):
            return []
        except Exception as exc:  # noqa: BLE001 - the bus is away; nats-py reconnects
            log.debug("settlement: fetch failed: %s", exc)
            await asyncio.sleep(0.2)
            return []
        if self.batch > 1:
            try:
                msgs += await sub.fetch(self.batch - 1, timeout=FOLLOW_UP_S)
            except (TimeoutError, NatsTimeout):
                pass
            except Exception as exc:  # noqa: BLE001 - the first one is still ours to apply
                log.debug("settlement: fetch failed: %s", exc)
        return msgs

    async def _apply(self, js: Any, items: list[tuple[str, bytes, Any]]) -> None:
        """Apply (table, body, bus message or None) in order; acknowledge after the commit."""
        messages: list[Any] = []
        tables: list[str] = []
        msgs = [m for _, _, m in items]
        for table, data, msg in items:
            try:
                messages.append(json.loads(data))
            except ValueError:
                messages.append(f"not JSON: {data[:200]!r}")  # refused, on record
            tables.append(table)
            if msg is not None and msg.metadata.num_delivered > 1:
                self.redelivered += 1
        loop = asyncio.get_running_loop()
        backoff = 0.05
        start = 0
        while start < len(messages):
            try:
                # the ledger's transactions are synchronous (psycopg): off the bus's loop
                outcome, committed_at = await loop.run_in_executor(
                    None, self._apply_sync, messages[start:], tables[start:])
            except Exception as exc:  # noqa: BLE001 - the ledger is away: keep the batch
                log.warning("settlement: the ledger is not reachable, retrying: %s", exc)
                for msg in msgs[start:]:
                    if msg is not None:
                        with contextlib.suppress(Exception):
                            await msg.in_progress()  # not redelivered meanwhile: order holds
                if self._stopping.is_set():
                    return
                await asyncio.sleep(backoff)
                backoff = min(2.0, backoff * 2)
                continue
            n = len(outcome.results)
            done = n + (1 if outcome.refused is not None else 0)
            if self.on_commit is not None and n:
                self.on_commit(list(zip(tables[start:start + n], outcome.results, strict=True)),
                               committed_at)
            self.applied += n
            if outcome.refused is not None:
                self.refused += 1
                await self._alarm(js, tables[start + n], outcome.refused)
            for msg in msgs[start:start + done]:
                if msg is not None:
                    with contextlib.suppress(Exception):
                        await msg.ack()
            start += done

    def _apply_sync(self, messages: list[Any], tables: list[str]) -> tuple[BatchOutcome, float]:
        outcome = self.core.apply_batch(messages, table=tables)
        return outcome, time.time()

    async def _alarm(self, js: Any, table: str, refused: SettlementRefused) -> None:
        log.error("settlement refused %s of table %s: %s: %s", refused.key, table,
                  refused.reason, refused.detail)
        if self.on_refused is not None:
            with contextlib.suppress(Exception):
                self.on_refused(table, refused)
        body = json.dumps(dict(refused.as_dict(), table=table, t=time.time())).encode()
        with contextlib.suppress(Exception):
            await js.publish(ALARM_PREFIX + table, body, timeout=2, stream=ALARM_STREAM)
