"""`station diagram [--doc]`: the table procedure as a mermaid state diagram."""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--doc", action="store_true", help="print the whole docs/procedure.md page")


def run(args: argparse.Namespace) -> int:
    from station.core.diagram import mermaid, procedure_doc

    print(procedure_doc() if args.doc else mermaid(), end="")
    return 0
