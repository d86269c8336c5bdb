"""What someone holding the table's key would do to a journal they rewrote: recompute its
chain from the genesis and sign its checkpoints again, each in the journal's own chain
format (docs/core.md, "The hash chain"). The tests use it to show what still catches them."""

from __future__ import annotations

import json
import sqlite3

from station.core import chain


def _meta(c: sqlite3.Connection, key: str) -> str:
    return c.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()[0]


def genesis_of(c: sqlite3.Connection) -> bytes:
    text, header = _meta(c, "chain"), _meta(c, "header")
    meta = chain.read_chain_meta(text)
    return chain.genesis(json.loads(header)["table"], _meta(c, "journal_id"), header,
                         meta["every"], meta["unchained_through"], version=meta["version"],
                         chain_text=text, epoch_text=_meta(c, "epoch"))


def resign(c: sqlite3.Connection, key: bytes, seq: int, head: bytes) -> None:
    """The checkpoint at `seq` made to sign `head`, with the key."""
    table = json.loads(_meta(c, "header"))["table"]
    version = chain.read_chain_meta(_meta(c, "chain"))["version"]
    t_us, why = c.execute("SELECT t_us, why FROM checkpoints WHERE seq=?", (seq,)).fetchone()
    sig = chain.sign_checkpoint(key, table, _meta(c, "journal_id"), seq, head, version=version,
                                t_us=t_us, why=why)
    c.execute("UPDATE checkpoints SET head=?, sig=? WHERE seq=?", (head, sig, seq))
