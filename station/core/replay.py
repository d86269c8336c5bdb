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
