"""The station's disk: free space watched, old frames and traces pruned, a new shoe refused
before the disk could fill during it (docs/operator.md, "The disk").

Free space is that of the filesystem under `storage.dir`, reported as the metric
`station_disk_free_bytes` (station/metrics.py) and in the table's view (`disk`), for the
console. Below `free_warn_mb` the view and the log warn; below `free_floor_mb` the dealer's
`new_shoe` is refused with a reason the dealer sees, so the table never starts a shoe it may
not be able to journal to its end. Frames and traces older than `retention_days` are removed,
from wherever the station keeps them (`[camera] frames_dir` may lie outside storage.dir);
the journal, the ledger, the users and the audit log never are (they are the evidence).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from station.metrics import REGISTRY

log = logging.getLogger("station.live")

MB = 1024 * 1024
DAY_S = 86_400
#: what pruning may remove, by name: kept camera frames and recorded traces, nothing else
FRAME_FILES = ("*.png",)
TRACE_FILES = ("*.jsonl", "*.jsonl.gz")


@dataclass(frozen=True)
class DiskLimits:
    retention_days: float = 90.0
    free_warn_mb: int = 2048
    free_floor_mb: int = 512


class DiskWatch:
    def __init__(self, data_dir: Path, table: str, limits: DiskLimits, *,
                 frames_dir: Path | None = None, traces_dir: Path | None = None) -> None:
        """`frames_dir`, `traces_dir`: where the camera keeps its frames and the recorder its
        traces (default `frames/` and `traces/` in `data_dir`)."""
        self.data_dir = Path(data_dir)
        self.table = table
        self.limits = limits
        self.pruned = ((Path(frames_dir) if frames_dir else self.data_dir / "frames", FRAME_FILES),
                       (Path(traces_dir) if traces_dir else self.data_dir / "traces", TRACE_FILES))
        self._gauge = REGISTRY.gauge("station_disk_free_bytes",
                                     "free space on the filesystem under storage.dir")
        self._warned = False

    def free_bytes(self) -> int:
        st = os.statvfs(self.data_dir)
        return st.f_bavail * st.f_frsize

    def status(self) -> dict[str, Any]:
        """For the view and the console: free space, and whether it is below the warning
        level or the floor."""
        free = self.free_bytes()
        self._gauge.set(free, table=self.table)
        low = free < self.limits.free_warn_mb * MB
        if low and not self._warned:
            log.warning("storage %s: %.0f MB free, below the warning level of %d MB",
                        self.data_dir, free / MB, self.limits.free_warn_mb)
        self._warned = low
        return {"free_bytes": free, "warn_bytes": self.limits.free_warn_mb * MB,
                "floor_bytes": self.limits.free_floor_mb * MB, "low": low,
                "below_floor": free < self.limits.free_floor_mb * MB}

    def new_shoe_refusal(self) -> str | None:
        """Why `new_shoe` must wait, or None."""
        free = self.free_bytes()
        floor = self.limits.free_floor_mb * MB
        if free >= floor:
            return None
        return (f"the station's disk has {free / MB:.0f} MB free, below the {self.limits.free_floor_mb}"
                f" MB a shoe needs: call the floor to free space before a new shoe")

    def prune(self, now_s: float | None = None) -> list[Path]:
        """Remove frames and traces older than `retention_days` (by their modification
        time); returns what was removed."""
        cutoff = (time.time() if now_s is None else now_s) - self.limits.retention_days * DAY_S
        removed = []
        for folder, patterns in self.pruned:
            if not folder.is_dir():
                continue
            for pattern in patterns:
                for p in folder.glob(pattern):
                    try:
                        if p.is_file() and p.stat().st_mtime < cutoff:
                            p.unlink()
                            removed.append(p)
                    except FileNotFoundError:
                        continue
        if removed:
            log.info("storage %s: removed %d frames and traces older than %g days",
                     ", ".join(str(f) for f, _ in self.pruned), len(removed),
                     self.limits.retention_days)
        return removed

    #: how often a running station prunes (and once at start)
    prune_every_s = 3600.0

    def start_pruning(self) -> Callable[[], None]:
        """Prune now and then every `prune_every_s` on a thread of its own; returns its stop."""
        stop = threading.Event()

        def run() -> None:
            while True:
                try:
                    self.prune()
                except OSError:
                    log.exception("storage %s: pruning failed", self.data_dir)
                if stop.wait(self.prune_every_s):
                    return

        thread = threading.Thread(target=run, name="disk-prune", daemon=True)
        thread.start()

        def halt() -> None:
            stop.set()
            thread.join(5)

        return halt
