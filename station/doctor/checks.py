"""Every check of a table, in the order an engineer fixes things: the machine (disk, clock,
ports), the data (journal, settlement), then the devices (shoe, camera)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from station.doctor.camera import check_cameras
from station.doctor.clock import check_clock
from station.doctor.disk import check_disk
from station.doctor.journal import check_journal
from station.doctor.key import check_journal_key
from station.doctor.ports import check_port
from station.doctor.result import Finding
from station.doctor.settlement import check_settlement
from station.doctor.shoe import check_shoe


def run_all(cfg: Any, *, listen_s: float = 3.0, min_free_gib: float = 2.0,
            on_finding: Callable[[Finding], None] | None = None) -> list[Finding]:
    steps: list[Callable[[], Finding | list[Finding]]] = [
        lambda: check_disk(cfg.data_dir, min_free_gib=min_free_gib),
        check_clock,
        lambda: check_port("console", "console", cfg.console.host, cfg.console.port),
        lambda: check_port("bet API", "bet_api", cfg.bet_api.host, cfg.bet_api.port),
        lambda: check_journal_key(cfg),
        lambda: check_journal(cfg.journal_path, cfg.table.table, cfg.table.game,
                              key_env=cfg.signing_key_env, key_file=cfg.signing_key_file),
        lambda: check_settlement(cfg),
        lambda: check_shoe(cfg.shoe.url, baudrate=cfg.shoe.baudrate, listen_s=listen_s),
        lambda: check_cameras(cfg),
    ]
    out: list[Finding] = []
    for step in steps:
        got = step()
        for f in got if isinstance(got, list) else [got]:
            out.append(f)
            if on_finding is not None:
                on_finding(f)
    return out
