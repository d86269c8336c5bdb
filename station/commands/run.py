"""`station run --config config/<table>.toml`: the station at a real table."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, help="the table's TOML configuration")
    p.add_argument("--check", action="store_true", help="validate the configuration and exit")
    p.add_argument("--log-level", default="INFO")


def run(args: argparse.Namespace) -> int:
    from station.live.config import ConfigError, load_config

    logging.basicConfig(level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        cfg = load_config(args.config)
    except ConfigError as e:
        print(f"station run: {e}", file=sys.stderr)
        return 2
    if args.check:
        print(f"{args.config}: table {cfg.table.table} ({cfg.table.game}), shoe {cfg.shoe.url}, "
              f"camera {'on' if cfg.table.camera else 'off (degraded)'}, settlement "
              f"{cfg.settlement.mode}, data in {cfg.data_dir}")
        return 0
    from station.live.camera_feed import camera_factory_for
    from station.runtime import start_runtime

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        rt = start_runtime(cfg, camera_factory=camera_factory_for(cfg))
    except (ConfigError, OSError) as e:
        print(f"station run: {e}", file=sys.stderr)
        return 2
    print(f"station: table {cfg.table.table} running; journal {cfg.journal_path}", flush=True)
    if rt.console_url:
        print(f"station: console {rt.console_url}", flush=True)
    if rt.bet_api_url:
        print(f"station: bet API {rt.bet_api_url}", flush=True)
    try:
        while not stop.wait(0.5):
            if rt.station.fatal is not None:
                print(f"station: the table core stopped: {rt.station.fatal}", file=sys.stderr)
                return 1
    finally:
        rt.stop()
        print("station: stopped cleanly", flush=True)
    return 0
