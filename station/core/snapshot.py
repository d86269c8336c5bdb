"""A table kernel's snapshot, as the journal keeps it: the pickled kernel with the format and
a hash of the code whose classes it pickles (docs/core.md, "Restarts").

A snapshot is only a shortcut past re-applying the journal from its first input. Pickled
objects carry their fields, not their classes, so a snapshot of code that has changed since
(a field gained, a rule reworded) could load and then fail, or load and quietly differ.
`load` therefore takes a snapshot only when both the format and the code hash match; any
other snapshot — one from before snapshots carried them, too — is refused with the reason,
and the station re-applies the journal from its first input instead.
"""

from __future__ import annotations

import hashlib
import pickle
from functools import lru_cache
from pathlib import Path
from typing import Any

#: the layout of the stored blob; a new layout is a new number
FORMAT = 2
_MARK = "station-kernel-snapshot"

_ROOT = Path(__file__).resolve().parents[2]
# (the hash is of the files as the station started: code_hash() is called at import below)
#: the code a kernel's pickled state is made of: the kernel, the games, the shoe's stream
#: and the card and money types
_SOURCES = ("station/core", "station/games", "firmware_bridge/shoe", "station/cards.py",
            "station/money.py")


@lru_cache(maxsize=1)
def code_hash() -> str:
    h = hashlib.sha256()
    for rel in _SOURCES:
        p = _ROOT / rel
        files = sorted(p.rglob("*.py")) if p.is_dir() else [p]
        for f in files:
            h.update(f.relative_to(_ROOT).as_posix().encode() + b"\0")
            h.update(f.read_bytes() + b"\0")
    return h.hexdigest()


def dump(kernel: Any) -> bytes:
    # the kernel nested as bytes of its own: its format and code are read before it is
    return pickle.dumps((_MARK, FORMAT, code_hash(),
                         pickle.dumps(kernel, pickle.HIGHEST_PROTOCOL)), pickle.HIGHEST_PROTOCOL)


class StaleSnapshot(Exception):
    """A snapshot this code must not load; the message says why."""


def load(blob: bytes) -> Any:
    """The kernel in `blob`, or StaleSnapshot. The journal is the station's own storage:
    trusted, so unpickling it is no risk beyond the code's own."""
    try:
        obj = pickle.loads(blob)
    except Exception as e:  # noqa: BLE001 - an old snapshot holds classes of old code
        raise StaleSnapshot(f"it does not load with this code ({type(e).__name__}: {e})") from e
    if not (isinstance(obj, tuple) and len(obj) == 4 and obj[0] == _MARK):
        raise StaleSnapshot("it was written before snapshots carried their format and code")
    _, fmt, code, kernel = obj
    if fmt != FORMAT:
        raise StaleSnapshot(f"its format is {fmt}, this code's is {FORMAT}")
    if code != code_hash():
        raise StaleSnapshot(f"it was made by other code (kernel code {str(code)[:12]}, "
                            f"now {code_hash()[:12]})")
    try:
        return pickle.loads(kernel)
    except Exception as e:  # noqa: BLE001 - same code, yet it does not load: re-apply
        raise StaleSnapshot(f"it does not load ({type(e).__name__}: {e})") from e


code_hash()  # at import: the code that runs, not files changed on disk since
