"""Si Zhi Dao's soak for `./run.sh bench players`: `games` simulated games through the live
station with crashes (tools/soak.py), whose report gives the soak's pace."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def soak_pace(games: int, seed: int, crash: float, workdir: Path) -> Any:
    from station.games.sizhidao.tools.soak import SiZhiDaoSoak, SzSoakOptions

    return SiZhiDaoSoak(SzSoakOptions(games=games, seed=seed, crash=crash), workdir).run()
