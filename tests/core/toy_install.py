"""The toy game installed as a game installed separately is: a distribution's metadata on
`sys.path` that declares it in the `dealer_station.games` entry-point group, as
`pip install` of a package with `[project.entry-points."dealer_station.games"]` would leave
it. Nothing of the station is edited or told: the registry finds it by its entry point."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from station.games import ENTRY_POINT_GROUP, GAMES

SPEC = "tests.core.toy_game:HighCard"


@contextmanager
def toy_game_installed(site: Path) -> Iterator[None]:
    """While inside: `highcard` is a game of the station through its entry point."""
    dist = site / "dealer_station_highcard-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: dealer-station-highcard\n"
                                   "Version: 1.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nhighcard = {SPEC}\n",
                                           encoding="utf-8")
    sys.path.insert(0, str(site))
    importlib.invalidate_caches()
    GAMES.rescan()
    try:
        yield
    finally:
        sys.path.remove(str(site))
        importlib.invalidate_caches()
        GAMES.rescan()
