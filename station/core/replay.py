"""Replay a trace through the table core on a virtual clock (TRACES.md §2).

The whole trace is read and checked before anything runs: a malformed line stops replay with
its line number and nothing is settled from a trace that cannot be read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from station.core.inputs import Input, TraceHeader, read_trace
from station.core.kernel import TableKernel as TableCore
from station.core.settings import TableSettings

log = logging.getLogger("station.replay")


def settings_from_header(header: TraceHeader, base: TableSettings | None = None) -> TableSettings:
    base = base or TableSettings()
    s = base.with_overrides({"table": header.table, "game": header.game, "camera": header.camera})
    unknown: list[str] = []
    s = s.with_overrides(header.settings, unknown=unknown)
    if unknown:
        log.warning("trace settings this station does not have, ignored: %s", ", ".join(unknown))
    return s


def run_inputs(
    core: TableCore,
    inputs: Iterable[Input],
    sink: Callable[[dict[str, Any]], None],
    on_messages: Callable[[list[dict[str, Any]]], None] | None = None,
) -> TableCore:
    last = 0
    ended = False
    for inp in inputs:
        core.apply(inp)
        last = inp.t_us
        records, messages, _commands = core.take_outputs()
        if on_messages and messages:
            on_messages(messages)
        for r in records:
            sink(r)
        if inp.kind == "end":
            ended = True
            break
    if not ended:
        core.finish(last)
        records, messages, _ = core.take_outputs()
        if on_messages and messages:
            on_messages(messages)
        for r in records:
            sink(r)
    return core


def replay_file(
    path: str | Path,
    sink: Callable[[dict[str, Any]], None],
    on_messages: Callable[[list[dict[str, Any]]], None] | None = None,
) -> TableCore:
    header, inputs = read_trace(path)
    core = TableCore(settings_from_header(header))
    return run_inputs(core, inputs, sink, on_messages)


def replay_records(path: str | Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    replay_file(path, out.append)
    return out


def replay_settled(path: str | Path, *, ledger: str | Path | None = None,
                   settle: bool = True) -> tuple[list[dict[str, Any]], str | None]:
    """Replay with the settlement core applying the outbox messages as the live station's
    delivery worker would; the `balances` record is checked against the ledger's books.
    Returns the records and a description of any disagreement (None when the books agree)."""
    records: list[dict[str, Any]] = []
    if not settle:
        replay_file(path, records.append)
        return records, None
    import tempfile

    from station.settlement.core import SettlementCore, SettlementRefused

    with tempfile.TemporaryDirectory(prefix="station-replay-") as tmp:
        sc = SettlementCore(ledger or Path(tmp) / "ledger.sqlite")
        refused: list[str] = []

        def deliver(messages: list[dict[str, Any]]) -> None:
            for m in messages:
                try:
                    sc.apply(m)
                except SettlementRefused as e:
                    refused.append(f"{m.get('key')}: {e}")

        try:
            core = replay_file(path, records.append, deliver)
            problems: list[str] = list(refused)
            ledger_balances = sc.balances()
            mine = {a: b for a, b in core.balances.items()}
            if {a: b for a, b in ledger_balances.items() if a in mine or b} != mine:
                problems.append("ledger balances differ from the table core's")
            report = sc.check()
            if not report.ok:
                problems.extend(report.problems)
        finally:
            sc.close()
    return records, "; ".join(problems) if problems else None
