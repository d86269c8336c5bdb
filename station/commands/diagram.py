"""`station diagram [--game G] [--doc]`: a game's table procedure as a mermaid state diagram."""

from __future__ import annotations

import argparse

from station.core.settings import DEFAULT_GAME


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--game", default=DEFAULT_GAME,
                   help="the game whose procedure to draw (default %(default)s)")
    p.add_argument("--doc", action="store_true",
                   help="print the whole docs page (docs/procedure.md for the default game, "
                        "docs/procedure-<game>.md for the others)")


def run(args: argparse.Namespace) -> int:
    from station.core.diagram import mermaid, procedure_doc

    print(procedure_doc(args.game) if args.doc else mermaid(game=args.game), end="")
    return 0
