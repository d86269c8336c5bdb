"""`station settle --game GAME`: settle rounds from the rules alone, as JSON Lines.

Each game's rounds have their own shape, and each game settles its own: its `settle_round`
tool (station/games/tools.py) in its package says the shape in its docstring
(station/games/<game>/settle.py).

This is the rules engine without the table around it: a floor supervisor or an auditor can
re-settle a disputed round from its cards, and other parts of the station can be checked
against it.

Standard input: one round per line; standard output: one answer per round, in input order.
Blank lines are skipped. A bad line gets one message on standard error naming its line
number and produces no output line; the other lines are still answered, and the exit status
is 1 if any line failed. A line with a key twice in one object is refused (json.loads would
silently keep the last).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from typing import IO, Any

from station.games.tools import game_tool, games_with


class RoundError(ValueError):
    """A line that is not a round this command can settle."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A line with two hands of one position (or two "amount"s) is ambiguous; json.loads
    # would silently keep the last one.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise RoundError(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def settler(game: str) -> Callable[[object], dict[str, Any]]:
    """What settles one parsed round of `game` (raises ValueError naming what is wrong)."""
    settle = game_tool(game, "settle_round")
    if settle is None:
        raise ValueError(f"no settle_round for {game!r} (games with one: "
                         f"{', '.join(games_with('settle_round'))})")
    return settle


def settle_lines(
    lines: Iterable[bytes],
    out: IO[str],
    err: IO[str],
    settle: Callable[[object], dict[str, Any]],
) -> int:
    """Answer every line with `settle`; returns how many lines failed."""
    failed = 0
    for lineno, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"line {lineno}: not UTF-8 text ({e})", file=err, flush=True)
            failed += 1
            continue
        if not text.strip():
            continue
        try:
            try:
                obj = json.loads(text, object_pairs_hook=_no_duplicate_keys)
            except json.JSONDecodeError as e:
                raise RoundError(f"not JSON: {e}") from None
            answer = settle(obj)
        except ValueError as e:  # RoundError, or a game's own round error
            print(f"line {lineno}: {e}", file=err, flush=True)
            failed += 1
            continue
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()
    return failed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, choices=sorted(games_with("settle_round")),
                        help="the game whose rules settle the rounds")


def run(args: argparse.Namespace) -> int:
    # Read bytes so that a line of bad encoding is one failed line, not a crashed command.
    failed = settle_lines(sys.stdin.buffer, sys.stdout, sys.stderr, settler(args.game))
    if failed:
        print(f"{failed} line(s) not settled", file=sys.stderr)
    return 1 if failed else 0
