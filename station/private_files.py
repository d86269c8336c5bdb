"""Files the station keeps at rest are readable by the station's own user only.

The journal and the recorded traces hold every card the shoe gave (face-down and burn cards
included), the ledger holds every account's money, the users file the password hashes, the
audit log who decided what: none of it is for other users of the machine
(docs/operator.md, "Files at rest"). Each is created through `private_file` before it is
opened, so it is born mode 0600 in a directory of mode 0700; SQLite gives its `-wal` and
`-shm` files the mode of the database file, so they follow. A file found with wider modes
(made by an older station) is narrowed.

`station` also runs with a umask of 077 (`station.cli`), so anything else it writes is
private too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
#: SQLite's companions of a database file
SQLITE_SUFFIXES = ("-wal", "-shm", "-journal")


def private_dir(path: str | Path) -> Path:
    """Make the directory (and its parents) if missing; the directory itself is 0700 when the
    station made it (an existing directory chosen by the operator keeps its mode)."""
    p = Path(path)
    if not p.exists():
        p.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    return p


def _narrow(path: Path) -> None:
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return
    if mode & 0o077:
        os.chmod(path, mode & 0o700)


def private_file(path: str | Path, *, sqlite: bool = False) -> Path:
    """Create `path` empty with mode 0600 if it does not exist; narrow it (and, for a SQLite
    database, its -wal/-shm/-journal files) if others may read it. Returns the path."""
    p = Path(path)
    private_dir(p.parent)
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        _narrow(p)
    else:
        os.close(fd)
    if sqlite:
        for suffix in SQLITE_SUFFIXES:
            _narrow(p.with_name(p.name + suffix))
    return p


def open_private(path: str | Path, mode: str = "w", **kw):
    """`open(path, mode)` for writing a new file, created 0600."""
    p = Path(path)
    private_dir(p.parent)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if "a" in mode else os.O_TRUNC)
    fd = os.open(p, flags, FILE_MODE)
    _narrow(p)
    return os.fdopen(fd, mode, **kw)
