"""`station settlement serve|consume`: run the settlement core as its own service.

`serve`: signed HTTP; stations deliver to it with ``HttpTransport``. The shared secret is read
from an environment variable, never from the command line, so it does not show in the process
list. `consume`: the studio's settlement on the NATS JetStream bus (a durable consumer of every
table's messages, acknowledged after the ledger's commit; docs/studio.md). Both take the
ledger as a path or URL; ``--ledger-env`` reads it from an environment variable instead, so a
database password stays out of the process list.
"""

from __future__ import annotations

import argparse
import os
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    serve = sub.add_parser("serve", help="serve the settlement core over signed HTTP")
    serve.add_argument("--ledger", required=True,
                       help="the ledger: a SQLite file (created if absent), sqlite:///PATH or"
                            " postgresql://… (several services may share one database)")
    serve.add_argument("--port", type=int, required=True)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument(
        "--secret-env", required=True, metavar="VAR",
        help="name of the environment variable holding the shared HMAC secret",
    )
    serve.add_argument("--window", type=float, default=300.0,
                       help="accepted clock difference of signed requests, seconds (300)")


    consume = sub.add_parser("consume", help="settle the studio bus (NATS JetStream) into a ledger")
    where = consume.add_mutually_exclusive_group(required=True)
    where.add_argument("--ledger", help="the ledger: postgresql://… (or a SQLite path for one machine)")
    where.add_argument("--ledger-env", metavar="VAR", help="environment variable holding the ledger URL")
    consume.add_argument("--bus", required=True, help="the NATS server, e.g. nats://127.0.0.1:4222")
    consume.add_argument("--durable", default="settlement", help="the durable consumer's name")
    part = consume.add_mutually_exclusive_group()
    part.add_argument("--tables", help="only these tables (comma-separated): one partition")
    part.add_argument("--partition", metavar="K/N",
                      help="the tables whose name hashes to K of N partitions (e.g. 0/4)")
    part.add_argument("--partition-file", metavar="FILE",
                      help="the partition in a file (K/N, or the tables, comma- or space-"
                           "separated), read again on SIGHUP: the partitions re-drawn while"
                           " the process runs")
    consume.add_argument("--lease", type=float, default=10.0,
                         help="seconds a standby waits for a silent owner before taking over")
    consume.add_argument("--batch", type=int, default=1024,
                         help="the most messages one round (one transaction) takes; rounds are"
                              " cut shorter by time (docs/studio.md)")
    consume.add_argument("--ack-wait", type=float, default=30.0,
                         help="seconds before the bus redelivers a message not acknowledged")
    consume.add_argument("--metrics-port", type=_port, metavar="PORT",
                         help="serve /metrics (Prometheus text) on this port: what this process"
                              " applied, its durables' lag, and how far the ledger is with each"
                              " of its tables (0: a free port, printed)")
    consume.add_argument("--metrics-host", default="127.0.0.1",
                         help="the address /metrics is served on (127.0.0.1)")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0 to 65535)")
    return port


def run(args: argparse.Namespace) -> int:
    if args.action == "consume":
        return _consume(args)
    return _serve(args)


def _consume(args: argparse.Namespace) -> int:
    import logging
    import signal

    from station.settlement.bus import BusConsumer, check_table_name
    from station.settlement.core import SettlementCore
    from station.settlement.ledger import LedgerError

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    ledger = args.ledger or os.environ.get(args.ledger_env or "", "")
    if not ledger:
        print(f"station settlement consume: environment variable {args.ledger_env} is unset or empty",
              file=sys.stderr)
        return 2
    try:
        core = SettlementCore(ledger, pool_size=2)
    except LedgerError as exc:
        print(f"station settlement consume: {exc}", file=sys.stderr)
        return 2
    from station.settlement.partitions import Partition, read_partition_file

    tables = [t for t in (args.tables or "").split(",") if t] or None
    try:
        partition = Partition.parse(args.partition) if args.partition else None
        if args.partition_file:
            tables, partition = read_partition_file(args.partition_file)
        for table in tables or []:
            check_table_name(table)
    except (OSError, ValueError) as exc:
        print(f"station settlement consume: {exc}", file=sys.stderr)
        core.close()
        return 2
    consumer = BusConsumer(core, args.bus, durable=args.durable, tables=tables, batch=args.batch,
                           ack_wait_s=args.ack_wait, partition=partition, lease_s=args.lease)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: consumer.stop())
    if args.partition_file:
        log = logging.getLogger("station.settlement")

        def redraw(*_: object) -> None:
            """SIGHUP: the partition file again (an engineer re-drew the partitions)."""
            try:
                tables_, partition_ = read_partition_file(args.partition_file)
                consumer.reassign(tables=tables_, partition=partition_)
            except (OSError, ValueError) as exc:  # the partition it has stays
                log.error("settlement: %s: not re-drawn: %s", args.partition_file, exc)
            else:
                log.warning("settlement: partition re-drawn from %s: %s", args.partition_file,
                            partition_ or ",".join(tables_ or []))

        signal.signal(signal.SIGHUP, redraw)
    metrics = None
    if args.metrics_port is not None:
        from station.studio.consumer_metrics import MetricsServer

        try:
            metrics = MetricsServer(consumer, ledger, args.bus, args.metrics_host,
                                    args.metrics_port).start()
        except (OSError, OverflowError) as exc:
            print(f"station settlement consume: /metrics on {args.metrics_host}:"
                  f"{args.metrics_port}: {exc}", file=sys.stderr)
            core.close()
            return 2
    print(f"settlement consumer {args.durable}: ledger {core.ledger_path}, bus {args.bus}"
          + (f", metrics http://{args.metrics_host}:{metrics.port}/metrics" if metrics else ""),
          flush=True)
    try:
        consumer.run()
    finally:
        if metrics is not None:
            metrics.stop()
        core.close()
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from station.settlement.core import SettlementCore
    from station.settlement.service import make_settlement_app

    secret = os.environ.get(args.secret_env, "")
    if not secret:
        print(f"station settlement serve: environment variable {args.secret_env} is unset or empty",
              file=sys.stderr)
        return 2
    core = SettlementCore(args.ledger)
    app = make_settlement_app(core, secret, window=args.window)
    print(f"settlement service: ledger {args.ledger}, listening on http://{args.host}:{args.port}",
          flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    finally:
        core.close()
    return 0
