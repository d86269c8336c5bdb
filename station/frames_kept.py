"""The camera frames the station keeps at each validation: how they are named, and which
belong to a round.

The camera feed writes `<frames_dir>/<id>.png` for each record its game keeps a frame for,
named by the record's deal, round or game id (a game of several deals keeps one per deal,
`<game id>-D<n>.png`). A round's frames are its own file and every `<round id>-….png`: the
console's round recall and the evidence pack offer the same set. It stands beside the data
path, like `station.camera_view`: the live side writes, the console and the pack read.
"""

from __future__ import annotations

import re
from pathlib import Path

#: a round, game or deal id fit to name a file (no separator, no leading dot)
ROUND_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def round_frames(frames_dir: Path | None, round_id: str) -> list[Path]:
    """The frames kept for the round (or game) and for each part of it (its deals), by name;
    none for an id that cannot name a file."""
    if frames_dir is None or not frames_dir.is_dir() or not ROUND_FILE.fullmatch(round_id):
        return []
    return sorted(p for p in frames_dir.glob(f"{round_id}*.png")
                  if (p.stem == round_id or p.stem.startswith(round_id + "-"))
                  and ROUND_FILE.fullmatch(p.stem) and p.is_file())


def ids_with_frames(frames_dir: Path | None) -> set[str]:
    """Every id a kept frame belongs to: each frame's own name and each of its prefixes cut
    at a `-` (a deal's frame `<game id>-D2` belongs to its game too). One listing of the
    folder, for a list of rounds that asks of each whether it has any."""
    if frames_dir is None or not frames_dir.is_dir():
        return set()
    out: set[str] = set()
    for p in frames_dir.glob("*.png"):
        if ROUND_FILE.fullmatch(p.stem):
            parts = p.stem.split("-")
            out.update("-".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out
