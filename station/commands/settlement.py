"""`station settlement serve`: run the settlement core as its own service.

The studio engineer starts it next to (or away from) the table PC; stations deliver to it with
``HttpTransport``. The shared secret is read from an environment variable, never from the
command line, so it does not show in the process list.
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


def run(args: argparse.Namespace) -> int:
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
