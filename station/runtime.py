"""The whole station at one table, assembled from its configuration.

Data path: shoe (serial URL) → `ShoePort` → table core ← camera observer; the core journals
every input, then its outputs fan out: ACK and gate/LED to the shoe, the settlement outbox to
the delivery worker and the settlement core (embedded or remote), records to the console and
the trace recorder. The bet API and the console feed bets and decisions back into the same
journaled input path.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.core.inputs import TraceHeader
from station.live.config import ConfigError, StationConfig, check_reservable, env_secret
from station.live.http import ServedApp, serve_app
from station.live.recording import ShoeTraceRecorder
from station.live.shoe_port import ShoePort
from station.live.table_station import TableStation
from station.private_files import private_dir, private_file

log = logging.getLogger("station.runtime")


@dataclass
class Runtime:
    config: StationConfig
    station: TableStation
    port: ShoePort | None = None
    recorder: ShoeTraceRecorder | None = None
    settlement: Any = None
    worker: Any = None
    transport: Any = None
    bet_api: ServedApp | None = None
    console: ServedApp | None = None
    camera: Any = None
    extra_stops: list[Callable[[], None]] = field(default_factory=list)

    @property
    def console_url(self) -> str | None:
        return self.console.url if self.console else None

    @property
    def bet_api_url(self) -> str | None:
        return self.bet_api.url if self.bet_api else None

    def stop(self) -> None:
        """Orderly: stop taking input, let the core finish, deliver the outbox, close."""
        for fn in reversed(self.extra_stops):
            try:
                fn()
            except Exception:  # noqa: BLE001 - keep stopping the rest
                log.exception("stopping a part failed")
        for part in (self.console, self.bet_api):
            if part:
                part.stop()
        if self.camera is not None:
            self.camera.stop()
        if self.port:
            self.port.stop()
        self.station.stop()
        if self.worker is not None:
            self.worker.drain(10)
            self.worker.stop()
        if self.transport is not None:
            self.transport.close()
        if self.settlement is not None:
            self.settlement.close()
        if self.recorder:
            self.recorder.close()


def parse_api_keys(text: str | None) -> dict[str, str]:
    """`key1=platformA,key2=platformB` (or bare keys) from the environment."""
    keys: dict[str, str] = {}
    for part in (text or "").split(","):
        part = part.strip()
        if not part:
            continue
        key, _, name = part.partition("=")
        keys[key.strip()] = name.strip() or "platform"
    return keys


def attach_recorder(station: TableStation, directory: Path) -> ShoeTraceRecorder:
    """Record the station's journaled inputs as traces in `directory`, from before it starts.

    The settings the table actually runs with are the journal's, not the config's (a journal
    keeps the ones it was started with): a trace replays as the table played. After a restart
    a session-long trace begins again with what the journal holds (`ShoeTraceRecorder.resume`)."""
    kept = station.journal.header
    header = TraceHeader(kept.table, kept.game, kept.camera, dict(kept.settings),
                         "recorded live by the station")
    recorder = ShoeTraceRecorder(directory, header)
    recorder.resume(inp for _, inp in station.journal.inputs())
    station.on_input = lambda inp, records: recorder.record(inp, records, station.core.balances)
    return recorder


def start_runtime(
    config: StationConfig,
    *,
    camera_factory: Callable[[TableStation], Any] | None = None,
    users: Any = None,
    api_keys: dict[str, str] | None = None,
    console_secret: str | None = None,
    with_console: bool = True,
    with_bet_api: bool = True,
    clock: Callable[[], float] | None = None,
) -> Runtime:
    """`clock`: the table's time in seconds (default: monotonic real time; a simulated table
    passes its demo clock, station/sim/demo_clock.py)."""
    if config.settlement.reserve:
        check_reservable(config.table.game)  # before anything opens: a config built in code too
    from station.live.journal_key import table_key

    # before anything is made: a station without its key does not start (ConfigError)
    key = table_key(config)
    private_dir(config.data_dir)
    if config.settlement.mode == "embedded":
        from station.live.journal_migrate import unchained_journal_unknown_to_ledger

        unchained_journal_unknown_to_ledger(config.journal_path, config.ledger_path)
    station = TableStation(config.table, config.journal_path, journal_sync=config.journal_sync,
                           signing_key=key.key, checkpoint_every=config.checkpoint_every,
                           **({} if clock is None else {"clock": clock}))
    if config.settlement.mode == "embedded":
        try:
            _journal_agrees_with_ledger(station.journal, config.ledger_path)
        except BaseException:
            station.journal.close()
            raise
    from station.live.disk import DiskWatch

    station.disk = DiskWatch(config.data_dir, config.table.table, config.disk,
                             frames_dir=config.frames_path, traces_dir=config.traces_dir)
    rt = Runtime(config, station)
    rt.extra_stops.append(station.disk.start_pruning())
    try:
        _wire(rt, camera_factory, users, api_keys, console_secret, with_console, with_bet_api)
    except BaseException:
        rt.stop()
        raise
    return rt


def _journal_agrees_with_ledger(journal: Any, ledger_path: Path) -> None:
    """Before the station appends and signs anything: the journal holds the chain the
    ledger's newest checkpoint of it signs. A journal restored from an older copy (shorter
    than the ledger's checkpoint, or another history there) is refused: the station never
    signs over a history the ledger knows to be rewritten."""
    if not Path(ledger_path).is_file():
        return
    from station.core.journal import JournalError
    from station.settlement.checkpoints import newest
    from station.settlement.ledger import open_store

    jid = journal.journal_id
    store = open_store(str(ledger_path), read_only=True)
    try:
        cp = newest(store, journal.header.table if jid else "", jid or "")
    finally:
        store.close()
    if cp is None:
        return
    seq = int(cp["seq"])
    row = journal.conn.execute("SELECT hash FROM chain WHERE seq=?", (seq,)).fetchone()
    here = journal.genesis_hash if seq == 0 else (bytes(row[0]) if row else None)
    if seq > journal.head_seq:
        raise JournalError(
            f"{journal.path} ends at entry {journal.head_seq}, but its ledger {ledger_path} "
            f"holds a checkpoint of it at entry {seq}: the journal was cut short or restored "
            "from an older copy, and the station does not sign over it (docs/operator.md, "
            "\"Proving the journal\")")
    if here is None or here.hex() != cp["head"]:
        raise JournalError(
            f"{journal.path} disagrees with its ledger's checkpoint at entry {seq}: the journal "
            "was rewritten or restored from another copy, and the station does not sign over "
            "it (docs/operator.md, \"Proving the journal\")")


def _wire(rt: Runtime, camera_factory, users, api_keys, console_secret, with_console,
          with_bet_api) -> None:
    config, station = rt.config, rt.station
    # settlement first: the outbox may hold messages from before a restart
    from station.settlement.core import SettlementCore
    from station.settlement.outbox import DeliveryWorker
    from station.settlement.transport import HttpTransport, InProcessTransport

    if config.settlement.mode == "embedded":
        rt.settlement = SettlementCore(private_file(config.ledger_path, sqlite=True))
        rt.transport = InProcessTransport(rt.settlement)
    elif config.settlement.mode == "bus":
        # the studio: the outbox goes to studio.settle.<table> on NATS JetStream, where
        # `station settlement consume` applies it to the studio ledger (docs/studio.md)
        from station.settlement.bus import NatsTransport

        rt.transport = NatsTransport(config.settlement.url, config.table.table)
        if config.settlement.reserve:
            _reserve_bets(rt)
    else:
        secret = env_secret(config.settlement.secret_env)
        if not secret:
            raise ConfigError(f"settlement.secret_env: set {config.settlement.secret_env} to the "
                              "settlement service's shared secret")
        rt.transport = HttpTransport(config.settlement.url, secret)
    rt.worker = DeliveryWorker(config.journal_path, rt.transport,
                               on_error=lambda e, key: log.warning("settlement delivery %s: %s", key, e))
    station.on_outbox = rt.worker.wake
    _count_backlog(rt)

    if config.record_traces:
        rt.recorder = attach_recorder(station, config.traces_dir)

    if config.shoe.url:
        def reader_failed(why: str) -> None:
            # the port reads again by itself; the engineer must hear of it all the same, in
            # the log and on /metrics (a reader that keeps dying is a port or driver to fix)
            from station.metrics import REGISTRY, SHOE_READER_RESTARTS

            log.error("table %s: the shoe reader at %s failed (%s); it reads again",
                      config.table.table, config.shoe.url, why)
            REGISTRY.counter(SHOE_READER_RESTARTS, "times the shoe port's reader died and "
                             "was started again").inc(table=config.table.table)

        rt.port = ShoePort(config.shoe.url, station.feed_shoe_bytes, baudrate=config.shoe.baudrate,
                           on_reader_died=reader_failed)
        station._on_shoe_command = rt.port.send
    station.start()
    rt.worker.start()
    if rt.port:
        rt.port.start()
    if camera_factory is not None and config.table.camera:
        rt.camera = camera_factory(station)
    if with_bet_api:
        import os

        from station.live.bet_api import make_bet_app

        keys = api_keys if api_keys is not None else parse_api_keys(os.environ.get(config.bet_api_keys_env))
        if keys:
            def set_wallet(account: str, balance: int) -> None:
                station.submit("wallet", {"account": account, "balance": balance})

            app = make_bet_app(station.place_bets, keys, set_wallet=set_wallet,
                               table=config.table.table)
            if station.core.proc.player_handler() is not None:
                # players act at this table (a pot game): the player API and the seat page
                # share the table's API and its keys
                from starlette.applications import Starlette
                from starlette.routing import Mount

                from station.live.player_api import make_player_app

                players = make_player_app(station, keys)
                app = Starlette(routes=[*players.routes, Mount("/", app=app)])
                app.state.player_streams = players.state.player_streams
                app.state.seat_tokens = players.state.seat_tokens
                app.state.closing = players.state.closing
            rt.bet_api = serve_app(app, config.bet_api.host, config.bet_api.port, name="bet-api")
            if station.core.proc.player_handler() is not None:
                from station.live.player_api import stop_player_app

                served, combined = rt.bet_api, app
                served.stopper = lambda: stop_player_app(combined, served)
        else:
            log.warning("no bet API keys in %s: the bet API is off", config.bet_api_keys_env)
    if with_console:
        rt.console = _start_console(rt, users, console_secret)
    if config.settlement.mode == "bus" and config.settlement.publish_state:
        _publish_state(rt)


def _count_backlog(rt: Runtime) -> None:
    """/metrics: the outbox messages settlement has not acknowledged yet, asked at each scrape
    (docs/ops/prometheus-alerts.yml: settlement backlog)."""
    from station.metrics import REGISTRY, SETTLEMENT_PENDING

    gauge = REGISTRY.gauge(SETTLEMENT_PENDING, "outbox messages settlement has not acknowledged")
    table = rt.config.table.table
    gauge.set_function(rt.worker.pending, table=table)
    rt.extra_stops.append(lambda: gauge.remove(table=table))


def _reserve_bets(rt: Runtime) -> None:
    """Shared wallets: the bet intake reserves each bet in the studio ledger as it accepts
    it, the answer journaled as an input of the table (docs/studio.md)."""
    from station.live.reservations import ReservationHealth
    from station.settlement.bus import Reserver

    reserver = Reserver(rt.config.settlement.url, rt.config.table.table)
    timeout_s = rt.config.settlement.reserve_timeout_s
    rt.station.reserve_bet = lambda bet: reserver.reserve(bet, timeout_s=timeout_s)
    rt.station.reservation_health = ReservationHealth(rt.config.table.table,
                                                      rt.config.settlement.reserve_when_down)
    if rt.config.settlement.reserve_when_down == "credit":
        rt.station.credit_limit_minor = rt.config.settlement.reserve_credit_limit
    rt.extra_stops.append(reserver.close)


def _publish_state(rt: Runtime) -> None:
    """The table's public state on studio.state.<table>, for the studio console."""
    from station.settlement.bus import StatePublisher
    from station.studio.state import TableState

    publisher = StatePublisher(rt.config.settlement.url, rt.config.table.table)
    worker = rt.worker
    state = TableState(rt.station, publisher, pending=worker.pending if worker else None,
                       console_url=f"{rt.console_url}/" if rt.console_url else None)
    state.publish(force=True)

    def stop() -> None:
        state.publish(closed=True)
        publisher.close()

    rt.extra_stops.append(stop)


def _attach_setup(app: Any, rt: Runtime) -> None:
    """The console's table setup for the technician: this table's camera and its config file."""
    from station.console.setup import SetupTarget, attach
    from station.games import get_game

    layout = rt.config.camera.layout
    attach(app, SetupTarget(rt.config.table.table, rt.camera, Path(layout) if layout else None,
                            rt.config.data_dir / "setup", tuple(get_game(rt.config.table.game).zones)))


def _start_console(rt: Runtime, users: Any, secret: str | None) -> ServedApp:
    import secrets as _secrets

    from station.console import UserStore, make_console_app, stop_console

    if users is None:
        users = UserStore(rt.config.users_file or rt.config.data_dir / "users.sqlite")
    frames_dir = rt.config.frames_path
    if secret is None:
        # kept beside the journal: supervisors stay logged in across a station restart
        path = rt.config.data_dir / "console_secret"
        if not path.exists():
            path.touch(mode=0o600)
            path.write_text(_secrets.token_hex(32))
        secret = path.read_text().strip()
    app = make_console_app([rt.station], users=users, secret=secret, frames_dir=frames_dir,
                           ledgers={rt.config.table.table: rt.config.evidence_ledger})
    if rt.camera is not None:
        _attach_setup(app, rt)
    served = serve_app(app, rt.config.console.host, rt.config.console.port, name="console",
                       lifespan="on")
    served.stopper = lambda: stop_console(served.server, served.thread)
    return served
