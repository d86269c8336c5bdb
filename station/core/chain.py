"""The journal's hash chain and its signed checkpoints: the encoding, and nothing else.

Every journal entry (one input, its time, and the records it produced) is hashed together
with the hash of the entry before it, from a genesis that names the table, the journal and
the journal's header. A checkpoint signs the chain head at one entry with the table's key
(HMAC-SHA256), so a journal changed on the table PC either breaks the chain or leaves a head
that no key-holder signed. The encoding is written down in docs/core.md ("The hash chain");
a verifier in any language can recompute it from the SQLite file alone.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import struct
from collections.abc import Iterable, Sequence
from typing import Any

#: the chain format a new journal is started with (`meta.chain` "version"). A journal keeps
#: the format it was started (or migrated) with: format 1 hashes no epoch into its genesis and
#: its checkpoints sign the head alone; format 2 hashes `meta.epoch` and the whole chain
#: description into the genesis, and signs each checkpoint's `t_us` and `why` with its head
CHAIN_VERSION = 2
CHAIN_VERSIONS = (1, 2)
GENESIS_TAGS = {1: b"dealer-station journal chain 1\n", 2: b"dealer-station journal chain 2\n"}
#: the head's own signature: every checkpoint of a format 1 journal, and the copy of any
#: checkpoint the ledger keeps (it witnesses heads; its `why` and `t` are its own record)
CHECKPOINT_TAG = b"dealer-station checkpoint 1\n"
#: a format 2 journal's checkpoint: the head with the checkpoint's time and reason
CHECKPOINT_TAG_2 = b"dealer-station checkpoint 2\n"
#: a checkpoint every this many entries, besides one at each round's end (a journal keeps
#: the value it was started with: it is part of its genesis)
CHECKPOINT_EVERY = 1000
#: the shortest signing key accepted, in bytes
MIN_KEY_BYTES = 16
#: the environment variable `station journal verify` reads the key from unless told another
DEFAULT_KEY_ENV = "STATION_JOURNAL_KEY"

#: the `why` of the checkpoint an orderly stop leaves at the journal's head; a station that
#: opens the journal with its key renames it (`STOP_THEN_STARTED`), so entries after a
#: checkpoint still called "stop" were written by something other than a keyed station
STOP = "stop"
STOP_THEN_STARTED = "stop, started again"


_ENTRY = struct.Struct(">cqqI")  # "E", seq, t_us, length of the input line
_LEN = struct.Struct(">I")


class ChainKeyError(ValueError):
    """The signing key is missing or unusable."""


def parse_key(text: str | bytes, where: str) -> bytes:
    """A signing key as the environment holds it: its UTF-8 bytes (64 hex digits is what
    docs/operator.md has you generate). Too short a key is refused, naming where it came from."""
    key = text.encode() if isinstance(text, str) else bytes(text)
    key = key.strip()
    if len(key) < MIN_KEY_BYTES:
        raise ChainKeyError(f"{where}: the journal signing key must be at least {MIN_KEY_BYTES} "
                        f"bytes (e.g. `openssl rand -hex 32`), got {len(key)}")
    return key


def key_from_env(name: str) -> bytes | None:
    value = os.environ.get(name)
    return None if not value else parse_key(value, f"${name}")


def genesis(table: str, journal_id: str | None, header_text: str, every: int,
            unchained_through: int, *, version: int = 1, chain_text: str = "",
            epoch_text: str = "") -> bytes:
    """The hash before entry 1 (or before the first chained entry of a migrated journal).
    Format 2 also hashes the chain description (`chain_text`, `meta.chain` as stored: its
    format, N, the unchained part and how it was migrated) and `meta.epoch` as stored, so a
    changed one fails at the genesis checkpoint."""
    if version == 1:
        fields: tuple[str, ...] = (table, journal_id or "", header_text, str(every),
                                   str(unchained_through))
    else:
        fields = (table, journal_id or "", header_text, chain_text, epoch_text)
    return hashlib.sha256(GENESIS_TAGS[version] + "\n".join(fields).encode()).digest()


def entry_hash(prev: bytes, seq: int, t_us: int, line: str | bytes,
               records: Sequence[str | bytes]) -> bytes:
    """SHA-256 over the previous hash, "E", seq and t_us (signed 64-bit big-endian), then the
    input line and each record (in the order they were made), each as UTF-8 preceded by its
    length (32-bit big-endian), the records preceded by their count. The verifier passes the
    bytes the file stores, as they are (a changed byte need not be UTF-8 any more)."""
    lb = line if isinstance(line, bytes) else line.encode()
    parts = [prev, _ENTRY.pack(b"E", seq, t_us, len(lb)), lb, _LEN.pack(len(records))]
    for r in records:
        rb = r if isinstance(r, bytes) else r.encode()
        parts.append(_LEN.pack(len(rb)))
        parts.append(rb)
    return hashlib.sha256(b"".join(parts)).digest()


def ends_round(round_end_records: frozenset[str], record_types: Iterable[object]) -> bool:
    """Whether an entry whose records have these types ends a round: one of them is a type
    the game declares round-ending (`Procedure.round_end_records`). The station signs the
    chain at every such entry and the verifier requires a checkpoint there."""
    return any(t in round_end_records for t in record_types)


def sign(key: bytes, table: str, journal_id: str | None, seq: int, head: bytes) -> str:
    """The head's signature: HMAC-SHA256 over what it vouches for, hex (a format 1
    checkpoint's, and the ledger's copy of every checkpoint)."""
    msg = CHECKPOINT_TAG + "\n".join((table, journal_id or "", str(seq), head.hex())).encode()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


def signature_ok(key: bytes, table: str, journal_id: str | None, seq: int, head: bytes,
                 sig: str) -> bool:
    return hmac.compare_digest(sign(key, table, journal_id, seq, head), str(sig))


def sign_checkpoint(key: bytes, table: str, journal_id: str | None, seq: int, head: bytes, *,
                    version: int, t_us: int, why: str) -> str:
    """A journal's checkpoint signature in its chain format: format 2 signs the
    checkpoint's time and reason with its head (why last: it is free text)."""
    if version == 1:
        return sign(key, table, journal_id, seq, head)
    msg = CHECKPOINT_TAG_2 + "\n".join(
        (table, journal_id or "", str(seq), head.hex(), str(t_us), why)).encode()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


def checkpoint_ok(key: bytes, table: str, journal_id: str | None, seq: int, head: bytes,
                  sig: str, *, version: int, t_us: int, why: str) -> bool:
    return hmac.compare_digest(sign_checkpoint(key, table, journal_id, seq, head,
                                               version=version, t_us=t_us, why=why), str(sig))


def chain_meta(every: int, unchained_through: int, **more: Any) -> str:
    """A new chain's description (`meta.chain`), in today's format; `more`: how a journal
    from before the chain was migrated (`migrated`)."""
    return json.dumps({"version": CHAIN_VERSION, "every": every,
                       "unchained_through": unchained_through, **more}, sort_keys=True)


def read_chain_meta(text: str) -> dict[str, Any]:
    meta = json.loads(text)
    if (not isinstance(meta, dict) or type(meta.get("version")) is not int
            or meta["version"] not in CHAIN_VERSIONS
            or not isinstance(meta.get("every"), int) or meta["every"] < 1
            or not isinstance(meta.get("unchained_through"), int)):
        raise ValueError(f"not a chain description: {text[:200]!r}")
    return meta
