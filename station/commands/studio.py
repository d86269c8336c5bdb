"""`station studio`: a simulated studio on this machine.

PostgreSQL and nats-server from the system packages in a temporary folder (unless
``--ledger`` / ``--bus`` name running ones), N tables of the given games (each a real station:
its table kernel, its own journal and outbox, fed a scripted session of its game with its
bettors; its outbox delivered to the bus, its state published), the settlement consumer
applying the bus to the studio ledger, and the studio console. Prints where to look. With
``--rounds`` it ends by itself once every table dealt them and settlement applied everything,
checks the books (`ledger check --all-closed`) against the tables' own records and exits 0
only if they agree; without it, it deals until Ctrl-C, then does the same.
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from station.games import default_game

#: without --rounds each table's session is written for this many rounds (about 13 minutes at
#: the default pace); Ctrl-C ends it sooner
UNTIL_STOPPED_ROUNDS = 400


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=("status",),
                        help="status: how far settlement is with each table (--ledger, and"
                             " --bus for the consumers' lag), then exit")
    parser.add_argument("--json", action="store_true", help="status: as JSON")
    parser.add_argument("--tables", type=int, default=6, help="how many tables (6)")
    parser.add_argument("--games", default=default_game(),
                        help="games of the tables, comma-separated, dealt round-robin "
                             "(default %(default)s)")
    parser.add_argument("--rounds", type=int, default=0,
                        help="rounds per table, then stop and check (0: until Ctrl-C)")
    parser.add_argument("--hold", action="store_true",
                        help="with --rounds: once every table has played its rounds, keep the "
                             "studio console up (the final state, for a look) until Ctrl-C, "
                             "then stop and check")
    parser.add_argument("--pace", type=float, default=2.0, help="seconds per round (2)")
    parser.add_argument("--ledger", help="the studio ledger, postgresql://… (default: a local"
                        " PostgreSQL in a temporary folder)")
    parser.add_argument("--bus", help="the NATS server (default: a local nats-server)")
    parser.add_argument("--port", type=int, default=8720, help="studio console port (0: any)")
    parser.add_argument("--seed", type=int, default=1)


def run(args: argparse.Namespace) -> int:
    if args.action == "status":
        return _status(args)
    from station.games import GAMES, get_game
    from station.live.http import serve_app
    from station.settlement.bus import BusConsumer
    from station.settlement.core import SettlementCore
    from station.studio.console import StudioView, make_studio_app
    from station.studio.servers import LocalNats, LocalPostgres, ServerError
    from station.studio.tables import StudioTable

    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in GAMES]
    if unknown or not games or args.tables < 1:
        print(f"station studio: unknown game(s) {', '.join(unknown)} (this station has"
              f" {', '.join(sorted(GAMES))})" if unknown else "station studio: nothing to run",
              file=sys.stderr)
        return 2
    servers: list = []
    folder = Path(tempfile.mkdtemp(prefix="station-studio-"))
    tables: list[StudioTable] = []
    consumer = core = view = console = None
    try:
        ledger, bus = args.ledger, args.bus
        if not ledger:
            pg = LocalPostgres(fsync=True).start()
            servers.append(pg)
            ledger = pg.create_database("studio")
        if not bus:
            nats = LocalNats(folder / "nats").start()
            servers.append(nats)
            bus = nats.url
        core = SettlementCore(ledger, pool_size=2)
        consumer = BusConsumer(core, bus)
        consumer_thread = threading.Thread(target=consumer.run, name="settlement", daemon=True)
        consumer_thread.start()
        view = StudioView(bus, core.store)  # with how far settlement is, from the ledger
        console = serve_app(make_studio_app(view), "127.0.0.1", args.port, name="studio console")
        rounds = args.rounds or UNTIL_STOPPED_ROUNDS
        # the betting platform's key to the player API of the tables where players act (a
        # throw-away studio on this machine: printed below, as the console's address is)
        player_key = secrets.token_urlsafe(18)
        for i in range(args.tables):
            game = games[i % len(games)]
            # each game names its tables, by the prefix it declares
            name = f"{get_game(game).table_prefix}{i + 1:02d}"
            tables.append(StudioTable(name, game, seed=args.seed * 1000 + i, rounds=rounds,
                                      pace_s=args.pace, bus_url=bus, folder=folder,
                                      player_key=player_key))
        for table in tables:
            table.start()
        print(f"studio: {len(tables)} tables ({', '.join(t.name + ' ' + t.game for t in tables)})",
              flush=True)
        print(f"studio console: {console.url}/", flush=True)
        print(f"studio ledger: {core.ledger_path}", flush=True)
        print(f"studio bus: {bus}", flush=True)
        print(f"tables' journals: {folder} (removed on exit)", flush=True)
        for table in tables:
            if table.players_url:
                print(f"player API of {table.name}: {table.players_url}/v1/players/ "
                      f"(Authorization: Bearer {player_key})", flush=True)
        try:
            while not all(t.finished.is_set() for t in tables):
                time.sleep(0.2)
            if args.hold:
                # Ctrl-C (or a service manager's SIGTERM) ends the hold even where the studio
                # was started with SIGINT ignored, as a shell's background job or a test
                # runner's worker starts its children: Python then installs no handler of its own
                signal.signal(signal.SIGINT, signal.default_int_handler)
                signal.signal(signal.SIGTERM, signal.default_int_handler)
                print("studio: every table has played its rounds; the console stays up until "
                      "Ctrl-C", flush=True)
                while True:
                    time.sleep(0.5)
        except KeyboardInterrupt:
            print("studio: stopping the tables", flush=True)
        for table in tables:
            table.stop()
        for table in tables:
            table.finished.wait(30)
        summary = _settle_and_check(core, consumer, tables)
        print(json.dumps(summary), flush=True)
        return 0 if summary["ok"] else 1
    except ServerError as exc:
        print(f"station studio: {exc}", file=sys.stderr)
        return 2
    finally:
        for table in tables:
            table.close()
        if consumer is not None:
            consumer.stop()
        if console is not None:
            console.stop()
        if view is not None:
            view.close()
        if core is not None:
            core.close()
        for server in reversed(servers):
            server.close()
        shutil.rmtree(folder, ignore_errors=True)


def _settle_and_check(core, consumer, tables) -> dict:
    """Every table's outbox on the bus, every message applied; the books against the tables'
    own records (their journals' outboxes)."""
    from station.studio.tables import balances_from_outbox

    delivered = all(t.drain(60) for t in tables)
    outboxes = {t.name: t.outbox() for t in tables}
    expected_messages = sum(len(m) for m in outboxes.values())
    deadline = time.monotonic() + 120
    while consumer.applied + consumer.refused < expected_messages and time.monotonic() < deadline:
        time.sleep(0.1)
    report = core.check(require_closed=True)
    expected: dict[str, int] = {}
    for messages in outboxes.values():
        expected.update(balances_from_outbox(messages))
    balances = core.balances()
    return {
        "ok": bool(delivered and report.ok and balances == expected and consumer.refused == 0
                   and not any(t.failed for t in tables)),
        "tables": len(tables),
        "rounds": sum(t.rounds_done for t in tables),
        "inputs": sum(t.station.inputs_applied for t in tables),
        "messages": expected_messages,
        "applied": consumer.applied,
        "refused": consumer.refused,
        "ledger_clean": report.ok,
        "ledger_problems": report.problems[:5],
        "ledger_equals_tables": balances == expected,
        "tables_failed": {t.name: repr(t.failed) for t in tables if t.failed is not None},
        "figures": report.figures,
    }


def _status(args: argparse.Namespace) -> int:
    import os

    from station.settlement.ledger import LedgerError, open_store
    from station.studio.status import format_status, status

    ledger = args.ledger or os.environ.get("STATION_LEDGER_URL", "")
    if not ledger:
        print("station studio status: --ledger URL (or STATION_LEDGER_URL) is needed",
              file=sys.stderr)
        return 2
    try:
        store = open_store(ledger, pool_size=1)
    except LedgerError as exc:
        print(f"station studio status: {exc}", file=sys.stderr)
        return 2
    try:
        report = status(store, args.bus)
    finally:
        store.close()
    print(json.dumps(report, indent=2) if args.json else format_status(report))
    return 0
