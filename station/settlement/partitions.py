"""Which settlement process applies which tables of the studio bus (docs/studio.md, "Partitions").

The unit of order is the table: each table's messages are applied strictly in its outbox
order, nothing across tables needs to be. A partition is a set of tables, chosen either by the
hash of the table's name (``--partition K/N``: the tables whose CRC-32 modulo N is K, so N
processes split any studio without a list) or by an explicit list (``--tables A,B``). Every
table of a partition has its own durable consumer on the bus, so a table handed to another
process resumes from exactly where the last owner's acknowledgements stopped.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from pathlib import Path

_SPEC = re.compile(r"^(\d+)/(\d+)$")


@dataclass(frozen=True)
class Partition:
    """Tables by hash: `index` of `count` (0 <= index < count)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Partition:
        m = _SPEC.match(text.strip())
        if not m:
            raise ValueError(f"a partition is K/N, e.g. 0/4 (the first of four): {text!r}")
        index, count = int(m.group(1)), int(m.group(2))
        if not 0 < count <= 1024 or not 0 <= index < count:
            raise ValueError(f"partition {text!r}: need 0 <= K < N <= 1024")
        return cls(index, count)

    def owns(self, table: str) -> bool:
        return partition_of(table, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def partition_of(table: str, count: int) -> int:
    """The partition of `table` among `count` (the same on every machine and Python)."""
    return zlib.crc32(table.encode()) % count


def read_partition_file(path: str | Path) -> tuple[list[str] | None, Partition | None]:
    """A process's partition from a file (`station settlement consume --partition-file`):
    `K/N` (by hash), or the tables it owns, separated by commas, spaces or lines. Returns
    (tables, None) or (None, partition); ValueError says what is wrong (the names are the
    consumer's to check)."""
    text = Path(path).read_text(encoding="utf-8").strip()
    if _SPEC.match(text):
        return None, Partition.parse(text)
    tables = [t for t in re.split(r"[\s,]+", text) if t]
    if not tables:
        raise ValueError(f"{path}: no tables and no K/N")
    return tables, None
