"""`station doctor --config FILE [--json]`: every check a table needs before its first shoe.

Disk under storage.dir, the clock, the console's and the bet API's ports, the journal, the
settlement in its mode, the shoe (port, the DS status exchange, the link's counters after a
few seconds) and each camera (opens, frame rate, resolution, the controls it applied; each
zone's pixels per QR module; felt and back calibrated, the felt still matching). One row per
check: its verdict (pass, FAIL, or UNKNOWN where the OS cannot say), what it saw, and what to
do. Exit status 0 only when every check passes (or was accepted with --accept), 1 otherwise,
2 for a configuration that cannot be read. Run it with the station stopped: it opens the shoe
and the camera itself, and the station's own ports would be taken.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, help="the table's TOML configuration")
    p.add_argument("--json", action="store_true", help="one JSON object: every finding and 'ok'")
    p.add_argument("--listen", type=float, default=3.0, metavar="SECONDS",
                   help="how long to listen to the shoe for the link's counters (default 3)")
    p.add_argument("--min-free-gib", type=float, default=2.0, metavar="GIB",
                   help="free disk storage.dir needs (default 2 GiB, and 5%% of the disk)")
    p.add_argument("--accept", action="append", default=[], metavar="CHECK",
                   help="take on a known condition of this check (e.g. clock): shown with its "
                        "verdict, not counted against the exit status; repeatable")


def _load(path: str):
    import tomllib
    from pathlib import Path

    from station.live.config import ConfigError, parse_config

    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such configuration file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML ({e})") from None
    # a missing shoe.url is the shoe check's finding, not a refusal to check the rest
    return parse_config(data, source=path, base_dir=Path.cwd())


def run(args: argparse.Namespace) -> int:
    from firmware_bridge.camera.layout import LayoutError
    from station.doctor.checks import run_all
    from station.live.config import ConfigError

    try:
        cfg = _load(args.config)
    except (ConfigError, LayoutError) as e:
        print(f"station doctor: {e}", file=sys.stderr)
        return 2
    accepted = set(args.accept)
    live = not args.json and sys.stdout.isatty()

    def mark(f) -> None:
        f.accepted = f.verdict != "pass" and any(
            f.check == a or f.check.startswith(a + " ") for a in accepted)
        if live:
            print(_row(f), flush=True)

    if not args.json:
        print(f"station doctor: table {cfg.table.table} ({cfg.table.game}), {args.config}", flush=True)
    findings = run_all(cfg, listen_s=args.listen, min_free_gib=args.min_free_gib, on_finding=mark)
    ok = all(f.ok for f in findings)
    if args.json:
        print(json.dumps({"table": cfg.table.table, "config": args.config, "ok": ok,
                          "findings": [f.as_dict() for f in findings]}, indent=1))
    else:
        if not live:
            for f in findings:
                print(_row(f))
        bad = [f for f in findings if not f.ok]
        taken = [f.check for f in findings if f.accepted]
        passing = sum(1 for f in findings if f.verdict == "pass")
        print(f"{passing} of {len(findings)} checks pass"
              + (f", {len(taken)} accepted ({', '.join(taken)})" if taken else "")
              + (f"; {len(bad)} to fix: {', '.join(f.check for f in bad)}" if bad else
                 ": ready for the first shoe"))
    return 0 if ok else 1


def _row(f) -> str:
    verdict = {"pass": "pass", "fail": "FAIL", "unknown": "UNKNOWN"}[f.verdict]
    if f.accepted:
        verdict += " (accepted)"
    head = f"{verdict:<18} {f.check:<22} "
    body = textwrap.fill(f.details, width=100, initial_indent=head,
                         subsequent_indent=" " * len(head))
    if f.action and f.verdict != "pass":
        body += "\n" + textwrap.fill("to do: " + f.action, width=100,
                                     initial_indent=" " * len(head),
                                     subsequent_indent=" " * (len(head) + 7))
    return body
