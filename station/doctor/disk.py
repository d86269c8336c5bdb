"""Free disk under `storage.dir`: the journal, the traces and the frames of a day's shoes."""

from __future__ import annotations

import shutil
from pathlib import Path

from station.doctor.result import Finding, failed, passed

GIB = 1024 ** 3
#: below this the station could fill the disk within a few days of shoes (traces, frames)
MIN_FREE_GIB = 2.0
MIN_FREE_SHARE = 0.05


def existing_parent(path: Path) -> Path:
    p = path
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def check_disk(data_dir: Path, *, min_free_gib: float = MIN_FREE_GIB,
               min_free_share: float = MIN_FREE_SHARE) -> Finding:
    where = existing_parent(Path(data_dir))
    usage = shutil.disk_usage(where)
    free_gib = usage.free / GIB
    share = usage.free / usage.total if usage.total else 0.0
    text = (f"{free_gib:.2f} GiB free of {usage.total / GIB:.2f} GiB ({100 * share:.0f}%) under "
            f"{data_dir}" + ("" if where == Path(data_dir) else f" (measured at {where}: not made yet)"))
    data = {"dir": str(data_dir), "free_bytes": usage.free, "total_bytes": usage.total,
            "min_free_gib": min_free_gib, "min_free_share": min_free_share}
    if free_gib < min_free_gib or share < min_free_share:
        return failed("disk", text + f"; needs {min_free_gib:g} GiB and {100 * min_free_share:g}%",
                      "free space (old traces and frames can be archived off the machine) or put "
                      "storage.dir on a larger disk", **data)
    return passed("disk", text, **data)
