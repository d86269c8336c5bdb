"""`station shoe listen URL [--record TRACE]`: bring up a card shoe at a real table.

Opens the shoe on any pyserial URL (`/dev/ttyUSB0`, `socket://host:port`, `rfc2217://…`),
runs the whole DS protocol (acknowledgements, resend requests, commands) and prints every
event as one JSON line as it arrives, e.g.

    {"t": 12.3, "event": "card", "seq": 41, "card": "7H"}

`t` is seconds since the command started. On SIGINT or SIGTERM it prints its counters (one
JSON object on standard error) and exits 0. It acknowledges each event as soon as it is
printed: this tool has no journal.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from typing import Any

from firmware_bridge.shoe.driver import ShoeDriver, ShoeLinkError
from firmware_bridge.shoe.events import ReaderDied, ShoeEvent
from firmware_bridge.shoe.trace import TraceRecorder
from station.games import DEFAULT_GAME, GAMES

# What each event prints beyond t, event and seq.
_FIELDS: dict[str, tuple[str, ...]] = {
    "hello": ("proto", "model", "serial", "firmware", "boot_id", "rebooted"),
    "card": ("card", "code"),
    "fault": ("code",),
    "clear": ("code",),
    "reader_died": ("error",),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listen = sub.add_parser("listen", help="print every shoe event as a JSON line",
                            description=__doc__.splitlines()[0])
    listen.add_argument("url", metavar="URL",
                        help="the shoe's port: a device path, socket://HOST:PORT, rfc2217://…")
    listen.add_argument("--record", metavar="TRACE",
                        help="also record every byte in and out as a trace (.jsonl or .jsonl.gz)")
    listen.add_argument("--game", default=DEFAULT_GAME, choices=sorted(GAMES),
                        help="the game of the table the shoe serves, as the recorded trace's "
                             "header names it (default %(default)s)")
    listen.add_argument("--baud", type=int, default=115200, help="serial rate (default 115200)")
    listen.add_argument("--status", action="store_true",
                        help="ask the shoe for its STATUS once the link is up and print it")
    listen.add_argument("--seconds", type=float, default=None,
                        help="stop by itself after this many seconds (default: run until stopped)")


def event_line(ev: ShoeEvent, t0: float) -> dict[str, Any]:
    out: dict[str, Any] = {"t": round(ev.t - t0, 3), "event": ev.event}
    if ev.seq is not None:
        out["seq"] = ev.seq
    for name in _FIELDS.get(ev.event, ()):
        value = getattr(ev, name)
        if value is not None:
            out[name] = value
    return out


def run(args: argparse.Namespace) -> int:
    if args.action != "listen":  # argparse allows only listen today
        return 2
    t0 = time.monotonic()
    stop = threading.Event()
    exit_code = 0
    print_lock = threading.Lock()

    def emit(obj: dict[str, Any]) -> None:
        with print_lock:
            sys.stdout.write(json.dumps(obj) + "\n")
            sys.stdout.flush()

    def on_event(ev: ShoeEvent) -> None:
        nonlocal exit_code
        emit(event_line(ev, t0))
        if isinstance(ev, ReaderDied):
            exit_code = 3
            stop.set()

    recorder = None
    if args.record:
        try:
            recorder = TraceRecorder(args.record, game=args.game,
                                     header={"note": f"station shoe listen {args.url}"})
        except OSError as e:
            print(f"station shoe listen: cannot write the trace {args.record}: {e}", file=sys.stderr)
            return 1
    driver = ShoeDriver(args.url, on_event, recorder=recorder, auto_ack=True, baudrate=args.baud)
    try:
        driver.start()
    except ShoeLinkError as e:
        print(f"station shoe listen: {e}", file=sys.stderr)
        if recorder is not None:
            recorder.close()
        return 1

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        if args.status:
            _print_status(driver, emit, t0, stop)
        stop.wait(args.seconds)
    finally:
        driver.stop()
        for s, h in previous.items():
            signal.signal(s, h)
        if recorder is not None:
            recorder.close()
        print(json.dumps({"counters": driver.counters}), file=sys.stderr, flush=True)
    return exit_code


def _print_status(driver: ShoeDriver, emit: Any, t0: float, stop: threading.Event) -> None:
    """Wait for the link, then ask STATUS (printed as an event line of its own)."""
    deadline = time.monotonic() + 10
    while not driver.link_up and not stop.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        r = driver.status()
    except ShoeLinkError as e:
        print(f"station shoe listen: STATUS: {e}", file=sys.stderr)
        return
    emit({"t": round(r.t - t0, 3), "event": "status", "seq": r.seq, "kind": r.kind,
          "gate": r.gate, "cards_out": r.cards_out, "led": r.led, "reason": r.reason})


__all__ = ["add_arguments", "run", "event_line"]
