"""A table kernel's snapshot, as the journal keeps it: the pickled kernel with the format and
a hash of the code whose classes it pickles (docs/core.md, "Restarts").

A snapshot is only a shortcut past re-applying the journal from its first input. Pickled
objects carry their fields, not their classes, so a snapshot of code that has changed since
(a field gained, a rule reworded) could load and then fail, or load and quietly differ.
`load` therefore takes a snapshot only when both the format and the code hash match; any
other snapshot — one from before snapshots carried them, too — is refused with the reason,
and the station re-applies the journal from its first input instead.

Snapshots are not part of the hash chain, and unpickling runs whatever the bytes name. So a
snapshot carries an HMAC-SHA256 tag under the table's signing key over its bytes, the entry
it follows, the table and the journal id (its bytes name its format), and `load` checks the tag before it
unpickles anything: a snapshot written or changed by anything without the key (or moved to
another entry or journal) is refused and never unpickled. Without a key nothing is loaded.
"""

from __future__ import annotations

import hashlib
import hmac
import pickle
from functools import lru_cache
from pathlib import Path
from typing import Any

#: the layout of the stored blob; a new layout is a new number
FORMAT = 2
_MARK = "station-kernel-snapshot"
#: how a tagged snapshot's bytes begin; the 32-byte tag follows, then the pickle
_MAGIC = b"dealer-station snapshot 1\n"
#: how every snapshot a station with a signing key writes begins (one from before tags does
#: not): a journal holding one was written by a station that chains its journal
TAGGED_PREFIX = _MAGIC
_TAG_LEN = 32

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


def _tag(key: bytes, table: str, journal_id: str | None, seq: int, payload: bytes) -> bytes:
    # (the payload names its format and code itself, so the tag covers them too)
    msg = _MAGIC + "\n".join((table, journal_id or "", str(seq))).encode() + b"\n"
    return hmac.new(key, msg + payload, hashlib.sha256).digest()


def dump(kernel: Any, key: bytes, *, table: str, journal_id: str | None, seq: int) -> bytes:
    """The kernel's snapshot after entry `seq`, tagged under the table's key."""
    # the kernel nested as bytes of its own: its format and code are read before it is
    payload = pickle.dumps((_MARK, FORMAT, code_hash(),
                            pickle.dumps(kernel, pickle.HIGHEST_PROTOCOL)),
                           pickle.HIGHEST_PROTOCOL)
    return _MAGIC + _tag(key, table, journal_id, seq, payload) + payload


class StaleSnapshot(Exception):
    """A snapshot this code must not load; the message says why."""


def load(blob: bytes, key: bytes | None, *, table: str, journal_id: str | None,
         seq: int) -> Any:
    """The kernel in `blob`, or StaleSnapshot. Nothing is unpickled before the blob's tag is
    found to be the table key's over these very bytes, this entry and this journal."""
    if key is None:
        raise StaleSnapshot("the station has no signing key to authenticate it with")
    if not blob.startswith(_MAGIC) or len(blob) < len(_MAGIC) + _TAG_LEN:
        raise StaleSnapshot("it carries no authentication tag (written before snapshots were "
                            "tagged, or not by the station)")
    tag = blob[len(_MAGIC):len(_MAGIC) + _TAG_LEN]
    payload = blob[len(_MAGIC) + _TAG_LEN:]
    if not hmac.compare_digest(tag, _tag(key, table, journal_id, seq, payload)):
        raise StaleSnapshot("its authentication tag is not the table key's over it (changed, "
                            "moved from another entry or journal, or not written by the station)")
    try:
        obj = pickle.loads(payload)
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
